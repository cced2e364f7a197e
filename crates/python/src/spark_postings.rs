//! The posting kernel of `neardup.spark.dedup`: one partition's
//! candidate-key postings packed by destination partition, in one call.
//! Spark moves the packed rows; [`crate::spark_pairs`] makes the pairs
//! where they land.
//!
//! A posting is 20 bytes, little-endian: document (`i64`, input order),
//! table (`i32`), key (`i64`): NumPy's `POSTING` record in
//! `neardup/spark/_blobs.py`. Its destination is [`mix_key`] of table and
//! key modulo the number of destinations; `_blobs.mix_keys` calls the same
//! function ([`mix_keys_batch`]), so every posting of a key lands in one
//! partition whichever side packed it. Keys held more than `common_above`
//! times in the partition are also given (12-byte `KEY` records: table,
//! key): the hot-key search counts those exactly.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::err;
use crate::packed::{i64s, u32s};

/// Bytes of a posting record.
const POSTING_BYTES: usize = 20;

/// One 64-bit mix of table and key: splitmix64's finalizer over `key ^
/// table * golden`. Spreads keys over destinations.
pub(crate) fn mix_key(table: u32, key: i64) -> u64 {
    let mut x = (key as u64) ^ u64::from(table).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// [`mix_key`] of each table and key (packed little-endian columns, 32 and
/// 64 bits), packed as unsigned 64-bit integers: the Python side's mix, so
/// that both send a key to one destination.
#[pyfunction]
pub fn mix_keys_batch<'py>(
    py: Python<'py>,
    tables: &[u8],
    keys: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let tables = u32s(tables, "tables").map_err(err)?;
    let keys = i64s(keys, "keys").map_err(err)?;
    if tables.len() != keys.len() {
        return Err(err("tables and keys differ in length"));
    }
    let out: Vec<u8> = tables
        .iter()
        .zip(&keys)
        .flat_map(|(&t, &k)| mix_key(t, k).to_le_bytes())
        .collect();
    Ok(PyBytes::new(py, &out))
}

/// A hasher for [`mix_key`] values: they are uniform already, so the
/// value is its own hash.
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// Destination indices and payloads (at most `chunk_bytes` of postings
/// each, those of one destination together), then the locally common
/// keys as packed `KEY` records.
type Packed<'py> = (Vec<u32>, Vec<Bound<'py, PyBytes>>, Bound<'py, PyBytes>);

/// One partition's postings (`ords`, `tables`, `keys`: packed
/// little-endian columns, 64, 32 and 64 bits, as
/// [`crate::spark::candidate_keys_batch`] gives them) packed by
/// destination (`dests` of them), and the keys held by more than
/// `common_above` of its postings.
#[pyfunction]
pub fn pack_postings_batch<'py>(
    py: Python<'py>,
    ords: &[u8],
    tables: &[u8],
    keys: &[u8],
    dests: usize,
    common_above: f64,
    chunk_bytes: usize,
) -> PyResult<Packed<'py>> {
    let ords = i64s(ords, "ords").map_err(err)?;
    let tables = u32s(tables, "tables").map_err(err)?;
    let keys = i64s(keys, "keys").map_err(err)?;
    if tables.len() != ords.len() || keys.len() != ords.len() {
        return Err(err("ords, tables and keys differ in length"));
    }
    if dests == 0 {
        return Err(err("dests must be at least 1"));
    }
    let (chunks, common) =
        py.allow_threads(|| pack(&ords, &tables, &keys, dests, common_above, chunk_bytes));
    let (dest, payloads): (Vec<u32>, Vec<Bound<'py, PyBytes>>) = chunks
        .into_iter()
        .map(|(d, bytes)| (d, PyBytes::new(py, &bytes)))
        .unzip();
    Ok((dest, payloads, PyBytes::new(py, &common)))
}

/// Buckets of the counting filter in front of the exact count of common
/// keys (a 4 MB table of counts by the mix's top bits).
const FILTER_BITS: u32 = 20;

/// Postings grouped by destination (input order kept within one) and cut
/// into chunks, and the common keys, sorted.
fn pack(
    ords: &[i64],
    tables: &[u32],
    keys: &[i64],
    dests: usize,
    common_above: f64,
    chunk_bytes: usize,
) -> (Vec<(u32, Vec<u8>)>, Vec<u8>) {
    let n = ords.len();
    let mixes: Vec<u64> = (0..n).map(|i| mix_key(tables[i], keys[i])).collect();
    let dest = |x: u64| (x % dests as u64) as usize;
    let mut counts = vec![0usize; dests];
    for &x in &mixes {
        counts[dest(x)] += 1;
    }
    let mut per_dest: Vec<Vec<u8>> = counts
        .iter()
        .map(|&c| Vec::with_capacity(c * POSTING_BYTES))
        .collect();
    for i in 0..n {
        let out = &mut per_dest[dest(mixes[i])];
        out.extend_from_slice(&ords[i].to_le_bytes());
        out.extend_from_slice(&tables[i].to_le_bytes());
        out.extend_from_slice(&keys[i].to_le_bytes());
    }
    let per_chunk = (chunk_bytes / POSTING_BYTES).max(1) * POSTING_BYTES;
    let mut chunks = Vec::new();
    for (d, bytes) in per_dest.into_iter().enumerate() {
        if bytes.len() <= per_chunk {
            if !bytes.is_empty() {
                chunks.push((d as u32, bytes));
            }
        } else {
            chunks.extend(bytes.chunks(per_chunk).map(|c| (d as u32, c.to_vec())));
        }
    }
    (chunks, common_keys(&mixes, tables, keys, common_above))
}

/// The keys of more than `common_above` postings, as packed `KEY` records,
/// sorted. Counted by their mix (colliding keys only merge counts: more
/// keys are common, never fewer), only for the postings whose bucket of a
/// counting filter (which never counts less than a key holds) passes the
/// bound.
fn common_keys(mixes: &[u64], tables: &[u32], keys: &[i64], common_above: f64) -> Vec<u8> {
    let bucket = |x: u64| (x >> (64 - FILTER_BITS)) as usize;
    let mut filter = vec![0u32; 1 << FILTER_BITS];
    for &x in mixes {
        filter[bucket(x)] += 1;
    }
    let maybe: Vec<usize> = (0..mixes.len())
        .filter(|&i| f64::from(filter[bucket(mixes[i])]) > common_above)
        .collect();
    let mut held: HashMap<u64, u32, BuildHasherDefault<MixHasher>> = HashMap::default();
    for &i in &maybe {
        *held.entry(mixes[i]).or_default() += 1;
    }
    let mut common: Vec<(u32, i64)> = maybe
        .into_iter()
        .filter(|&i| f64::from(held[&mixes[i]]) > common_above)
        .map(|i| (tables[i], keys[i]))
        .collect();
    common.sort_unstable();
    common.dedup();
    let mut out = Vec::with_capacity(common.len() * 12);
    for (t, k) in common {
        out.extend_from_slice(&t.to_le_bytes());
        out.extend_from_slice(&k.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{mix_key, pack, POSTING_BYTES};

    fn columns(postings: &[(i64, u32, i64)]) -> (Vec<i64>, Vec<u32>, Vec<i64>) {
        (
            postings.iter().map(|p| p.0).collect(),
            postings.iter().map(|p| p.1).collect(),
            postings.iter().map(|p| p.2).collect(),
        )
    }

    fn record(b: &[u8]) -> (i64, u32, i64) {
        let ord = i64::from_le_bytes(b[0..8].try_into().unwrap());
        let t = u32::from_le_bytes(b[8..12].try_into().unwrap());
        let k = i64::from_le_bytes(b[12..20].try_into().unwrap());
        (ord, t, k)
    }

    #[test]
    fn every_posting_lands_once_where_its_key_mixes_to() {
        let postings: Vec<(i64, u32, i64)> = (0..5_000i64)
            .map(|i| (i / 3, (i % 7) as u32, (i * 7919) % 97 - 40))
            .collect();
        let (ords, tables, keys) = columns(&postings);
        let (chunks, _) = pack(
            &ords,
            &tables,
            &keys,
            5,
            f64::INFINITY,
            10 * POSTING_BYTES + 7,
        );
        let mut got = Vec::new();
        for (d, bytes) in &chunks {
            assert!(bytes.len() <= 10 * POSTING_BYTES && bytes.len() % POSTING_BYTES == 0);
            for r in bytes.chunks(POSTING_BYTES) {
                let (ord, t, k) = record(r);
                assert_eq!(mix_key(t, k) % 5, u64::from(*d));
                got.push((ord, t, k));
            }
        }
        let mut want = postings.clone();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);
    }

    #[test]
    fn keys_held_more_than_the_bound_are_common() {
        let postings = vec![
            (1, 0, 5),
            (2, 0, 5),
            (3, 0, 5),
            (1, 1, 5),
            (2, 1, 6),
            (4, 1, 5),
        ];
        let (ords, tables, keys) = columns(&postings);
        let (_, keys) = pack(&ords, &tables, &keys, 2, 1.5, 1 << 20);
        let keys: Vec<(u32, i64)> = keys
            .chunks(12)
            .map(|b| {
                (
                    u32::from_le_bytes(b[0..4].try_into().unwrap()),
                    i64::from_le_bytes(b[4..12].try_into().unwrap()),
                )
            })
            .collect();
        assert_eq!(keys, vec![(0, 5), (1, 5)]);
    }

    #[test]
    fn common_keys_are_the_keys_held_more_than_the_bound() {
        use std::collections::BTreeMap;
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        for round in 0..50 {
            let n = 1 + next(3_000) as usize;
            let spread = 1 + next(400);
            let postings: Vec<(i64, u32, i64)> = (0..n)
                .map(|i| (i as i64, next(3) as u32, next(spread) as i64 - 50))
                .collect();
            let bound = (round % 9) as f64 + 0.5;
            let (ords, tables, keys) = columns(&postings);
            let (_, got) = pack(&ords, &tables, &keys, 3, bound, 1 << 20);
            let mut held: BTreeMap<(u32, i64), u32> = BTreeMap::new();
            for &(_, t, k) in &postings {
                *held.entry((t, k)).or_default() += 1;
            }
            let mut want = Vec::new();
            for ((t, k), c) in held {
                if f64::from(c) > bound {
                    want.extend_from_slice(&t.to_le_bytes());
                    want.extend_from_slice(&k.to_le_bytes());
                }
            }
            assert_eq!(got, want, "round {round}");
        }
    }

    #[test]
    fn the_mix_is_splitmix64s_finalizer_of_key_and_table() {
        // splitmix64's finalizer over `key ^ table * golden`, as NumPy
        // computed it before the Python side called this function.
        let cases = [
            (0, 0, 0u64),
            (3, -7, 14_871_335_008_177_693_066),
            (31, 123_456_789_012_345, 8_350_792_678_799_839_175),
            (7, -1, 10_078_564_121_556_696_136),
        ];
        for (t, k, want) in cases {
            assert_eq!(mix_key(t, k), want, "table {t}, key {k}");
        }
    }
}

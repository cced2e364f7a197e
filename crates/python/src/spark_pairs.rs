//! The candidate pair kernel of `neardup.spark.dedup`: the postings of one
//! partition (every posting of a key is in the same partition, Spark
//! shuffles them by key) become the pairs of documents that share a key,
//! each with the number of keys it shares here, by the engine's own
//! inverted index ([`neardup::index::InvertedIndex::pairs`]: its cap on a
//! posting's length included). The counts of a pair's partitions are summed
//! by Spark and compared with the method's minimum, as the engine does.
//!
//! This replaces a self-join of the postings in the JVM: a pair of
//! documents is made once per partition by sorted runs in Rust, instead of
//! once per shared key by a sort-merge join of rows.

use std::collections::BTreeMap;

use neardup::index::InvertedIndex;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::err;
use crate::packed::{i64_bytes, i64s, u32s};

/// Pairs `(u, v)` with `u < v` and how many keys of this call they share.
type Pairs = (Vec<i64>, Vec<i64>, Vec<u32>);

/// The pairs of documents that share a key among the postings `(ords[i],
/// tables[i], keys[i])` (document, candidate table, key in that table: the
/// rows of [`crate::spark::candidate_keys_batch`]), `u < v`, with the number
/// of keys they share, sorted; keys of more than `max_posting` documents
/// are left out, as the engine's index leaves them out. All the postings of
/// a key must be in one call. Columns in and out are packed little-endian
/// bytes ([`crate::packed`]): `ords` and `keys` 64-bit, `tables` 32-bit;
/// out `u`, `v` and the counts, all 64-bit.
#[pyfunction]
#[pyo3(signature = (ords, tables, keys, max_posting=None))]
pub fn bucket_pairs_batch<'py>(
    py: Python<'py>,
    ords: &[u8],
    tables: &[u8],
    keys: &[u8],
    max_posting: Option<usize>,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    let ords = i64s(ords, "ords").map_err(err)?;
    let tables = u32s(tables, "tables").map_err(err)?;
    let keys = i64s(keys, "keys").map_err(err)?;
    if tables.len() != ords.len() || keys.len() != ords.len() {
        return Err(err("ords, tables and keys differ in length"));
    }
    let (u, v, n) = py
        .allow_threads(|| -> Result<_, String> {
            let (u, v, n) = bucket_pairs(&ords, &tables, &keys, max_posting)?;
            let n: Vec<i64> = n.into_iter().map(i64::from).collect();
            Ok((i64_bytes(&u), i64_bytes(&v), i64_bytes(&n)))
        })
        .map_err(err)?;
    Ok((
        PyBytes::new(py, &u),
        PyBytes::new(py, &v),
        PyBytes::new(py, &n),
    ))
}

fn bucket_pairs(
    ords: &[i64],
    tables: &[u32],
    keys: &[i64],
    max_posting: Option<usize>,
) -> Result<Pairs, String> {
    let mut index = InvertedIndex::new();
    index
        .set_max_posting_len(max_posting)
        .map_err(|e| e.to_string())?;
    // The postings of each table as contiguous `(document, key)` records,
    // sorted: a document's keys are then one slice of `set_keys`, and the
    // index gets slices, not a vector a document.
    let mut by_table: BTreeMap<u32, Vec<(i64, u64)>> = BTreeMap::new();
    for i in 0..ords.len() {
        by_table
            .entry(tables[i])
            .or_default()
            .push((ords[i], keys[i] as u64));
    }
    let mut found: Vec<(i64, i64, u32)> = Vec::new();
    for (_, mut posts) in by_table {
        posts.sort_unstable();
        let mut docs: Vec<i64> = Vec::new();
        let mut bounds: Vec<usize> = Vec::new();
        let set_keys: Vec<u64> = posts.iter().map(|p| p.1).collect();
        for (at, &(ord, _)) in posts.iter().enumerate() {
            if docs.last() != Some(&ord) {
                docs.push(ord);
                bounds.push(at);
            }
        }
        bounds.push(posts.len());
        let sets: Vec<&[u64]> = bounds.windows(2).map(|w| &set_keys[w[0]..w[1]]).collect();
        for (a, b, shared) in index.pairs(&sets).map_err(|e| e.to_string())? {
            found.push((docs[a as usize], docs[b as usize], shared));
        }
    }
    found.sort_unstable_by_key(|&(u, v, _)| (u, v));
    let mut out: Pairs = (Vec::new(), Vec::new(), Vec::new());
    for (u, v, shared) in found {
        if out.0.last() == Some(&u) && out.1.last() == Some(&v) {
            if let Some(n) = out.2.last_mut() {
                *n += shared;
            }
        } else {
            out.0.push(u);
            out.1.push(v);
            out.2.push(shared);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::bucket_pairs;

    /// Every pair sharing a key, by brute force over the postings.
    fn brute(
        ords: &[i64],
        tables: &[u32],
        keys: &[i64],
        cap: Option<usize>,
    ) -> Vec<(i64, i64, u32)> {
        use std::collections::{BTreeMap, BTreeSet};
        let mut postings: BTreeMap<(u32, i64), BTreeSet<i64>> = BTreeMap::new();
        for i in 0..ords.len() {
            postings
                .entry((tables[i], keys[i]))
                .or_default()
                .insert(ords[i]);
        }
        let mut pairs: BTreeMap<(i64, i64), u32> = BTreeMap::new();
        for docs in postings.values() {
            if cap.is_some_and(|c| docs.len() > c) {
                continue;
            }
            let docs: Vec<i64> = docs.iter().copied().collect();
            for (x, &u) in docs.iter().enumerate() {
                for &v in &docs[x + 1..] {
                    *pairs.entry((u, v)).or_default() += 1;
                }
            }
        }
        pairs.into_iter().map(|((u, v), n)| (u, v, n)).collect()
    }

    #[test]
    fn pairs_equal_brute_force_on_random_postings() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        for round in 0..200 {
            let n = 1 + next(60) as usize;
            let ords: Vec<i64> = (0..n).map(|_| next(25) as i64 * 1_000_003 - 7).collect();
            let tables: Vec<u32> = (0..n).map(|_| next(4) as u32).collect();
            // Keys shared across tables on purpose: tables must not meet.
            let keys: Vec<i64> = (0..n).map(|_| next(6) as i64 - 3).collect();
            let cap = if round % 3 == 0 {
                Some(1 + next(4) as usize)
            } else {
                None
            };
            let got = bucket_pairs(&ords, &tables, &keys, cap).unwrap();
            let got: Vec<(i64, i64, u32)> = (0..got.0.len())
                .map(|i| (got.0[i], got.1[i], got.2[i]))
                .collect();
            assert_eq!(got, brute(&ords, &tables, &keys, cap), "round {round}");
        }
    }

    #[test]
    fn a_document_alone_makes_no_pair() {
        let got = bucket_pairs(&[5, 5], &[0, 1], &[9, 9], None).unwrap();
        assert!(got.0.is_empty());
    }
}

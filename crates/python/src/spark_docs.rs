//! Documents as packed blobs for the verification step of
//! `neardup.spark.dedup`: each partition's documents (input order,
//! signature, shingle sequence) travel as a few binary rows instead of one
//! Spark row each, and candidate pairs meet their two documents in one
//! task instead of two sort-merge joins of per-document rows.
//!
//! A document belongs to partition [`doc_partition`] of its order; the
//! pairs meet their documents in [`crate::spark_verify`].
//!
//! A document blob is a run of records, all little-endian: the order
//! (i64), the signature's length (u32), the shingle sequence's length
//! (u32, [`NO_SHINGLES`] for none), then the two byte strings. A pair blob
//! is a run of `(u, v)` (two i64).

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::err;
use crate::packed::{i64s, u32_bytes};

/// The shingle length field of a document without a shingle sequence.
pub const NO_SHINGLES: u32 = u32::MAX;

/// Bytes of a document record before its two byte strings.
const HEAD: usize = 16;

/// Bytes of a pair record.
pub const PAIR: usize = 16;

/// The partition (of `parts`) that a document of order `ord` belongs to:
/// splitmix64's finalizer of the order, so that consecutive orders spread.
pub fn doc_partition(ord: i64, parts: usize) -> usize {
    let mut x = ord as u64;
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    (x % parts.max(1) as u64) as usize
}

/// One document of a blob, borrowed from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocRef<'a> {
    pub ord: i64,
    pub sig: &'a [u8],
    pub shingles: Option<&'a [u8]>,
    /// The whole record, to forward as it is.
    pub record: &'a [u8],
}

/// Appends the record of one document to `out`.
pub fn push_doc(
    out: &mut Vec<u8>,
    ord: i64,
    sig: &[u8],
    shingles: Option<&[u8]>,
) -> Result<(), String> {
    let too_long = |n: usize| {
        u32::try_from(n)
            .ok()
            .filter(|&n| n != NO_SHINGLES)
            .is_none()
    };
    if too_long(sig.len()) || shingles.is_some_and(|s| too_long(s.len())) {
        return Err(format!(
            "document {ord}: a signature or shingle sequence of 4 GB or more"
        ));
    }
    out.extend(ord.to_le_bytes());
    out.extend((sig.len() as u32).to_le_bytes());
    out.extend(
        shingles
            .map_or(NO_SHINGLES, |s| s.len() as u32)
            .to_le_bytes(),
    );
    out.extend(sig);
    out.extend(shingles.unwrap_or_default());
    Ok(())
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The documents of one blob, or a message naming where it is damaged.
pub fn parse_docs(blob: &[u8]) -> Result<Vec<DocRef<'_>>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < blob.len() {
        let damaged =
            |what: &str| format!("document blob of {} bytes: {what} at byte {at}", blob.len());
        if blob.len() - at < HEAD {
            return Err(damaged("a truncated record"));
        }
        let ord = i64::from_le_bytes(blob[at..at + 8].try_into().expect("8 bytes"));
        let n_sig = u32_at(blob, at + 8) as usize;
        let n_sh = u32_at(blob, at + 12);
        let n_sh_bytes = if n_sh == NO_SHINGLES {
            0
        } else {
            n_sh as usize
        };
        let end = (at + HEAD)
            .checked_add(n_sig)
            .and_then(|e| e.checked_add(n_sh_bytes))
            .filter(|&e| e <= blob.len())
            .ok_or_else(|| damaged(&format!("a record of document {ord} longer than the blob")))?;
        let sig = &blob[at + HEAD..at + HEAD + n_sig];
        let shingles = (n_sh != NO_SHINGLES).then(|| &blob[at + HEAD + n_sig..end]);
        out.push(DocRef {
            ord,
            sig,
            shingles,
            record: &blob[at..end],
        });
        at = end;
    }
    Ok(out)
}

/// The pairs `(u, v)` of a pair blob.
pub fn parse_pairs(blob: &[u8]) -> Result<Vec<(i64, i64)>, String> {
    if blob.len() % PAIR != 0 {
        return Err(format!(
            "pair blob: {} bytes are not 16-byte pairs",
            blob.len()
        ));
    }
    let v = i64s(blob, "pair blob")?;
    Ok(v.chunks_exact(2).map(|p| (p[0], p[1])).collect())
}

/// Documents of several blobs by order; an order twice is an error.
pub fn index_docs<'a>(blobs: &'a [Vec<u8>]) -> Result<HashMap<i64, DocRef<'a>>, String> {
    let mut out = HashMap::new();
    for blob in blobs {
        for d in parse_docs(blob)? {
            if out.insert(d.ord, d).is_some() {
                return Err(format!("document {} is in the document blobs twice", d.ord));
            }
        }
    }
    Ok(out)
}

/// Records cut into payloads of at most `chunk_bytes` (a record longer
/// than that alone), each record whole.
pub fn chunked<'a>(records: impl Iterator<Item = &'a [u8]>, chunk_bytes: usize) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut cur = Vec::new();
    for r in records {
        if !cur.is_empty() && cur.len() + r.len() > chunk_bytes {
            out.push(std::mem::take(&mut cur));
        }
        cur.extend_from_slice(r);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The documents `(ords[i], sigs[i], shingles[i])` (`ords` packed
/// little-endian 64-bit) as blobs of their partitions (of `parts`), each
/// at most `chunk_bytes` unless one document is longer: the partition and
/// the payload of each.
#[pyfunction]
#[pyo3(signature = (ords, sigs, shingles, parts, chunk_bytes))]
pub fn pack_docs_batch<'py>(
    py: Python<'py>,
    ords: &[u8],
    sigs: Vec<Vec<u8>>,
    shingles: Vec<Option<Vec<u8>>>,
    parts: usize,
    chunk_bytes: usize,
) -> PyResult<(Vec<u32>, Vec<Bound<'py, PyBytes>>)> {
    let ords = i64s(ords, "ords").map_err(err)?;
    if sigs.len() != ords.len() || shingles.len() != ords.len() || parts == 0 {
        return Err(err(
            "ords, sigs and shingles differ in length, or no partitions",
        ));
    }
    let out = py
        .allow_threads(|| -> Result<Vec<(u32, Vec<u8>)>, String> {
            let mut records: Vec<Vec<u8>> = vec![Vec::new(); parts];
            let mut ends: Vec<Vec<usize>> = vec![Vec::new(); parts];
            for (i, &ord) in ords.iter().enumerate() {
                let p = doc_partition(ord, parts);
                push_doc(&mut records[p], ord, &sigs[i], shingles[i].as_deref())?;
                ends[p].push(records[p].len());
            }
            let mut out = Vec::new();
            for (p, (bytes, ends)) in records.iter().zip(&ends).enumerate() {
                let starts = std::iter::once(0).chain(ends.iter().copied());
                let each = starts.zip(ends).map(|(s, &e)| &bytes[s..e]);
                out.extend(
                    chunked(each, chunk_bytes)
                        .into_iter()
                        .map(|c| (p as u32, c)),
                );
            }
            Ok(out)
        })
        .map_err(err)?;
    Ok(out
        .into_iter()
        .map(|(p, c)| (p, PyBytes::new(py, &c)))
        .unzip())
}

/// The partition of each document order (`ords` packed little-endian
/// 64-bit), as packed little-endian 32-bit integers.
#[pyfunction]
pub fn doc_partitions_batch<'py>(
    py: Python<'py>,
    ords: &[u8],
    parts: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let ords = i64s(ords, "ords").map_err(err)?;
    if parts == 0 {
        return Err(err("no partitions"));
    }
    let p: Vec<u32> = ords
        .iter()
        .map(|&o| doc_partition(o, parts) as u32)
        .collect();
    Ok(PyBytes::new(py, &u32_bytes(&p)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document as the tests give it: order, signature, shingles.
    type Doc<'a> = (i64, &'a [u8], Option<&'a [u8]>);

    fn blob(docs: &[Doc<'_>]) -> Vec<u8> {
        let mut out = Vec::new();
        for &(ord, sig, sh) in docs {
            push_doc(&mut out, ord, sig, sh).unwrap();
        }
        out
    }

    #[test]
    fn documents_round_trip_with_and_without_shingles() {
        let b = blob(&[
            (7, b"sig", Some(b"shingles")),
            (-3, b"", None),
            (9, b"x", Some(b"")),
        ]);
        let got: Vec<_> = parse_docs(&b)
            .unwrap()
            .iter()
            .map(|d| (d.ord, d.sig, d.shingles))
            .collect();
        let want: Vec<Doc<'_>> = vec![
            (7, b"sig", Some(b"shingles")),
            (-3, b"", None),
            (9, b"x", Some(b"")),
        ];
        assert_eq!(got, want);
        // Records forward as they are.
        let again: Vec<u8> = parse_docs(&b)
            .unwrap()
            .iter()
            .flat_map(|d| d.record.to_vec())
            .collect();
        assert_eq!(again, b);
    }

    #[test]
    fn damaged_document_blobs_are_refused_with_the_place() {
        let b = blob(&[(1, b"abc", Some(b"defg")), (2, b"h", None)]);
        let e = parse_docs(&b[..b.len() - 1]).unwrap_err();
        assert!(e.contains("document 2 longer than the blob"), "{e}");
        let e = parse_docs(&b[..HEAD - 3]).unwrap_err();
        assert!(e.contains("truncated record at byte 0"), "{e}");
        // A length field past the end (a huge signature) is caught, not read.
        let mut bad = b.clone();
        bad[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = parse_docs(&bad).unwrap_err();
        assert!(e.contains("document 1 longer than the blob"), "{e}");
    }

    #[test]
    fn pair_blobs_are_whole_pairs() {
        let b: Vec<u8> = [1i64, 2, 3, 4]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert_eq!(parse_pairs(&b).unwrap(), vec![(1, 2), (3, 4)]);
        assert!(parse_pairs(&b[..8])
            .unwrap_err()
            .contains("not 16-byte pairs"));
    }

    #[test]
    fn an_order_twice_is_refused() {
        let blobs = vec![blob(&[(1, b"a", None)]), blob(&[(1, b"a", None)])];
        assert!(index_docs(&blobs).unwrap_err().contains("document 1"));
    }

    #[test]
    fn chunks_keep_records_whole_and_under_the_bound() {
        let records: Vec<Vec<u8>> = (1..=20).map(|n| vec![n as u8; n]).collect();
        let chunks = chunked(records.iter().map(Vec::as_slice), 30);
        assert_eq!(chunks.concat(), records.concat());
        for c in &chunks {
            // At most the bound, or one record longer than it alone.
            assert!(
                c.len() <= 30 || records.iter().any(|r| r == c),
                "{}",
                c.len()
            );
        }
        let big = chunked([vec![0u8; 50].as_slice(), &[1u8; 5]].into_iter(), 30);
        assert_eq!(big.iter().map(Vec::len).collect::<Vec<_>>(), vec![50, 5]);
    }

    #[test]
    fn partitions_are_in_range_and_spread() {
        let mut counts = [0usize; 4];
        for ord in 0..4000 {
            counts[doc_partition(ord, 4)] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(doc_partition(-5, 1), 0);
    }
}

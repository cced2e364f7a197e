//! Candidate pairs for each method, never all pairs: LSH bands for MinHash,
//! permuted tables for SimHash, an inverted index over the signature's keys
//! for every other method.

use std::path::Path;

use neardup_index::{DirStorage, InvertedIndex, LshParams, MinHashLsh, SimHashIndex};
use neardup_sketch::{Method, Signature};

use crate::error::Error;

/// Postings longer than this are features too common to say anything
/// (boilerplate sentences, empty paragraphs): they make no candidates.
pub const MAX_POSTING_LEN: usize = 10_000;

/// How far below the verification threshold the LSH S-curve is centred, so
/// that pairs just above the threshold are found with high probability.
const LSH_MARGIN: f64 = 0.1;

/// Candidate pairs `(i, j)`, `i < j`, among `sigs`, sorted. With
/// `spill_dir`, MinHash band tables are sorted on disk in that directory
/// instead of in memory (same pairs).
pub fn candidate_pairs(
    method: &Method,
    sigs: &[&Signature],
    spill_dir: Option<&Path>,
) -> Result<Vec<(u32, u32)>, Error> {
    if sigs.len() < 2 {
        return Ok(Vec::new());
    }
    match method {
        Method::MinHash(m) => minhash_pairs(sigs, m.get_threshold(), spill_dir),
        Method::OphMinHash(m) => minhash_pairs(sigs, m.get_threshold(), spill_dir),
        Method::SimHash(m) => {
            let mut index = SimHashIndex::<u64>::new();
            index.set_max_distance(m.get_max_distance())?;
            let fps: Vec<u64> = sigs
                .iter()
                .map(|s| match s {
                    Signature::SimHash(h) => h.value64(),
                    _ => 0,
                })
                .collect();
            Ok(index
                .pairs(&fps)?
                .into_iter()
                .map(|(a, b, _)| (a, b))
                .collect())
        }
        _ => {
            let keys: Vec<Vec<u64>> = sigs.iter().map(|s| s.index_keys()).collect();
            let mut index = InvertedIndex::new();
            let min_shared = if matches!(method, Method::SuperShingle(_)) {
                2
            } else {
                1
            };
            index.set_min_shared(min_shared)?;
            index.set_max_posting_len(Some(MAX_POSTING_LEN))?;
            Ok(index
                .pairs(&keys)?
                .into_iter()
                .map(|(a, b, _)| (a, b))
                .collect())
        }
    }
}

/// LSH over MinHash values, its S-curve centred a little below `threshold`
/// and weighted towards recall: verification removes the false positives.
fn minhash_pairs(
    sigs: &[&Signature],
    threshold: f64,
    spill_dir: Option<&Path>,
) -> Result<Vec<(u32, u32)>, Error> {
    let values: Vec<&[u32]> = sigs
        .iter()
        .map(|s| match s {
            Signature::MinHash(m) => m.values(),
            _ => &[][..],
        })
        .collect();
    let num_perm = values.iter().map(|v| v.len()).min().unwrap_or(0);
    if num_perm == 0 {
        return Err(Error::signature("a MinHash signature has no values"));
    }
    let lsh_threshold = (threshold - LSH_MARGIN).clamp(0.05, 1.0);
    let params = LshParams::optimal(lsh_threshold, num_perm, 0.3, 0.7)?;
    let mut lsh = MinHashLsh::new();
    lsh.set_params(params);
    match spill_dir {
        None => Ok(lsh.build(&values)?.candidate_pairs()),
        Some(dir) => {
            let mut storage = DirStorage::new(dir);
            storage.set_prefix(&format!("neardup-{}", std::process::id()));
            let mut pairs = Vec::new();
            lsh.spill()
                .candidate_pairs(values.iter(), &mut storage, |a, b| pairs.push((a, b)))?;
            Ok(pairs)
        }
    }
}

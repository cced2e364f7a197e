//! Candidate pairs for each method, never all pairs: LSH bands for MinHash,
//! permuted tables for SimHash, an inverted index over the signature's keys
//! for every other method.

use std::path::PathBuf;

use neardup_index::{DirStorage, InvertedIndex, LshParams, MinHashLsh, SimHashIndex};
use neardup_sketch::{CandidateRule, Method, Signature, LSH_WEIGHTS};

use crate::error::Error;

/// Where and how band tables are sorted on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spill {
    /// The directory of the sorted runs (removed when done).
    pub dir: PathBuf,
    /// Entries per sorted run (a run is sorted in memory, then written).
    pub run_records: usize,
}

impl Spill {
    /// Spilling into `dir` with runs of 4 Mi entries (about 64 MiB each).
    pub fn new(dir: impl Into<PathBuf>) -> Spill {
        Spill {
            dir: dir.into(),
            run_records: 4 << 20,
        }
    }
}

/// Candidate pairs `(i, j)`, `i < j`, among `sigs`, sorted. With
/// `spill_dir`, MinHash band tables are sorted on disk in that directory
/// instead of in memory (same pairs).
pub fn candidate_pairs(
    method: &Method,
    sigs: &[&Signature],
    spill: Option<&Spill>,
) -> Result<(Vec<(u32, u32)>, usize), Error> {
    if sigs.len() < 2 {
        return Ok((Vec::new(), 0));
    }
    match method.candidate_rule() {
        CandidateRule::Lsh { threshold } => minhash_pairs(sigs, threshold, spill),
        CandidateRule::Hamming { max_distance } => {
            let mut index = SimHashIndex::<u64>::new();
            index.set_max_distance(max_distance)?;
            let fps: Vec<u64> = sigs
                .iter()
                .map(|s| match s {
                    Signature::SimHash(h) => h.value64(),
                    _ => 0,
                })
                .collect();
            let pairs = index
                .pairs(&fps)?
                .into_iter()
                .map(|(a, b, _)| (a, b))
                .collect();
            Ok((pairs, 0))
        }
        CandidateRule::Keys {
            min_shared,
            max_posting_len,
        } => {
            let keys: Vec<Vec<u64>> = sigs.iter().map(|s| s.index_keys()).collect();
            let mut index = InvertedIndex::new();
            index.set_min_shared(min_shared)?;
            index.set_max_posting_len(Some(max_posting_len))?;
            let pairs = index
                .pairs(&keys)?
                .into_iter()
                .map(|(a, b, _)| (a, b))
                .collect();
            Ok((pairs, 0))
        }
    }
}

/// Candidate pairs of MinHash signatures whose Jaccard similarity may be as
/// low as `threshold` (for the containment side channel: a partial reprint
/// has a low resemblance); empty for other methods.
pub fn low_similarity_pairs(sigs: &[&Signature], threshold: f64) -> Result<Vec<(u32, u32)>, Error> {
    if sigs.len() < 2 || !sigs.iter().all(|s| matches!(s, Signature::MinHash(_))) {
        return Ok(Vec::new());
    }
    Ok(minhash_pairs(sigs, threshold, None)?.0)
}

/// LSH over MinHash values, its S-curve centred at `lsh_threshold` (callers
/// put it a little below their decision threshold) and weighted towards
/// recall: verification removes the false positives.
fn minhash_pairs(
    sigs: &[&Signature],
    lsh_threshold: f64,
    spill: Option<&Spill>,
) -> Result<(Vec<(u32, u32)>, usize), Error> {
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
    let params = LshParams::optimal(
        lsh_threshold.clamp(0.05, 1.0),
        num_perm,
        LSH_WEIGHTS.0,
        LSH_WEIGHTS.1,
    )?;
    let mut lsh = MinHashLsh::new();
    lsh.set_params(params);
    match spill {
        None => Ok((lsh.build(&values)?.candidate_pairs(), 0)),
        Some(spill) => {
            let mut storage = DirStorage::new(&spill.dir);
            storage.set_prefix(&format!("neardup-{}", std::process::id()));
            let mut pairs = Vec::new();
            let mut external = lsh.spill();
            external.set_run_records(spill.run_records);
            let stats =
                external.candidate_pairs(values.iter(), &mut storage, |a, b| pairs.push((a, b)))?;
            Ok((pairs, stats.entry_runs + stats.pair_runs))
        }
    }
}

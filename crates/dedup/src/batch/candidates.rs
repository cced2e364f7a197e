//! Candidate pairs for each method, never all pairs: LSH bands for MinHash,
//! permuted tables for SimHash, an inverted index over the signature's keys
//! for every other method.

use std::path::PathBuf;

use neardup_index::{DirStorage, InvertedIndex, LshParams, MinHashLsh, SimHashIndex};
use neardup_sketch::{CandidateRule, Method, Signature, LSH_WEIGHTS};

use crate::batch::sig_spill::SigSpill;
use crate::error::Error;

/// The signatures candidate pairs are found among (pair indices are
/// positions in it): in memory, or spilled (the signatures of the
/// documents of `docs`, in that order).
pub(crate) enum SigSource<'s, 'a> {
    /// In memory.
    Memory(&'s [&'a Signature]),
    /// On disk: the signatures of `docs`.
    Spilled {
        /// The spilled signatures.
        spill: &'s mut SigSpill,
        /// The documents, by position, ascending.
        docs: &'s [u32],
        /// Each document's position in `docs` (`u32::MAX` when not in
        /// it), one per document of the store.
        positions: &'s [u32],
    },
}

impl SigSource<'_, '_> {
    fn len(&self) -> usize {
        match self {
            SigSource::Memory(s) => s.len(),
            SigSource::Spilled { docs, .. } => docs.len(),
        }
    }

    /// The first signature, the kind and size of all of them (one method
    /// made them).
    fn first(&mut self) -> Result<Option<Signature>, Error> {
        match self {
            SigSource::Memory(s) => Ok(s.first().map(|&s| s.clone())),
            SigSource::Spilled { spill, docs, .. } => match docs.first() {
                Some(&d) => Ok(spill.load(&[d])?.remove(&d)),
                None => Ok(None),
            },
        }
    }
}

/// Entries per sorted run of a band sort on disk, by default.
pub(crate) const RUN_RECORDS: usize = 4 << 20;

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
            run_records: RUN_RECORDS,
        }
    }
}

/// Candidate pairs `(i, j)`, `i < j`, among `sigs`, sorted. With
/// `spill_dir`, MinHash band tables are sorted on disk in that directory
/// instead of in memory (same pairs). Spilled signatures are streamed for
/// MinHash (the band tables then always on disk); the other methods'
/// signatures, a few bytes each, are read back into memory.
pub(crate) fn candidate_pairs(
    method: &Method,
    mut source: SigSource<'_, '_>,
    spill: Option<&Spill>,
) -> Result<(Vec<(u32, u32)>, usize), Error> {
    if source.len() < 2 {
        return Ok((Vec::new(), 0));
    }
    let rule = method.candidate_rule();
    if let CandidateRule::Lsh { threshold } = rule {
        return minhash_pairs(source, threshold, spill);
    }
    let loaded: Vec<Signature>;
    let held: Vec<&Signature>;
    let sigs: &[&Signature] = match &mut source {
        SigSource::Memory(s) => s,
        SigSource::Spilled { spill, docs, .. } => {
            let mut all = spill.load(docs)?;
            loaded = docs
                .iter()
                .map(|d| {
                    all.remove(d)
                        .ok_or_else(|| Error::signature("a spilled document has no signature"))
                })
                .collect::<Result<_, Error>>()?;
            held = loaded.iter().collect();
            &held
        }
    };
    match rule {
        CandidateRule::Lsh { threshold } => {
            minhash_pairs(SigSource::Memory(sigs), threshold, spill)
        }
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
pub(crate) fn low_similarity_pairs(
    mut source: SigSource<'_, '_>,
    threshold: f64,
) -> Result<Vec<(u32, u32)>, Error> {
    let minhash = match &source {
        SigSource::Memory(s) => s.iter().all(|s| matches!(s, Signature::MinHash(_))),
        SigSource::Spilled { spill, .. } if spill.keys_params().is_some() => {
            return Err(Error::signature(
                "the containment side channel needs the signatures, not their band keys",
            ))
        }
        SigSource::Spilled { .. } => matches!(source.first()?, Some(Signature::MinHash(_))),
    };
    if source.len() < 2 || !minhash {
        return Ok(Vec::new());
    }
    Ok(minhash_pairs(source, threshold, None)?.0)
}

/// LSH over MinHash values, its S-curve centred at `lsh_threshold` (callers
/// put it a little below their decision threshold) and weighted towards
/// recall: verification removes the false positives. Spilled signatures
/// are streamed into band tables sorted on disk (in `spill`'s directory,
/// else the signatures' own).
fn minhash_pairs(
    mut source: SigSource<'_, '_>,
    lsh_threshold: f64,
    spill: Option<&Spill>,
) -> Result<(Vec<(u32, u32)>, usize), Error> {
    let num_perm = match &source {
        SigSource::Memory(sigs) => sigs.iter().map(|s| minhash_values(s).len()).min(),
        SigSource::Spilled { spill, .. } if spill.keys_params().is_some() => {
            spill.keys_params().map(|p| p.num_perm())
        }
        SigSource::Spilled { .. } => source.first()?.map(|s| minhash_values(&s).len()),
    }
    .unwrap_or(0);
    if num_perm == 0 {
        return Err(Error::signature("a MinHash signature has no values"));
    }
    let params = band_params(lsh_threshold, num_perm)?;
    let mut lsh = MinHashLsh::new();
    lsh.set_params(params);
    let on_disk = match (&source, spill) {
        (_, Some(spill)) => Some(spill.clone()),
        (SigSource::Spilled { spill, .. }, None) => Some(Spill::new(spill.dir())),
        (SigSource::Memory(_), None) => None,
    };
    let Some(on_disk) = on_disk else {
        let SigSource::Memory(sigs) = source else {
            return Err(Error::signature(
                "spilled signatures need their band tables on disk",
            ));
        };
        let values: Vec<&[u32]> = sigs.iter().map(|s| minhash_values(s)).collect();
        return Ok((lsh.build(&values)?.candidate_pairs(), 0));
    };
    let mut storage = DirStorage::new(&on_disk.dir);
    storage.set_prefix(&format!("neardup-{}", std::process::id()));
    let mut pairs = Vec::new();
    let mut external = lsh.spill();
    external.set_run_records(on_disk.run_records);
    let stats = match source {
        SigSource::Memory(sigs) => external.candidate_pairs(
            sigs.iter().map(|s| minhash_values(s)),
            &mut storage,
            |a, b| pairs.push((a, b)),
        ),
        SigSource::Spilled {
            spill,
            docs,
            positions,
        } if spill.is_fed() => {
            // Band keys fed to a sort of their own as the documents came.
            let stats = spill.fed_pairs(docs, positions, &external, |a, b| pairs.push((a, b)))?;
            return Ok((pairs, stats.entry_runs + stats.pair_runs));
        }
        SigSource::Spilled { spill, docs, .. } => {
            // Band keys, made when the documents were spilled or from the
            // signatures kept whole.
            let mut keys = spill.band_keys(docs, params);
            let stats = external
                .candidate_pairs_of_keys(&mut keys, &mut storage, |a, b| pairs.push((a, b)));
            if let Some(e) = keys.error() {
                return Err(e);
            }
            stats
        }
    }?;
    Ok((pairs, stats.entry_runs + stats.pair_runs))
}

/// The bands and rows of the candidate pass's LSH for signatures of
/// `num_perm` values, its S-curve centred at `lsh_threshold`: what the
/// band tables and the band keys a spilled document keeps are made with.
///
/// # Errors
/// When no such bands can be made.
pub(crate) fn band_params(lsh_threshold: f64, num_perm: usize) -> Result<LshParams, Error> {
    Ok(LshParams::optimal(
        lsh_threshold.clamp(0.05, 1.0),
        num_perm,
        LSH_WEIGHTS.0,
        LSH_WEIGHTS.1,
    )?)
}

/// A MinHash signature's values; none for another method's.
fn minhash_values(sig: &Signature) -> &[u32] {
    match sig {
        Signature::MinHash(m) => m.values(),
        _ => &[],
    }
}

//! Candidate search, clustering and evaluation for near-duplicate detection.
//!
//! The crate works on raw fingerprint values, whatever method made them:
//!
//! | fingerprint | index | output |
//! |---|---|---|
//! | MinHash signature (`&[u32]` / `&[u64]`) | [`MinHashLsh`] → [`LshTables`] (batch), [`LshIndex`] (incremental), [`SpillLsh`] (larger than RAM) | candidate pairs |
//! | SimHash (`u64` / `u128`) | [`SimHashIndex`] (permuted tables) | pairs within Hamming distance `k` |
//! | exact / I-Match key (`u64` / `u128`) | [`KeyGroups`] (batch), [`KeyIndex`] (incremental) | groups of equal keys |
//! | feature-hash set (`&[u64]`) | [`InvertedIndex`] | pairs sharing `>= m` features |
//!
//! Candidate pairs are then verified by the caller (in parallel with
//! [`Clusterer::verify`]) and clustered by [`Clusterer::cluster`], which
//! never chains: each duplicate is similar to its cluster's representative.
//! [`Evaluator`] scores a clustering against ground truth like the project's
//! benchmark scorer.
//!
//! Every output is sorted and independent of the thread count. Document ids
//! are dense `u32` indices; `u32::MAX` is reserved.
//!
//! # Example
//!
//! ```
//! use neardup_index::{Clusterer, LshParams, MinHashLsh};
//!
//! # fn main() -> neardup_index::Result<()> {
//! // Three documents' MinHash signatures (4 values here; 128 in practice).
//! let sigs: Vec<Vec<u64>> = vec![vec![1, 2, 3, 4], vec![1, 2, 3, 9], vec![5, 6, 7, 8]];
//! let mut lsh = MinHashLsh::new();
//! lsh.set_params(LshParams::new(2, 2)?);
//! let pairs = lsh.build(&sigs)?.candidate_pairs();
//! assert_eq!(pairs, vec![(0, 1)]);
//!
//! // Verify candidates (here: fraction of equal signature values).
//! let clusterer = Clusterer::new();
//! let scored = clusterer.verify(&pairs, |a, b| {
//!     let (x, y) = (&sigs[a as usize], &sigs[b as usize]);
//!     Some(x.iter().zip(y).filter(|(p, q)| p == q).count() as f64 / x.len() as f64)
//! });
//! let clusters = clusterer.cluster(sigs.len(), None, &scored, None)?;
//! assert_eq!(clusters.labels(), vec![0, 0, 2]);
//! assert_eq!(clusters.assignments()[1].duplicate_of, Some(0));
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod band_entries;
mod band_merge;
mod cluster;
mod compact;
mod compact_lsh;
mod compact_run;
mod components;
mod error;
mod eval;
mod graph;
mod inverted;
mod key_index;
mod lsh;
mod lsh_index;
mod params;
mod radix;
mod run_record;
mod simhash_index;
mod sorter;
mod spill;
mod spill_lsh;
mod storage;
mod table;
#[cfg(test)]
mod test_data;

pub use band_entries::BandEntries;
pub use cluster::{priority_order, Assignment, Clusterer, Clustering, Containment};
pub use compact::{CompactPostings, FRESH_MIN};
pub use compact_lsh::{folded_band_keys, CompactLsh};
pub use error::{Error, ErrorKind, Result};
pub use eval::{Evaluator, KindRecall, PairScores, Role};
pub use inverted::{InvertedIndex, SharedPair};
pub use key_index::{KeyGroups, KeyIndex};
pub use lsh::{band_key, band_keys, LshTables, MinHashLsh, SignatureValue, BAND_SEED};
pub use lsh_index::LshIndex;
pub use params::{LshParams, MAX_PERM, SIMPSON_INTERVALS};
pub use simhash_index::{Fingerprint, SimHashIndex, SimPair};
pub use spill::RUN_VERSION;
pub use spill_lsh::{SpillLsh, SpillStats};
pub use storage::{DirStorage, MemoryStorage, SpillStorage};

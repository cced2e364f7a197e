//! neardup-index (work in progress)
#![deny(missing_docs)]

mod cluster;
mod error;
mod eval;
mod inverted;
mod key_index;
mod lsh;
mod lsh_index;
mod params;
mod simhash_index;
mod spill;
mod spill_lsh;
mod table;

pub use cluster::{priority_order, Assignment, Clusterer, Clustering, Containment};
pub use error::{Error, ErrorKind, Result};
pub use eval::{Evaluator, KindRecall, PairScores, Role};
pub use inverted::{InvertedIndex, SharedPair};
pub use key_index::{KeyGroups, KeyIndex};
pub use lsh::{band_key, LshTables, MinHashLsh, SignatureValue, BAND_SEED};
pub use lsh_index::LshIndex;
pub use params::{LshParams, MAX_PERM, SIMPSON_INTERVALS};
pub use simhash_index::{Fingerprint, SimHashIndex, SimPair};
pub use spill::{DirStorage, MemoryStorage, SpillStorage, RUN_VERSION};
pub use spill_lsh::{SpillLsh, SpillStats};

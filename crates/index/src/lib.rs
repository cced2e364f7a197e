//! neardup-index (work in progress)
#![deny(missing_docs)]

mod error;
mod lsh;
mod lsh_index;
mod params;
mod table;

pub use error::{Error, ErrorKind, Result};
pub use lsh::{band_key, LshTables, MinHashLsh, SignatureValue, BAND_SEED};
pub use lsh_index::LshIndex;
pub use params::{LshParams, MAX_PERM, SIMPSON_INTERVALS};

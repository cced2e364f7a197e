//! placeholder
#![deny(missing_docs)]
#![forbid(unsafe_code)]
mod codec;
mod doc;
mod error;
mod hash;
mod idf;
mod minhash;
mod oph;
mod simhash;
pub use doc::DocText;
pub use error::{Error, ErrorKind, Result};
pub use idf::{IdfTable, IdfTableBuilder};
pub use minhash::{MinHash, MinHashScheme, MinHashSig};
pub use oph::OphMinHash;
pub use simhash::{SimHash, SimHashSig};

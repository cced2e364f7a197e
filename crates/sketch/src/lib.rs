//! Fingerprints for near-duplicate detection, every method behind one
//! interface.
//!
//! | name (`Method::from_str`) | struct | signature | raw values for indexing |
//! |---|---|---|---|
//! | `exact` | [`Exact`] | [`ExactSig`] | [`ExactSig::digest`] (16 bytes), [`BloomFilter`] |
//! | `simhash`, `simhash128` | [`SimHash`] | [`SimHashSig`] | [`SimHashSig::value64`] / [`SimHashSig::value128`] |
//! | `minhash` | [`MinHash`] | [`MinHashSig`] | [`MinHashSig::values`] (`&[u32]`) |
//! | `minhash-oph` | [`OphMinHash`] | [`MinHashSig`] | [`MinHashSig::values`] |
//! | `supershingle` | [`SuperShingle`] | [`SuperShingleSig`] | [`SuperShingleSig::keys`] |
//! | `imatch` | [`IMatch`] | [`IMatchSig`] | [`IMatchSig::keys`] |
//! | `long-sentence` | [`LongSentence`] | [`LongSentenceSig`] | [`LongSentenceSig::hashes`] |
//! | `feature-code` | [`FeatureCode`] | [`FeatureCodeSig`] | [`FeatureCodeSig::code_keys`], [`FeatureCodeSig::codes`] |
//! | `paragraph` | [`Paragraph`] | [`ParagraphSig`] | [`ParagraphSig::entries`], [`Paragraph::align`] |
//!
//! Every method struct has `new()` with its paper's defaults, `&mut self`
//! setters, and a typed `signature(&DocText)`. Every struct and the
//! [`Method`] enum implement [`Sketcher`] (`sketch`, `similarity`,
//! `is_duplicate`) over the [`Signature`] enum, whose `to_bytes` /
//! `from_bytes` implement a versioned, checksummed format ([`codec`]).
//!
//! ```
//! use neardup_sketch::{DocText, Method, Sketcher};
//! let method: Method = "minhash".parse()?;
//! let a = method.sketch(&DocText::from_text("the quick brown fox jumps over the lazy dog"));
//! let b = method.sketch(&DocText::from_text("The quick brown fox jumps over the lazy dog."));
//! assert!(method.is_duplicate(&a, &b)?);
//! # Ok::<(), neardup_sketch::Error>(())
//! ```
//!
//! Exact set measures for verification live in [`jaccard`], [`containment`]
//! and [`overlap`].
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod bloom;
pub mod codec;
mod doc;
mod error;
mod exact;
mod feature_code;
mod hash;
mod idf;
mod imatch;
mod jaccard;
mod long_sentence;
mod method;
mod minhash;
mod oph;
mod paragraph;
mod signature;
mod simhash;
mod supershingle;

pub use bloom::BloomFilter;
pub use doc::DocText;
pub use error::{Error, ErrorKind, Result};
pub use exact::{Exact, ExactAlgorithm, ExactSig};
pub use feature_code::{FeatureCode, FeatureCodeSig};
pub use idf::{IdfTable, IdfTableBuilder};
pub use imatch::{IMatch, IMatchSig};
pub use jaccard::{containment, intersection_size, jaccard, overlap, Overlap};
pub use long_sentence::{LongSentence, LongSentenceSig};
pub use method::{Method, MethodKind, Sketcher};
pub use minhash::{MinHash, MinHashScheme, MinHashSig};
pub use oph::OphMinHash;
pub use paragraph::{Alignment, Paragraph, ParagraphSig};
pub use signature::Signature;
pub use simhash::{SimHash, SimHashSig};
pub use supershingle::{SuperShingle, SuperShingleSig};

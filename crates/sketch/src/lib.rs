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
//!
//! # Defaults
//!
//! | method | defaults (paper's where it gives them) |
//! |---|---|
//! | `exact` | xxh3-128 of the normalized text (punctuation kept); MD5 optional |
//! | `simhash` | 64 bits, single tokens, TF weights (TF-IDF with an [`IdfTable`]), Hamming <= 3 (6 for 128 bits) |
//! | `minhash` | 128 permutations, token 5-grams (CJK: character 5-grams), Jaccard >= 0.5 |
//! | `minhash-oph` | 128 bins, token 5-grams, optimal densification, Jaccard >= 0.5 |
//! | `supershingle` | 84 min-hashes = 6 groups of 14, token 5-grams, >= 2 shared |
//! | `imatch` | 1 lexicon (K optional, each extra one drops 1/3 of terms), IDF >= 0.5 with a table, all terms without |
//! | `long-sentence` | clauses cut at `，,、：:` too, length >= k = 8 tokens, m = 10 longest, Jaccard >= 0.5 |
//! | `feature-code` | L = 5 tokens each side of `。.!?`, LCS tolerance 2 per side, 32 codes, length ratio a = 1.10, overlap >= 0.5 |
//! | `paragraph` | paragraphs >= 20 chars, 64-bit SimHash of token 2-grams, Hamming <= 3, Dice share >= 0.8 |
//!
//! "Tokens" are words for space-delimited scripts and single characters for
//! CJK ([`neardup_text::tokens`]); lengths in tokens are therefore
//! characters for Chinese and words for English. MinHash, one-permutation
//! MinHash and super-shingles also take a [`neardup_text::Segmenter`] that
//! cuts CJK runs into character bigrams or dictionary words.
//!
//! # Performance
//!
//! Every method sketches from the raw text in one pass where it can: for
//! ASCII text the shingler tokenizes and lowercases in place (no normalized
//! copy), each token is hashed once with xxh3 and each k-gram hashes the
//! token hashes. Classic MinHash then spends one 32-bit multiply-add and one
//! min per slot and shingle, a loop the compiler vectorizes. On x86 the
//! loop is also compiled for SSE4.1 and AVX2 and the widest one the CPU has
//! is picked at run time, so a default build gets the vector 32-bit multiply
//! and unsigned minimum the SSE2 baseline lacks (about 6x faster on
//! precomputed shingle hashes) with bit-identical signatures. The
//! one-permutation variant costs one mix per shingle and is dominated by
//! shingling. Run `cargo bench -p neardup-sketch` for figures.
#![deny(missing_docs)]
// Denied, not forbidden: `kernel::x86` alone allows it, to call the
// `#[target_feature]` compilations of the MinHash loop after detection.
#![deny(unsafe_code)]

mod bloom;
mod candidate_rule;
pub mod codec;
mod doc;
mod error;
mod exact;
mod feature_code;
mod hash;
mod idf;
mod imatch;
mod jaccard;
mod kernel;
mod long_sentence;
mod method;
mod minhash;
mod oph;
mod paragraph;
mod params;
mod signature;
mod simhash;
mod supershingle;

pub use bloom::BloomFilter;
pub use candidate_rule::{CandidateRule, LSH_MARGIN, LSH_WEIGHTS, MAX_POSTING_LEN};
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
pub use params::{PARAMS_MAGIC, PARAMS_VERSION};
pub use signature::Signature;
pub use simhash::{SimHash, SimHashSig};
pub use supershingle::{SuperShingle, SuperShingleSig};

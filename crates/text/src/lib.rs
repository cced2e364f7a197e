//! Text normalization and features for neardup.
//!
//! Everything here is pure and allocation-conscious: functions take `&str`
//! and return sub-slices, iterators or hashes. The pieces:
//!
//! * [`normalize`]: NFKC, lowercasing, whitespace collapsing, punctuation
//!   kept or stripped ([`NormalizeOptions`]); [`normalize_paragraphs`] for
//!   the paragraphs handed over by extraction.
//! * [`tokens`]: words for space-delimited scripts, single characters for
//!   CJK (Han, Hiragana, Katakana, Hangul); [`char_ngrams`].
//! * [`Shingler`]: token or character k-grams hashed to `u64` with xxh3,
//!   each token hashed once.
//! * [`sentences`] / [`clauses`]: sentence splitting on `。！？；!?.;…` and
//!   friends, [`sentence_len`] in characters (CJK) or words.
//!
//! * [`Segmenter`]: CJK segmentation chosen at run time
//!   ([`CjkSegmentation`]): single characters (the default), overlapping
//!   character bigrams of runs of CJK characters ([`ShingleUnit::Bigram`]
//!   shingles; what neardup's default method uses), or, with the cargo
//!   feature `jieba`, dictionary words for runs of Han characters
//!   (jieba-rs), which make [`ShingleUnit::Word`] shingles.
//!
//! Without a dictionary segmenter CJK text is tokenized one character at a
//! time, and methods that need longer units use character k-grams.
//!
//! ```
//! use neardup_text::{normalize, shingle_hashes, NormalizeOptions, ShingleUnit};
//! let a = normalize("The quick brown fox jumps over the lazy dog.", NormalizeOptions::default());
//! let b = normalize("THE QUICK BROWN FOX jumps over the lazy dog!", NormalizeOptions::default());
//! assert_eq!(
//!     shingle_hashes(&a, ShingleUnit::Token, 5),
//!     shingle_hashes(&b, ShingleUnit::Token, 5),
//! );
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod ascii;
mod asciirun;
mod chartable;
mod fastnorm;
#[cfg(feature = "jieba")]
mod jieba;
mod normalize;
#[cfg(test)]
mod reference;
mod script;
mod segment;
mod sentence;
mod shingle;
mod spaced;
mod tokens;
mod windows;

pub use normalize::{
    normalize, normalize_into, normalize_into_bytes, normalize_paragraphs, NormalizeOptions,
    Punctuation,
};
pub use script::{is_cjk, is_han, is_invisible, is_punctuation, is_word_char};
pub use segment::{CjkSegmentation, SegmentationError, Segmenter};
pub use sentence::{clauses, is_clause_break, is_sentence_end, sentence_len, sentences, Pieces};
pub use shingle::{
    hash_token_hashes, shingle_hashes, token_hash, ShingleUnit, Shingler, SHINGLE_SEED, TOKEN_SEED,
};
pub use tokens::{char_ngrams, token_count, tokens, CharNgrams, Tokens};

//! Exact duplicates: a 128-bit digest of the normalized text.
//!
//! The text is normalized (NFKC, lowercase, collapsed whitespace; punctuation
//! kept by default, stripped on request) and digested with xxh3-128 (default,
//! fast) or MD5 (for interoperability with systems that store MD5 digests).

use md5::{Digest, Md5};
use neardup_text::{normalize, NormalizeOptions, Punctuation};
use xxhash_rust::xxh3::xxh3_128;

use crate::codec::{Reader, Writer};
use crate::doc::DocText;
use crate::error::{ErrorKind, Result};

/// The digest algorithm of [`Exact`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExactAlgorithm {
    /// xxh3 128-bit, seed 0.
    Xxh3_128,
    /// MD5.
    Md5,
}

/// An exact-duplicate digest.
///
/// Body format: algorithm u8 (0 xxh3-128, 1 MD5), punctuation u8 (0 kept,
/// 1 stripped), 16 digest bytes (xxh3 as little-endian u128, MD5 as is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExactSig {
    pub(crate) algorithm: ExactAlgorithm,
    pub(crate) stripped: bool,
    pub(crate) digest: [u8; 16],
}

impl ExactSig {
    /// The 16 digest bytes (a key for a hash set or a [`crate::BloomFilter`]).
    pub fn digest(&self) -> &[u8; 16] {
        &self.digest
    }

    /// The digest as a little-endian u128.
    pub fn as_u128(&self) -> u128 {
        u128::from_le_bytes(self.digest)
    }

    /// The algorithm that made this digest.
    pub fn algorithm(&self) -> ExactAlgorithm {
        self.algorithm
    }

    /// Whether two digests are equal.
    ///
    /// # Errors
    /// [`ErrorKind::ParameterMismatch`] when algorithms or punctuation modes differ.
    pub fn same(&self, other: &ExactSig) -> Result<bool> {
        if self.algorithm != other.algorithm || self.stripped != other.stripped {
            return Err(ErrorKind::ParameterMismatch.into());
        }
        Ok(self.digest == other.digest)
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u8(match self.algorithm {
            ExactAlgorithm::Xxh3_128 => 0,
            ExactAlgorithm::Md5 => 1,
        });
        w.u8(self.stripped as u8);
        w.bytes(&self.digest);
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let algorithm = match r.u8()? {
            0 => ExactAlgorithm::Xxh3_128,
            1 => ExactAlgorithm::Md5,
            _ => return Err(ErrorKind::Malformed("bad exact algorithm").into()),
        };
        let stripped = crate::codec::read_bool(r)?;
        let mut digest = [0u8; 16];
        digest.copy_from_slice(r.take(16)?);
        Ok(ExactSig {
            algorithm,
            stripped,
            digest,
        })
    }
}

/// Exact-duplicate method; see the module documentation.
///
/// ```
/// use neardup_sketch::{DocText, Exact};
/// let e = Exact::new();
/// let a = e.signature(&DocText::from_text("Hello   World"));
/// let b = e.signature(&DocText::from_text("hello world"));
/// assert!(a.same(&b).unwrap());
/// assert_eq!(a.digest().len(), 16);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exact {
    algorithm: ExactAlgorithm,
    punctuation: Punctuation,
}

impl Default for Exact {
    fn default() -> Self {
        Self::new()
    }
}

impl Exact {
    /// xxh3-128 of the text normalized with punctuation kept.
    pub fn new() -> Self {
        Exact {
            algorithm: ExactAlgorithm::Xxh3_128,
            punctuation: Punctuation::Keep,
        }
    }

    /// Sets the digest algorithm.
    pub fn algorithm(&mut self, algorithm: ExactAlgorithm) -> &mut Self {
        self.algorithm = algorithm;
        self
    }

    /// Sets whether punctuation is kept or stripped before digesting.
    pub fn punctuation(&mut self, p: Punctuation) -> &mut Self {
        self.punctuation = p;
        self
    }

    /// Digest of a document.
    pub fn signature(&self, doc: &DocText<'_>) -> ExactSig {
        let opts = NormalizeOptions {
            punctuation: self.punctuation,
            lowercase: true,
        };
        self.signature_of_normalized(&normalize(doc.text, opts))
    }

    /// Digest of an already normalized text (normalized with this method's
    /// punctuation mode).
    pub fn signature_of_normalized(&self, text: &str) -> ExactSig {
        let digest = match self.algorithm {
            ExactAlgorithm::Xxh3_128 => xxh3_128(text.as_bytes()).to_le_bytes(),
            ExactAlgorithm::Md5 => Md5::digest(text.as_bytes()).into(),
        };
        ExactSig {
            algorithm: self.algorithm,
            stripped: self.punctuation == Punctuation::Strip,
            digest,
        }
    }
}

impl Exact {
    /// Writes every parameter (for [`crate::Method::params_bytes`]).
    pub(crate) fn encode_params(&self, w: &mut crate::codec::Writer) {
        w.u8(match self.algorithm {
            ExactAlgorithm::Xxh3_128 => 0,
            ExactAlgorithm::Md5 => 1,
        });
        w.u8(match self.punctuation {
            neardup_text::Punctuation::Keep => 0,
            neardup_text::Punctuation::Strip => 1,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_matches_reference() {
        let mut e = Exact::new();
        e.algorithm(ExactAlgorithm::Md5);
        let s = e.signature_of_normalized("");
        let hex: String = s.digest().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "d41d8cd98f00b204e9800998ecf8427e");
    }

    #[test]
    fn punctuation_mode_matters() {
        let keep = Exact::new();
        let mut strip = Exact::new();
        strip.punctuation(Punctuation::Strip);
        let (a, b) = (
            DocText::from_text("Hi, there!"),
            DocText::from_text("hi there"),
        );
        assert!(!keep.signature(&a).same(&keep.signature(&b)).unwrap());
        assert!(strip.signature(&a).same(&strip.signature(&b)).unwrap());
        assert!(keep.signature(&a).same(&strip.signature(&a)).is_err());
    }
}

//! Long sentences (Liu, Zhang, Xia & Qian 2009).
//!
//! The text is cut at punctuation — sentence ends and, as in the paper,
//! commas and colons — into "sentences". Those of at least `k = 8` tokens
//! (characters for CJK, words for spaced scripts) are long; the `m = 10`
//! longest are kept (ties broken by hash, so the choice depends only on the
//! set) and each is hashed from its token hashes. Similarity is the Jaccard
//! coefficient of the two hash sets; duplicates at >= 0.5. A document with
//! no long sentence keeps its `m` longest sentences instead, so short
//! documents still get features. The paper stores MD5 digests and leaves
//! `m` and the threshold open; the 64-bit hashes and these values are ours.

use neardup_text::{clauses, hash_token_hashes, sentences, token_hash, tokens};

use crate::codec::{Reader, Writer};
use crate::doc::DocText;
use crate::error::{ErrorKind, Result};
use crate::hash::mix64;

/// Long-sentence hashes of a document.
///
/// Body format: params u64, count u32, `count` u64 hashes (sorted).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LongSentenceSig {
    pub(crate) params: u64,
    pub(crate) hashes: Vec<u64>,
}

impl LongSentenceSig {
    /// The sentence hashes, sorted and distinct (keys for an inverted index).
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// Jaccard similarity of the two hash sets.
    ///
    /// # Errors
    /// [`ErrorKind::ParameterMismatch`] for signatures of different settings.
    pub fn jaccard(&self, other: &LongSentenceSig) -> Result<f64> {
        if self.params != other.params {
            return Err(ErrorKind::ParameterMismatch.into());
        }
        Ok(crate::jaccard::jaccard(&self.hashes, &other.hashes))
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u64(self.params);
        w.len(self.hashes.len());
        self.hashes.iter().for_each(|&k| w.u64(k));
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let params = r.u64()?;
        let n = r.count(8)?;
        let hashes: Vec<u64> = (0..n).map(|_| r.u64()).collect::<Result<_>>()?;
        if hashes.windows(2).any(|w| w[0] >= w[1]) {
            return Err(ErrorKind::Malformed("hashes not sorted").into());
        }
        Ok(LongSentenceSig { params, hashes })
    }
}

/// Long-sentence method; see the module documentation.
///
/// ```
/// use neardup_sketch::{DocText, LongSentence};
/// let ls = LongSentence::new();
/// let a = ls.signature(&DocText::from_text(
///     "首先，该算法对网页进行去杂处理，然后提取出文中的长句作为网页的特征。",
/// ));
/// assert_eq!(a.hashes().len(), 2); // "首先" is too short
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LongSentence {
    min_len: usize,
    keep: usize,
    commas: bool,
    threshold: f64,
}

impl Default for LongSentence {
    fn default() -> Self {
        Self::new()
    }
}

impl LongSentence {
    /// k = 8, m = 10, cut at commas too, duplicate at Jaccard >= 0.5.
    pub fn new() -> Self {
        LongSentence {
            min_len: 8,
            keep: 10,
            commas: true,
            threshold: 0.5,
        }
    }

    /// Sets the minimum length k of a long sentence, in tokens.
    pub fn min_len(&mut self, k: usize) -> &mut Self {
        self.min_len = k.max(1);
        self
    }

    /// Sets how many of the longest sentences are kept (m >= 1).
    pub fn keep(&mut self, m: usize) -> &mut Self {
        self.keep = m.max(1);
        self
    }

    /// Whether commas and colons also cut sentences (the paper's choice).
    pub fn split_on_commas(&mut self, yes: bool) -> &mut Self {
        self.commas = yes;
        self
    }

    /// Sets the Jaccard at or above which documents are duplicates.
    pub fn threshold(&mut self, t: f64) -> &mut Self {
        self.threshold = t;
        self
    }

    /// The duplicate threshold.
    pub fn get_threshold(&self) -> f64 {
        self.threshold
    }

    /// Hashes of a document (normalizes its text first).
    pub fn signature(&self, doc: &DocText<'_>) -> LongSentenceSig {
        self.signature_of_normalized(&doc.normalized())
    }

    /// Hashes of an already normalized text.
    pub fn signature_of_normalized(&self, text: &str) -> LongSentenceSig {
        let pieces: Vec<&str> = if self.commas {
            clauses(text).collect()
        } else {
            sentences(text).collect()
        };
        let mut scored: Vec<(usize, u64)> = Vec::with_capacity(pieces.len());
        let mut buf = Vec::new();
        for p in pieces {
            buf.clear();
            buf.extend(tokens(p).map(token_hash));
            if !buf.is_empty() {
                scored.push((buf.len(), hash_token_hashes(&buf)));
            }
        }
        let has_long = scored.iter().any(|&(len, _)| len >= self.min_len);
        if has_long {
            scored.retain(|&(len, _)| len >= self.min_len);
        }
        scored.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.dedup_by_key(|s| s.1);
        let mut hashes: Vec<u64> = scored.iter().take(self.keep).map(|s| s.1).collect();
        hashes.sort_unstable();
        hashes.dedup();
        let params = mix64(
            (self.min_len as u64) << 32 | self.keep as u64,
            self.commas as u64,
        );
        LongSentenceSig { params, hashes }
    }
}

impl LongSentence {
    /// Writes every parameter (for [`crate::Method::params_bytes`]).
    pub(crate) fn encode_params(&self, w: &mut crate::codec::Writer) {
        w.len(self.min_len);
        w.len(self.keep);
        w.u8(self.commas as u8);
        w.f64(self.threshold);
    }
}

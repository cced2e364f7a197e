//! Feature codes around periods combined with text length (Zhang et al.
//! 2002; Peng, Zhao, Zheng & Yu).
//!
//! At every sentence-ending period (`。 . ． ｡ ! ? ！ ？`, not a decimal
//! point) the `L = 5` tokens on each side (characters for CJK, words for
//! spaced scripts) form a code of `2L` token values; at most `max_codes = 32`
//! codes are kept, in text order. Periods without `L` tokens on both sides
//! give no code; a text with no code at all gets one code from its first
//! `2L` tokens. The text length is the number of tokens.
//!
//! Two codes match tolerantly when, on each side, the longest common
//! subsequence of their tokens is at least `L - tolerance` (tolerance 2,
//! the paper's "L-1 or L-2"). Codes are matched one-to-one; the overlap is
//! `matched / max(codes_a, codes_b)`. Documents are duplicates when the
//! overlap is >= 0.5 and the length ratio `max/min` is <= `a = 1.10`.
//! Similarity is `overlap · min_len / max_len`.

use neardup_text::{token_hash, tokens};

use crate::codec::{Reader, Writer};
use crate::doc::DocText;
use crate::error::{ErrorKind, Result};
use crate::hash::mix64;

/// Feature codes and text length of a document.
///
/// Body format: side length L u8, length u32, count u32, then `count · 2L`
/// u32 token values (each code: L left tokens, then L right tokens).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FeatureCodeSig {
    pub(crate) side: u8,
    pub(crate) length: u32,
    pub(crate) tokens: Vec<u32>,
}

impl FeatureCodeSig {
    /// Tokens on each side of the period (L).
    pub fn side(&self) -> usize {
        self.side as usize
    }

    /// Text length in tokens.
    pub fn length(&self) -> u32 {
        self.length
    }

    /// The codes, each `2L` token values (left side, then right side).
    pub fn codes(&self) -> impl Iterator<Item = &[u32]> {
        self.tokens.chunks_exact(2 * self.side().max(1))
    }

    /// One 64-bit key per code, for an exact-match inverted index (tolerant
    /// matching then verifies candidates).
    pub fn code_keys(&self) -> Vec<u64> {
        self.codes()
            .map(|c| c.iter().fold(0x434F_4445, |acc, &t| mix64(acc, t as u64)))
            .collect()
    }

    /// Number of codes matched one-to-one with tolerance `tolerance`.
    ///
    /// # Errors
    /// [`ErrorKind::ParameterMismatch`] for different L.
    pub fn matched(&self, other: &FeatureCodeSig, tolerance: usize) -> Result<usize> {
        if self.side != other.side {
            return Err(ErrorKind::ParameterMismatch.into());
        }
        let l = self.side();
        let need = l.saturating_sub(tolerance);
        let theirs: Vec<&[u32]> = other.codes().collect();
        let mut used = vec![false; theirs.len()];
        let mut n = 0;
        for a in self.codes() {
            let hit = theirs.iter().enumerate().position(|(j, b)| {
                !used[j] && lcs(&a[..l], &b[..l]) >= need && lcs(&a[l..], &b[l..]) >= need
            });
            if let Some(j) = hit {
                used[j] = true;
                n += 1;
            }
        }
        Ok(n)
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u8(self.side);
        w.u32(self.length);
        w.len(self.tokens.len() / (2 * self.side().max(1)));
        self.tokens.iter().for_each(|&t| w.u32(t));
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let side = r.u8()?;
        if side == 0 {
            return Err(ErrorKind::Malformed("zero code side").into());
        }
        let length = r.u32()?;
        let n = r.count(8 * side as usize)?;
        let tokens = (0..n * 2 * side as usize)
            .map(|_| r.u32())
            .collect::<Result<_>>()?;
        Ok(FeatureCodeSig {
            side,
            length,
            tokens,
        })
    }
}

fn lcs(a: &[u32], b: &[u32]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for &x in a {
        for (j, &y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Feature-code method; see the module documentation.
///
/// ```
/// use neardup_sketch::{DocText, FeatureCode};
/// let fc = FeatureCode::new();
/// let a = fc.signature(&DocText::from_text("今天北京天气很好。我们一起去公园散步吧。"));
/// assert_eq!(a.codes().count(), 1);
/// assert_eq!(a.length(), 18);
/// assert!(fc.is_duplicate(&a, &a).unwrap());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureCode {
    side: usize,
    tolerance: usize,
    max_codes: usize,
    ratio: f64,
    min_overlap: f64,
}

impl Default for FeatureCode {
    fn default() -> Self {
        Self::new()
    }
}

impl FeatureCode {
    /// L = 5, tolerance 2, 32 codes, length ratio a = 1.10, overlap >= 0.5.
    pub fn new() -> Self {
        FeatureCode {
            side: 5,
            tolerance: 2,
            max_codes: 32,
            ratio: 1.10,
            min_overlap: 0.5,
        }
    }

    /// Sets L, the tokens taken on each side of a period (1..=255).
    pub fn side(&mut self, l: usize) -> &mut Self {
        self.side = l.clamp(1, 255);
        self
    }

    /// Sets the tolerance (tokens per side that may be missing from the LCS).
    pub fn tolerance(&mut self, t: usize) -> &mut Self {
        self.tolerance = t;
        self
    }

    /// Sets the maximum number of codes kept.
    pub fn max_codes(&mut self, n: usize) -> &mut Self {
        self.max_codes = n.max(1);
        self
    }

    /// Sets the largest text-length ratio `a` of duplicates.
    pub fn length_ratio(&mut self, a: f64) -> &mut Self {
        self.ratio = a;
        self
    }

    /// Sets the smallest code overlap of duplicates.
    pub fn min_overlap(&mut self, o: f64) -> &mut Self {
        self.min_overlap = o;
        self
    }

    /// Codes of a document (normalizes its text first).
    pub fn signature(&self, doc: &DocText<'_>) -> FeatureCodeSig {
        self.signature_of_normalized(&doc.normalized())
    }

    /// Codes of an already normalized text.
    pub fn signature_of_normalized(&self, text: &str) -> FeatureCodeSig {
        let base = text.as_ptr() as usize;
        let toks: Vec<(usize, u32)> = tokens(text)
            .map(|t| (t.as_ptr() as usize - base, token_hash(t) as u32))
            .collect();
        let l = self.side;
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut codes = 0;
        let mut next = 0; // index of the first token after the current position
        for (pos, c) in text.char_indices() {
            if codes == self.max_codes {
                break;
            }
            if !matches!(c, '。' | '.' | '．' | '｡' | '!' | '?' | '！' | '？') {
                continue;
            }
            if c == '.'
                && pos > 0
                && bytes[pos - 1].is_ascii_digit()
                && bytes.get(pos + 1).is_some_and(u8::is_ascii_digit)
            {
                continue;
            }
            while next < toks.len() && toks[next].0 < pos {
                next += 1;
            }
            if next >= l && next + l <= toks.len() {
                out.extend(toks[next - l..next + l].iter().map(|t| t.1));
                codes += 1;
            }
        }
        if codes == 0 && !toks.is_empty() {
            out.extend(toks.iter().take(2 * l).map(|t| t.1));
            out.resize(2 * l, 0);
        }
        FeatureCodeSig {
            side: l as u8,
            length: toks.len() as u32,
            tokens: out,
        }
    }

    /// Code overlap times length ratio (see the module documentation).
    ///
    /// # Errors
    /// [`ErrorKind::ParameterMismatch`] for different L.
    pub fn similarity(&self, a: &FeatureCodeSig, b: &FeatureCodeSig) -> Result<f64> {
        let (overlap, lmin, lmax) = self.parts(a, b)?;
        Ok(if lmax == 0 {
            overlap
        } else {
            overlap * lmin as f64 / lmax as f64
        })
    }

    /// Whether the overlap and the length ratio are within bounds.
    ///
    /// # Errors
    /// [`ErrorKind::ParameterMismatch`] for different L.
    pub fn is_duplicate(&self, a: &FeatureCodeSig, b: &FeatureCodeSig) -> Result<bool> {
        let (overlap, lmin, lmax) = self.parts(a, b)?;
        Ok(overlap >= self.min_overlap && lmax as f64 <= self.ratio * lmin as f64)
    }

    fn parts(&self, a: &FeatureCodeSig, b: &FeatureCodeSig) -> Result<(f64, u32, u32)> {
        let (na, nb) = (a.codes().count(), b.codes().count());
        let overlap = if na == 0 && nb == 0 {
            1.0
        } else {
            // Greedy matching is order-dependent: take the larger of both
            // directions so the measure is symmetric.
            let m = a
                .matched(b, self.tolerance)?
                .max(b.matched(a, self.tolerance)?);
            m as f64 / na.max(nb) as f64
        };
        Ok((overlap, a.length.min(b.length), a.length.max(b.length)))
    }
}

impl FeatureCode {
    /// Writes every parameter (for [`crate::Method::params_bytes`]).
    pub(crate) fn encode_params(&self, w: &mut crate::codec::Writer) {
        w.len(self.side);
        w.len(self.tolerance);
        w.len(self.max_codes);
        w.f64(self.ratio);
        w.f64(self.min_overlap);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcs_values() {
        assert_eq!(lcs(&[1, 2, 3, 4, 5], &[1, 2, 3, 4, 5]), 5);
        assert_eq!(lcs(&[1, 2, 3, 4, 5], &[9, 1, 2, 3, 4]), 4);
        assert_eq!(lcs(&[1, 2, 3], &[4, 5, 6]), 0);
    }

    #[test]
    fn shifted_codes_still_match() {
        let fc = FeatureCode::new();
        let a = fc.signature_of_normalized("one two three four five. six seven eight nine ten");
        let b = fc.signature_of_normalized("one two three four fiv. six seven eight nine ten");
        assert_eq!(a.matched(&b, 2).unwrap(), 1);
        assert_eq!(a.matched(&b, 0).unwrap(), 0);
        assert!(fc.is_duplicate(&a, &b).unwrap());
    }
}

//! Shingles: token or character k-grams hashed to `u64`.
//!
//! Hashing is stable across platforms and releases (it is part of every
//! signature's format):
//!
//! * a token hashes to `xxh3_64_with_seed(token_utf8, TOKEN_SEED)`
//!   ([`token_hash`]);
//! * a token k-gram hashes to `xxh3_64_with_seed(bytes, SHINGLE_SEED)` where
//!   `bytes` is the concatenation of the k token hashes in little-endian
//!   order — each token is hashed once and every window reuses those hashes,
//!   so no string is built per shingle;
//! * a character n-gram hashes to `xxh3_64_with_seed(utf8_slice, SHINGLE_SEED)`.
//!
//! A text with at least one but fewer than `k` units yields one shingle made
//! of all of them, so short documents are not empty.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::normalize::{normalize_into, NormalizeOptions};
use crate::tokens::{char_ngrams, tokens};

/// Seed of [`token_hash`].
pub const TOKEN_SEED: u64 = 0x6E65_6172_6475_7031; // "neardup1"
/// Seed of shingle hashes.
pub const SHINGLE_SEED: u64 = 0x7368_696E_676C_6531; // "shingle1"

/// Stable 64-bit hash of one token.
///
/// ```
/// use neardup_text::token_hash;
/// assert_eq!(token_hash("word"), token_hash("word"));
/// assert_ne!(token_hash("word"), token_hash("words"));
/// ```
#[inline]
pub fn token_hash(token: &str) -> u64 {
    xxh3_64_with_seed(token.as_bytes(), TOKEN_SEED)
}

/// Stable 64-bit hash of a sequence of token hashes (the hash of a token
/// k-gram when the sequence has k elements).
#[inline]
pub fn hash_token_hashes(hashes: &[u64]) -> u64 {
    let mut buf = Vec::with_capacity(hashes.len() * 8);
    for h in hashes {
        buf.extend_from_slice(&h.to_le_bytes());
    }
    xxh3_64_with_seed(&buf, SHINGLE_SEED)
}

/// The unit a shingle is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShingleUnit {
    /// k consecutive tokens (words; single characters for CJK, so CJK text
    /// gets character k-grams and mixed text a mix of both).
    Token,
    /// k consecutive characters of the text, whitespace included.
    Char,
}

/// Produces shingle hashes, reusing an internal buffer between calls.
///
/// ```
/// use neardup_text::{Shingler, ShingleUnit};
/// let mut s = Shingler::new(ShingleUnit::Token, 2);
/// let a = s.shingles("the quick brown fox");
/// assert_eq!(a.len(), 3);
/// let b = s.shingles("THE QUICK brown fox!");
/// assert_ne!(a, b); // input is not normalized here: normalize first
/// ```
#[derive(Debug, Clone)]
pub struct Shingler {
    unit: ShingleUnit,
    k: usize,
    buf: Vec<u8>,
    bounds: Vec<u32>,
    norm: String,
    lower: Vec<u8>,
}

impl Shingler {
    /// A shingler for `k`-grams of `unit`. `k == 0` is treated as 1.
    pub fn new(unit: ShingleUnit, k: usize) -> Self {
        Shingler {
            unit,
            k: k.max(1),
            buf: Vec::new(),
            bounds: Vec::new(),
            norm: String::new(),
            lower: Vec::new(),
        }
    }

    /// The unit of this shingler.
    pub fn unit(&self) -> ShingleUnit {
        self.unit
    }

    /// The shingle length of this shingler.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Calls `f` with every shingle hash of `text`, in text order
    /// (duplicates included).
    #[inline]
    pub fn for_each(&mut self, text: &str, f: impl FnMut(u64)) {
        match self.unit {
            ShingleUnit::Char => {
                let mut f = f;
                for g in char_ngrams(text, self.k) {
                    f(xxh3_64_with_seed(g.as_bytes(), SHINGLE_SEED));
                }
            }
            ShingleUnit::Token => {
                self.buf.clear();
                if text.is_ascii() {
                    ascii_token_hashes(text.as_bytes(), &mut self.bounds, &mut self.buf);
                } else {
                    self.buf.reserve(text.len() * 8 / 3 + 8);
                    for t in tokens(text) {
                        self.buf.extend_from_slice(&token_hash(t).to_le_bytes());
                    }
                }
                self.windows(f);
            }
        }
    }

    /// Same hashes as [`Shingler::for_each`] on
    /// `normalize(text, NormalizeOptions::default())`, but an ASCII `text`
    /// is tokenized in place (each token lowercased on the fly) instead of
    /// building the normalized string first.
    ///
    /// ```
    /// use neardup_text::{normalize, NormalizeOptions, ShingleUnit, Shingler};
    /// let text = "The QUICK brown\tfox, jumps!";
    /// let mut s = Shingler::new(ShingleUnit::Token, 2);
    /// let mut a = Vec::new();
    /// s.for_each_normalizing(text, |h| a.push(h));
    /// assert_eq!(a, s.shingles(&normalize(text, NormalizeOptions::default())));
    /// ```
    pub fn for_each_normalizing(&mut self, text: &str, f: impl FnMut(u64)) {
        if self.unit == ShingleUnit::Token && text.is_ascii() {
            self.buf.clear();
            let mut lower = std::mem::take(&mut self.lower);
            lower.clear();
            lower.extend(
                text.bytes()
                    .map(|b| b | (((b.wrapping_sub(b'A') < 26) as u8) << 5)),
            );
            ascii_token_hashes(&lower, &mut self.bounds, &mut self.buf);
            self.lower = lower;
            self.windows(f);
        } else {
            let mut norm = std::mem::take(&mut self.norm);
            norm.clear();
            normalize_into(text, NormalizeOptions::default(), &mut norm);
            self.for_each(&norm, f);
            self.norm = norm;
        }
    }

    /// Hashes every window of `k` token hashes held in `self.buf`.
    #[inline]
    fn windows(&self, mut f: impl FnMut(u64)) {
        let buf = &self.buf;
        let n = buf.len() / 8;
        if n == 0 {
            return;
        }
        let w = self.k.min(n) * 8;
        for start in (0..=buf.len() - w).step_by(8) {
            f(xxh3_64_with_seed(&buf[start..start + w], SHINGLE_SEED));
        }
    }

    /// Appends every shingle hash of `text` to `out` (duplicates included).
    pub fn extend(&mut self, text: &str, out: &mut Vec<u64>) {
        self.for_each(text, |h| out.push(h));
    }

    /// Every shingle hash of `text` in text order (duplicates included).
    pub fn shingles(&mut self, text: &str) -> Vec<u64> {
        let mut out = Vec::with_capacity(text.len() / 5 + 1);
        self.extend(text, &mut out);
        out
    }

    /// The set of shingle hashes of `text`: sorted, without duplicates.
    pub fn shingle_set(&mut self, text: &str) -> Vec<u64> {
        let mut v = self.shingles(text);
        v.sort_unstable();
        v.dedup();
        v
    }
}

const LSB: u64 = 0x0101_0101_0101_0101;
const MSB: u64 = 0x8080_8080_8080_8080;

/// Per byte of `x` (all bytes < 0x80): high bit set iff `lo <= byte <= hi`.
#[inline(always)]
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    let ge_lo = x.wrapping_add(LSB * (0x80 - lo as u64));
    let gt_hi = x.wrapping_add(LSB * (0x7F - hi as u64));
    ge_lo & !gt_hi & MSB
}

/// Bit `j` set iff byte `j` of the 8 ASCII bytes is a word byte (the ASCII
/// part of [`crate::is_word_char`]: letters, digits, `_`), computed eight
/// bytes at a time (SWAR) without branches.
#[inline(always)]
fn word_mask8(x: u64) -> u64 {
    let w =
        in_range(x | (LSB * 0x20), b'a', b'z') | in_range(x, b'0', b'9') | in_range(x, b'_', b'_');
    ((w >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// Bit `j` set iff byte `j` of the (at most 64) ASCII bytes is a word byte.
#[inline]
fn word_mask64(chunk: &[u8]) -> u64 {
    let mut block = [0u8; 64];
    let block = if chunk.len() == 64 {
        chunk
    } else {
        block[..chunk.len()].copy_from_slice(chunk);
        &block[..]
    };
    let mut m = 0u64;
    for (i, w) in block.chunks_exact(8).enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        m |= word_mask8(u64::from_le_bytes(b)) << (8 * i);
    }
    m
}

/// Token hashes of ASCII bytes, as little-endian bytes appended to `out`.
///
/// Same tokens as [`tokens`], found without a data-dependent branch per
/// byte: each 64-byte block becomes a bit mask of word bytes, the
/// word/non-word transitions of the mask are the token boundaries, and the
/// loop runs once per boundary. (Word lengths vary, so a byte-by-byte scan
/// mispredicts about twice per token.)
fn ascii_token_hashes(bytes: &[u8], bounds: &mut Vec<u32>, out: &mut Vec<u8>) {
    bounds.clear();
    // At most one token per two bytes: reserve once instead of growing.
    bounds.reserve(bytes.len() + 2);
    out.reserve((bytes.len() / 2 + 1) * 8);
    let mut carry = 0u64;
    for (ci, chunk) in bytes.chunks(64).enumerate() {
        let m = word_mask64(chunk);
        let mut t = m ^ ((m << 1) | carry);
        carry = m >> 63;
        let base = (ci * 64) as u32;
        while t != 0 {
            bounds.push(base + t.trailing_zeros());
            t &= t - 1;
        }
    }
    if bounds.len() % 2 == 1 {
        bounds.push(bytes.len() as u32);
    }
    for pair in bounds.chunks_exact(2) {
        let tok = &bytes[pair[0] as usize..pair[1] as usize];
        out.extend_from_slice(&xxh3_64_with_seed(tok, TOKEN_SEED).to_le_bytes());
    }
}

/// Convenience: the shingle hashes of `text` (see [`Shingler::shingles`]).
///
/// ```
/// use neardup_text::{shingle_hashes, ShingleUnit};
/// assert_eq!(shingle_hashes("a b c d e f", ShingleUnit::Token, 5).len(), 2);
/// assert_eq!(shingle_hashes("a b", ShingleUnit::Token, 5).len(), 1);
/// assert!(shingle_hashes("", ShingleUnit::Token, 5).is_empty());
/// ```
pub fn shingle_hashes(text: &str, unit: ShingleUnit, k: usize) -> Vec<u64> {
    Shingler::new(unit, k).shingles(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_shingles_match_manual_hashing() {
        let got = shingle_hashes("x y z", ShingleUnit::Token, 2);
        let (x, y, z) = (token_hash("x"), token_hash("y"), token_hash("z"));
        assert_eq!(
            got,
            vec![hash_token_hashes(&[x, y]), hash_token_hashes(&[y, z])]
        );
    }

    #[test]
    fn separators_do_not_matter_for_tokens() {
        let a = shingle_hashes("one two, three. four", ShingleUnit::Token, 3);
        let b = shingle_hashes("one  two three four", ShingleUnit::Token, 3);
        assert_eq!(a, b);
    }

    #[test]
    fn char_shingles() {
        let got = shingle_hashes("中文字", ShingleUnit::Char, 2);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], xxh3_64_with_seed("中文".as_bytes(), SHINGLE_SEED));
        let set = Shingler::new(ShingleUnit::Char, 1).shingle_set("aaab");
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn cjk_token_shingles_are_char_ngrams() {
        let a = shingle_hashes("我爱北京", ShingleUnit::Token, 2);
        let b = shingle_hashes("我 爱 北 京", ShingleUnit::Token, 2);
        assert_eq!(a, b);
        assert_eq!(a.len(), 3);
    }

    #[test]
    fn word_mask_matches_classes() {
        let all: Vec<u8> = (0u8..128).collect();
        for chunk in all.chunks(64) {
            let m = word_mask64(chunk);
            for (j, &b) in chunk.iter().enumerate() {
                let want = crate::is_word_char(b as char);
                assert_eq!((m >> j) & 1 == 1, want, "byte {b:#x}");
            }
        }
    }

    #[test]
    fn ascii_fast_path_matches_tokenizer() {
        for text in [
            "",
            " ",
            "a",
            "a b",
            " ab_c1 ,d.e  f ",
            "x!!y",
            "__",
            "trailing word",
        ] {
            let mut bounds = Vec::new();
            let mut fast = Vec::new();
            ascii_token_hashes(text.as_bytes(), &mut bounds, &mut fast);
            let slow: Vec<u8> = tokens(text)
                .flat_map(|t| token_hash(t).to_le_bytes())
                .collect();
            assert_eq!(fast, slow, "{text:?}");
        }
    }

    #[test]
    fn fixed_values_do_not_change() {
        // Golden values: changing them changes every signature.
        assert_eq!(
            token_hash("neardup"),
            xxh3_64_with_seed(b"neardup", TOKEN_SEED)
        );
        let v = shingle_hashes("a b", ShingleUnit::Token, 2);
        assert_eq!(
            format!("{:016x}", v[0]),
            format!(
                "{:016x}",
                hash_token_hashes(&[token_hash("a"), token_hash("b")])
            )
        );
        assert_eq!(format!("{:016x}", token_hash("a")), GOLDEN_A);
    }

    const GOLDEN_A: &str = "a3d3f7522ed9dd3e";
}

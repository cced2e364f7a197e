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
//!
//! Words ([`ShingleUnit::Word`]) and CJK bigrams ([`ShingleUnit::Bigram`])
//! hash like tokens; only the tokenization differs (see [`Segmenter`]).

use std::borrow::Cow;

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::ascii::ascii_token_hashes;
use crate::normalize::{normalize_into_bytes, NormalizeOptions};
use crate::segment::Segmenter;
use crate::spaced::spaced_token_hashes;
use crate::tokens::{char_ngrams, tokens};
use crate::windows::for_each_window;

/// Seed of [`token_hash`].
pub const TOKEN_SEED: u64 = 0x6E65_6172_6475_7031; // "neardup1"
/// Seed of shingle hashes.
pub const SHINGLE_SEED: u64 = 0x7368_696E_676C_6531; // "shingle1"

/// Normalized text held as bytes, as a string: validated once (SIMD).
/// Normalization writes whole characters only, so the lossy branch is
/// never taken.
fn as_str(bytes: &[u8]) -> Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

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
    /// k consecutive tokens of a dictionary [`Segmenter`]: as `Token`, but
    /// runs of Han characters are cut into dictionary words. A [`Shingler`]
    /// made with such a segmenter reports this unit (and signatures record
    /// it, so they never compare with character-based ones); without one,
    /// a shingler given `Word` makes `Token` shingles and says so.
    Word,
    /// k consecutive tokens of a bigram [`Segmenter`]
    /// ([`Segmenter::bigrams`]): as `Token`, but runs of CJK characters are
    /// cut into overlapping character bigrams, so a k-gram spans k + 1
    /// characters of CJK text and k words of spaced text. Signatures record
    /// it, so they never compare with `Token` ones; a shingler given
    /// `Bigram` makes the shingles of its segmenter and says so.
    Bigram,
}

/// Produces shingle hashes, reusing an internal buffer between calls.
///
/// Token shingles cut CJK text into single characters, or, with a
/// dictionary [`Segmenter`] ([`Shingler::with_segmenter`]), Han runs into
/// words.
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
    segmenter: Segmenter,
    /// The token hashes of the text at hand.
    buf: Vec<u64>,
    /// Scratch for windows whose bytes are hashed as they are.
    bytes: Vec<u8>,
    bounds: Vec<u32>,
    norm: Vec<u8>,
    lower: Vec<u8>,
}

impl Shingler {
    /// A shingler for `k`-grams of `unit`, CJK characters as single tokens.
    /// `k == 0` is treated as 1.
    pub fn new(unit: ShingleUnit, k: usize) -> Self {
        Shingler::with_segmenter(unit, k, Segmenter::chars())
    }

    /// A shingler for `k`-grams of `unit` whose tokens are cut by
    /// `segmenter`: with a dictionary, `Token` and `Word` both make word
    /// shingles ([`Shingler::unit`] is then `Word`); `Char` shingles ignore
    /// the segmenter.
    ///
    /// ```
    /// use neardup_text::{CjkSegmentation, Segmenter, ShingleUnit, Shingler};
    /// let s = Shingler::with_segmenter(ShingleUnit::Token, 2, Segmenter::chars());
    /// assert_eq!(s.unit(), ShingleUnit::Token);
    /// if let Ok(jieba) = Segmenter::new(CjkSegmentation::Jieba) {
    ///     let mut s = Shingler::with_segmenter(ShingleUnit::Token, 2, jieba);
    ///     assert_eq!(s.unit(), ShingleUnit::Word);
    ///     assert_eq!(s.shingles("我来到北京清华大学").len(), 3);
    /// }
    /// ```
    pub fn with_segmenter(unit: ShingleUnit, k: usize, segmenter: Segmenter) -> Self {
        Shingler {
            unit: segmenter.unit_for(unit),
            k: k.max(1),
            segmenter,
            buf: Vec::new(),
            bytes: Vec::new(),
            bounds: Vec::new(),
            norm: Vec::new(),
            lower: Vec::new(),
        }
    }

    /// The unit of the shingles this shingler makes.
    pub fn unit(&self) -> ShingleUnit {
        self.unit
    }

    /// The shingle length of this shingler.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The segmenter that cuts this shingler's tokens.
    pub fn segmenter(&self) -> &Segmenter {
        &self.segmenter
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
            ShingleUnit::Token | ShingleUnit::Word | ShingleUnit::Bigram => {
                self.token_hashes(text);
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
        if self.unit == ShingleUnit::Char {
            let mut norm = std::mem::take(&mut self.norm);
            norm.clear();
            normalize_into_bytes(text, NormalizeOptions::default(), &mut norm);
            self.for_each(&as_str(&norm), f);
            self.norm = norm;
            return;
        }
        if text.is_ascii() {
            self.buf.clear();
            let mut lower = std::mem::take(&mut self.lower);
            lower.clear();
            lower.extend(
                text.bytes()
                    .map(|b| b | (((b.wrapping_sub(b'A') < 26) as u8) << 5)),
            );
            ascii_token_hashes(&lower, &mut self.bounds, &mut self.buf);
            self.lower = lower;
        } else {
            let mut norm = std::mem::take(&mut self.norm);
            norm.clear();
            normalize_into_bytes(text, NormalizeOptions::default(), &mut norm);
            self.token_hashes(&as_str(&norm));
            self.norm = norm;
        }
        self.windows(f);
    }

    /// Fills `self.buf` with the token hashes of `text`.
    fn token_hashes(&mut self, text: &str) {
        self.buf.clear();
        if text.is_ascii() {
            ascii_token_hashes(text.as_bytes(), &mut self.bounds, &mut self.buf);
        } else if spaced_token_hashes(text, &mut self.bounds, &mut self.buf) {
            // No CJK character: every segmenter cuts plain tokens.
        } else {
            self.buf.clear();
            self.buf.reserve(text.len() / 3 + 1);
            let mut push = |t: &str| self.buf.push(token_hash(t));
            // Plain tokens directly: through the segmenter the
            // loop is not inlined, 12% slower on Chinese text.
            if self.unit != ShingleUnit::Token {
                self.segmenter.for_each_token(text, push);
            } else {
                tokens(text).for_each(&mut push);
            }
        }
    }

    /// Hashes every window of `k` token hashes held in `self.buf`.
    #[inline]
    fn windows(&mut self, f: impl FnMut(u64)) {
        for_each_window(&self.buf, self.k, &mut self.bytes, f);
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
    fn word_without_a_dictionary_is_token() {
        let mut s = Shingler::new(ShingleUnit::Word, 2);
        assert_eq!(s.unit(), ShingleUnit::Token);
        assert_eq!(
            s.shingles("我爱北京"),
            shingle_hashes("我爱北京", ShingleUnit::Token, 2)
        );
        let c = Shingler::with_segmenter(ShingleUnit::Char, 2, Segmenter::chars());
        assert_eq!(c.unit(), ShingleUnit::Char);
    }

    #[test]
    fn bigram_segmenter_makes_k_plus_one_character_spans() {
        let mut s = Shingler::with_segmenter(ShingleUnit::Token, 3, Segmenter::bigrams());
        assert_eq!(s.unit(), ShingleUnit::Bigram);
        // Four characters: three bigrams, one 3-gram of them (4 characters).
        let got = s.shingles("我爱北京");
        let h: Vec<u64> = ["我爱", "爱北", "北京"]
            .iter()
            .map(|w| token_hash(w))
            .collect();
        assert_eq!(got, vec![hash_token_hashes(&h)]);
        // Separators do not break a run; other tokens do.
        assert_eq!(s.shingles("我爱 北京"), got);
        assert_eq!(s.shingles("我爱，\n北京"), got);
        assert_ne!(s.shingles("我爱x北京"), got);
        // Spaced text is as with Token.
        for text in ["plain ascii words here", "café au lait, s'il vous plaît"] {
            assert_eq!(
                s.shingles(text),
                shingle_hashes(text, ShingleUnit::Token, 3)
            );
        }
        // Normalizing in place gives the same hashes.
        let text = "北京ＡＢＣ大学，「清华」  Tsinghua University 2024年";
        let mut a = Vec::new();
        s.for_each_normalizing(text, |h| a.push(h));
        let norm = crate::normalize(text, NormalizeOptions::default());
        assert_eq!(a, s.shingles(&norm));
        // A plain shingler given Bigram makes token shingles and says so.
        let plain = Shingler::new(ShingleUnit::Bigram, 3);
        assert_eq!(plain.unit(), ShingleUnit::Token);
    }

    #[cfg(feature = "jieba")]
    #[test]
    fn dictionary_segmenter_makes_word_shingles() {
        let jieba = Segmenter::jieba();
        let mut s = Shingler::with_segmenter(ShingleUnit::Token, 2, jieba.clone());
        assert_eq!(s.unit(), ShingleUnit::Word);
        let got = s.shingles("我来到北京清华大学");
        let h: Vec<u64> = ["我", "来到", "北京", "清华大学"]
            .iter()
            .map(|w| token_hash(w))
            .collect();
        let want: Vec<u64> = h.windows(2).map(hash_token_hashes).collect();
        assert_eq!(got, want);
        // Short texts give one shingle; ASCII and empty texts are as Token.
        assert_eq!(s.shingles("北京").len(), 1);
        assert!(s.shingles("").is_empty() && s.shingles("。，").is_empty());
        for text in ["plain ascii words here", "café au lait, s'il vous plaît"] {
            assert_eq!(
                s.shingles(text),
                shingle_hashes(text, ShingleUnit::Token, 2)
            );
        }
        // Words differ from characters on Han text, not elsewhere.
        assert_ne!(
            got,
            shingle_hashes("我来到北京清华大学", ShingleUnit::Token, 2)
        );
        // Char shingles ignore the segmenter.
        let mut c = Shingler::with_segmenter(ShingleUnit::Char, 3, jieba);
        assert_eq!(c.unit(), ShingleUnit::Char);
        assert_eq!(
            c.shingles("清华大学"),
            shingle_hashes("清华大学", ShingleUnit::Char, 3)
        );
    }

    #[cfg(feature = "jieba")]
    #[test]
    fn word_shingles_of_normalized_text() {
        let mut s = Shingler::with_segmenter(ShingleUnit::Word, 3, Segmenter::jieba());
        for text in [
            "The QUICK brown fox",
            "北京ＡＢＣ大学，「清华」  Tsinghua University 2024年",
        ] {
            let mut a = Vec::new();
            s.for_each_normalizing(text, |h| a.push(h));
            let norm = crate::normalize(text, NormalizeOptions::default());
            assert_eq!(a, s.shingles(&norm), "{text}");
        }
    }

    #[test]
    fn a_text_normalized_twice_gives_the_same_shingles() {
        // A shingler used again and again keeps no state from one text to
        // the next; k and the segmentation count.
        let text = "Le “café” — déjà vu, ÉTÉ 2024. 北京大学，清华大学。";
        let same_len = "Le “cafe” — déjà vu, ÉTÉ 2024. 北京大学，清华大学。é";
        for seg in [Segmenter::chars(), Segmenter::bigrams()] {
            for k in [3, 5, 3] {
                let mut s = Shingler::with_segmenter(ShingleUnit::Token, k, seg.clone());
                for t in [text, text, &same_len[..same_len.len() - 2], text] {
                    let mut got = Vec::new();
                    s.for_each_normalizing(t, |h| got.push(h));
                    let want = s.shingles(&crate::normalize(t, NormalizeOptions::default()));
                    assert_eq!(got, want, "{seg:?} {k} {t}");
                }
            }
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

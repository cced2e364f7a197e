//! Words of a text with their byte ranges, and hashes of word n-grams: what
//! fuzzy paragraphs and decontamination compare.
//!
//! A word is a token of [`neardup_text::tokens`]: a maximal run of letters,
//! digits and marks, or one CJK character (so Chinese and Japanese text is
//! compared character by character). Each word is hashed after
//! normalization (NFKC, lowercase), so `The` and `ＴＨＥ` are the same word.
//! An n-gram's hash is the xxh3 hash of its words' hashes.

use neardup_text::{normalize_into, token_hash, NormalizeOptions};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Seed of n-gram hashes.
const NGRAM_SEED: u64 = 0x7370_616E_6E67_7261; // "spanngra"

/// The words of one text: byte ranges and hashes, in order.
#[derive(Debug, Default, Clone)]
pub struct Words {
    /// Byte range of each word in the text.
    pub ranges: Vec<(usize, usize)>,
    /// Bytes of each word normalized.
    pub lens: Vec<u32>,
    /// Hash of each normalized word, as little-endian bytes (8 per word),
    /// laid out so that an n-gram is one contiguous slice.
    hash_bytes: Vec<u8>,
    norm: String,
}

impl Words {
    /// Clears and fills with the words of `text`.
    pub fn fill(&mut self, text: &str) {
        self.ranges.clear();
        self.lens.clear();
        self.hash_bytes.clear();
        let (ranges, lens, hash_bytes) = (&mut self.ranges, &mut self.lens, &mut self.hash_bytes);
        each_word(text, &mut self.norm, |range, hash, len| {
            ranges.push(range);
            lens.push(len);
            hash_bytes.extend_from_slice(&hash.to_le_bytes());
        });
    }

    /// Calls `f(hash, normalized bytes)` for each word of `text`, in order,
    /// keeping nothing per word (the hashes and lengths [`Words::fill`]
    /// keeps).
    pub fn each_hash(&mut self, text: &str, mut f: impl FnMut(u64, u32)) {
        each_word(text, &mut self.norm, |_, hash, len| f(hash, len));
    }

    /// Number of words of `text`: those [`Words::fill`] would keep,
    /// counted without normalizing or hashing them.
    pub fn count(text: &str) -> usize {
        neardup_text::tokens(text).count()
    }

    /// Words the buffers have room for without growing.
    pub fn capacity(&self) -> usize {
        self.ranges.capacity()
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Hash of the `n` words from word `i` (`i + n <= len`).
    #[inline]
    pub fn ngram(&self, i: usize, n: usize) -> u64 {
        xxh3_64_with_seed(&self.hash_bytes[i * 8..(i + n) * 8], NGRAM_SEED)
    }

    /// Hash of word `i` normalized.
    #[inline]
    pub fn hash(&self, i: usize) -> u64 {
        crate::spill::u64_at(&self.hash_bytes, i * 8)
    }

    /// Hash of the words `from..to` (a whole short paragraph).
    #[inline]
    pub fn run(&self, from: usize, to: usize) -> u64 {
        self.ngram(from, to - from)
    }
}

/// Calls `f(byte range, hash, normalized bytes)` for each word of `text`,
/// in order; `norm` is scratch for words that are not short ASCII.
fn each_word(text: &str, norm: &mut String, mut f: impl FnMut((usize, usize), u64, u32)) {
    let base = text.as_ptr() as usize;
    let mut lower = [0u8; 64];
    for tok in neardup_text::tokens(text) {
        let start = tok.as_ptr() as usize - base;
        let (hash, len) = if tok.is_ascii() && tok.len() <= lower.len() {
            let b = &mut lower[..tok.len()];
            b.copy_from_slice(tok.as_bytes());
            b.make_ascii_lowercase();
            // ASCII bytes are UTF-8: the token's own characters.
            (
                token_hash(std::str::from_utf8(b).unwrap_or(tok)),
                tok.len() as u32,
            )
        } else {
            norm.clear();
            normalize_into(tok, NormalizeOptions::KEEP_PUNCTUATION, norm);
            (token_hash(norm), norm.len() as u32)
        };
        f((start, start + tok.len()), hash, len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_their_ranges() {
        let mut w = Words::default();
        let t = "Hello, 世界! It's ＴＨＥ end";
        w.fill(t);
        let got: Vec<&str> = w.ranges.iter().map(|&(a, b)| &t[a..b]).collect();
        assert_eq!(got, ["Hello", "世", "界", "It", "s", "ＴＨＥ", "end"]);
        let mut v = Words::default();
        v.fill("hello 世界 it s the END");
        assert_eq!(w.len(), v.len());
        for i in 0..w.len() {
            assert_eq!(w.ngram(i, 1), v.ngram(i, 1), "word {i}");
        }
        assert_eq!(w.ngram(0, 7), v.ngram(0, 7));
        assert_ne!(w.ngram(0, 2), w.ngram(1, 2));
    }

    #[test]
    fn each_hash_gives_the_hashes_and_lengths_fill_keeps() {
        let t =
            "Hello, 世界! It's ＴＨＥ end, café Ǆ and a word far longer than sixty-four letters: \
                 Pneumonoultramicroscopicsilicovolcanoconiosispneumonoultramicroscopic";
        let mut w = Words::default();
        w.fill(t);
        let mut got = Vec::new();
        Words::default().each_hash(t, |h, len| got.push((h, len)));
        let want: Vec<(u64, u32)> = (0..w.len()).map(|i| (w.hash(i), w.lens[i])).collect();
        assert_eq!(got, want);
        assert_eq!(Words::count(t), w.len());
        assert!(w.capacity() >= w.len());
    }

    #[test]
    fn long_ascii_words_are_hashed_alike() {
        let long = "A".repeat(100);
        let mut w = Words::default();
        w.fill(&long);
        let mut v = Words::default();
        v.fill(&long.to_lowercase());
        assert_eq!(w.ngram(0, 1), v.ngram(0, 1));
    }
}

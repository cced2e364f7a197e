//! Token hashing of text of spaced scripts that is not pure ASCII (curly
//! quotes, dashes, accented or Cyrillic letters): the ASCII fast path of
//! [`crate::ascii`] widened to UTF-8.
//!
//! Each 64-byte block becomes a bit mask of the bytes that belong to word
//! characters: ASCII bytes eight at a time (SWAR), and the bytes of each
//! non-ASCII character according to [`crate::is_word_char`]. Token
//! boundaries are the transitions of the mask, as for ASCII text. A CJK
//! character is a token by itself, which a mask of word bytes cannot tell
//! from its neighbours: the first one stops this path, and the caller
//! tokenizes that text with [`crate::tokens`] instead.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::ascii::{in_range, LSB, MSB};
use crate::script::{is_cjk, is_word_char};
use crate::shingle::TOKEN_SEED;

/// Packs the high bit of each byte of `x` into bits 0..8.
#[inline(always)]
fn pack(msb: u64) -> u64 {
    ((msb >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// Bit masks of one block of at most 64 bytes: ASCII word bytes, and bytes
/// of 0x80 or more (those of non-ASCII characters).
#[inline]
fn masks64(chunk: &[u8]) -> (u64, u64) {
    let mut block = [0u8; 64];
    let block = if chunk.len() == 64 {
        chunk
    } else {
        block[..chunk.len()].copy_from_slice(chunk);
        &block[..]
    };
    let (mut word, mut high) = (0u64, 0u64);
    for (i, w) in block.chunks_exact(8).enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let x = u64::from_le_bytes(b);
        let hi = x & MSB;
        // Clear the high bits so that the range checks cannot carry from
        // one byte into the next; non-ASCII bytes are masked out after.
        let x7 = x & !MSB;
        let w = in_range(x7 | (LSB * 0x20), b'a', b'z')
            | in_range(x7, b'0', b'9')
            | in_range(x7, b'_', b'_');
        word |= pack(w & !hi) << (8 * i);
        high |= pack(hi) << (8 * i);
    }
    (word, high)
}

/// Token hashes of `text`, appended to `out`, when
/// `text` holds no CJK character; `false` (with `out` in an unspecified
/// state) as soon as one is found.
pub(crate) fn spaced_token_hashes(text: &str, bounds: &mut Vec<u32>, out: &mut Vec<u64>) -> bool {
    let bytes = text.as_bytes();
    bounds.clear();
    bounds.reserve(bytes.len() + 2);
    out.reserve(bytes.len() / 2 + 1);
    let mut carry = 0u64;
    // Word bytes of a character that runs into the next block.
    let mut spill = 0u64;
    // Where the next non-ASCII character starts (bytes before it that are
    // not ASCII belong to a character already classified).
    let mut next_char = 0usize;
    for (ci, chunk) in bytes.chunks(64).enumerate() {
        let base = ci * 64;
        let (mut m, mut high) = masks64(chunk);
        m |= spill;
        spill = 0;
        while high != 0 {
            let at = base + high.trailing_zeros() as usize;
            high &= high - 1;
            if at < next_char {
                continue;
            }
            let c = text[at..].chars().next().unwrap_or(' ');
            let len = c.len_utf8();
            next_char = at + len;
            if is_cjk(c) {
                return false;
            }
            if is_word_char(c) {
                let bits = ((1u128 << len) - 1) << (at - base);
                m |= bits as u64;
                spill = (bits >> 64) as u64;
            }
        }
        let mut t = m ^ ((m << 1) | carry);
        carry = m >> 63;
        while t != 0 {
            bounds.push((base as u32) + t.trailing_zeros());
            t &= t - 1;
        }
    }
    if bounds.len() % 2 == 1 {
        bounds.push(bytes.len() as u32);
    }
    for pair in bounds.chunks_exact(2) {
        let tok = &bytes[pair[0] as usize..pair[1] as usize];
        out.push(xxh3_64_with_seed(tok, TOKEN_SEED));
    }
    true
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::{token_hash, tokens};

    /// `Some(token hashes)` when the fast path takes `text`.
    fn fast(text: &str) -> Option<Vec<u64>> {
        let (mut bounds, mut out) = (Vec::new(), Vec::new());
        spaced_token_hashes(text, &mut bounds, &mut out).then_some(out)
    }

    fn slow(text: &str) -> Vec<u64> {
        tokens(text).map(token_hash).collect()
    }

    #[test]
    fn matches_the_tokenizer_on_samples() {
        let long = "naïve “café” — déjà vu, Ελληνικά and русский ".repeat(9);
        for text in [
            "",
            "é",
            "“quoted”",
            "a’b ’c d’",
            "x\u{301}y \u{301}",
            "\u{A0}word\u{A0}",
            long.as_str(),
            "😀emoji😀 text",
        ] {
            assert_eq!(fast(text), Some(slow(text)), "{text:?}");
        }
        // A character across a block boundary.
        let edge = format!("{}éé tail", "a".repeat(63));
        assert_eq!(fast(&edge), Some(slow(&edge)));
    }

    #[test]
    fn stops_at_cjk() {
        assert_eq!(fast("text 中文"), None);
        assert_eq!(fast("한"), None);
        assert_eq!(fast(&format!("{}カ", "é".repeat(40))), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn equals_the_tokenizer_on_arbitrary_unicode(text in any::<String>()) {
            let want = slow(&text);
            match fast(&text) {
                Some(got) => prop_assert_eq!(got, want),
                None => prop_assert!(text.chars().any(is_cjk)),
            }
        }

        #[test]
        fn equals_the_tokenizer_on_latin_text(
            text in "[a-zA-Z0-9_ ,.\u{80}-\u{24F}\u{300}-\u{36F}\u{2000}-\u{206F}\u{1F600}-\u{1F610}]{0,200}"
        ) {
            prop_assert_eq!(fast(&text), Some(slow(&text)));
        }
    }
}

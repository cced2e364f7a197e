//! The ASCII fast path of token hashing: the tokens of [`crate::tokens`] on
//! ASCII text, found eight bytes at a time, hashed as [`crate::token_hash`]
//! does.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::shingle::TOKEN_SEED;

pub(crate) const LSB: u64 = 0x0101_0101_0101_0101;
pub(crate) const MSB: u64 = 0x8080_8080_8080_8080;

/// Per byte of `x` (all bytes < 0x80): high bit set iff `lo <= byte <= hi`.
#[inline(always)]
pub(crate) fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
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

/// Token hashes of ASCII bytes, appended to `out`.
///
/// Same tokens as [`tokens`], found without a data-dependent branch per
/// byte: each 64-byte block becomes a bit mask of word bytes, the
/// word/non-word transitions of the mask are the token boundaries, and the
/// loop runs once per boundary. (Word lengths vary, so a byte-by-byte scan
/// mispredicts about twice per token.)
pub(crate) fn ascii_token_hashes(bytes: &[u8], bounds: &mut Vec<u32>, out: &mut Vec<u64>) {
    bounds.clear();
    // At most one token per two bytes: reserve once instead of growing.
    bounds.reserve(bytes.len() + 2);
    out.reserve(bytes.len() / 2 + 1);
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
        out.push(xxh3_64_with_seed(tok, TOKEN_SEED));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{token_hash, tokens};

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
            let slow: Vec<u64> = tokens(text).map(token_hash).collect();
            assert_eq!(fast, slow, "{text:?}");
        }
    }
}

//! Hashing the windows of `k` token hashes: `xxh3_64_with_seed` of the
//! window's little-endian bytes, [`SHINGLE_SEED`], as the module
//! [`crate::shingle`] defines the shingle hash.
//!
//! Three tokens (the default shingle, and the verifier's) make 24 bytes,
//! which XXH3 hashes with two 128-bit multiplications: the first 16 bytes
//! and the last 16 bytes, each mixed with a word pair of its default secret
//! and the seed, summed with the length times a prime, then avalanched.
//! [`hash_three`] computes exactly that from the three `u64` values, with
//! no bytes to lay out and no dispatch on the length; every other window
//! length is laid out as bytes and given to `xxh3_64_with_seed` itself. A
//! property test checks both against the library on arbitrary values.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::shingle::SHINGLE_SEED;

/// The first four 64-bit words of XXH3's default secret (`kSecret`, little
/// endian): the two pairs that inputs of 17 to 32 bytes are mixed with.
const SECRET: [u64; 4] = [
    0xbe4b_a423_396c_feb8,
    0x1cad_21f7_2c81_017c,
    0xdb97_9083_e96d_d4de,
    0x1f67_b3b7_a4a4_4072,
];
/// XXH64's first prime, which XXH3 multiplies the length by.
const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;

/// XXH3's 128-bit multiply, folded: low half xor high half.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// Sixteen input bytes (`lo`, `hi`) mixed with the secret pair at `at`.
#[inline(always)]
fn mix16(lo: u64, hi: u64, at: usize, seed: u64) -> u64 {
    fold(
        lo ^ SECRET[at].wrapping_add(seed),
        hi ^ SECRET[at + 1].wrapping_sub(seed),
    )
}

/// `xxh3_64_with_seed` of the 24 bytes `a`, `b`, `c` (each little endian).
#[inline(always)]
pub(crate) fn hash_three(a: u64, b: u64, c: u64, seed: u64) -> u64 {
    let acc = 24u64
        .wrapping_mul(PRIME64_1)
        .wrapping_add(mix16(a, b, 0, seed))
        .wrapping_add(mix16(b, c, 2, seed));
    // XXH3's avalanche.
    let h = (acc ^ (acc >> 37)).wrapping_mul(0x1656_6791_9E37_79F9);
    h ^ (h >> 32)
}

/// Calls `f` with the hash of every window of `k` consecutive hashes of
/// `tokens` (one window of all of them when there are fewer than `k`, none
/// when there are none); `bytes` is scratch for window lengths other than
/// three.
#[inline]
pub(crate) fn for_each_window(
    tokens: &[u64],
    k: usize,
    bytes: &mut Vec<u8>,
    mut f: impl FnMut(u64),
) {
    let n = tokens.len();
    if n == 0 {
        return;
    }
    let w = k.max(1).min(n);
    if w == 3 {
        for t in tokens.windows(3) {
            f(hash_three(t[0], t[1], t[2], SHINGLE_SEED));
        }
        return;
    }
    bytes.clear();
    bytes.extend(tokens.iter().flat_map(|t| t.to_le_bytes()));
    for window in bytes.windows(w * 8).step_by(8) {
        f(xxh3_64_with_seed(window, SHINGLE_SEED));
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn by_library(tokens: &[u64], k: usize) -> Vec<u64> {
        let bytes: Vec<u8> = tokens.iter().flat_map(|t| t.to_le_bytes()).collect();
        let w = k.max(1).min(tokens.len()) * 8;
        if tokens.is_empty() {
            return Vec::new();
        }
        (0..=bytes.len() - w)
            .step_by(8)
            .map(|s| xxh3_64_with_seed(&bytes[s..s + w], SHINGLE_SEED))
            .collect()
    }

    fn windows(tokens: &[u64], k: usize) -> Vec<u64> {
        let mut out = Vec::new();
        for_each_window(tokens, k, &mut Vec::new(), |h| out.push(h));
        out
    }

    #[test]
    fn every_window_length_equals_the_library() {
        let tokens: Vec<u64> = (0..40u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        for n in [0, 1, 2, 3, 4, 10, 40] {
            for k in 0..=20 {
                assert_eq!(
                    windows(&tokens[..n], k),
                    by_library(&tokens[..n], k),
                    "{n} {k}"
                );
            }
        }
        assert_eq!(windows(&tokens[..5], 3).len(), 3);
    }

    proptest! {
        #[test]
        fn three_equals_the_library(a in any::<u64>(), b in any::<u64>(), c in any::<u64>(), seed in any::<u64>()) {
            let mut bytes = Vec::new();
            for t in [a, b, c] {
                bytes.extend(t.to_le_bytes());
            }
            prop_assert_eq!(hash_three(a, b, c, seed), xxh3_64_with_seed(&bytes, seed));
        }
    }
}

//! Inputs shared by the unit tests of the LSH passes: small pseudo-random
//! signatures and keys whose bands collide often, and the pass they go
//! through.

use crate::{LshParams, MinHashLsh};

/// `n` rows of `width` values below `modulo`, from an xorshift generator
/// started at `seed`.
pub(crate) fn rows(n: usize, width: usize, modulo: u64, seed: u64) -> Vec<Vec<u64>> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            (0..width)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x % modulo
                })
                .collect()
        })
        .collect()
}

/// `n` signatures of 8 values out of 3, so that many bands collide.
pub(crate) fn signatures(n: usize) -> Vec<Vec<u32>> {
    rows(n, 8, 3, 0x2545_F491_4F6C_DD1D)
        .into_iter()
        .map(|r| r.into_iter().map(|v| v as u32).collect())
        .collect()
}

/// The band keys of [`lsh`]'s 4 bands of 2 values for each signature.
pub(crate) fn band_keys_of(sigs: &[Vec<u32>]) -> Vec<Vec<u64>> {
    sigs.iter()
        .map(|s| {
            (0..4)
                .map(|b| crate::band_key(&s[b * 2..b * 2 + 2], &mut Vec::new()))
                .collect()
        })
        .collect()
}

/// A pass of 4 bands of 2 values, buckets capped at `cap`.
pub(crate) fn lsh(cap: Option<usize>) -> MinHashLsh {
    let mut l = MinHashLsh::new();
    l.set_params(LshParams::new(4, 2).unwrap())
        .set_max_bucket_len(cap);
    l
}

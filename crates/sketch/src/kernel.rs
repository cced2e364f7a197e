//! The classic MinHash hot loop with runtime CPU-feature dispatch:
//! `sig[i] = min(sig[i], min over x of (a[i] · (x >> 32) + b[i]) mod 2^32)`.
//!
//! One generic loop ([`fold_generic`]) is compiled up to four times: for the
//! build target (SSE2 on the default x86-64 target, which has neither a
//! vector 32-bit multiply nor an unsigned 32-bit minimum, so both are
//! emulated), and on x86 also with SSE4.1, with AVX2 and with AVX-512F
//! enabled (the last on blocks of [`WIDE_BLOCK`] slots). [`fold`]
//! picks the widest one the CPU supports at each call
//! (`is_x86_feature_detected!` is a cached atomic load). Every path does the
//! same wrapping `u32` arithmetic, so the results are bit-identical.
//!
//! The loop walks the slots in blocks of [`BLOCK`] and runs over all shingles
//! for one block before moving to the next, so the block's minimums stay in
//! vector registers: the signature is loaded and stored once per block
//! instead of once per shingle. The slots left over are done in blocks of 8,
//! the last (fewer than 8) in a zero-padded block of 8.

/// Slots per register-resident block (4 AVX2 or 8 SSE registers of minimums).
const BLOCK: usize = 32;

/// Slots per block with AVX-512 (4 registers of 16 minimums).
const WIDE_BLOCK: usize = 64;

/// Slots of the tail blocks.
const TAIL: usize = 8;

/// Folds the shingle hashes `xs` into `sig` with the multipliers `a` and
/// increments `b`; only the first `min(a.len(), b.len(), sig.len())` slots
/// are touched.
pub(crate) fn fold(a: &[u32], b: &[u32], xs: &[u64], sig: &mut [u32]) {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    if x86::fold(Path::Avx512, a, b, xs, sig)
        || x86::fold(Path::Avx2, a, b, xs, sig)
        || x86::fold(Path::Sse41, a, b, xs, sig)
    {
        return;
    }
    fold_generic(a, b, xs, sig);
}

/// The compiled variants of the loop.
#[cfg_attr(not(test), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Path {
    /// Whatever the build target allows.
    Portable,
    /// x86 with SSE4.1 (`pmulld`, `pminud`).
    Sse41,
    /// x86 with AVX2 (the same on 8 lanes).
    Avx2,
    /// x86 with AVX-512F (16 lanes, blocks of [`WIDE_BLOCK`] slots).
    Avx512,
}

/// Runs `path` if this CPU supports it; returns whether it ran.
#[cfg(test)]
pub(crate) fn fold_on(path: Path, a: &[u32], b: &[u32], xs: &[u64], sig: &mut [u32]) -> bool {
    match path {
        Path::Portable => {
            fold_generic(a, b, xs, sig);
            true
        }
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        _ => x86::fold(path, a, b, xs, sig),
        #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
        _ => false,
    }
}

#[inline(always)]
fn fold_generic(a: &[u32], b: &[u32], xs: &[u64], sig: &mut [u32]) {
    fold_blocks::<BLOCK>(a, b, xs, sig)
}

/// [`fold_generic`] with register-resident blocks of `B` slots.
#[inline(always)]
fn fold_blocks<const B: usize>(a: &[u32], b: &[u32], xs: &[u64], sig: &mut [u32]) {
    let n = sig.len().min(a.len()).min(b.len());
    let (a, b, sig) = (&a[..n], &b[..n], &mut sig[..n]);
    let done = blocks::<B>(a, b, xs, sig);
    let done = done + blocks::<TAIL>(&a[done..], &b[done..], xs, &mut sig[done..]);
    let rest = n - done;
    if rest > 0 {
        let (mut pa, mut pb, mut ps) = ([0u32; TAIL], [0u32; TAIL], [0u32; TAIL]);
        pa[..rest].copy_from_slice(&a[done..]);
        pb[..rest].copy_from_slice(&b[done..]);
        ps[..rest].copy_from_slice(&sig[done..]);
        blocks::<TAIL>(&pa, &pb, xs, &mut ps);
        sig[done..].copy_from_slice(&ps[..rest]);
    }
}

/// Folds `xs` into the whole blocks of `B` slots; returns the slots done.
#[inline(always)]
fn blocks<const B: usize>(a: &[u32], b: &[u32], xs: &[u64], sig: &mut [u32]) -> usize {
    let whole = sig.len() / B * B;
    let slots = sig[..whole].chunks_exact_mut(B);
    for ((s, a), b) in slots.zip(a.chunks_exact(B)).zip(b.chunks_exact(B)) {
        let mut a_blk = [0u32; B];
        let mut b_blk = [0u32; B];
        let mut min = [0u32; B];
        a_blk.copy_from_slice(a);
        b_blk.copy_from_slice(b);
        min.copy_from_slice(s);
        for &x in xs {
            let x = (x >> 32) as u32;
            for j in 0..B {
                min[j] = min[j].min(a_blk[j].wrapping_mul(x).wrapping_add(b_blk[j]));
            }
        }
        s.copy_from_slice(&min);
    }
    whole
}

/// The only unsafe code of the crate: calling the `#[target_feature]`
/// compilations of the loop after checking that the CPU has the feature.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
#[allow(unsafe_code)]
mod x86 {
    use super::{fold_blocks, fold_generic, Path, WIDE_BLOCK};

    /// # Safety
    /// The CPU must support AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn avx512(a: &[u32], b: &[u32], xs: &[u64], sig: &mut [u32]) {
        fold_blocks::<WIDE_BLOCK>(a, b, xs, sig)
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn avx2(a: &[u32], b: &[u32], xs: &[u64], sig: &mut [u32]) {
        fold_generic(a, b, xs, sig)
    }

    /// # Safety
    /// The CPU must support SSE4.1.
    #[target_feature(enable = "sse4.1")]
    unsafe fn sse41(a: &[u32], b: &[u32], xs: &[u64], sig: &mut [u32]) {
        fold_generic(a, b, xs, sig)
    }

    /// Runs `path` if the CPU supports it; returns whether it ran.
    #[inline]
    pub(super) fn fold(path: Path, a: &[u32], b: &[u32], xs: &[u64], sig: &mut [u32]) -> bool {
        match path {
            Path::Avx512 if is_x86_feature_detected!("avx512f") => {
                // SAFETY: `avx512` is safe code compiled with AVX-512F
                // enabled; its only requirement, a CPU with AVX-512F, was
                // checked just above.
                unsafe { avx512(a, b, xs, sig) }
            }
            Path::Avx2 if is_x86_feature_detected!("avx2") => {
                // SAFETY: `avx2` is safe code compiled with AVX2 enabled; its
                // only requirement, a CPU with AVX2, was checked just above.
                unsafe { avx2(a, b, xs, sig) }
            }
            Path::Sse41 if is_x86_feature_detected!("sse4.1") => {
                // SAFETY: as above, with SSE4.1 checked just above.
                unsafe { sse41(a, b, xs, sig) }
            }
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition, one shingle at a time.
    fn reference(a: &[u32], b: &[u32], xs: &[u64], sig: &mut [u32]) {
        for &x in xs {
            let x = (x >> 32) as u32;
            for ((s, &a), &b) in sig.iter_mut().zip(a).zip(b) {
                *s = (*s).min(a.wrapping_mul(x).wrapping_add(b));
            }
        }
    }

    const PATHS: [Path; 4] = [Path::Portable, Path::Sse41, Path::Avx2, Path::Avx512];

    fn check_all_paths(a: &[u32], b: &[u32], xs: &[u64], sig: &[u32]) {
        let mut want = sig.to_vec();
        reference(a, b, xs, &mut want);
        let mut got = sig.to_vec();
        fold(a, b, xs, &mut got);
        assert_eq!(got, want, "dispatched");
        for path in PATHS {
            let mut got = sig.to_vec();
            if fold_on(path, a, b, xs, &mut got) {
                assert_eq!(got, want, "{path:?}");
            }
        }
    }

    #[test]
    fn every_size_around_the_block_edges() {
        let mut state = 3u64;
        let mut next = || crate::hash::splitmix64(&mut state);
        for n in [
            0, 1, 7, 8, 9, 31, 32, 33, 40, 63, 64, 65, 84, 127, 128, 129, 200,
        ] {
            let a: Vec<u32> = (0..n).map(|_| next() as u32 | 1).collect();
            let b: Vec<u32> = (0..n).map(|_| next() as u32).collect();
            let xs: Vec<u64> = (0..57).map(|_| next()).collect();
            check_all_paths(&a, &b, &xs, &vec![u32::MAX; n]);
            check_all_paths(&a, &b, &[], &vec![u32::MAX; n]);
        }
    }

    #[test]
    fn the_portable_path_always_runs() {
        let mut sig = [u32::MAX; 3];
        assert!(fold_on(
            Path::Portable,
            &[1, 3, 5],
            &[0, 0, 7],
            &[2 << 32],
            &mut sig
        ));
        assert_eq!(sig, [2, 6, 17]);
    }

    proptest! {
        #[test]
        fn every_available_path_equals_the_reference(
            n in 0usize..150,
            seed in any::<u64>(),
            xs in proptest::collection::vec(any::<u64>(), 0..300),
        ) {
            let mut state = seed;
            let mut next = || crate::hash::splitmix64(&mut state);
            let a: Vec<u32> = (0..n).map(|_| next() as u32 | 1).collect();
            let b: Vec<u32> = (0..n).map(|_| next() as u32).collect();
            // Mixed starting values, as when folding a batch into a partial signature.
            let sig: Vec<u32> = (0..n).map(|i| if i % 3 == 0 { u32::MAX } else { next() as u32 }).collect();
            check_all_paths(&a, &b, &xs, &sig);
        }
    }
}

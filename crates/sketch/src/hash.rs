//! Seeded hash families shared by the methods: splitmix64 parameter streams,
//! a 64-bit finalizer, and the multiply-add-shift MinHash family.

/// One step of splitmix64: advances `state` and returns the next output.
#[inline]
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A bijective 64-bit mixer (the splitmix64 finalizer) of `x ^ seed`.
#[inline]
pub(crate) fn mix64(x: u64, seed: u64) -> u64 {
    let mut s = x ^ seed;
    splitmix64(&mut s)
}

/// The MinHash permutation family: `h_i(x) = (a_i · x32 + b_i) mod 2^32`
/// where `x32` is the high half of the 64-bit shingle hash and `a_i` (odd),
/// `b_i` come from splitmix64 seeded with the method seed.
///
/// Each `h_i` is a bijection of `u32`. Shingle hashes are already uniform
/// (xxh3), so the minimum of any fixed bijection over a set falls on a
/// uniformly random member and every slot estimates Jaccard without bias;
/// the random odd multipliers decorrelate the slots (multiplication by a
/// large odd number mod 2^32 scrambles the order of small values). In
/// exchange, the inner loop is one 32-bit multiply-add and a min per slot,
/// which vectorizes to 4 (SSE4.1) or 8 (AVX2) slots per instruction; see
/// [`crate::kernel`] for the runtime dispatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Family {
    a: Vec<u32>,
    b: Vec<u32>,
}

impl Family {
    pub(crate) fn new(seed: u64, n: usize) -> Self {
        let mut state = seed;
        let mut a = Vec::with_capacity(n);
        let mut b = Vec::with_capacity(n);
        for _ in 0..n {
            let r = splitmix64(&mut state);
            a.push((r as u32) | 1);
            b.push((r >> 32) as u32);
        }
        Family { a, b }
    }

    pub(crate) fn len(&self) -> usize {
        self.a.len()
    }

    /// The signature of a set of shingle hashes (all `u32::MAX` when empty).
    pub(crate) fn signature(&self, shingles: &[u64]) -> Vec<u32> {
        let mut sig = vec![u32::MAX; self.len()];
        crate::kernel::fold(&self.a, &self.b, shingles, &mut sig);
        sig
    }

    /// A signature to feed one shingle hash at a time (e.g. from a
    /// [`neardup_text::Shingler`] callback); the hashes are buffered and
    /// folded in batches, which lets the vectorized loop run over many
    /// shingles per pass over the slots.
    pub(crate) fn batch(&self) -> Batch<'_> {
        Batch {
            family: self,
            sig: vec![u32::MAX; self.len()],
            buf: [0; BATCH],
            len: 0,
        }
    }
}

/// Shingle hashes buffered per fold of a [`Batch`].
const BATCH: usize = 128;

/// A signature being built from shingle hashes fed one at a time.
pub(crate) struct Batch<'a> {
    family: &'a Family,
    sig: Vec<u32>,
    buf: [u64; BATCH],
    len: usize,
}

impl Batch<'_> {
    /// Adds one shingle hash.
    #[inline]
    pub(crate) fn push(&mut self, x: u64) {
        if self.len == BATCH {
            self.flush();
        }
        self.buf[self.len] = x;
        self.len += 1;
    }

    fn flush(&mut self) {
        let f = self.family;
        crate::kernel::fold(&f.a, &f.b, &self.buf[..self.len], &mut self.sig);
        self.len = 0;
    }

    /// The signature of everything pushed (all `u32::MAX` when nothing was).
    pub(crate) fn finish(mut self) -> Vec<u32> {
        self.flush();
        self.sig
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // Reference outputs of splitmix64 seeded with 0.
        let mut s = 0;
        assert_eq!(splitmix64(&mut s), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(&mut s), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn family_is_deterministic_and_min_based() {
        let f = Family::new(1, 16);
        assert_eq!(f, Family::new(1, 16));
        assert_ne!(f, Family::new(2, 16));
        let one = f.signature(&[10 << 32]);
        let two = f.signature(&[10 << 32, 99 << 32]);
        assert!(one.iter().zip(&two).all(|(a, b)| b <= a));
        assert!(f.signature(&[]).iter().all(|&v| v == u32::MAX));
    }

    #[test]
    fn batch_equals_signature_across_flushes() {
        let f = Family::new(5, 84);
        for n in [0, 1, BATCH - 1, BATCH, BATCH + 1, 3 * BATCH + 17] {
            let xs: Vec<u64> = (0..n as u64).map(|i| mix64(i, 9)).collect();
            let mut batch = f.batch();
            xs.iter().for_each(|&x| batch.push(x));
            assert_eq!(batch.finish(), f.signature(&xs), "{n}");
        }
    }
}

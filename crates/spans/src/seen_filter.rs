//! A filter of the keys a partitioned `--keep first` run has met: a
//! blocked Bloom filter (the probes of a key lie in one 64-byte block, one
//! cache miss a key). It answers "never met" exactly and "maybe met" with
//! a few false positives, so a document waiting on disk keeps the text of
//! the units that may repeat only ([`crate::kept_text`]): a unit whose
//! keys were never met is a first occurrence, which `--keep first` never
//! marks. The spans never depend on the filter; a false positive costs
//! only the disk of a unit's text.

/// Bits set (and tested) a key.
const PROBES: u32 = 6;

/// Bits of a block (eight words, one cache line).
const BLOCK_BITS: u64 = 512;

/// The filter's smallest size in bytes.
const MIN_BYTES: u64 = 1 << 16;

/// Keys met so far, approximately.
#[derive(Debug)]
pub(crate) struct SeenFilter {
    blocks: Vec<[u64; 8]>,
}

impl SeenFilter {
    /// A filter of at most `bytes` bytes (at least 64 KiB), a power of
    /// two. With `b` bits for each key the false positives are about 2.8%
    /// at `b = 8`, 1.3% at `b = 10`, 0.6% at `b = 12` and 0.2% at `b = 16`
    /// (simulated); past its planned keys it stays correct and keeps more
    /// text.
    pub fn with_bytes(bytes: u64) -> SeenFilter {
        let bytes = bytes.max(MIN_BYTES);
        let blocks = 1u64 << (63 - (bytes / 64).leading_zeros());
        SeenFilter {
            blocks: vec![[0u64; 8]; blocks as usize],
        }
    }

    /// Bytes the filter takes.
    #[cfg(test)]
    pub fn memory_bytes(&self) -> u64 {
        self.blocks.len() as u64 * 64
    }

    /// Adds `key`; whether it may have been added before (`false`: it
    /// certainly was not).
    pub fn insert(&mut self, key: u64) -> bool {
        // The keys are 64-bit hashes: the low bits pick the block, the
        // high bits (mixed, so that keys of one partition spread too) the
        // bits in it.
        let mask = self.blocks.len() as u64 - 1;
        let block = &mut self.blocks[(key & mask) as usize];
        let mut h = key.rotate_left(29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut met = true;
        for _ in 0..PROBES {
            let bit = (h >> 55) % BLOCK_BITS;
            let (word, bit) = ((bit / 64) as usize, bit % 64);
            met &= block[word] >> bit & 1 == 1;
            block[word] |= 1 << bit;
            h = h.rotate_left(9);
        }
        met
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(seed: u64, n: usize) -> impl Iterator<Item = u64> {
        let mut x = seed | 1;
        (0..n).map(move |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
    }

    #[test]
    fn a_key_met_is_always_met_and_a_new_one_rarely() {
        let mut f = SeenFilter::with_bytes(1 << 20);
        assert_eq!(f.memory_bytes(), 1 << 20);
        // 12 bits a key.
        let n = (8 << 20) / 12;
        let mut first_met = 0;
        for k in keys(7, n) {
            first_met += usize::from(f.insert(k));
        }
        for k in keys(7, n) {
            assert!(f.insert(k), "a key added is met");
        }
        let fresh = keys(99, 100_000).filter(|&k| f.insert(k)).count();
        assert!(fresh < 1_500, "{fresh} false positives of 100,000");
        assert!(first_met < n / 100, "{first_met} of {n}");
    }

    #[test]
    fn a_filter_is_a_power_of_two_of_at_least_64_kib() {
        assert_eq!(SeenFilter::with_bytes(0).memory_bytes(), 1 << 16);
        assert_eq!(
            SeenFilter::with_bytes((1 << 20) + 5).memory_bytes(),
            1 << 20
        );
        assert_eq!(
            SeenFilter::with_bytes((1 << 21) - 1).memory_bytes(),
            1 << 20
        );
    }

    #[test]
    fn an_overfull_filter_says_met_and_never_misses() {
        let mut f = SeenFilter::with_bytes(0);
        for k in keys(3, 1_000_000) {
            f.insert(k);
        }
        assert!(keys(3, 1_000_000).all(|k| f.insert(k)));
    }
}

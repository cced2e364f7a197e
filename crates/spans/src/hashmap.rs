//! Hash maps keyed by hashes: the keys are xxh3 values already, so the
//! table uses them as they are instead of hashing them again.

use std::hash::{BuildHasherDefault, Hasher};

/// A hasher that passes a `u64` key through (a multiply spreads its high
/// bits for the table's low-bit bucket choice).
#[derive(Debug, Default, Clone, Copy)]
pub struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed here; any other input is folded in.
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Builds [`IdentityHasher`]s.
pub type IdentityBuild = BuildHasherDefault<IdentityHasher>;

//! A seeded Bloom filter for exact-duplicate keys (e.g. [`crate::ExactSig`]
//! digests) over large collections.
//!
//! Sized from the expected number of items `n` and the false-positive rate
//! `p`: `m = ceil(-n ln p / ln² 2)` bits and `k = round(m / n · ln 2)` hash
//! functions (1..=32). The k bit positions of an item come from double
//! hashing of its seeded xxh3-128 digest (`h1 + i·h2 mod m`).
//!
//! Byte format (little-endian): magic `NDBF`, version u8 (1), seed u64,
//! k u32, m u64 (bits), items u64, `ceil(m/64)` u64 words, checksum u64
//! (xxh3-64 of everything before it).

use xxhash_rust::xxh3::{xxh3_128_with_seed, xxh3_64};

use crate::codec::{Reader, Writer};
use crate::error::{ErrorKind, Result};

const BLOOM_MAGIC: [u8; 4] = *b"NDBF";
const BLOOM_VERSION: u8 = 1;

/// A Bloom filter; see the module documentation.
///
/// ```
/// use neardup_sketch::BloomFilter;
/// let mut bf = BloomFilter::new(1000, 0.01, 42);
/// assert!(bf.insert(b"page-1"));
/// assert!(!bf.insert(b"page-1")); // already (probably) present
/// assert!(bf.contains(b"page-1"));
/// let back = BloomFilter::from_bytes(&bf.to_bytes()).unwrap();
/// assert_eq!(back, bf);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BloomFilter {
    seed: u64,
    k: u32,
    m: u64,
    items: u64,
    words: Vec<u64>,
}

impl BloomFilter {
    /// A filter for about `expected` items at false-positive rate `fp_rate`
    /// (clamped to `[1e-12, 0.5]`), with hash seed `seed`.
    pub fn new(expected: usize, fp_rate: f64, seed: u64) -> Self {
        let n = expected.max(1) as f64;
        let p = if fp_rate.is_nan() {
            0.01
        } else {
            fp_rate.clamp(1e-12, 0.5)
        };
        let ln2 = std::f64::consts::LN_2;
        let m = (-n * p.ln() / (ln2 * ln2)).ceil().max(64.0) as u64;
        let k = ((m as f64 / n) * ln2).round().clamp(1.0, 32.0) as u32;
        BloomFilter {
            seed,
            k,
            m,
            items: 0,
            words: vec![0; m.div_ceil(64) as usize],
        }
    }

    /// Number of bits.
    pub fn bits(&self) -> u64 {
        self.m
    }

    /// Number of hash functions.
    pub fn hashes(&self) -> u32 {
        self.k
    }

    /// Number of insertions that set at least one new bit.
    pub fn len(&self) -> u64 {
        self.items
    }

    /// Whether nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.items == 0
    }

    fn positions(&self, item: &[u8]) -> impl Iterator<Item = u64> {
        let h = xxh3_128_with_seed(item, self.seed);
        let (h1, h2, m) = (h as u64, (h >> 64) as u64 | 1, self.m);
        (0..self.k as u64).map(move |i| h1.wrapping_add(i.wrapping_mul(h2)) % m)
    }

    /// Inserts `item`; returns `true` if it was not (probably) present.
    pub fn insert(&mut self, item: &[u8]) -> bool {
        let mut new = false;
        for p in self.positions(item) {
            let (w, b) = ((p / 64) as usize, p % 64);
            new |= self.words[w] & (1 << b) == 0;
            self.words[w] |= 1 << b;
        }
        self.items += new as u64;
        new
    }

    /// Whether `item` is (probably) present: never false for inserted items.
    pub fn contains(&self, item: &[u8]) -> bool {
        self.positions(item)
            .all(|p| self.words[(p / 64) as usize] & (1 << (p % 64)) != 0)
    }

    /// Serializes the filter (see the module documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(&BLOOM_MAGIC);
        w.u8(BLOOM_VERSION);
        w.u64(self.seed);
        w.u32(self.k);
        w.u64(self.m);
        w.u64(self.items);
        for &x in &self.words {
            w.u64(x);
        }
        let sum = xxh3_64(&w.buf);
        w.u64(sum);
        w.buf
    }

    /// Parses bytes made by [`BloomFilter::to_bytes`].
    ///
    /// # Errors
    /// [`ErrorKind::BadMagic`], [`ErrorKind::UnsupportedVersion`],
    /// [`ErrorKind::Truncated`], [`ErrorKind::Malformed`] or
    /// [`ErrorKind::ChecksumMismatch`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        if r.take(4)? != BLOOM_MAGIC {
            return Err(ErrorKind::BadMagic.into());
        }
        let version = r.u8()?;
        if version != BLOOM_VERSION {
            return Err(ErrorKind::UnsupportedVersion(version).into());
        }
        let seed = r.u64()?;
        let k = r.u32()?;
        let m = r.u64()?;
        let items = r.u64()?;
        if k == 0 || k > 32 || m == 0 {
            return Err(ErrorKind::Malformed("bad bloom parameters").into());
        }
        let nwords = m.div_ceil(64);
        let body_len = nwords.checked_mul(8).and_then(|b| usize::try_from(b).ok());
        let words_bytes = r.take(body_len.ok_or(ErrorKind::Truncated)?)?;
        let sum = r.u64()?;
        r.finish()?;
        if xxh3_64(&bytes[..bytes.len() - 8]) != sum {
            return Err(ErrorKind::ChecksumMismatch.into());
        }
        let words = words_bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        Ok(BloomFilter {
            seed,
            k,
            m,
            items,
            words,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn false_positive_rate_is_near_target() {
        let mut bf = BloomFilter::new(2000, 0.01, 7);
        for i in 0..2000u32 {
            bf.insert(&i.to_le_bytes());
        }
        assert!((0..2000u32).all(|i| bf.contains(&i.to_le_bytes())));
        let fp = (2000..22000u32)
            .filter(|i| bf.contains(&i.to_le_bytes()))
            .count();
        assert!(fp < 400, "{fp} false positives out of 20000");
    }

    #[test]
    fn garbage_is_rejected() {
        let bf = BloomFilter::new(10, 0.1, 1);
        let bytes = bf.to_bytes();
        for cut in 0..bytes.len() {
            assert!(BloomFilter::from_bytes(&bytes[..cut]).is_err());
        }
        let mut bad = bytes.clone();
        bad[30] ^= 0xFF;
        assert!(BloomFilter::from_bytes(&bad).is_err());
        assert_eq!(
            BloomFilter::from_bytes(b"nope").unwrap_err().kind(),
            &ErrorKind::BadMagic
        );
    }
}

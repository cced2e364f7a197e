//! Charikar's SimHash, 64 or 128 bits, with term-frequency or TF-IDF weights.
//!
//! Features are token k-gram hashes (default: single tokens, i.e. words, and
//! characters for CJK). Each distinct feature with weight `w` (its count, or
//! count × IDF with an [`IdfTable`]) adds `+w` to every bit position where
//! its seeded 64-bit (or two 64-bit) hash has a 1 and `-w` where it has a 0;
//! the fingerprint keeps the positive positions. Near-duplicates are at
//! Hamming distance <= k: 3 by default for 64 bits (Manku et al.), 6 for 128.

use std::sync::Arc;

use neardup_text::{ShingleUnit, Shingler};

use crate::codec::{Reader, Writer};
use crate::doc::DocText;
use crate::error::{ErrorKind, Result};
use crate::hash::mix64;
use crate::idf::IdfTable;

/// A SimHash fingerprint of 64 or 128 bits.
///
/// Body format: bits u8 (64 or 128), parameter hash u64 (seed, feature
/// length, IDF table), value u128 as two u64 (low, high; the high half is 0
/// for 64 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SimHashSig {
    pub(crate) bits: u8,
    pub(crate) params: u64,
    pub(crate) value: u128,
}

impl SimHashSig {
    /// Width in bits: 64 or 128.
    pub fn bits(&self) -> u32 {
        self.bits as u32
    }

    /// The fingerprint as u64 (the low 64 bits for 128-bit fingerprints).
    pub fn value64(&self) -> u64 {
        self.value as u64
    }

    /// The full fingerprint.
    pub fn value128(&self) -> u128 {
        self.value
    }

    /// Hamming distance to another fingerprint of the same width.
    ///
    /// # Errors
    /// [`ErrorKind::ParameterMismatch`] for different widths, seeds, feature
    /// lengths or IDF tables.
    pub fn distance(&self, other: &SimHashSig) -> Result<u32> {
        if self.bits != other.bits || self.params != other.params {
            return Err(ErrorKind::ParameterMismatch.into());
        }
        Ok((self.value ^ other.value).count_ones())
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u8(self.bits);
        w.u64(self.params);
        w.u64(self.value as u64);
        w.u64((self.value >> 64) as u64);
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let bits = r.u8()?;
        let params = r.u64()?;
        let lo = r.u64()? as u128;
        let hi = r.u64()? as u128;
        if bits != 64 && bits != 128 || (bits == 64 && hi != 0) {
            return Err(ErrorKind::Malformed("bad simhash width").into());
        }
        Ok(SimHashSig {
            bits,
            params,
            value: lo | hi << 64,
        })
    }
}

/// SimHash; see the module documentation.
///
/// ```
/// use neardup_sketch::{DocText, SimHash};
/// let sh = SimHash::new();
/// let a = sh.signature(&DocText::from_text("a fingerprint for near duplicate web pages"));
/// let b = sh.signature(&DocText::from_text("A fingerprint for near-duplicate web pages!"));
/// assert_eq!(a.distance(&b).unwrap(), 0);
/// assert_eq!(a.bits(), 64);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SimHash {
    bits: u8,
    k: usize,
    max_distance: u32,
    seed: u64,
    idf: Option<Arc<IdfTable>>,
}

impl Default for SimHash {
    fn default() -> Self {
        Self::new()
    }
}

impl SimHash {
    /// Default seed of the feature hash.
    pub const DEFAULT_SEED: u64 = 0x5369_6D48_6173_6831; // "SimHash1"

    /// 64-bit SimHash over single tokens with TF weights, duplicate at
    /// Hamming distance <= 3.
    pub fn new() -> Self {
        SimHash {
            bits: 64,
            k: 1,
            max_distance: 3,
            seed: Self::DEFAULT_SEED,
            idf: None,
        }
    }

    /// Uses 128-bit fingerprints (`true`) or 64-bit ones (`false`). Also sets
    /// the default distance for that width (6 or 3).
    pub fn wide(&mut self, wide: bool) -> &mut Self {
        self.bits = if wide { 128 } else { 64 };
        self.max_distance = if wide { 6 } else { 3 };
        self
    }

    /// Sets the feature length in tokens (ignored with an IDF table, whose
    /// own feature length is used).
    pub fn shingle(&mut self, k: usize) -> &mut Self {
        self.k = k.max(1);
        self
    }

    /// Sets the largest Hamming distance still counted as duplicate.
    pub fn max_distance(&mut self, k: u32) -> &mut Self {
        self.max_distance = k;
        self
    }

    /// The largest Hamming distance counted as duplicate.
    pub fn get_max_distance(&self) -> u32 {
        self.max_distance
    }

    /// Sets the seed of the feature hash.
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.seed = seed;
        self
    }

    /// Weights features by TF-IDF from `table` (TF alone when `None`).
    pub fn idf(&mut self, table: Option<Arc<IdfTable>>) -> &mut Self {
        self.idf = table;
        self
    }

    /// Fingerprint of a document (normalizes its text first).
    pub fn signature(&self, doc: &DocText<'_>) -> SimHashSig {
        let (unit, k) = self.features();
        let mut feats = Vec::with_capacity(doc.text.len() / 5);
        Shingler::new(unit, k).for_each_normalizing(doc.text, |h| feats.push(h));
        self.finish(feats)
    }

    /// Fingerprint of an already normalized text.
    pub fn signature_of_normalized(&self, text: &str) -> SimHashSig {
        let (unit, k) = self.features();
        self.finish(Shingler::new(unit, k).shingles(text))
    }

    fn features(&self) -> (ShingleUnit, usize) {
        match &self.idf {
            Some(t) => t.features(),
            None => (ShingleUnit::Token, self.k),
        }
    }

    fn finish(&self, feats: Vec<u64>) -> SimHashSig {
        let (unit, k) = self.features();
        let idf = self.idf.as_deref();
        let value = match idf {
            None => weighted_simhash(&feats, self.bits, self.seed, None),
            Some(t) => weighted_simhash(&feats, self.bits, self.seed, Some(&|f| t.idf(f))),
        };
        let params = mix64(
            self.seed ^ unit_k(unit, k),
            idf.map_or(0, IdfTable::fingerprint),
        );
        SimHashSig {
            bits: self.bits,
            params,
            value,
        }
    }
}

fn unit_k(unit: ShingleUnit, k: usize) -> u64 {
    (k as u64) << 8 | crate::minhash::unit_tag(unit) as u64
}

/// SimHash of feature hashes (duplicates included: a feature occurring `tf`
/// times contributes `tf` times its weight). `weight` gives the per-feature
/// multiplier (IDF); `None` means 1, computed with integer counters.
pub(crate) fn weighted_simhash(
    feats: &[u64],
    bits: u8,
    seed: u64,
    weight: Option<&dyn Fn(u64) -> f64>,
) -> u128 {
    let seed2 = seed ^ 0xA5A5_A5A5_A5A5_A5A5;
    let mut value = 0u128;
    match weight {
        None => {
            // Unit weights: a bit is set when more than half of the features
            // have it set, i.e. ones - zeros > 0.
            let n = feats.len() as u64;
            let ones = count_ones(feats.iter().map(|&f| mix64(f, seed)));
            for (b, &o) in ones.iter().enumerate() {
                value |= ((2 * o > n) as u128) << b;
            }
            if bits == 128 {
                let ones = count_ones(feats.iter().map(|&f| mix64(f, seed2)));
                for (b, &o) in ones.iter().enumerate() {
                    value |= ((2 * o > n) as u128) << (64 + b);
                }
            }
        }
        Some(weight) => {
            let mut acc = [0f64; 128];
            for &f in feats {
                let w = weight(f);
                add_weighted(&mut acc[..64], mix64(f, seed), w);
                if bits == 128 {
                    add_weighted(&mut acc[64..], mix64(f, seed2), w);
                }
            }
            for (b, &a) in acc[..bits as usize].iter().enumerate() {
                value |= ((a > 0.0) as u128) << b;
            }
        }
    }
    value
}

/// `SPREAD[b]` has byte `i` equal to bit `i` of `b`.
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            t[b] |= (((b >> i) & 1) as u64) << (8 * i);
            i += 1;
        }
        b += 1;
    }
    t
};

/// For each of the 64 bit positions, how many of the hashes have it set.
/// Counts are kept eight to a `u64` (one byte each, a lookup per hash byte)
/// and flushed to wide counters before a byte can overflow.
fn count_ones(hashes: impl Iterator<Item = u64>) -> [u64; 64] {
    let mut wide = [0u64; 64];
    let mut narrow = [0u64; 8];
    let mut pending = 0;
    let flush = |narrow: &mut [u64; 8], wide: &mut [u64; 64]| {
        for (j, n) in narrow.iter_mut().enumerate() {
            for i in 0..8 {
                wide[8 * j + i] += (*n >> (8 * i)) & 0xFF;
            }
            *n = 0;
        }
    };
    for h in hashes {
        for (j, n) in narrow.iter_mut().enumerate() {
            *n += SPREAD[((h >> (8 * j)) & 0xFF) as usize];
        }
        pending += 1;
        if pending == 255 {
            flush(&mut narrow, &mut wide);
            pending = 0;
        }
    }
    flush(&mut narrow, &mut wide);
    wide
}

#[inline]
fn add_weighted(acc: &mut [f64], h: u64, w: f64) {
    for (b, a) in acc.iter_mut().enumerate() {
        *a += if (h >> b) & 1 == 1 { w } else { -w };
    }
}

impl SimHash {
    /// Writes every parameter (for [`crate::Method::params_bytes`]).
    pub(crate) fn encode_params(&self, w: &mut crate::codec::Writer) {
        w.u8(self.bits);
        w.len(self.k);
        w.u32(self.max_distance);
        w.u64(self.seed);
        crate::params::idf(w, self.idf.as_deref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_feature_is_its_hash() {
        assert_eq!(weighted_simhash(&[42], 64, 7, None), mix64(42, 7) as u128);
        assert_eq!(
            weighted_simhash(&[42], 64, 7, Some(&|_| 2.5)),
            mix64(42, 7) as u128
        );
        assert_eq!(weighted_simhash(&[], 64, 7, None), 0);
    }

    #[test]
    fn idf_weighting_changes_fingerprint_and_parameters() {
        let mut b = IdfTable::builder();
        for t in ["common words here", "common words there", "common rare"] {
            b.add_normalized(t);
        }
        let mut sh = SimHash::new();
        let tf = sh.signature_of_normalized("common common common words rare");
        sh.idf(Some(Arc::new(b.build())));
        let tfidf = sh.signature_of_normalized("common common common words rare");
        assert_eq!(
            tf.distance(&tfidf).unwrap_err().kind(),
            &ErrorKind::ParameterMismatch
        );
        // "common" has IDF ln(4/4) = 0: only "words" and "rare" count.
        let without = sh.signature_of_normalized("words rare");
        assert_eq!(tfidf.distance(&without).unwrap(), 0);
    }

    #[test]
    fn bit_counts_match_naive_counts() {
        let hashes: Vec<u64> = (0..1000u64).map(|i| mix64(i, 3)).collect();
        let got = count_ones(hashes.iter().copied());
        for (b, &g) in got.iter().enumerate() {
            assert_eq!(
                g,
                hashes.iter().filter(|&&h| (h >> b) & 1 == 1).count() as u64
            );
        }
    }

    #[test]
    fn widths_and_distance() {
        let mut sh = SimHash::new();
        let a = sh.signature_of_normalized("alpha beta gamma");
        sh.wide(true);
        let b = sh.signature_of_normalized("alpha beta gamma");
        assert_eq!(b.bits(), 128);
        assert_eq!(a.value64(), b.value64());
        assert_eq!(
            a.distance(&b).unwrap_err().kind(),
            &ErrorKind::ParameterMismatch
        );
        assert_eq!(sh.get_max_distance(), 6);
    }
}

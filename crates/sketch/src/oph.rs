//! Fast MinHash: one-permutation hashing with optimal densification
//! (Li, Owen & Zhang 2012; Shrivastava 2017).
//!
//! Each shingle hash is remixed once with the seed; its high 32 bits pick one
//! of `n` bins and its low 32 bits are the value kept if smaller than the
//! bin's current minimum. That is one hash per shingle instead of `n`. Empty
//! bins are then filled by *optimal densification*: empty bin `i` probes
//! bins `g(i, 1), g(i, 2), ...` (a seeded hash of bin and attempt, the same
//! for every document) and copies the first non-empty bin's value. The
//! result is a [`MinHashSig`] with scheme
//! [`MinHashScheme::OnePermutation`]; its slot agreement estimates Jaccard
//! like classic MinHash, with slightly higher variance for documents that
//! have fewer shingles than bins.
//!
//! Defaults: 128 bins, token 5-grams, duplicate at estimated Jaccard >= 0.5.

use std::fmt;

use neardup_text::{Segmenter, ShingleUnit, Shingler};

use crate::doc::DocText;
use crate::hash::mix64;
use crate::minhash::{MinHashScheme, MinHashSig};

/// Value of a bin no shingle fell in.
const EMPTY: u32 = u32::MAX;

/// One-permutation MinHash; see the module documentation.
///
/// ```
/// use neardup_sketch::{DocText, OphMinHash};
/// let oph = OphMinHash::new();
/// let a = oph.signature(&DocText::from_text("one two three four five six seven"));
/// assert_eq!(a.values().len(), 128);
/// assert_eq!(a.jaccard(&a).unwrap(), 1.0);
/// ```
#[derive(Clone, PartialEq)]
pub struct OphMinHash {
    unit: ShingleUnit,
    k: usize,
    segmenter: Segmenter,
    seed: u64,
    bins: usize,
    threshold: f64,
}

impl Default for OphMinHash {
    fn default() -> Self {
        Self::new()
    }
}

impl OphMinHash {
    /// Default seed.
    pub const DEFAULT_SEED: u64 = 0x4F50_484D_696E_4831; // "OPHMinH1"

    /// One-permutation MinHash with default parameters.
    pub fn new() -> Self {
        OphMinHash {
            unit: ShingleUnit::Token,
            k: 5,
            segmenter: Segmenter::chars(),
            seed: Self::DEFAULT_SEED,
            bins: 128,
            threshold: 0.5,
        }
    }

    /// Sets the number of bins (signature length, at least 1).
    pub fn num_bins(&mut self, n: usize) -> &mut Self {
        self.bins = n.clamp(1, u32::MAX as usize);
        self
    }

    /// The number of bins (the signature's length).
    pub fn get_num_bins(&self) -> usize {
        self.bins
    }

    /// Sets the shingle unit and length (`k` clamped to 1..=65535).
    pub fn shingles(&mut self, unit: ShingleUnit, k: usize) -> &mut Self {
        self.unit = unit;
        self.k = k.clamp(1, u16::MAX as usize);
        self
    }

    /// Cuts tokens with `segmenter`: with a dictionary one (see
    /// [`neardup_text::Segmenter`]), token shingles of Han text are word
    /// k-grams and signatures record [`ShingleUnit::Word`], so they never
    /// compare with character-based ones. Default: [`Segmenter::chars`].
    pub fn segmenter(&mut self, segmenter: Segmenter) -> &mut Self {
        self.segmenter = segmenter;
        self
    }

    /// The segmenter of token shingles.
    pub fn get_segmenter(&self) -> &Segmenter {
        &self.segmenter
    }

    /// Sets the seed.
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.seed = seed;
        self
    }

    /// Sets the estimated Jaccard at or above which documents are duplicates.
    pub fn threshold(&mut self, t: f64) -> &mut Self {
        self.threshold = t;
        self
    }

    /// The duplicate threshold.
    pub fn get_threshold(&self) -> f64 {
        self.threshold
    }

    /// Signature of a document (normalizes its text first).
    pub fn signature(&self, doc: &DocText<'_>) -> MinHashSig {
        let mut values = vec![EMPTY; self.bins];
        self.shingler()
            .for_each_normalizing(doc.text, |x| self.put(x, &mut values));
        self.finish(values)
    }

    /// Signature of an already normalized text.
    pub fn signature_of_normalized(&self, text: &str) -> MinHashSig {
        let mut values = vec![EMPTY; self.bins];
        self.shingler().for_each(text, |x| self.put(x, &mut values));
        self.finish(values)
    }

    /// Signature of precomputed shingle hashes.
    pub fn signature_of_shingles(&self, shingles: &[u64]) -> MinHashSig {
        let mut values = vec![EMPTY; self.bins];
        for &x in shingles {
            self.put(x, &mut values);
        }
        self.finish(values)
    }

    /// Keeps the minimum of the bin the shingle falls in (branch-free: the
    /// minimum changes unpredictably, so a branch would mispredict often).
    #[inline]
    fn put(&self, x: u64, values: &mut [u32]) {
        let y = mix64(x, self.seed);
        let bin = (((y >> 32) * values.len() as u64) >> 32) as usize;
        if let Some(slot) = values.get_mut(bin) {
            *slot = (*slot).min(y as u32);
        }
    }

    /// Optimal densification of the empty bins (those still at [`EMPTY`]; a
    /// shingle whose value is exactly `u32::MAX` counts as absent, which
    /// happens with probability 2^-32 and the same way for every document).
    fn shingler(&self) -> Shingler {
        Shingler::with_segmenter(self.unit, self.k, self.segmenter.clone())
    }

    fn finish(&self, mut values: Vec<u32>) -> MinHashSig {
        let n = values.len() as u64;
        let filled: Vec<bool> = values.iter().map(|&v| v != EMPTY).collect();
        if filled.iter().any(|&f| f) {
            for i in 0..values.len() {
                if filled[i] {
                    continue;
                }
                let mut attempt = 1u64;
                loop {
                    let g = mix64((i as u64) << 32 | attempt, self.seed ^ 0xD3_45_17);
                    let j = (((g >> 32) * n) >> 32) as usize;
                    // Copy only values found by hashing, never densified ones.
                    if filled[j] {
                        values[i] = values[j];
                        break;
                    }
                    attempt += 1;
                }
            }
        }
        MinHashSig {
            scheme: MinHashScheme::OnePermutation,
            unit: self.segmenter.unit_for(self.unit),
            k: self.k as u16,
            seed: self.seed,
            values,
        }
    }
}

/// Lists the segmenter only when it is not the default one (see
/// [`crate::MinHash`]'s `Debug`).
impl fmt::Debug for OphMinHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("OphMinHash");
        d.field("unit", &self.unit).field("k", &self.k);
        if self.segmenter != Segmenter::chars() {
            d.field("segmenter", &self.segmenter);
        }
        d.field("seed", &self.seed)
            .field("bins", &self.bins)
            .field("threshold", &self.threshold)
            .finish()
    }
}

impl OphMinHash {
    /// Writes every parameter (for [`crate::Method::params_bytes`]).
    pub(crate) fn encode_params(&self, w: &mut crate::codec::Writer) {
        w.u8(crate::minhash::unit_tag(self.unit));
        w.len(self.k);
        crate::params::segmenter(w, &self.segmenter);
        w.u64(self.seed);
        w.len(self.bins);
        w.f64(self.threshold);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn densification_fills_every_bin() {
        let oph = OphMinHash::new();
        let sig = oph.signature_of_shingles(&[1, 2, 3]);
        assert!(sig
            .values()
            .iter()
            .all(|&v| v != u32::MAX || sig.values().contains(&v)));
        let distinct: std::collections::HashSet<u32> = sig.values().iter().copied().collect();
        assert!(distinct.len() <= 3);
        assert!(oph
            .signature_of_shingles(&[])
            .values()
            .iter()
            .all(|&v| v == u32::MAX));
    }

    #[test]
    fn estimate_tracks_exact_jaccard() {
        let mut oph = OphMinHash::new();
        oph.num_bins(512);
        let a: Vec<u64> = (0..2000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let b: Vec<u64> = (1000..3000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let est = oph
            .signature_of_shingles(&a)
            .jaccard(&oph.signature_of_shingles(&b))
            .unwrap();
        assert!((est - 1.0 / 3.0).abs() < 0.08, "{est}");
    }
}

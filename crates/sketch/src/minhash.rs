//! Classic MinHash (Broder) over shingle hashes, and the signature type it
//! shares with the one-permutation variant ([`crate::OphMinHash`]).
//!
//! Each shingle is hashed once to 64 bits (see [`neardup_text::Shingler`]);
//! the `n` permutations are then derived cheaply with a seeded
//! multiply-add-shift family (`a_i`, `b_i` from splitmix64 of the seed), and
//! each slot keeps the minimum 32-bit value. The estimated Jaccard
//! similarity is the share of equal slots.
//!
//! Defaults: 128 permutations, token 5-grams (words for spaced scripts,
//! character 5-grams for CJK), seed [`MinHash::DEFAULT_SEED`], duplicate at
//! estimated Jaccard >= 0.5.

use std::fmt;

use neardup_text::{Segmenter, ShingleUnit, Shingler};

use crate::codec::{Reader, Writer};
use crate::doc::DocText;
use crate::error::{ErrorKind, Result};
use crate::hash::Family;

/// Which MinHash scheme made a [`MinHashSig`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MinHashScheme {
    /// One independent hash function per slot ([`MinHash`]).
    Classic,
    /// One-permutation hashing with optimal densification ([`crate::OphMinHash`]).
    OnePermutation,
}

/// A MinHash signature: one 32-bit minimum per slot, plus the parameters
/// needed to check that two signatures are comparable.
///
/// Body format: scheme u8 (0 classic, 1 one-permutation), shingle unit u8
/// (0 token, 1 char, 2 dictionary word), k u16, seed u64, count u32, `count` u32 values.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MinHashSig {
    pub(crate) scheme: MinHashScheme,
    pub(crate) unit: ShingleUnit,
    pub(crate) k: u16,
    pub(crate) seed: u64,
    pub(crate) values: Vec<u32>,
}

impl MinHashSig {
    /// The raw slot values, e.g. to band them in an LSH index. A document
    /// without shingles has every slot at `u32::MAX`.
    pub fn values(&self) -> &[u32] {
        &self.values
    }

    /// The scheme that made this signature.
    pub fn scheme(&self) -> MinHashScheme {
        self.scheme
    }

    /// Estimated Jaccard similarity: the share of equal slots.
    ///
    /// # Errors
    /// [`ErrorKind::ParameterMismatch`] when the signatures were made with
    /// different schemes, seeds, shingle settings or sizes.
    pub fn jaccard(&self, other: &MinHashSig) -> Result<f64> {
        if self.scheme != other.scheme
            || self.unit != other.unit
            || self.k != other.k
            || self.seed != other.seed
            || self.values.len() != other.values.len()
        {
            return Err(ErrorKind::ParameterMismatch.into());
        }
        if self.values.is_empty() {
            return Ok(1.0);
        }
        let eq = self
            .values
            .iter()
            .zip(&other.values)
            .filter(|(a, b)| a == b)
            .count();
        Ok(eq as f64 / self.values.len() as f64)
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u8(match self.scheme {
            MinHashScheme::Classic => 0,
            MinHashScheme::OnePermutation => 1,
        });
        w.u8(unit_tag(self.unit));
        w.u16(self.k);
        w.u64(self.seed);
        w.len(self.values.len());
        for &v in &self.values {
            w.u32(v);
        }
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let scheme = match r.u8()? {
            0 => MinHashScheme::Classic,
            1 => MinHashScheme::OnePermutation,
            _ => return Err(ErrorKind::Malformed("bad minhash scheme").into()),
        };
        let unit = unit_from_tag(r.u8()?)?;
        let k = r.u16()?;
        let seed = r.u64()?;
        let n = r.count(4)?;
        let values = (0..n).map(|_| r.u32()).collect::<Result<Vec<_>>>()?;
        Ok(MinHashSig {
            scheme,
            unit,
            k,
            seed,
            values,
        })
    }
}

pub(crate) fn unit_tag(unit: ShingleUnit) -> u8 {
    match unit {
        ShingleUnit::Token => 0,
        ShingleUnit::Char => 1,
        ShingleUnit::Word => 2,
        ShingleUnit::Bigram => 3,
    }
}

pub(crate) fn unit_from_tag(tag: u8) -> Result<ShingleUnit> {
    match tag {
        0 => Ok(ShingleUnit::Token),
        1 => Ok(ShingleUnit::Char),
        2 => Ok(ShingleUnit::Word),
        3 => Ok(ShingleUnit::Bigram),
        _ => Err(ErrorKind::Malformed("bad shingle unit").into()),
    }
}

/// Classic MinHash; see the module documentation.
///
/// ```
/// use neardup_sketch::{DocText, MinHash};
/// let mut mh = MinHash::new();
/// mh.num_perm(64).threshold(0.6);
/// let a = mh.signature(&DocText::from_text("the quick brown fox jumps over the lazy dog again"));
/// let b = mh.signature(&DocText::from_text("The quick brown fox jumps over the lazy dog again!"));
/// assert_eq!(a.values().len(), 64);
/// assert_eq!(a.jaccard(&b).unwrap(), 1.0);
/// ```
#[derive(Clone, PartialEq)]
pub struct MinHash {
    unit: ShingleUnit,
    k: usize,
    segmenter: Segmenter,
    seed: u64,
    threshold: f64,
    family: Family,
}

impl Default for MinHash {
    fn default() -> Self {
        Self::new()
    }
}

impl MinHash {
    /// Default seed of the permutation family.
    pub const DEFAULT_SEED: u64 = 0x4D69_6E48_6173_6831; // "MinHash1"

    /// MinHash with the default parameters (see the module documentation).
    pub fn new() -> Self {
        MinHash {
            unit: ShingleUnit::Token,
            k: 5,
            segmenter: Segmenter::chars(),
            seed: Self::DEFAULT_SEED,
            threshold: 0.5,
            family: Family::new(Self::DEFAULT_SEED, 128),
        }
    }

    /// Sets the number of permutations (at least 1).
    pub fn num_perm(&mut self, n: usize) -> &mut Self {
        self.family = Family::new(self.seed, n.max(1));
        self
    }

    /// The number of permutations (the signature's length).
    pub fn get_num_perm(&self) -> usize {
        self.family.len()
    }

    /// Sets the shingle unit and length (`k` clamped to 1..=65535).
    pub fn shingles(&mut self, unit: ShingleUnit, k: usize) -> &mut Self {
        self.unit = unit;
        self.k = k.clamp(1, u16::MAX as usize);
        self
    }

    /// Cuts tokens with `segmenter`: with a dictionary one (see
    /// [`neardup_text::Segmenter`]), token shingles of Han text are word
    /// k-grams and signatures record [`ShingleUnit::Word`]; with
    /// [`Segmenter::bigrams`], CJK text gives k-grams of character bigrams
    /// and signatures record [`ShingleUnit::Bigram`]. Either way they never
    /// compare with character-based ones. Default: [`Segmenter::chars`].
    pub fn segmenter(&mut self, segmenter: Segmenter) -> &mut Self {
        self.segmenter = segmenter;
        self
    }

    /// The segmenter of token shingles.
    pub fn get_segmenter(&self) -> &Segmenter {
        &self.segmenter
    }

    /// Sets the seed of the permutation family.
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.seed = seed;
        self.family = Family::new(seed, self.family.len());
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

    /// The shingles' unit and length.
    pub fn get_shingles(&self) -> (ShingleUnit, usize) {
        (self.unit, self.k)
    }

    /// Signature of a document (normalizes its text first).
    pub fn signature(&self, doc: &DocText<'_>) -> MinHashSig {
        let mut batch = self.family.batch();
        self.shingler()
            .for_each_normalizing(doc.text, |x| batch.push(x));
        self.wrap(batch.finish())
    }

    /// Signature of an already normalized text.
    pub fn signature_of_normalized(&self, text: &str) -> MinHashSig {
        let mut batch = self.family.batch();
        self.shingler().for_each(text, |x| batch.push(x));
        self.wrap(batch.finish())
    }

    /// Signature of precomputed shingle hashes.
    pub fn signature_of_shingles(&self, shingles: &[u64]) -> MinHashSig {
        self.wrap(self.family.signature(shingles))
    }

    fn shingler(&self) -> Shingler {
        Shingler::with_segmenter(self.unit, self.k, self.segmenter.clone())
    }

    fn wrap(&self, values: Vec<u32>) -> MinHashSig {
        MinHashSig {
            scheme: MinHashScheme::Classic,
            unit: self.segmenter.unit_for(self.unit),
            k: self.k as u16,
            seed: self.seed,
            values,
        }
    }
}

/// Lists the segmenter only when it is not the default one, so that a
/// default method describes itself as before segmenters existed (the
/// service keeps a hash of this description to check its store).
impl fmt::Debug for MinHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("MinHash");
        d.field("unit", &self.unit).field("k", &self.k);
        if self.segmenter != Segmenter::chars() {
            d.field("segmenter", &self.segmenter);
        }
        d.field("seed", &self.seed)
            .field("threshold", &self.threshold)
            .field("family", &self.family)
            .finish()
    }
}

impl MinHash {
    /// Writes every parameter (for [`crate::Method::params_bytes`]).
    pub(crate) fn encode_params(&self, w: &mut crate::codec::Writer) {
        w.u8(unit_tag(self.unit));
        w.len(self.k);
        crate::params::segmenter(w, &self.segmenter);
        w.u64(self.seed);
        w.f64(self.threshold);
        w.len(self.family.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_tracks_exact_jaccard() {
        let mut mh = MinHash::new();
        mh.num_perm(512);
        let a: Vec<u64> = (0..1000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let b: Vec<u64> = (500..1500u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        // Exact Jaccard = 500 / 1500.
        let est = mh
            .signature_of_shingles(&a)
            .jaccard(&mh.signature_of_shingles(&b))
            .unwrap();
        assert!((est - 1.0 / 3.0).abs() < 0.08, "{est}");
    }

    #[test]
    fn default_description_has_no_segmenter() {
        // As derived before segmenters existed: the service hashes it.
        let m = MinHash::new();
        let want = format!(
            "MinHash {{ unit: Token, k: 5, seed: {}, threshold: 0.5, family: {:?} }}",
            MinHash::DEFAULT_SEED,
            Family::new(MinHash::DEFAULT_SEED, 128)
        );
        assert_eq!(format!("{m:?}"), want);
    }

    #[test]
    fn word_and_bigram_units_round_trip_and_do_not_compare_with_tokens() {
        let token = MinHash::new().signature_of_normalized("我爱北京天安门");
        for unit in [ShingleUnit::Word, ShingleUnit::Bigram] {
            let other = MinHashSig {
                unit,
                ..token.clone()
            };
            let sig = crate::Signature::MinHash(other.clone());
            let back = crate::Signature::from_bytes(&sig.to_bytes()).unwrap();
            assert_eq!(back, sig);
            assert_eq!(
                other.jaccard(&token).unwrap_err().kind(),
                &ErrorKind::ParameterMismatch
            );
        }
    }

    #[test]
    fn bigram_segmenter_records_its_unit() {
        let mut m = MinHash::new();
        m.segmenter(Segmenter::bigrams());
        let sig = m.signature_of_normalized("我爱北京天安门");
        assert_eq!(sig.unit, ShingleUnit::Bigram);
        let text = "the same spaced words give the same signature either way";
        assert_eq!(
            m.signature_of_normalized(text).values,
            MinHash::new().signature_of_normalized(text).values
        );
    }

    #[test]
    fn mismatched_parameters_are_rejected() {
        let a = MinHash::new().signature_of_normalized("a b c d e f");
        let mut other = MinHash::new();
        other.seed(9);
        let b = other.signature_of_normalized("a b c d e f");
        assert_eq!(
            a.jaccard(&b).unwrap_err().kind(),
            &ErrorKind::ParameterMismatch
        );
    }
}

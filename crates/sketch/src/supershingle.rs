//! Super-shingles (Broder 1997; Fetterly, Manasse & Najork 2003).
//!
//! A document gets 84 min-hash values (the classic MinHash family with its
//! own seed) over token 5-grams; they are cut into 6 groups of 14, and each
//! group is hashed into one 64-bit super-shingle key. Group `g`'s key mixes
//! `g` in, so keys of different groups never collide in an index. Two
//! documents sharing at least 2 of their 6 super-shingles are
//! near-duplicates; similarity is the share of equal groups.

use std::fmt;

use neardup_text::{Segmenter, ShingleUnit, Shingler};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::codec::{Reader, Writer};
use crate::doc::DocText;
use crate::error::{ErrorKind, Result};
use crate::hash::Family;

/// Super-shingle keys of a document.
///
/// Body format: params u64 (hash of seed, groups, group size, shingles),
/// count u32, `count` u64 keys (in group order).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SuperShingleSig {
    pub(crate) params: u64,
    pub(crate) keys: Vec<u64>,
}

impl SuperShingleSig {
    /// The super-shingle keys, one per group, in group order.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Number of groups whose keys are equal.
    ///
    /// # Errors
    /// [`ErrorKind::ParameterMismatch`] for signatures of different settings.
    pub fn shared(&self, other: &SuperShingleSig) -> Result<usize> {
        if self.params != other.params || self.keys.len() != other.keys.len() {
            return Err(ErrorKind::ParameterMismatch.into());
        }
        Ok(self
            .keys
            .iter()
            .zip(&other.keys)
            .filter(|(a, b)| a == b)
            .count())
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u64(self.params);
        w.len(self.keys.len());
        self.keys.iter().for_each(|&k| w.u64(k));
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let params = r.u64()?;
        let n = r.count(8)?;
        let keys = (0..n).map(|_| r.u64()).collect::<Result<_>>()?;
        Ok(SuperShingleSig { params, keys })
    }
}

/// Super-shingle method; see the module documentation.
///
/// ```
/// use neardup_sketch::{DocText, SuperShingle};
/// let ss = SuperShingle::new();
/// let a = ss.signature(&DocText::from_text("a b c d e f g h i j k l m n o p"));
/// assert_eq!(a.keys().len(), 6);
/// assert_eq!(a.shared(&a).unwrap(), 6);
/// ```
#[derive(Clone, PartialEq)]
pub struct SuperShingle {
    unit: ShingleUnit,
    k: usize,
    segmenter: Segmenter,
    seed: u64,
    groups: usize,
    group_size: usize,
    min_shared: usize,
    family: Family,
}

impl Default for SuperShingle {
    fn default() -> Self {
        Self::new()
    }
}

impl SuperShingle {
    /// Default seed.
    pub const DEFAULT_SEED: u64 = 0x5375_7065_7253_6831; // "SuperSh1"

    /// 6 groups of 14 min-hashes over token 5-grams; 2 shared = duplicate.
    pub fn new() -> Self {
        SuperShingle {
            unit: ShingleUnit::Token,
            k: 5,
            segmenter: Segmenter::chars(),
            seed: Self::DEFAULT_SEED,
            groups: 6,
            group_size: 14,
            min_shared: 2,
            family: Family::new(Self::DEFAULT_SEED, 84),
        }
    }

    /// Sets the number of groups and the min-hashes per group (each >= 1).
    pub fn groups(&mut self, groups: usize, group_size: usize) -> &mut Self {
        self.groups = groups.max(1);
        self.group_size = group_size.max(1);
        self.family = Family::new(self.seed, self.groups * self.group_size);
        self
    }

    /// Sets the shingle unit and length.
    pub fn shingles(&mut self, unit: ShingleUnit, k: usize) -> &mut Self {
        self.unit = unit;
        self.k = k.max(1);
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
        self.family = Family::new(seed, self.groups * self.group_size);
        self
    }

    /// Sets how many equal super-shingles make a duplicate.
    pub fn min_shared(&mut self, n: usize) -> &mut Self {
        self.min_shared = n;
        self
    }

    /// How many equal super-shingles make a duplicate.
    pub fn get_min_shared(&self) -> usize {
        self.min_shared
    }

    /// Keys of a document (normalizes its text first).
    pub fn signature(&self, doc: &DocText<'_>) -> SuperShingleSig {
        let mut batch = self.family.batch();
        self.shingler()
            .for_each_normalizing(doc.text, |x| batch.push(x));
        self.keys(batch.finish())
    }

    /// Keys of an already normalized text.
    pub fn signature_of_normalized(&self, text: &str) -> SuperShingleSig {
        let mut batch = self.family.batch();
        self.shingler().for_each(text, |x| batch.push(x));
        self.keys(batch.finish())
    }

    fn shingler(&self) -> Shingler {
        Shingler::with_segmenter(self.unit, self.k, self.segmenter.clone())
    }

    fn keys(&self, values: Vec<u32>) -> SuperShingleSig {
        let mut buf = Vec::with_capacity(self.group_size * 4);
        let keys = values
            .chunks(self.group_size)
            .enumerate()
            .map(|(g, chunk)| {
                buf.clear();
                chunk
                    .iter()
                    .for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
                xxh3_64_with_seed(&buf, self.seed ^ (g as u64 + 1))
            })
            .collect();
        let params = crate::hash::mix64(
            self.seed,
            (self.groups as u64) << 40
                | (self.group_size as u64) << 24
                | (self.k as u64) << 8
                | crate::minhash::unit_tag(self.segmenter.unit_for(self.unit)) as u64,
        );
        SuperShingleSig { params, keys }
    }
}

/// Lists the segmenter only when it is not the default one (see
/// [`crate::MinHash`]'s `Debug`).
impl fmt::Debug for SuperShingle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("SuperShingle");
        d.field("unit", &self.unit).field("k", &self.k);
        if self.segmenter != Segmenter::chars() {
            d.field("segmenter", &self.segmenter);
        }
        d.field("seed", &self.seed)
            .field("groups", &self.groups)
            .field("group_size", &self.group_size)
            .field("min_shared", &self.min_shared)
            .field("family", &self.family)
            .finish()
    }
}

impl SuperShingle {
    /// Writes every parameter (for [`crate::Method::params_bytes`]).
    pub(crate) fn encode_params(&self, w: &mut crate::codec::Writer) {
        w.u8(crate::minhash::unit_tag(self.unit));
        w.len(self.k);
        crate::params::segmenter(w, &self.segmenter);
        w.u64(self.seed);
        w.len(self.groups);
        w.len(self.group_size);
        w.len(self.min_shared);
    }
}

//! I-Match (Chowdhury, Frieder, Grossman & McCabe 2002) with optional
//! randomized lexicons (Kołcz, Chowdhury & Alspector 2004).
//!
//! The document's distinct tokens are filtered through a lexicon: with an
//! [`IdfTable`], only terms with `min_idf <= idf <= max_idf` are retained
//! (defaults: `min_idf = 0.5`, no upper bound); without one every term is
//! retained. The sorted retained term hashes are hashed into one 64-bit
//! fingerprint. With `K > 1` lexicons, lexicon `j >= 1` additionally drops a
//! seeded pseudo-random `drop_fraction` (default 1/3) of the terms, giving
//! K fingerprints; two documents are duplicates when any fingerprint at the
//! same index is equal. Similarity is the share of equal fingerprints.

use std::sync::Arc;

use neardup_text::{ShingleUnit, Shingler};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::codec::{Reader, Writer};
use crate::doc::DocText;
use crate::error::{ErrorKind, Result};
use crate::hash::mix64;
use crate::idf::IdfTable;

/// I-Match fingerprints of a document, one per lexicon.
///
/// Body format: params u64, retained u32 (terms kept by the main lexicon),
/// count u32, `count` u64 fingerprints. A document with no retained term has
/// no fingerprints.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IMatchSig {
    pub(crate) params: u64,
    pub(crate) retained: u32,
    pub(crate) keys: Vec<u64>,
}

impl IMatchSig {
    /// The fingerprints, one per lexicon (empty when no term was retained).
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Number of terms retained by the main lexicon.
    pub fn retained_terms(&self) -> u32 {
        self.retained
    }

    /// Number of equal fingerprints at the same lexicon index.
    ///
    /// # Errors
    /// [`ErrorKind::ParameterMismatch`] for signatures of different settings.
    pub fn shared(&self, other: &IMatchSig) -> Result<usize> {
        if self.params != other.params {
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
        w.u32(self.retained);
        w.len(self.keys.len());
        self.keys.iter().for_each(|&k| w.u64(k));
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let params = r.u64()?;
        let retained = r.u32()?;
        let n = r.count(8)?;
        let keys = (0..n).map(|_| r.u64()).collect::<Result<_>>()?;
        Ok(IMatchSig {
            params,
            retained,
            keys,
        })
    }
}

/// I-Match; see the module documentation.
///
/// ```
/// use std::sync::Arc;
/// use neardup_sketch::{DocText, IdfTable, IMatch};
/// let mut b = IdfTable::builder();
/// for t in ["the cat sat on the mat", "the dog ate the bone", "the end"] {
///     b.add_document(&DocText::from_text(t));
/// }
/// let mut im = IMatch::new();
/// im.idf(Some(Arc::new(b.build()))).lexicons(3);
/// // "the" is in every document: filtered out, so it does not matter.
/// let a = im.signature(&DocText::from_text("the cat sat on the mat"));
/// let c = im.signature(&DocText::from_text("cat sat on mat"));
/// assert_eq!(a.keys().len(), 3);
/// assert_eq!(a.shared(&c).unwrap(), 3);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct IMatch {
    idf: Option<Arc<IdfTable>>,
    min_idf: f64,
    max_idf: f64,
    lexicons: usize,
    drop_fraction: f64,
    seed: u64,
}

impl Default for IMatch {
    fn default() -> Self {
        Self::new()
    }
}

impl IMatch {
    /// Default seed.
    pub const DEFAULT_SEED: u64 = 0x494D_6174_6368_3031; // "IMatch01"

    /// One lexicon, `min_idf = 0.5`, no IDF table (all terms retained).
    pub fn new() -> Self {
        IMatch {
            idf: None,
            min_idf: 0.5,
            max_idf: f64::INFINITY,
            lexicons: 1,
            drop_fraction: 1.0 / 3.0,
            seed: Self::DEFAULT_SEED,
        }
    }

    /// Sets the IDF table that defines the lexicon (a table over single tokens).
    pub fn idf(&mut self, table: Option<Arc<IdfTable>>) -> &mut Self {
        self.idf = table;
        self
    }

    /// Sets the retained IDF range.
    pub fn idf_range(&mut self, min_idf: f64, max_idf: f64) -> &mut Self {
        self.min_idf = min_idf;
        self.max_idf = max_idf;
        self
    }

    /// Sets the number of lexicons K (>= 1) and the share of terms each
    /// extra lexicon drops (clamped to `[0, 0.95]`).
    pub fn lexicons(&mut self, k: usize) -> &mut Self {
        self.lexicons = k.max(1);
        self
    }

    /// Sets the share of terms each extra lexicon drops.
    pub fn drop_fraction(&mut self, f: f64) -> &mut Self {
        self.drop_fraction = if f.is_nan() { 0.0 } else { f.clamp(0.0, 0.95) };
        self
    }

    /// Sets the seed of the randomized lexicons.
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.seed = seed;
        self
    }

    /// Fingerprints of a document (normalizes its text first).
    pub fn signature(&self, doc: &DocText<'_>) -> IMatchSig {
        self.signature_of_normalized(&doc.normalized())
    }

    /// Fingerprints of an already normalized text.
    pub fn signature_of_normalized(&self, text: &str) -> IMatchSig {
        let mut terms = Shingler::new(ShingleUnit::Token, 1).shingle_set(text);
        if let Some(t) = &self.idf {
            terms.retain(|&f| {
                let idf = t.idf(f);
                idf >= self.min_idf && idf <= self.max_idf
            });
        }
        let cut = (self.drop_fraction * u32::MAX as f64) as u64;
        let mut keys = Vec::with_capacity(self.lexicons);
        let mut buf = Vec::with_capacity(terms.len() * 8);
        if !terms.is_empty() {
            for j in 0..self.lexicons as u64 {
                buf.clear();
                for &f in &terms {
                    if j == 0 || (mix64(f, self.seed ^ j) >> 32) >= cut {
                        buf.extend_from_slice(&f.to_le_bytes());
                    }
                }
                keys.push(xxh3_64_with_seed(&buf, self.seed.wrapping_add(j)));
            }
        }
        let params = mix64(
            self.seed ^ self.lexicons as u64,
            self.idf.as_ref().map_or(0, |t| t.fingerprint())
                ^ self.min_idf.to_bits()
                ^ self.max_idf.to_bits().rotate_left(17)
                ^ self.drop_fraction.to_bits().rotate_left(34),
        );
        IMatchSig {
            params,
            retained: terms.len() as u32,
            keys,
        }
    }
}

impl IMatch {
    /// Writes every parameter (for [`crate::Method::params_bytes`]).
    pub(crate) fn encode_params(&self, w: &mut crate::codec::Writer) {
        crate::params::idf(w, self.idf.as_deref());
        w.f64(self.min_idf);
        w.f64(self.max_idf);
        w.len(self.lexicons);
        w.f64(self.drop_fraction);
        w.u64(self.seed);
    }
}

//! The incremental candidate index, one kind per method, configured as the
//! batch engine (`neardup::Dedup`) configures its candidate search so that
//! the service and the batch find the same candidates: LSH bands for
//! MinHash centred 0.1 below the threshold, permuted tables for SimHash, an
//! inverted index over the signature's keys for every other method.

use neardup::index::{InvertedIndex, LshIndex, LshParams, MinHashLsh, SimHashIndex};
use neardup::sketch::{Method, Signature};

use crate::error::{Error, ErrorKind};

/// As the batch engine: postings longer than this make no candidates.
const MAX_POSTING_LEN: usize = 10_000;
/// As the batch engine: the LSH S-curve sits this far below the threshold.
const LSH_MARGIN: f64 = 0.1;

/// Candidate search over the originals inserted so far.
#[derive(Debug)]
pub(crate) enum Candidates {
    /// MinHash LSH, made at the first signature (its length sets the bands).
    Lsh {
        threshold: f64,
        index: Option<LshIndex>,
        /// Documents to make room for when the index is made.
        reserve: usize,
    },
    /// Permuted SimHash tables.
    SimHash(SimHashIndex<u64>),
    /// An inverted index over [`Signature::index_keys`].
    Inverted(InvertedIndex),
}

fn index_error(e: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Index(e.to_string()))
}

impl Candidates {
    pub fn new(method: &Method) -> Result<Candidates, Error> {
        Ok(match method {
            Method::MinHash(m) => Candidates::Lsh {
                threshold: m.get_threshold(),
                index: None,
                reserve: 0,
            },
            Method::OphMinHash(m) => Candidates::Lsh {
                threshold: m.get_threshold(),
                index: None,
                reserve: 0,
            },
            Method::SimHash(m) => {
                let mut index = SimHashIndex::<u64>::new();
                index
                    .set_max_distance(m.get_max_distance())
                    .map_err(index_error)?;
                Candidates::SimHash(index)
            }
            _ => {
                let mut index = InvertedIndex::new();
                let min_shared = if matches!(method, Method::SuperShingle(_)) {
                    2
                } else {
                    1
                };
                index.set_min_shared(min_shared).map_err(index_error)?;
                index
                    .set_max_posting_len(Some(MAX_POSTING_LEN))
                    .map_err(index_error)?;
                Candidates::Inverted(index)
            }
        })
    }

    /// Makes room for `n` more documents (LSH only; the other indexes grow
    /// by small steps).
    pub fn reserve(&mut self, n: usize) {
        if let Candidates::Lsh { index, reserve, .. } = self {
            match index {
                Some(ix) => ix.reserve(n),
                None => *reserve = n,
            }
        }
    }

    /// Adds an original under its dense id.
    pub fn insert(&mut self, id: u32, sig: &Signature) -> Result<(), Error> {
        match self {
            Candidates::Lsh {
                threshold,
                index,
                reserve,
            } => {
                let values = minhash_values(sig)?;
                if index.is_none() {
                    let t = (*threshold - LSH_MARGIN).clamp(0.05, 1.0);
                    let params =
                        LshParams::optimal(t, values.len(), 0.3, 0.7).map_err(index_error)?;
                    let mut ix = MinHashLsh::new().set_params(params).index();
                    ix.reserve(*reserve);
                    *index = Some(ix);
                }
                match index {
                    Some(ix) => ix.insert(id, values).map_err(index_error),
                    None => Ok(()),
                }
            }
            Candidates::SimHash(ix) => ix.insert(id, simhash_value(sig)).map_err(index_error),
            Candidates::Inverted(ix) => ix.insert(id, &sig.index_keys()).map_err(index_error),
        }
    }

    /// Dense ids of the originals that may be near-duplicates of `sig`.
    pub fn query(&self, sig: &Signature) -> Result<Vec<u32>, Error> {
        Ok(match self {
            Candidates::Lsh { index: None, .. } => Vec::new(),
            Candidates::Lsh {
                index: Some(ix), ..
            } => ix.query(minhash_values(sig)?).map_err(index_error)?,
            Candidates::SimHash(ix) => ix
                .query(simhash_value(sig))
                .into_iter()
                .map(|(id, _)| id)
                .collect(),
            Candidates::Inverted(ix) => ix
                .query(&sig.index_keys())
                .into_iter()
                .map(|(id, _)| id)
                .collect(),
        })
    }

    /// Approximate heap bytes of the index.
    pub fn memory_bytes(&self) -> usize {
        match self {
            Candidates::Lsh { index, .. } => index.as_ref().map_or(0, LshIndex::memory_bytes),
            Candidates::SimHash(ix) => ix.memory_bytes(),
            // The inverted index does not report its size.
            Candidates::Inverted(_) => 0,
        }
    }
}

fn minhash_values(sig: &Signature) -> Result<&[u32], Error> {
    match sig {
        Signature::MinHash(m) if !m.values().is_empty() => Ok(m.values()),
        _ => Err(Error::new(ErrorKind::Index(
            "expected a MinHash signature with values".into(),
        ))),
    }
}

fn simhash_value(sig: &Signature) -> u64 {
    match sig {
        Signature::SimHash(h) => h.value64(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup::sketch::{DocText, Sketcher};

    #[test]
    fn every_method_finds_an_identical_document() {
        for name in [
            "minhash",
            "minhash-oph",
            "simhash",
            "exact",
            "supershingle",
            "paragraph",
        ] {
            let m: Method = name.parse().unwrap();
            let text = "The council approved the new cycle lanes on the high street after a long debate.\nA second paragraph about the budget of the project and its timetable.";
            let sig = m.sketch(&DocText::from_text(text));
            let mut c = Candidates::new(&m).unwrap();
            assert!(c.query(&sig).unwrap().is_empty());
            c.insert(0, &sig).unwrap();
            assert_eq!(c.query(&sig).unwrap(), [0], "{name}");
        }
    }
}

//! The online candidate index, one kind per method, built from the
//! method's own [`CandidateRule`] as the batch candidate search is, so that
//! the online and the batch engines find the same candidates: LSH bands
//! for MinHash, permuted tables for SimHash, an inverted index over the
//! signature's keys for every other method. The LSH tables are compact
//! ([`CompactLsh`]: about six bytes per band per original) and saved in
//! the service's index snapshot.

use std::borrow::Cow;
use std::io::{self, Read, Write};

use neardup_index::{CompactLsh, InvertedIndex, LshParams, SimHashIndex};
use neardup_sketch::{CandidateRule, Method, Signature};

use crate::error::Error;
use crate::online::candidate_keys::{band_keys_of, lsh_params, CandidateKeys};

/// Candidate search over the originals inserted so far.
#[derive(Debug)]
pub(crate) enum OnlineIndex {
    /// MinHash LSH, made at the first document inserted.
    Lsh {
        /// The bands and rows of the method's signatures (the S-curve
        /// centred on the rule's threshold); a saved index keeps its own.
        params: LshParams,
        index: Option<CompactLsh>,
    },
    /// Permuted SimHash tables.
    SimHash(SimHashIndex<u64>),
    /// An inverted index over [`Signature::index_keys`].
    Inverted(InvertedIndex),
}

/// Writes a saved LSH index (or that none was made yet), as
/// [`OnlineIndex::read_from`] reads it.
pub(crate) fn write_lsh(index: Option<&CompactLsh>, w: &mut impl Write) -> io::Result<()> {
    match index {
        None => w.write_all(&[0]),
        Some(ix) => {
            w.write_all(&[1])?;
            ix.write_to(w)
        }
    }
}

impl OnlineIndex {
    pub fn new(method: &Method) -> Result<OnlineIndex, Error> {
        Ok(match method.candidate_rule() {
            CandidateRule::Lsh { .. } => OnlineIndex::Lsh {
                params: lsh_params(method)?
                    .ok_or_else(|| Error::signature("LSH bands without parameters"))?,
                index: None,
            },
            CandidateRule::Hamming { max_distance } => {
                let mut index = SimHashIndex::<u64>::new();
                index.set_max_distance(max_distance)?;
                OnlineIndex::SimHash(index)
            }
            CandidateRule::Keys {
                min_shared,
                max_posting_len,
            } => {
                let mut index = InvertedIndex::new();
                index.set_min_shared(min_shared)?;
                index.set_max_posting_len(Some(max_posting_len))?;
                OnlineIndex::Inverted(index)
            }
        })
    }

    /// Adds an original under its dense id; `alive` says which originals
    /// are still stored, for the compact tables' merges.
    pub fn insert(
        &mut self,
        id: u32,
        doc: &CandidateKeys<'_>,
        alive: impl Fn(u32) -> bool,
    ) -> Result<(), Error> {
        match self {
            OnlineIndex::Lsh { params, index } => {
                let keys = keys_of(*params, doc)?;
                let ix = index.get_or_insert_with(|| CompactLsh::new(*params));
                Ok(ix.insert_keys(id, &keys, alive)?)
            }
            OnlineIndex::SimHash(ix) => Ok(ix.insert(id, simhash_value(full(doc)?))?),
            OnlineIndex::Inverted(ix) => Ok(ix.insert(id, &full(doc)?.index_keys())?),
        }
    }

    /// Dense ids of the originals that may be near-duplicates of `doc`.
    pub fn query(&self, doc: &CandidateKeys<'_>) -> Result<Vec<u32>, Error> {
        Ok(match self {
            OnlineIndex::Lsh { index: None, .. } => Vec::new(),
            OnlineIndex::Lsh {
                index: Some(ix),
                params,
            } => ix.query_keys(&keys_of(*params, doc)?)?,
            OnlineIndex::SimHash(ix) => ix
                .query(simhash_value(full(doc)?))
                .into_iter()
                .map(|(id, _)| id)
                .collect(),
            OnlineIndex::Inverted(ix) => ix
                .query(&full(doc)?.index_keys())
                .into_iter()
                .map(|(id, _)| id)
                .collect(),
        })
    }

    /// A copy of the saved part for a snapshot (its large runs shared):
    /// the LSH index, when made; `None` for methods whose index is not
    /// saved.
    pub fn frozen(&self) -> Option<Option<CompactLsh>> {
        match self {
            OnlineIndex::Lsh { index, .. } => Some(index.clone()),
            _ => None,
        }
    }

    /// Reads what [`OnlineIndex::write_to`] wrote into an empty index of
    /// the same method.
    pub fn read_from(&mut self, r: &mut impl Read) -> Result<(), Error> {
        let OnlineIndex::Lsh { index, params } = self else {
            return Err(Error::snapshot("this method's index is not saved"));
        };
        let mut tag = [0u8];
        r.read_exact(&mut tag)
            .map_err(|_| Error::snapshot("truncated"))?;
        match tag[0] {
            0 => {}
            1 => {
                let saved = CompactLsh::read_from(r)?;
                // Band keys made without the engine (`KeyRule`) use the
                // method's bands: a saved index must have them too.
                if saved.params() != *params {
                    return Err(Error::snapshot("an index of other LSH bands"));
                }
                *index = Some(saved);
            }
            _ => return Err(Error::snapshot("bad candidate index bytes")),
        }
        Ok(())
    }

    /// Approximate heap bytes of the index.
    pub fn memory_bytes(&self) -> usize {
        match self {
            OnlineIndex::Lsh { index, .. } => index.as_ref().map_or(0, CompactLsh::memory_bytes),
            OnlineIndex::SimHash(ix) => ix.memory_bytes(),
            // The inverted index does not report its size.
            OnlineIndex::Inverted(_) => 0,
        }
    }
}

/// The full signature, which the indexes of methods other than MinHash
/// need.
fn full<'k>(doc: &CandidateKeys<'k>) -> Result<&'k Signature, Error> {
    doc.signature.ok_or_else(|| {
        Error::signature("band keys without a signature for a method without LSH bands")
    })
}

/// The band keys of a document: given, or made from its signature (a
/// saved index has the method's bands: [`OnlineIndex::read_from`]).
fn keys_of<'k>(params: LshParams, doc: &CandidateKeys<'k>) -> Result<Cow<'k, [u32]>, Error> {
    match (doc.band_keys, doc.signature) {
        (Some(k), _) => Ok(Cow::Borrowed(k)),
        (None, Some(sig)) => Ok(Cow::Owned(band_keys_of(params, sig)?)),
        (None, None) => Err(Error::signature("neither a signature nor band keys")),
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
    use neardup_sketch::{DocText, Sketcher};

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
            let doc = CandidateKeys::full(&sig, 1);
            let mut c = OnlineIndex::new(&m).unwrap();
            assert!(c.query(&doc).unwrap().is_empty());
            c.insert(0, &doc, |_| true).unwrap();
            assert_eq!(c.query(&doc).unwrap(), [0], "{name}");
            // By band keys alone, for the LSH index.
            let rule = crate::KeyRule::new(&m, None).unwrap();
            if let Some(keys) = rule.band_keys(&sig).unwrap() {
                let by_keys = CandidateKeys::bands(&keys, 1);
                assert_eq!(c.query(&by_keys).unwrap(), [0], "{name}");
                c.insert(1, &by_keys, |_| true).unwrap();
                assert_eq!(c.query(&doc).unwrap(), [0, 1], "{name}");
            } else {
                assert!(c.query(&CandidateKeys::bands(&[1, 2], 1)).is_err());
            }
        }
    }
}

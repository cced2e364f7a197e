//! The online engine: documents one at a time, first seen kept, check then
//! insert. The service (`neardup serve`, which adds storage) and Python's
//! `Deduplicator` wrap it; neither decides anything itself.
//!
//! Verdicts follow the batch engine with the first-seen keep policy: a
//! document whose signature equals an earlier one's joins what that one
//! joined (its original, similarity 1.0 when it is the original itself);
//! otherwise it is a duplicate of the most similar original among the
//! candidates that are confirmed (ties go to the earlier original), or a
//! new original. Confirmation is the batch engine's: exact verification on
//! token shingles ([`Verifier::verify`]) when it is on and both documents
//! have shingles, else the method's `is_duplicate`, then `similarity`;
//! with exact verification, the composite page check of the batch engine
//! too, against the originals stored so far (see [`crate::CompositeCheck`]): a
//! refused original leaves the next most similar one to try.
//! Duplicates are never targets, so nothing chains.

use std::collections::HashMap;
use std::sync::Arc;

use neardup_sketch::{Method, Signature};

use crate::composite::CompositeCheck;
use crate::error::Error;
use crate::online_index::OnlineIndex;
use crate::sampled::SampledPostings;
use crate::verify::{verify_signatures, ShingleSeq, Verifier};

/// What a document of the online engine is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Role {
    /// A kept document: a target for later documents.
    Original,
    /// A duplicate of the original with this dense id.
    Duplicate {
        /// The original's dense id.
        of: u32,
        /// The similarity to it.
        similarity: f64,
    },
    /// A document without text: never a duplicate nor a target.
    Empty,
    /// Deleted (or, after a restart, an original known only by name).
    Deleted,
}

/// One document known to the online engine, by dense id.
#[derive(Debug)]
pub struct Slot {
    /// Its id.
    pub id: Arc<str>,
    /// What it is.
    pub role: Role,
    /// The hash of the signature bytes (`None` without text).
    pub key: Option<u128>,
    /// The signature, kept for originals only.
    pub signature: Option<Signature>,
    /// The token shingles for exact verification, originals only.
    pub shingles: Option<ShingleSeq>,
}

/// A verdict in dense ids.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judgement {
    /// The original duplicated and the similarity; `None` for new content
    /// (or a document without text).
    pub duplicate_of: Option<(u32, f64)>,
}

/// The online first-seen engine: every document added so far, the
/// originals' signatures and shingles, and the candidate index.
///
/// ```
/// use neardup_dedup::{default_method, signature_key, Online, Verifier};
/// use neardup_sketch::{DocText, Sketcher};
///
/// let method = default_method();
/// let verifier = Verifier::default();
/// let mut online = Online::new(method.clone(), Some(verifier), None)?;
/// let a = "The council approved the new cycle lanes on the high street after a long debate on Monday evening.";
/// let mut verdicts = Vec::new();
/// for (id, text) in [("a", a.to_string()), ("b", a.replace("evening", "night"))] {
///     let sig = method.sketch(&DocText::from_text(&text));
///     let key = signature_key(&sig.to_bytes());
///     let seq = verifier.shingles(&text, &method);
///     let j = online.judge(Some((&sig, key)), Some(&seq))?;
///     online.add(id, Some((sig, key)), Some(seq), j)?;
///     verdicts.push(j.duplicate_of.map(|(original, _)| original));
/// }
/// assert_eq!(verdicts, [None, Some(0)]);
/// assert_eq!((online.originals(), online.duplicates()), (1, 1));
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
#[derive(Debug)]
pub struct Online {
    method: Method,
    verifier: Option<Verifier>,
    candidates: OnlineIndex,
    /// The originals' sampled shingles, for the composite page check.
    postings: Option<SampledPostings>,
    slots: Vec<Slot>,
    by_id: HashMap<Arc<str>, u32>,
    first_of: HashMap<u128, u32>,
    originals: usize,
    duplicates: usize,
    empty: usize,
    /// Heap bytes of the kept signatures and the ids, kept up to date.
    heap_bytes: usize,
}

/// Approximate heap bytes of a kept signature.
fn signature_heap(sig: &Signature) -> usize {
    match sig {
        Signature::MinHash(m) => m.values().len() * 4 + 48,
        _ => 64,
    }
}

/// The hash that identifies identical signatures (of their bytes).
pub fn signature_key(bytes: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

impl Online {
    /// An empty engine; the composite page check runs only with exact
    /// verification.
    ///
    /// # Errors
    /// When the method's candidate index cannot be made.
    pub fn new(
        method: Method,
        verifier: Option<Verifier>,
        composite: Option<CompositeCheck>,
    ) -> Result<Online, Error> {
        Ok(Online {
            candidates: OnlineIndex::new(&method)?,
            method,
            postings: composite
                .filter(|_| verifier.is_some())
                .map(SampledPostings::new),
            verifier,
            slots: Vec::new(),
            by_id: HashMap::new(),
            first_of: HashMap::new(),
            originals: 0,
            duplicates: 0,
            empty: 0,
            heap_bytes: 0,
        })
    }

    /// Makes room for `total` documents in all.
    pub fn reserve(&mut self, total: usize) {
        let more = total.saturating_sub(self.slots.len());
        if more == 0 {
            return;
        }
        self.candidates.reserve(more);
        self.slots.reserve(more);
        self.by_id.reserve(more);
        self.first_of.reserve(more);
    }

    /// Live documents.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether no document is live.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Live originals.
    pub fn originals(&self) -> usize {
        self.originals
    }

    /// Live duplicates.
    pub fn duplicates(&self) -> usize {
        self.duplicates
    }

    /// Live documents without text.
    pub fn empty(&self) -> usize {
        self.empty
    }

    /// Every slot, by dense id (deleted ones included).
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The method.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The exact verifier, when on.
    pub fn verifier(&self) -> Option<&Verifier> {
        self.verifier.as_ref()
    }

    /// The dense id of a live document.
    pub fn dense(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).copied()
    }

    /// The slot of a dense id.
    pub fn slot(&self, d: u32) -> &Slot {
        &self.slots[d as usize]
    }

    /// The verdict for a signature (with [`signature_key`] of its bytes)
    /// and shingles against the originals added so far; nothing changes.
    ///
    /// # Errors
    /// A signature of another method.
    pub fn judge(
        &self,
        sig: Option<(&Signature, u128)>,
        shingles: Option<&ShingleSeq>,
    ) -> Result<Judgement, Error> {
        self.judge_without(sig, shingles, None)
    }

    /// As [`Online::judge`], as if document `without` (a dense id) were
    /// gone: the verdict for a new version of that document, which will
    /// replace it.
    ///
    /// # Errors
    /// A signature of another method.
    pub fn judge_without(
        &self,
        sig: Option<(&Signature, u128)>,
        shingles: Option<&ShingleSeq>,
        without: Option<u32>,
    ) -> Result<Judgement, Error> {
        let Some((sig, key)) = sig else {
            return Ok(Judgement { duplicate_of: None });
        };
        let gone = |d: u32| Some(d) == without;
        if let Some(&r) = self.first_of.get(&key).filter(|&&r| !gone(r)) {
            match self.slots[r as usize].role {
                Role::Original => {
                    return Ok(Judgement {
                        duplicate_of: Some((r, 1.0)),
                    })
                }
                Role::Duplicate { of, similarity }
                    if self.slots[of as usize].role == Role::Original && !gone(of) =>
                {
                    return Ok(Judgement {
                        duplicate_of: Some((of, similarity)),
                    })
                }
                _ => {}
            }
        }
        // Confirmed originals, and whether each needs the composite check.
        let mut confirmed: Vec<(u32, f64, bool)> = Vec::new();
        for c in self.candidates.query(sig)? {
            if gone(c) {
                continue;
            }
            let slot = &self.slots[c as usize];
            let (Role::Original, Some(other)) = (slot.role, &slot.signature) else {
                continue;
            };
            match (&self.verifier, shingles, &slot.shingles) {
                (Some(v), Some(x), Some(y)) => {
                    if let Some(cmp) = v.check(x, y) {
                        let long = self
                            .postings
                            .as_ref()
                            .is_some_and(|p| p.check().applies_to(&cmp));
                        confirmed.push((c, cmp.jaccard, long));
                    }
                }
                _ => {
                    if let Ok(Some(s)) = verify_signatures(&self.method, sig, other) {
                        confirmed.push((c, s, false));
                    }
                }
            }
        }
        // Most similar first; candidates come in increasing dense id, and
        // the stable sort keeps the earlier original on ties.
        confirmed.sort_by(|a, b| b.1.total_cmp(&a.1));
        let best = confirmed
            .into_iter()
            .find(|&(c, _, long)| !(long && self.is_composite(shingles, c)))
            .map(|(c, s, _)| (c, s));
        Ok(Judgement { duplicate_of: best })
    }

    /// Whether a document with `shingles` and original `c` are a composite
    /// page and a page of one of its articles, by the originals stored.
    fn is_composite(&self, shingles: Option<&ShingleSeq>, c: u32) -> bool {
        let (Some(p), Some(v), Some(x), Some(y)) = (
            &self.postings,
            &self.verifier,
            shingles,
            self.slots[c as usize].shingles.as_ref(),
        ) else {
            return false;
        };
        let check = p.check();
        let original = |z: u32| {
            let slot = &self.slots[z as usize];
            (slot.role == Role::Original).then_some(slot.shingles.as_ref())?
        };
        let docs_with = |h: u32| {
            let mut docs = p.docs_with(h, c);
            docs.retain(|&z| original(z).is_some());
            docs
        };
        [(x, y), (y, x)].into_iter().any(|(page, other)| {
            check
                .foreign_runs(page, other, v.k)
                .iter()
                .any(|run| check.made_up_by_third(run, other, docs_with, original))
        })
    }

    /// Adds a live document with its verdict (from [`Online::judge`] on
    /// the same engine, with nothing added in between); returns its dense
    /// id.
    ///
    /// # Errors
    /// More than `u32::MAX - 1` documents, or a signature of another method.
    pub fn add(
        &mut self,
        id: &str,
        sig: Option<(Signature, u128)>,
        shingles: Option<ShingleSeq>,
        judgement: Judgement,
    ) -> Result<u32, Error> {
        let d = u32::try_from(self.slots.len())
            .ok()
            .filter(|&d| d < u32::MAX)
            .ok_or_else(|| Error::signature("too many documents"))?;
        let id: Arc<str> = Arc::from(id);
        let (role, key, signature) = match (sig, judgement.duplicate_of) {
            (None, _) => {
                self.empty += 1;
                (Role::Empty, None, None)
            }
            (Some((_, key)), Some((of, similarity))) => {
                self.duplicates += 1;
                self.first_of.entry(key).or_insert(d);
                (Role::Duplicate { of, similarity }, Some(key), None)
            }
            (Some((sig, key)), None) => {
                self.candidates.insert(d, &sig)?;
                self.originals += 1;
                self.heap_bytes += signature_heap(&sig);
                // A new original with a known key: the earlier holder of the
                // key was deleted or lost its original.
                self.first_of.insert(key, d);
                (Role::Original, Some(key), Some(sig))
            }
        };
        let shingles = if role == Role::Original && self.verifier.is_some() {
            shingles
        } else {
            None
        };
        self.heap_bytes += id.len() + 16 + shingles.as_ref().map_or(0, ShingleSeq::memory_bytes);
        self.slots.push(Slot {
            id: id.clone(),
            role,
            key,
            signature,
            shingles,
        });
        let slots = &self.slots;
        if let (Some(p), Some(seq)) = (&mut self.postings, &slots[d as usize].shingles) {
            p.insert(d, seq, |z| slots[z as usize].role == Role::Original);
        }
        self.by_id.insert(id, d);
        Ok(d)
    }

    /// A slot for an original known only by name (deleted before a
    /// restart), so that its duplicates can still name it; its dense id.
    pub fn add_tombstone(&mut self, id: &str) -> u32 {
        let d = self.slots.len() as u32;
        self.heap_bytes += id.len() + 16;
        self.slots.push(Slot {
            id: Arc::from(id),
            role: Role::Deleted,
            key: None,
            signature: None,
            shingles: None,
        });
        d
    }

    /// Removes a live document; false when unknown.
    pub fn remove(&mut self, id: &str) -> bool {
        let Some(d) = self.by_id.remove(id) else {
            return false;
        };
        let slot = &mut self.slots[d as usize];
        match slot.role {
            Role::Original => self.originals -= 1,
            Role::Duplicate { .. } => self.duplicates -= 1,
            Role::Empty => self.empty -= 1,
            Role::Deleted => {}
        }
        slot.role = Role::Deleted;
        if let Some(sig) = slot.signature.take() {
            self.heap_bytes -= signature_heap(&sig);
        }
        if let Some(sh) = slot.shingles.take() {
            self.heap_bytes -= sh.memory_bytes();
        }
        if let Some(key) = slot.key {
            if self.first_of.get(&key) == Some(&d) {
                self.first_of.remove(&key);
            }
        }
        true
    }

    /// Approximate heap bytes of everything held.
    pub fn memory_bytes(&self) -> usize {
        self.candidates.memory_bytes()
            + self
                .postings
                .as_ref()
                .map_or(0, SampledPostings::memory_bytes)
            + self.heap_bytes
            + self.slots.capacity() * std::mem::size_of::<Slot>()
            + self.by_id.capacity() * (std::mem::size_of::<(Arc<str>, u32)>() + 1)
            + self.first_of.capacity() * (std::mem::size_of::<(u128, u32)>() + 1)
    }
}

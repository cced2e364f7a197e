//! The online engine with its documents in memory: [`Online`], an
//! [`OnlineCore`] (the decisions, see there) and the documents it reads,
//! by id. Python's `Deduplicator` wraps it; `neardup serve` uses the core
//! with documents on disk instead.

use std::collections::HashMap;
use std::sync::Arc;

use neardup_sketch::{Method, Signature};

use crate::error::Error;
use crate::online::candidate_keys::CandidateKeys;
use crate::online::decisions::{Judgement, OnlineCore};
use crate::online::docs::OnlineDocs;
use crate::rules::composite::CompositeCheck;
use crate::verify::{ShingleSeq, Verifier};

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

/// The documents of an [`Online`], in memory, by dense id.
#[derive(Debug, Default)]
pub struct MemoryDocs {
    slots: Vec<Slot>,
    /// Heap bytes of the kept signatures, shingles and ids.
    heap_bytes: usize,
}

impl OnlineDocs for MemoryDocs {
    type Shingles = ShingleSeq;

    fn with_original<R>(
        &self,
        d: u32,
        f: impl FnOnce(Option<&Signature>, Option<&ShingleSeq>) -> R,
    ) -> Result<Option<R>, Error> {
        Ok(match self.slots.get(d as usize) {
            Some(Slot {
                role: Role::Original,
                signature: Some(sig),
                shingles,
                ..
            }) => Some(f(Some(sig), shingles.as_ref())),
            _ => None,
        })
    }

    fn shingles(&self, d: u32) -> Result<Option<ShingleSeq>, Error> {
        Ok(self.slots.get(d as usize).and_then(|s| s.shingles.clone()))
    }

    fn key(&self, d: u32) -> Result<Option<u128>, Error> {
        Ok(self.slots.get(d as usize).and_then(|s| s.key))
    }

    fn duplicate_of(&self, d: u32) -> Result<Option<(u32, f64)>, Error> {
        Ok(match self.slots.get(d as usize).map(|s| s.role) {
            Some(Role::Duplicate { of, similarity }) => Some((of, similarity)),
            _ => None,
        })
    }
}

/// The online first-seen engine with its documents in memory: every
/// document added so far by id, the originals' signatures and shingles,
/// and the [`OnlineCore`] that decides.
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
    core: OnlineCore,
    docs: MemoryDocs,
    by_id: HashMap<Arc<str>, u32>,
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
            core: OnlineCore::new(method, verifier, composite)?,
            docs: MemoryDocs::default(),
            by_id: HashMap::new(),
        })
    }

    /// Makes room for `total` documents in all.
    pub fn reserve(&mut self, total: usize) {
        let more = total.saturating_sub(self.docs.slots.len());
        self.docs.slots.reserve(more);
        self.by_id.reserve(more);
    }

    /// The deciding engine.
    pub fn core(&self) -> &OnlineCore {
        &self.core
    }

    /// The documents, as the engine reads them.
    pub fn docs(&self) -> &MemoryDocs {
        &self.docs
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
        self.core.originals()
    }

    /// Live duplicates.
    pub fn duplicates(&self) -> usize {
        self.core.duplicates()
    }

    /// Live documents without text.
    pub fn empty(&self) -> usize {
        self.core.empty()
    }

    /// Every slot, by dense id (deleted ones included).
    pub fn slots(&self) -> &[Slot] {
        &self.docs.slots
    }

    /// The method.
    pub fn method(&self) -> &Method {
        self.core.method()
    }

    /// The exact verifier, when on.
    pub fn verifier(&self) -> Option<&Verifier> {
        self.core.verifier()
    }

    /// The dense id of a live document.
    pub fn dense(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).copied()
    }

    /// The slot of a dense id.
    pub fn slot(&self, d: u32) -> &Slot {
        &self.docs.slots[d as usize]
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
        self.core
            .judge(&self.docs, sig.map(CandidateKeys::from), shingles, None)
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
        self.core
            .judge(&self.docs, sig.map(CandidateKeys::from), shingles, without)
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
        let d = u32::try_from(self.docs.slots.len())
            .ok()
            .filter(|&d| d < u32::MAX)
            .ok_or_else(|| Error::signature("too many documents"))?;
        let original = sig.is_some() && judgement.duplicate_of.is_none();
        let shingles = shingles.filter(|_| original && self.core.verifier().is_some());
        self.core.add(
            d,
            sig.as_ref().map(|(s, k)| CandidateKeys::full(s, *k)),
            shingles.as_ref(),
            judgement,
        )?;
        let (role, key, signature) = match (sig, judgement.duplicate_of) {
            (None, _) => (Role::Empty, None, None),
            (Some((_, key)), Some((of, similarity))) => {
                (Role::Duplicate { of, similarity }, Some(key), None)
            }
            (Some((sig, key)), None) => {
                self.docs.heap_bytes += signature_heap(&sig);
                (Role::Original, Some(key), Some(sig))
            }
        };
        let id: Arc<str> = Arc::from(id);
        self.docs.heap_bytes +=
            id.len() + 16 + shingles.as_ref().map_or(0, ShingleSeq::memory_bytes);
        self.docs.slots.push(Slot {
            id: id.clone(),
            role,
            key,
            signature,
            shingles,
        });
        self.by_id.insert(id, d);
        Ok(d)
    }

    /// A slot for an original known only by name (deleted before a
    /// restart), so that its duplicates can still name it; its dense id.
    pub fn add_tombstone(&mut self, id: &str) -> u32 {
        let d = self.docs.slots.len() as u32;
        self.core.add_tombstone(d);
        self.docs.heap_bytes += id.len() + 16;
        self.docs.slots.push(Slot {
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
        self.core.remove(d);
        let slot = &mut self.docs.slots[d as usize];
        slot.role = Role::Deleted;
        if let Some(sig) = slot.signature.take() {
            self.docs.heap_bytes -= signature_heap(&sig);
        }
        if let Some(sh) = slot.shingles.take() {
            self.docs.heap_bytes -= sh.memory_bytes();
        }
        true
    }

    /// Approximate heap bytes of everything held.
    pub fn memory_bytes(&self) -> usize {
        self.core.memory_bytes()
            + self.docs.heap_bytes
            + self.docs.slots.capacity() * std::mem::size_of::<Slot>()
            + self.by_id.capacity() * (std::mem::size_of::<(Arc<str>, u32)>() + 1)
    }
}

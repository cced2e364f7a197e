//! [`OnlineCore`]: the online first-seen engine's decisions, over the part
//! that lives in RAM: the candidate index (compact band tables for the
//! default method), a compact table of signature keys, the sampled
//! postings of the composite check, and one byte per dense id. Everything
//! else about a document is read through [`OnlineDocs`] when it is a
//! candidate, so a store on disk can hold it.
//!
//! Verdicts follow the batch engine with the first-seen keep policy: a
//! document whose signature equals a stored one's is a duplicate of it
//! when that one is an original (similarity 1.0), else of what it
//! duplicates; otherwise it is a duplicate of the most similar original
//! among the candidates that are confirmed (ties go to the earlier
//! original), or a new original. Confirmation is the batch engine's: exact
//! verification on token shingles ([`Verifier::check`]) when it is on and
//! both documents have shingles, else the method's `is_duplicate`, then
//! `similarity` when both keep their signature (else the pair is not
//! confirmed: the rule and when it applies are in [`crate::CandidateKeys`]);
//! with exact verification, the composite page check of the
//! batch engine too, against the originals stored so far (see
//! [`crate::CompositeCheck`]): a refused original leaves the next most
//! similar one to try. Duplicates are never targets, so nothing chains.

use neardup_index::CompactPostings;
use neardup_sketch::Method;

use crate::error::Error;
use crate::online::candidate_keys::{CandidateKeys, KeyRule};
use crate::online::docs::{Kind, OnlineDocs};
use crate::online::index::OnlineIndex;
use crate::online::postings_store::PostingsStore;
use crate::online::sampled::SampledPostings;
use crate::rules::composite::CompositeCheck;
use crate::verify::{verify_signatures, ShingleSeq, Verifier};

/// Whether `verifier` keeps every shingle: the composite page check needs
/// them, and is off without exact verification or with a sketch.
fn exact_shingles(verifier: Option<&Verifier>) -> bool {
    verifier.is_some_and(|v| v.sketch.is_none())
}

/// A verdict in dense ids.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judgement {
    /// The original duplicated and the similarity; `None` for new content
    /// (or a document without text).
    pub duplicate_of: Option<(u32, f64)>,
}

/// The in-RAM part of the online engine and its decisions; see the module
/// documentation, and [`crate::Online`] for an engine with its documents
/// in memory.
#[derive(Debug)]
pub struct OnlineCore {
    pub(crate) method: Method,
    pub(crate) verifier: Option<Verifier>,
    pub(crate) candidates: OnlineIndex,
    /// What documents keep of their signatures, and their band keys.
    pub(crate) key_rule: KeyRule,
    /// The low 32 bits of every stored signature key, to the documents.
    pub(crate) exact: CompactPostings,
    /// The originals' sampled shingles, for the composite page check.
    pub(crate) postings: Option<SampledPostings>,
    pub(crate) kinds: Vec<Kind>,
    pub(crate) originals: usize,
    pub(crate) duplicates: usize,
    pub(crate) empty: usize,
}

impl OnlineCore {
    /// An empty engine; the composite page check runs only with exact
    /// verification on every shingle (not with a sketch).
    ///
    /// # Errors
    /// When the method's candidate index cannot be made.
    pub fn new(
        method: Method,
        verifier: Option<Verifier>,
        composite: Option<CompositeCheck>,
    ) -> Result<OnlineCore, Error> {
        Ok(OnlineCore {
            candidates: OnlineIndex::new(&method)?,
            key_rule: KeyRule::new(&method, verifier.as_ref())?,
            method,
            postings: composite
                .filter(|_| exact_shingles(verifier.as_ref()))
                .map(SampledPostings::new),
            verifier,
            exact: CompactPostings::new(),
            kinds: Vec::new(),
            originals: 0,
            duplicates: 0,
            empty: 0,
        })
    }

    /// As [`OnlineCore::new`], with the composite check's sampled postings
    /// in `store` (which must be empty) instead of in memory.
    ///
    /// # Errors
    /// As there.
    pub fn with_postings(
        method: Method,
        verifier: Option<Verifier>,
        composite: Option<CompositeCheck>,
        store: Box<dyn PostingsStore>,
    ) -> Result<OnlineCore, Error> {
        let mut core = OnlineCore::new(method, verifier, None)?;
        if let (Some(c), true) = (composite, exact_shingles(core.verifier.as_ref())) {
            core.postings = Some(SampledPostings::with_store(c, store));
        }
        Ok(core)
    }

    /// The method.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The exact verifier, when on.
    pub fn verifier(&self) -> Option<&Verifier> {
        self.verifier.as_ref()
    }

    /// Whether the composite page check is on.
    pub fn composite_check(&self) -> bool {
        self.postings.is_some()
    }

    /// The composite page check, when on.
    pub fn composite(&self) -> Option<&CompositeCheck> {
        self.postings.as_ref().map(SampledPostings::check)
    }

    /// Forgets every document.
    pub fn clear(&mut self) {
        if let Ok(candidates) = OnlineIndex::new(&self.method) {
            self.candidates = candidates;
        }
        if let Some(p) = &mut self.postings {
            p.store_mut().clear();
        }
        self.exact = CompactPostings::new();
        self.kinds = Vec::new();
        (self.originals, self.duplicates, self.empty) = (0, 0, 0);
    }

    /// Live documents.
    pub fn len(&self) -> usize {
        self.originals + self.duplicates + self.empty
    }

    /// Whether no document is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    /// What dense id `d` is.
    pub fn kind(&self, d: u32) -> Kind {
        self.kinds.get(d as usize).copied().unwrap_or(Kind::Absent)
    }

    /// The smallest dense id [`OnlineCore::add`] takes next.
    pub fn next_dense(&self) -> u32 {
        self.kinds.len() as u32
    }

    /// The verdict for a document's keys (its signature or band keys, with
    /// [`crate::signature_key`] of the signature's bytes; `None` without
    /// text) and shingles against the originals added so far, as if
    /// document `without` (a dense id: the stored version a new version
    /// replaces) were gone; nothing changes.
    ///
    /// # Errors
    /// A signature of another method, or documents that cannot be read.
    pub fn judge(
        &self,
        docs: &impl OnlineDocs,
        doc: Option<CandidateKeys<'_>>,
        shingles: Option<&ShingleSeq>,
        without: Option<u32>,
    ) -> Result<Judgement, Error> {
        let Some(doc) = doc else {
            return Ok(Judgement { duplicate_of: None });
        };
        let key = doc.key;
        let live = |d: u32, kind: Kind| Some(d) != without && self.kind(d) == kind;
        if let Some(found) = self.same_signature(docs, key, &live)? {
            return Ok(Judgement {
                duplicate_of: Some(found),
            });
        }
        // Confirmed originals, and whether each needs the composite check.
        let mut confirmed: Vec<(u32, f64, bool)> = Vec::new();
        for c in self.candidates.query(&doc)? {
            if !live(c, Kind::Original) {
                continue;
            }
            let verdict = docs.with_original(c, |other, other_shingles| {
                match (&self.verifier, shingles, other_shingles) {
                    (Some(v), Some(x), Some(y)) => v.check(x, y).map(|cmp| {
                        let long = self
                            .postings
                            .as_ref()
                            .is_some_and(|p| p.check().applies_to(&cmp));
                        (cmp.jaccard, long)
                    }),
                    // On signatures when both keep theirs (see
                    // `CandidateKeys` for when one may not).
                    _ => doc
                        .signature
                        .zip(other)
                        .and_then(|(a, b)| verify_signatures(&self.method, a, b).ok().flatten())
                        .map(|s| (s, false)),
                }
            })?;
            if let Some(Some((s, long))) = verdict {
                confirmed.push((c, s, long));
            }
        }
        // Most similar first; candidates come in increasing dense id, and
        // the stable sort keeps the earlier original on ties.
        confirmed.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (c, s, long) in confirmed {
            if !(long && self.is_composite(docs, shingles, c)?) {
                return Ok(Judgement {
                    duplicate_of: Some((c, s)),
                });
            }
        }
        Ok(Judgement { duplicate_of: None })
    }

    /// Whether a document with `shingles` and original `c` are a composite
    /// page and a page of one of its articles, by the originals stored.
    fn is_composite(
        &self,
        docs: &impl OnlineDocs,
        shingles: Option<&ShingleSeq>,
        c: u32,
    ) -> Result<bool, Error> {
        let (Some(p), Some(v), Some(x)) = (&self.postings, &self.verifier, shingles) else {
            return Ok(false);
        };
        let Some(y) = docs.shingles(c)? else {
            return Ok(false);
        };
        let y = std::borrow::Borrow::<ShingleSeq>::borrow(&y);
        let check = p.check();
        // A read error while looking for third documents stops the search
        // and is reported after it.
        let failed = std::cell::RefCell::new(None);
        let original = |z: u32| {
            if self.kind(z) != Kind::Original {
                return None;
            }
            docs.shingles(z)
                .map_err(|e| *failed.borrow_mut() = Some(e))
                .ok()
                .flatten()
        };
        let docs_with = |h: u32| {
            p.docs_with(h, c, |z| self.kind(z) == Kind::Original)
                .map_err(|e| *failed.borrow_mut() = Some(e))
                .unwrap_or_default()
        };
        let composite = [(x, y), (y, x)].into_iter().any(|(page, other)| {
            check
                .foreign_runs(page, other, v.k)
                .iter()
                .any(|run| check.made_up_by_third(run, other, docs_with, original))
        });
        match failed.into_inner() {
            Some(e) => Err(e),
            None => Ok(composite),
        }
    }

    /// Adds a live document under dense id `d` (greater than every id
    /// added before) with its verdict (from [`OnlineCore::judge`] with
    /// nothing added in between); `shingles` are those of an original, for
    /// the composite check's postings.
    ///
    /// # Errors
    /// A dense id not greater than the last one, or a signature of another
    /// method.
    pub fn add(
        &mut self,
        d: u32,
        doc: Option<CandidateKeys<'_>>,
        shingles: Option<&ShingleSeq>,
        judgement: Judgement,
    ) -> Result<(), Error> {
        if (d as usize) < self.kinds.len() || d == u32::MAX {
            return Err(Error::signature(format!(
                "dense id {d} is not after the last one ({})",
                self.kinds.len()
            )));
        }
        let kinds = &self.kinds;
        let is_original = |z: u32| kinds.get(z as usize) == Some(&Kind::Original);
        let is_stored = |z: u32| kinds.get(z as usize).is_some_and(|k| k.is_live()) || z >= d;
        let kind = match (doc, judgement.duplicate_of) {
            (None, _) => Kind::Empty,
            (Some(doc), Some(_)) => {
                self.exact.insert(doc.key as u32, d, is_stored);
                Kind::Duplicate
            }
            (Some(doc), None) => {
                self.candidates
                    .insert(d, &doc, |z| is_original(z) || z == d)?;
                self.exact.insert(doc.key as u32, d, is_stored);
                if let (Some(p), Some(seq)) = (&mut self.postings, shingles) {
                    p.insert(d, seq, &|z| is_original(z) || z == d)?;
                }
                Kind::Original
            }
        };
        self.kinds.resize(d as usize, Kind::Absent);
        self.kinds.push(kind);
        self.count(kind, 1);
        Ok(())
    }

    /// Marks dense id `d` as a removed original known by name only (its
    /// duplicates may still name it); `d` must be after every id added.
    pub fn add_tombstone(&mut self, d: u32) {
        if (d as usize) >= self.kinds.len() && d != u32::MAX {
            self.kinds.resize(d as usize, Kind::Absent);
            self.kinds.push(Kind::Deleted);
        }
    }

    /// Removes live document `d`; false when it is not live.
    pub fn remove(&mut self, d: u32) -> bool {
        let kind = self.kind(d);
        if !kind.is_live() {
            return false;
        }
        self.count(kind, -1);
        self.kinds[d as usize] = Kind::Deleted;
        true
    }

    pub(crate) fn count(&mut self, kind: Kind, by: isize) {
        let n = match kind {
            Kind::Original => &mut self.originals,
            Kind::Duplicate => &mut self.duplicates,
            Kind::Empty => &mut self.empty,
            Kind::Absent | Kind::Deleted => return,
        };
        *n = n.wrapping_add_signed(by);
    }

    /// Approximate heap bytes of everything held.
    pub fn memory_bytes(&self) -> usize {
        self.candidates.memory_bytes()
            + self.exact.memory_bytes()
            + self
                .postings
                .as_ref()
                .map_or(0, SampledPostings::memory_bytes)
            + self.kinds.capacity()
    }
}

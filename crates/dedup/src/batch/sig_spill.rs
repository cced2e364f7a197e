//! Signatures spilled to a file (a [`SlotFile`]), for corpora whose
//! signatures do not fit in memory (a MinHash signature of 128 values is
//! 512 bytes, the largest part of what a batch run kept per document):
//! the run keeps only where each one is (12 bytes a document) and reads
//! them back as it needs them: the keys of identical signatures, the band
//! keys of the candidate pass (streamed), and the signatures of the few
//! pairs that are verified on signatures.
//!
//! A store made by [`SigSpill::with_keys`] keeps of a document what those
//! steps read (a `SigSlot`): its key alone when [`KeyRule::keeps_signature`]
//! says no pair of it is verified on signatures, else its whole signature;
//! and it feeds every document's band keys to the candidate pass's sort as
//! the document comes ([`BandEntries`]), so that they are on disk once, in
//! the sort's runs, not also in the slots. A document whose signature is
//! replaced later (the site template pass) keeps its new band keys in its
//! slot; its first keys are left out of the pass. Every slot has a
//! checksum, so a damaged file is an error, never a wrong signature.

use std::collections::HashMap;
use std::path::Path;

use neardup_index::{BandEntries, DirStorage, LshParams, MinHashLsh, SpillStats};
use neardup_sketch::{CandidateRule, Signature};

use crate::batch::band_keys::BandKeys;
use crate::batch::candidates::{band_params, RUN_RECORDS};
use crate::batch::cluster::signature_key;
use crate::batch::sig_slot::{read_slot, write_full, write_keys, SigSlot};
use crate::batch::slot_file::SlotFile;
use crate::dedup::Dedup;
use crate::error::Error;
use crate::online::candidate_keys::KeyRule;
use crate::verify::ShingleSeq;

/// When a store keeps band keys instead of signatures: the rule, and the
/// LSH threshold of the candidate pass the keys are made for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeysOnly {
    rule: KeyRule,
    threshold: f64,
    /// Entries per sorted run of the band sort fed as documents come.
    run_records: usize,
}

/// Ids of band keys fed again for a replaced document carry this bit (so
/// fed ids are below it).
const REFED: u32 = 1 << 31;

/// The band keys fed to the candidate pass's sort as documents come.
#[derive(Debug)]
struct Fed {
    entries: BandEntries<DirStorage>,
    /// Documents whose slot was replaced after their keys were fed (one
    /// bit each): their first keys are left out, their slot's taken.
    replaced: Vec<u64>,
}

/// Whether bit `d` of `words` is set.
fn bit(words: &[u64], d: u32) -> bool {
    words
        .get(d as usize / 64)
        .is_some_and(|w| w >> (d % 64) & 1 == 1)
}

/// The spilled signatures of a corpus, one slot per document in input
/// order.
#[derive(Debug)]
pub struct SigSpill {
    slots: SlotFile,
    keys_only: Option<KeysOnly>,
    /// The bands of the band keys made so far.
    params: Option<LshParams>,
    /// With keys only: the band keys fed so far (`None` before the first,
    /// and after the candidate pass took them).
    fed: Option<Fed>,
}

impl SigSpill {
    /// A new store in a new file in `dir`, keeping every signature whole.
    ///
    /// # Errors
    /// When the file cannot be created.
    pub fn create(dir: &Path) -> Result<SigSpill, Error> {
        Ok(SigSpill {
            slots: SlotFile::create(dir, "sigs")?,
            keys_only: None,
            params: None,
            fed: None,
        })
    }

    /// What a store for a run of `dedup` keeps of a document: `None` for
    /// whole signatures, else its key and band keys when
    /// [`KeyRule::with_kept_shingles`] allows it and no step of the run
    /// reads its signature's values (the containment side channel makes
    /// bands of its own).
    pub(crate) fn keys_only(dedup: &Dedup) -> Option<KeysOnly> {
        let cfg = &dedup.config;
        let rule = KeyRule::with_kept_shingles(&cfg.method, cfg.verifier.as_ref()).ok()?;
        match cfg.method.candidate_rule() {
            CandidateRule::Lsh { threshold }
                if cfg.containment.is_none() && rule.may_leave_signatures_out() =>
            {
                let run_records = cfg.spill.as_ref().map_or(RUN_RECORDS, |s| s.run_records);
                Some(KeysOnly {
                    rule,
                    threshold,
                    run_records,
                })
            }
            _ => None,
        }
    }

    /// A new store in a new file in `dir` that keeps what `keys_only` says
    /// ([`SigSpill::keys_only`]).
    ///
    /// # Errors
    /// When the file cannot be created.
    pub(crate) fn with_keys(dir: &Path, keys_only: Option<KeysOnly>) -> Result<SigSpill, Error> {
        Ok(SigSpill {
            keys_only,
            ..SigSpill::create(dir)?
        })
    }

    /// Documents held.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether no document is held.
    pub fn is_empty(&self) -> bool {
        self.slots.len() == 0
    }

    /// Bytes of memory the store holds (not the file).
    pub fn memory_bytes(&self) -> usize {
        self.slots.memory_bytes()
    }

    /// Appends the next document's signature (`None` for a document
    /// without one: no text, or it failed), given its shingles (what
    /// decides whether it keeps the signature or its keys).
    ///
    /// # Errors
    /// When writing fails, or the band keys cannot be made.
    pub fn push(
        &mut self,
        sig: Option<&Signature>,
        shingles: Option<&ShingleSeq>,
    ) -> Result<(), Error> {
        let Some(sig) = sig else {
            self.slots.push_empty();
            return Ok(());
        };
        let mut keys = self.keys_of(sig, shingles)?;
        let bands = match &mut keys {
            Some((_, bands)) => Some(std::mem::take(bands)),
            None => self.bands_of(sig)?,
        };
        if let Some(bands) = bands {
            let d = u32::try_from(self.slots.len())
                .ok()
                .filter(|&d| d < REFED)
                .ok_or_else(|| Error::corpus("too many documents to spill (at most 2^31 - 1)"))?;
            // The keys go to the sort: a keys slot keeps the signature's key.
            self.fed_entries()?.entries.push(d, &bands)?;
        }
        self.slots.push(|out| write_slot(sig, keys, out))
    }

    /// The band keys fed so far, made on the first document.
    fn fed_entries(&mut self) -> Result<&mut Fed, Error> {
        if self.fed.is_none() {
            let (Some(params), Some(keys_only)) = (self.params, self.keys_only) else {
                return Err(Error::signature("no bands to feed the band keys to"));
            };
            let mut storage = DirStorage::new(self.slots.dir());
            storage.set_prefix(&format!("{}-bands", self.slots.stem()));
            let mut lsh = MinHashLsh::new();
            lsh.set_params(params);
            let mut spill = lsh.spill();
            spill.set_run_records(keys_only.run_records);
            self.fed = Some(Fed {
                entries: spill.entries(storage),
                replaced: Vec::new(),
            });
        }
        Ok(self.fed.as_mut().expect("made above"))
    }

    /// The band keys of a MinHash signature under the store's bands (made
    /// on the first), `None` for another method's or an empty one.
    fn bands_of(&mut self, sig: &Signature) -> Result<Option<Vec<u64>>, Error> {
        let (Some(keys_only), Signature::MinHash(m)) = (self.keys_only, sig) else {
            return Ok(None);
        };
        if m.values().is_empty() {
            return Ok(None);
        }
        let params = match self.params {
            Some(p) => p,
            None => *self
                .params
                .insert(band_params(keys_only.threshold, m.values().len())?),
        };
        Ok(Some(neardup_index::band_keys(params, m.values())?))
    }

    /// Whether document `d` has a signature.
    pub fn has(&self, d: u32) -> bool {
        self.slots.has(d)
    }

    /// Points document `d` at a new signature, appended to the file.
    pub(crate) fn replace(
        &mut self,
        d: usize,
        sig: &Signature,
        shingles: Option<&ShingleSeq>,
    ) -> Result<(), Error> {
        let keys = self.keys_of(sig, shingles)?;
        if let Some(fed) = &mut self.fed {
            let words = d / 64 + 1;
            if fed.replaced.len() < words {
                fed.replaced.resize(words, 0);
            }
            fed.replaced[d / 64] |= 1 << (d % 64);
        }
        self.slots.replace(d, |out| write_slot(sig, keys, out))
    }

    /// The key and band keys `sig` is kept as, `None` to keep it whole.
    fn keys_of(
        &mut self,
        sig: &Signature,
        shingles: Option<&ShingleSeq>,
    ) -> Result<Option<(u128, Vec<u64>)>, Error> {
        let Some(keys_only) = self.keys_only else {
            return Ok(None);
        };
        let Signature::MinHash(m) = sig else {
            return Ok(None);
        };
        if keys_only.rule.keeps_signature(shingles) || m.values().is_empty() {
            return Ok(None);
        }
        let bands = self.bands_of(sig)?.unwrap_or_default();
        Ok(Some((signature_key(sig, &mut Vec::new()), bands)))
    }

    /// Whether the band keys were fed to the candidate pass's sort as the
    /// documents came ([`SigSpill::fed_pairs`] gives its pairs).
    pub(crate) fn is_fed(&self) -> bool {
        self.fed.is_some()
    }

    /// The candidate pairs of the fed band keys among `docs` (a pair
    /// `(i, j)` names positions in it, as
    /// [`neardup_index::SpillLsh::candidate_pairs_of_keys`] over their keys
    /// in that order would), each once, ascending, to `sink`; `positions`
    /// gives each document's position in `docs` (`u32::MAX` when not in
    /// it: the caller's own array, so that the pass takes no memory a
    /// document); `lsh` must have the store's bands. A replaced document's
    /// keys are its slot's.
    ///
    /// # Errors
    /// When nothing was fed, `lsh`'s bands are not the store's, `docs` is
    /// not ascending, `positions` does not match it, or a read or the sort
    /// fails.
    pub(crate) fn fed_pairs(
        &mut self,
        docs: &[u32],
        positions: &[u32],
        lsh: &neardup_index::SpillLsh,
        sink: impl FnMut(u32, u32),
    ) -> Result<SpillStats, Error> {
        let params = self
            .params
            .ok_or_else(|| Error::signature("no band keys were fed"))?;
        if !docs.windows(2).all(|w| w[0] < w[1]) {
            return Err(Error::corpus(
                "the documents of a candidate pass must be ascending",
            ));
        }
        let mut fed = self
            .fed
            .take()
            .ok_or_else(|| Error::signature("no band keys were fed"))?;
        let replaced: Vec<u32> = docs
            .iter()
            .copied()
            .filter(|&d| bit(&fed.replaced, d))
            .collect();
        for chunk in replaced.chunks(1 << 15) {
            let mut keys = self.load_band_keys(chunk, params)?;
            for &d in chunk {
                let bands = keys.remove(&d).unwrap_or_default();
                fed.entries.push(d | REFED, &bands)?;
            }
        }
        let Fed { entries, replaced } = fed;
        let map = |id: u32| {
            let d = id & !REFED;
            let current = (id & REFED != 0) || !bit(&replaced, d);
            let k = *positions.get(d as usize)?;
            (current && k != u32::MAX).then_some(k)
        };
        Ok(lsh.candidate_pairs_of_entries(entries, map, sink)?)
    }

    /// The signatures of `docs` (each at most once) that are kept whole.
    pub(crate) fn load(&mut self, docs: &[u32]) -> Result<HashMap<u32, Signature>, Error> {
        let slots = self.slots.load(docs, read_slot)?;
        Ok(slots
            .into_iter()
            .filter_map(|(d, slot)| match slot {
                SigSlot::Full(sig) => Some((d, sig)),
                SigSlot::Keys { .. } => None,
            })
            .collect())
    }

    /// The key of identical signatures ([`signature_key`]) of every
    /// document of `docs` that has a signature, in parallel, in file order
    /// with their documents.
    pub(crate) fn keys(&mut self, docs: &[u32]) -> Result<Vec<(u32, u128)>, Error> {
        self.slots
            .par_scan(docs, |scratch: &mut Vec<u8>, d, bytes, out| {
                let key = match read_slot(bytes)? {
                    SigSlot::Full(sig) => signature_key(&sig, scratch),
                    SigSlot::Keys { key, .. } => key,
                };
                out.push((d, key));
                Ok(())
            })
    }

    /// Whether document `d`'s signature is `sig` (by its key when only
    /// that is kept); false without one.
    ///
    /// # Errors
    /// When it cannot be read back.
    pub(crate) fn holds(&mut self, d: u32, sig: &Signature) -> Result<bool, Error> {
        let mut found = self.slots.load(&[d], read_slot)?;
        Ok(match found.remove(&d) {
            Some(SigSlot::Full(s)) => s == *sig,
            Some(SigSlot::Keys { key, .. }) => key == signature_key(sig, &mut Vec::new()),
            None => false,
        })
    }

    /// The bands the keys slots were made with (`None` when every
    /// signature is kept whole).
    pub(crate) fn keys_params(&self) -> Option<LshParams> {
        self.params
    }

    /// The band keys under `params` of the signatures of `docs`, in the
    /// order of `docs`, a chunk of documents read back at a time
    /// ([`BandKeys`]): what the band tables on disk need, without every
    /// signature in memory.
    pub(crate) fn band_keys<'s>(&'s mut self, docs: &'s [u32], params: LshParams) -> BandKeys<'s> {
        BandKeys::new(self, docs, params)
    }

    /// The band keys under `params` of the documents of `docs` (each at
    /// most once): made from a whole MinHash signature, or as kept.
    ///
    /// # Errors
    /// A document without a signature, with another method's, with keys
    /// of other bands, or a read that fails.
    pub(crate) fn load_band_keys(
        &mut self,
        docs: &[u32],
        params: LshParams,
    ) -> Result<HashMap<u32, Vec<u64>>, Error> {
        let mine = self.params;
        let mut loaded = self.slots.load(docs, |bytes| match read_slot(bytes)? {
            SigSlot::Full(Signature::MinHash(m)) => {
                Ok(neardup_index::band_keys(params, m.values())?)
            }
            SigSlot::Keys { bands, .. } if mine == Some(params) => Ok(bands),
            _ => Err(Error::signature(
                "a spilled document has no MinHash signature or band keys of these bands",
            )),
        })?;
        if docs.iter().any(|d| !loaded.contains_key(d)) {
            return Err(Error::signature("a spilled document has no signature"));
        }
        loaded.shrink_to_fit();
        Ok(loaded)
    }

    /// The directory of the file.
    pub(crate) fn dir(&self) -> &Path {
        self.slots.dir()
    }
}

fn write_slot(sig: &Signature, keys: Option<(u128, Vec<u64>)>, out: &mut Vec<u8>) {
    match keys {
        Some((key, bands)) => write_keys(key, &bands, out),
        None => write_full(sig, out),
    }
}

#[cfg(test)]
#[path = "sig_spill_tests.rs"]
mod tests;

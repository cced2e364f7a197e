//! Signatures spilled to a file (a [`SlotFile`]), for corpora whose
//! signatures do not fit in memory (a MinHash signature of 128 values is
//! 512 bytes, the largest part of what a batch run kept per document):
//! the run keeps only where each one is (12 bytes a document) and reads
//! them back as it needs them: the keys of identical signatures, the band
//! keys of the candidate pass (streamed), and the signatures of the few
//! pairs that are verified on signatures.
//!
//! A store made by [`SigSpill::for_run`] keeps of a document what those
//! steps read (a `SigSlot`): its band keys and key alone when
//! [`KeyRule::keeps_signature`] says no pair of it is verified on
//! signatures, else its whole signature. Every slot has a checksum, so a
//! damaged file is an error, never a wrong signature.

use std::collections::HashMap;
use std::path::Path;

use neardup_index::LshParams;
use neardup_sketch::{CandidateRule, Signature};

use crate::batch::band_keys::BandKeys;
use crate::batch::candidates::band_params;
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
}

/// The spilled signatures of a corpus, one slot per document in input
/// order.
#[derive(Debug)]
pub struct SigSpill {
    slots: SlotFile,
    keys_only: Option<KeysOnly>,
    /// The bands of the keys slots written so far.
    params: Option<LshParams>,
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
                Some(KeysOnly { rule, threshold })
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
        let keys = self.keys_of(sig, shingles)?;
        self.slots.push(|out| write_slot(sig, keys, out))
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
        let params = match self.params {
            Some(p) => p,
            None => *self
                .params
                .insert(band_params(keys_only.threshold, m.values().len())?),
        };
        let bands = neardup_index::band_keys(params, m.values())?;
        Ok(Some((signature_key(sig, &mut Vec::new()), bands)))
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
mod tests {
    use super::*;
    use crate::Dedup;

    fn sigs() -> Vec<Option<Signature>> {
        let dedup = Dedup::new();
        (0..300)
            .map(|i| {
                (i % 5 != 2).then(|| {
                    let text = format!(
                        "document number {i} says {} things «à la» 東京 {}",
                        i * 7,
                        i % 11
                    );
                    dedup.fingerprint(&text, &[]).expect("has words")
                })
            })
            .collect()
    }

    /// The band keys of a MinHash signature under `params`.
    fn bands_of(sig: &Signature, params: LshParams) -> Vec<u64> {
        match sig {
            Signature::MinHash(m) => neardup_index::band_keys(params, m.values()).unwrap(),
            _ => unreachable!("the default method is MinHash"),
        }
    }

    #[test]
    fn signatures_and_their_keys_come_back_as_written() {
        let dir = neardup_testkit::TempDir::new("sig-spill");
        let sigs = sigs();
        let dedup = Dedup::new();
        let seq = ShingleSeq::from_bytes(&[1, 0, 0, 0], 3).unwrap();
        // Whole, then keys for the documents with shingles (every third
        // keeps its signature: it has none).
        for keys_only in [None, SigSpill::keys_only(&dedup)] {
            let mut spill = SigSpill::with_keys(&dir, keys_only).unwrap();
            let shingles = |d: usize| (d % 3 != 0).then_some(&seq);
            for (d, s) in sigs.iter().enumerate() {
                spill.push(s.as_ref(), shingles(d)).unwrap();
            }
            assert_eq!(spill.len(), 300);
            assert_eq!(spill.keys_params().is_some(), keys_only.is_some());
            let docs: Vec<u32> = (0..300).rev().step_by(2).collect();
            let loaded = spill.load(&docs).unwrap();
            for &d in &docs {
                let whole = keys_only.is_none() || shingles(d as usize).is_none();
                let want = sigs[d as usize].as_ref().filter(|_| whole);
                assert_eq!(loaded.get(&d), want, "{d}");
                assert_eq!(spill.has(d), sigs[d as usize].is_some());
            }
            let all: Vec<u32> = (0..300).collect();
            let expected: Vec<(u32, u128)> = (0..300u32)
                .filter_map(|d| {
                    let sig = sigs[d as usize].as_ref()?;
                    Some((d, signature_key(sig, &mut Vec::new())))
                })
                .collect();
            assert_eq!(spill.keys(&all).unwrap(), expected);
            let with: Vec<u32> = all
                .iter()
                .copied()
                .filter(|&d| spill.has(d))
                .rev()
                .collect();
            let params = spill
                .keys_params()
                .unwrap_or_else(|| band_params(0.5, 128).unwrap());
            let streamed: Vec<Vec<u64>> = spill.band_keys(&with, params).collect();
            let want: Vec<Vec<u64>> = with
                .iter()
                .map(|&d| bands_of(sigs[d as usize].as_ref().unwrap(), params))
                .collect();
            assert_eq!(streamed, want);
            for &d in &with {
                let sig = sigs[d as usize].as_ref().unwrap();
                assert!(spill.holds(d, sig).unwrap());
                let other = sigs.iter().flatten().find(|s| *s != sig).unwrap();
                assert!(!spill.holds(d, other).unwrap());
            }
        }
    }

    #[test]
    fn a_replaced_signature_is_read_from_its_new_place_and_a_damaged_one_is_an_error() {
        let dir = neardup_testkit::TempDir::new("sig-spill-replace");
        let sigs = sigs();
        let mut spill = SigSpill::create(&dir).unwrap();
        for s in sigs.iter().take(3) {
            spill.push(s.as_ref(), None).unwrap();
        }
        spill.replace(1, sigs[8].as_ref().unwrap(), None).unwrap();
        let loaded = spill.load(&[0, 1]).unwrap();
        assert_eq!(Some(&loaded[&1]), sigs[8].as_ref());
        assert_eq!(Some(&loaded[&0]), sigs[0].as_ref());
        let params = band_params(0.5, 128).unwrap();
        // A streamed document without a signature is an error, not a skip.
        let mut keys = spill.band_keys(&[0, 1], params);
        assert_eq!(keys.by_ref().count(), 2);
        assert!(keys.error().is_none());
        let mut bare = SigSpill::create(&dir).unwrap();
        bare.push(None, None).unwrap();
        let mut keys = bare.band_keys(&[0], params);
        assert_eq!(keys.next(), Some(Vec::new()));
        assert_eq!(keys.next(), None);
        assert!(keys.error().is_some());
        // Keys of other bands than those asked for are an error too.
        let seq = ShingleSeq::from_bytes(&[1, 0, 0, 0], 3).unwrap();
        let mut keyed = SigSpill::with_keys(&dir, SigSpill::keys_only(&Dedup::new())).unwrap();
        keyed.push(sigs[0].as_ref(), Some(&seq)).unwrap();
        let other = band_params(0.9, 128).unwrap();
        assert_ne!(keyed.keys_params(), Some(other));
        let mut keys = keyed.band_keys(&[0], other);
        assert_eq!(keys.next(), Some(Vec::new()));
        assert!(keys.error().is_some());
        // Damage every byte after the first 4 of the file: decoding fails.
        let path = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.extension().is_some_and(|x| x == "sigs")
                    && std::fs::metadata(p).unwrap().len() > 0
            })
            .unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        for b in bytes.iter_mut().skip(4) {
            *b ^= 0x5a;
        }
        std::fs::write(&path, bytes).unwrap();
        assert!(spill.load(&[0]).is_err() || keyed.load(&[0]).is_err());
        drop((spill, bare, keyed));
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    }
}

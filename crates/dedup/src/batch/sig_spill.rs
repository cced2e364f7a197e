//! Signatures spilled to a file (a [`SlotFile`]), for corpora whose
//! signatures do not fit in memory (a MinHash signature of 128 values is
//! 512 bytes, the largest part of what a batch run kept per document):
//! the run keeps only where each one is (12 bytes a document) and reads
//! them back as it needs them: all of them in parallel for the keys of
//! identical signatures, streamed for the candidate pairs, and those of
//! the few pairs that are verified on signatures.
//!
//! The file holds each signature in its own format
//! ([`Signature::to_bytes`]: magic, version, checksum), so a damaged file
//! is an error, never a wrong signature.

use std::collections::HashMap;
use std::path::Path;

use neardup_sketch::Signature;

use crate::batch::slot_file::SlotFile;
use crate::error::Error;

/// Documents whose signatures [`SigSpill::stream`] holds in memory at once.
const STREAM_CHUNK: usize = 1 << 15;

/// The spilled signatures of a corpus, one slot per document in input
/// order.
#[derive(Debug)]
pub struct SigSpill {
    slots: SlotFile,
}

fn decode(bytes: &[u8]) -> Result<Signature, Error> {
    Signature::from_bytes(bytes)
        .map_err(|e| Error::signature(format!("a spilled signature cannot be read back: {e}")))
}

impl SigSpill {
    /// A new store in a new file in `dir`.
    ///
    /// # Errors
    /// When the file cannot be created.
    pub fn create(dir: &Path) -> Result<SigSpill, Error> {
        Ok(SigSpill {
            slots: SlotFile::create(dir, "sigs")?,
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
    /// without one: no text, or it failed).
    ///
    /// # Errors
    /// When writing fails.
    pub fn push(&mut self, sig: Option<&Signature>) -> Result<(), Error> {
        self.slots
            .push_opt(sig, |sig, out| out.extend(sig.to_bytes()))
    }

    /// Whether document `d` has a signature.
    pub fn has(&self, d: u32) -> bool {
        self.slots.has(d)
    }

    /// Points document `d` at a new signature, appended to the file.
    pub(crate) fn replace(&mut self, d: usize, sig: &Signature) -> Result<(), Error> {
        self.slots.replace(d, |out| out.extend(sig.to_bytes()))
    }

    /// The signatures of `docs` (each at most once) that have one.
    pub(crate) fn load(&mut self, docs: &[u32]) -> Result<HashMap<u32, Signature>, Error> {
        self.slots.load(docs, decode)
    }

    /// `f` of the signature of every document of `docs` that has one, in
    /// parallel, the results in file order with their documents.
    pub(crate) fn par_map<T: Send>(
        &mut self,
        docs: &[u32],
        f: impl Fn(&Signature) -> T + Sync,
    ) -> Result<Vec<(u32, T)>, Error> {
        self.slots.par_scan(docs, |_: &mut (), d, bytes, out| {
            out.push((d, f(&decode(bytes)?)));
            Ok(())
        })
    }

    /// The MinHash values of the signatures of `docs`, in the order of
    /// `docs`, [`STREAM_CHUNK`] documents read back at a time: what a
    /// streamed pass (the band tables on disk) needs, without every
    /// signature in memory. A document without a MinHash signature, or a
    /// read that fails, ends the stream with an empty item and leaves the
    /// error in [`MinHashValues::error`].
    pub(crate) fn minhash_values<'s>(&'s mut self, docs: &'s [u32]) -> MinHashValues<'s> {
        MinHashValues {
            spill: self,
            docs,
            next: 0,
            chunk: Vec::new().into_iter(),
            error: None,
        }
    }

    /// The directory of the file.
    pub(crate) fn dir(&self) -> &Path {
        self.slots.dir()
    }
}

/// An iterator over spilled MinHash values ([`SigSpill::minhash_values`]).
pub(crate) struct MinHashValues<'s> {
    spill: &'s mut SigSpill,
    docs: &'s [u32],
    next: usize,
    chunk: std::vec::IntoIter<Vec<u32>>,
    error: Option<Error>,
}

impl MinHashValues<'_> {
    /// Why the stream ended early, if it did.
    pub(crate) fn error(&mut self) -> Option<Error> {
        self.error.take()
    }

    fn fill(&mut self) -> Result<(), Error> {
        let chunk = &self.docs[self.next..(self.next + STREAM_CHUNK).min(self.docs.len())];
        self.next += chunk.len();
        let mut loaded = self.spill.load(chunk)?;
        let values = chunk
            .iter()
            .map(|d| match loaded.remove(d) {
                Some(Signature::MinHash(m)) => Ok(m.values().to_vec()),
                _ => Err(Error::signature(
                    "a spilled document has no MinHash signature",
                )),
            })
            .collect::<Result<Vec<_>, Error>>()?;
        self.chunk = values.into_iter();
        Ok(())
    }
}

impl Iterator for MinHashValues<'_> {
    type Item = Vec<u32>;

    fn next(&mut self) -> Option<Vec<u32>> {
        if self.error.is_some() {
            return None;
        }
        if let Some(v) = self.chunk.next() {
            return Some(v);
        }
        if self.next >= self.docs.len() {
            return None;
        }
        match self.fill() {
            Ok(()) => self.chunk.next(),
            Err(e) => {
                self.error = Some(e);
                Some(Vec::new())
            }
        }
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

    #[test]
    fn signatures_come_back_as_written_loaded_mapped_and_streamed() {
        let dir = neardup_testkit::TempDir::new("sig-spill");
        let sigs = sigs();
        let mut spill = SigSpill::create(&dir).unwrap();
        for s in &sigs {
            spill.push(s.as_ref()).unwrap();
        }
        assert_eq!(spill.len(), 300);
        let docs: Vec<u32> = (0..300).rev().step_by(2).collect();
        let loaded = spill.load(&docs).unwrap();
        for &d in &docs {
            assert_eq!(loaded.get(&d), sigs[d as usize].as_ref(), "{d}");
            assert_eq!(spill.has(d), sigs[d as usize].is_some());
        }
        let all: Vec<u32> = (0..300).collect();
        let kinds = spill.par_map(&all, |s| s.to_bytes().len()).unwrap();
        let expected: Vec<(u32, usize)> = (0..300u32)
            .filter_map(|d| Some((d, sigs[d as usize].as_ref()?.to_bytes().len())))
            .collect();
        assert_eq!(kinds, expected);
        let with: Vec<u32> = all
            .iter()
            .copied()
            .filter(|&d| spill.has(d))
            .rev()
            .collect();
        let streamed: Vec<Vec<u32>> = spill.minhash_values(&with).collect();
        let want: Vec<Vec<u32>> = with
            .iter()
            .map(|&d| match sigs[d as usize].as_ref().unwrap() {
                Signature::MinHash(m) => m.values().to_vec(),
                _ => unreachable!("the default method is MinHash"),
            })
            .collect();
        assert_eq!(streamed, want);
    }

    #[test]
    fn a_replaced_signature_is_read_from_its_new_place_and_a_damaged_one_is_an_error() {
        let dir = neardup_testkit::TempDir::new("sig-spill-replace");
        let sigs = sigs();
        let mut spill = SigSpill::create(&dir).unwrap();
        for s in sigs.iter().take(3) {
            spill.push(s.as_ref()).unwrap();
        }
        spill.replace(1, sigs[8].as_ref().unwrap()).unwrap();
        let loaded = spill.load(&[0, 1]).unwrap();
        assert_eq!(Some(&loaded[&1]), sigs[8].as_ref());
        assert_eq!(Some(&loaded[&0]), sigs[0].as_ref());
        // A streamed document without a signature is an error, not a skip.
        let mut values = spill.minhash_values(&[0, 1]);
        assert_eq!(values.by_ref().count(), 2);
        assert!(values.error().is_none());
        let mut bare = SigSpill::create(&dir).unwrap();
        bare.push(None).unwrap();
        let mut values = bare.minhash_values(&[0]);
        assert_eq!(values.next(), Some(Vec::new()));
        assert_eq!(values.next(), None);
        assert!(values.error().is_some());
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
        assert!(spill.load(&[0]).is_err());
        drop((spill, bare));
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    }
}

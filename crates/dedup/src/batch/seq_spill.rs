//! Shingle sequences spilled to a file (a [`SlotFile`]), for corpora whose
//! sequences do not fit in memory: a batch run keeps only where a
//! document's sequence is, and reads back the sequences of the documents a step
//! needs (the candidates of a block of pairs, the pages a corpus-level
//! rule looks at).
//!
//! The file holds each sequence as its hashes, little-endian.

use std::collections::HashMap;
use std::path::Path;

use crate::batch::slot_file::SlotFile;
use crate::error::Error;
use crate::verify::ShingleSeq;

/// The spilled shingle sequences of a corpus, one slot per document in
/// input order.
#[derive(Debug)]
pub struct SeqSpill {
    slots: SlotFile,
    /// Shingle length of the sequences.
    k: usize,
}

/// A sequence's hashes, little-endian.
fn hashes_of(bytes: &[u8], out: &mut Vec<u32>) {
    out.clear();
    out.extend(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
}

impl SeqSpill {
    /// A new store in a new file in `dir` for sequences of `k`-gram
    /// shingles.
    ///
    /// # Errors
    /// When the file cannot be created.
    pub fn create(dir: &Path, k: usize) -> Result<SeqSpill, Error> {
        Ok(SeqSpill {
            slots: SlotFile::create(dir, "seqs")?,
            k,
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

    /// Appends the next document's sequence (`None` for a document without
    /// one).
    ///
    /// # Errors
    /// When writing fails.
    pub fn push(&mut self, seq: Option<&ShingleSeq>) -> Result<(), Error> {
        self.slots.push_opt(seq, write_seq)
    }

    /// Points document `d` at a new sequence, appended to the file.
    pub(crate) fn replace(&mut self, d: usize, seq: &ShingleSeq) -> Result<(), Error> {
        self.slots.replace(d, |out| write_seq(seq, out))
    }

    /// Whether document `d` has a sequence.
    pub(crate) fn has(&self, d: u32) -> bool {
        self.slots.has(d)
    }

    /// The sequences of `docs` (each at most once) that have one, read in
    /// file order, in parallel ([`SlotFile::load`]).
    pub(crate) fn load(&mut self, docs: &[u32]) -> Result<HashMap<u32, ShingleSeq>, Error> {
        let k = self.k;
        self.slots.load(docs, |bytes| {
            ShingleSeq::from_bytes(bytes, k)
                .ok_or_else(|| Error::signature("a spilled sequence is cut short"))
        })
    }

    /// What `f` appends for every document of `docs` that has a sequence,
    /// given its hashes, in file order, in parallel ([`SlotFile::par_scan`]).
    pub(crate) fn par_scan<T: Send>(
        &mut self,
        docs: &[u32],
        f: impl Fn(u32, &[u32], &mut Vec<T>) + Sync,
    ) -> Result<Vec<T>, Error> {
        self.slots
            .par_scan(docs, |hashes: &mut Vec<u32>, d, bytes, out| {
                hashes_of(bytes, hashes);
                f(d, hashes, out);
                Ok(())
            })
    }
}

fn write_seq(seq: &ShingleSeq, out: &mut Vec<u8>) {
    out.extend(seq.hashes().iter().flat_map(|h| h.to_le_bytes()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(n: u32, seed: u32) -> ShingleSeq {
        let hashes: Vec<u32> = (0..n)
            .map(|i| i.wrapping_mul(2_654_435_761) ^ seed)
            .collect();
        ShingleSeq::from_bytes(
            &hashes
                .iter()
                .flat_map(|h| h.to_le_bytes())
                .collect::<Vec<_>>(),
            3,
        )
        .unwrap()
    }

    #[test]
    fn sequences_come_back_as_written() {
        let dir = neardup_testkit::TempDir::new("seq-spill");
        let seqs: Vec<Option<ShingleSeq>> = (0..2000)
            .map(|i| (i % 7 != 3).then(|| seq(i % 300, i)))
            .collect();
        let mut spill = SeqSpill::create(&dir, 3).unwrap();
        for s in &seqs {
            spill.push(s.as_ref()).unwrap();
        }
        assert_eq!(spill.len(), 2000);
        let docs: Vec<u32> = (0..2000).rev().step_by(3).collect();
        let loaded = spill.load(&docs).unwrap();
        for &d in &docs {
            assert_eq!(loaded.get(&d), seqs[d as usize].as_ref(), "{d}");
        }
        let all: Vec<u32> = (0..2000).collect();
        let scanned = spill
            .par_scan(&all, |d, h, out| out.push((d, h.to_vec())))
            .unwrap();
        let expected: Vec<(u32, Vec<u32>)> = (0..2000u32)
            .filter_map(|d| Some((d, seqs[d as usize].as_ref()?.hashes().to_vec())))
            .collect();
        assert_eq!(scanned, expected);
    }

    #[test]
    fn a_replaced_sequence_is_read_from_its_new_place_and_the_file_goes() {
        let dir = neardup_testkit::TempDir::new("seq-spill-replace");
        let mut spill = SeqSpill::create(&dir, 3).unwrap();
        for i in 0..3 {
            spill.push(Some(&seq(10, i))).unwrap();
        }
        spill.replace(1, &seq(4, 9)).unwrap();
        let loaded = spill.load(&[0, 1, 2]).unwrap();
        assert_eq!(loaded[&1], seq(4, 9));
        assert_eq!(loaded[&2], seq(10, 2));
        let files = || std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(files(), 1);
        drop(spill);
        assert_eq!(files(), 0);
    }
}

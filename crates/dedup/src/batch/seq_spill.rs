//! Shingle sequences spilled to a file (a [`SlotFile`]), for corpora whose
//! sequences do not fit in memory: a batch run keeps only where a
//! document's sequence is, and reads back the sequences of the documents a step
//! needs (the candidates of a block of pairs, the pages a corpus-level
//! rule looks at).
//!
//! The file holds each sequence after a tag byte: [`FULL`] then its
//! hashes, little-endian, or [`SKETCH`] then the verification sketch's
//! bytes ([`ShingleSeq::to_sketch_bytes`]: about a tenth of the hashes,
//! what a run with [`crate::VerifySketch`] keeps).

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

/// Tag of a slot holding a full sequence's hashes.
const FULL: u8 = 0;
/// Tag of a slot holding a verification sketch.
const SKETCH: u8 = 1;

/// The sequence of a slot's bytes (tag and body).
fn decode(bytes: &[u8], k: usize) -> Result<ShingleSeq, Error> {
    let seq = match bytes.split_first() {
        Some((&FULL, body)) => ShingleSeq::from_bytes(body, k),
        Some((&SKETCH, body)) => ShingleSeq::from_sketch_bytes(body),
        _ => None,
    };
    seq.ok_or_else(|| Error::signature("a spilled sequence is cut short or damaged"))
}

/// A slot's hashes into `out`: a full sequence's read in place, a
/// sketch's decoded (its samples' keys).
fn hashes_of(bytes: &[u8], k: usize, out: &mut Vec<u32>) -> Result<(), Error> {
    out.clear();
    match bytes.split_first() {
        Some((&FULL, body)) if body.len() % 4 == 0 => out.extend(
            body.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        ),
        _ => out.extend_from_slice(decode(bytes, k)?.hashes()),
    }
    Ok(())
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
        self.slots.load(docs, |bytes| decode(bytes, k))
    }

    /// What `f` appends for every document of `docs` that has a sequence,
    /// given its hashes (a sketch's: its samples' keys), in file order, in
    /// parallel ([`SlotFile::par_scan`]).
    pub(crate) fn par_scan<T: Send>(
        &mut self,
        docs: &[u32],
        f: impl Fn(u32, &[u32], &mut Vec<T>) + Sync,
    ) -> Result<Vec<T>, Error> {
        let k = self.k;
        self.slots
            .par_scan(docs, |hashes: &mut Vec<u32>, d, bytes, out| {
                hashes_of(bytes, k, hashes)?;
                f(d, hashes, out);
                Ok(())
            })
    }
}

fn write_seq(seq: &ShingleSeq, out: &mut Vec<u8>) {
    match seq.to_sketch_bytes() {
        Some(sketch) => {
            out.push(SKETCH);
            out.extend(sketch);
        }
        None => {
            out.push(FULL);
            out.extend(seq.hashes().iter().flat_map(|h| h.to_le_bytes()));
        }
    }
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
    fn sketches_come_back_as_written_beside_full_sequences() {
        let dir = neardup_testkit::TempDir::new("seq-spill-sketch");
        let sketch = crate::VerifySketch::default();
        let seqs: Vec<ShingleSeq> = (0..500)
            .map(|i| match i % 3 {
                0 => seq(i % 400, i),
                _ => sketch.sample(seq(i % 400, i)),
            })
            .collect();
        assert!(seqs
            .iter()
            .any(|s| s.to_sketch_bytes().is_some() && s.len() > 20));
        let mut spill = SeqSpill::create(&dir, 3).unwrap();
        for s in &seqs {
            spill.push(Some(s)).unwrap();
        }
        let docs: Vec<u32> = (0..500).collect();
        let loaded = spill.load(&docs).unwrap();
        for &d in &docs {
            assert_eq!(loaded[&d], seqs[d as usize], "{d}");
        }
        let scanned = spill
            .par_scan(&docs, |d, h, out| out.push((d, h.to_vec())))
            .unwrap();
        let expected: Vec<(u32, Vec<u32>)> = (0..500u32)
            .map(|d| (d, seqs[d as usize].hashes().to_vec()))
            .collect();
        assert_eq!(scanned, expected);
        // A sketch takes about 3 bytes a sample, against 4 a shingle.
        let full: usize = seqs.iter().map(|s| 4 * s.tokens()).sum();
        let kept = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len() as usize)
            .sum::<usize>();
        assert!(kept < full / 2, "{kept} of {full}");
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

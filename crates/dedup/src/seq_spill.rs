//! Shingle sequences spilled to a file, for corpora whose sequences do not
//! fit in memory: a batch run keeps only a document's signature and where
//! its sequence is, and reads back the sequences of the documents a step
//! needs (the candidates of a block of pairs, the pages a corpus-level
//! rule looks at).
//!
//! The file holds each sequence as its hashes, little-endian, appended in
//! document order; a sequence rewritten later (the site template pass) is
//! appended again and its document points there. The file is removed when
//! the store is dropped.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::verify::ShingleSeq;

/// Bytes buffered before they are written.
const WRITE_BUFFER: usize = 1 << 20;
/// Bytes read at once by a scan.
const SCAN_BUFFER: usize = 4 << 20;
/// `len` of a document without a sequence.
const NONE: u32 = u32::MAX;

/// The spilled shingle sequences of a corpus, one slot per document in
/// input order.
#[derive(Debug)]
pub struct SeqSpill {
    file: File,
    path: PathBuf,
    /// Shingle length of the sequences.
    k: usize,
    /// Per document: byte offset of its sequence in the file.
    offsets: Vec<u64>,
    /// Per document: its number of hashes, [`NONE`] without a sequence.
    lens: Vec<u32>,
    /// Bytes written so far, buffered ones included.
    end: u64,
    pending: Vec<u8>,
}

impl SeqSpill {
    /// A new store in a new file in `dir` for sequences of `k`-gram
    /// shingles.
    ///
    /// # Errors
    /// When the file cannot be created.
    pub fn create(dir: &Path, k: usize) -> Result<SeqSpill, Error> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("neardup-{}-{n}.seqs", std::process::id()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(Error::io)?;
        Ok(SeqSpill {
            file,
            path,
            k,
            offsets: Vec::new(),
            lens: Vec::new(),
            end: 0,
            pending: Vec::with_capacity(WRITE_BUFFER),
        })
    }

    /// Documents held.
    pub fn len(&self) -> usize {
        self.lens.len()
    }

    /// Whether no document is held.
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Bytes of memory the store holds (not the file).
    pub fn memory_bytes(&self) -> usize {
        self.offsets.capacity() * 8 + self.lens.capacity() * 4 + self.pending.capacity()
    }

    /// Appends the next document's sequence (`None` for a document without
    /// one).
    ///
    /// # Errors
    /// When writing fails.
    pub fn push(&mut self, seq: Option<&ShingleSeq>) -> Result<(), Error> {
        self.offsets.push(self.end);
        self.lens.push(NONE);
        let d = self.lens.len() - 1;
        self.write(d, seq)
    }

    /// Points document `d` at a new sequence, appended to the file.
    pub(crate) fn replace(&mut self, d: usize, seq: &ShingleSeq) -> Result<(), Error> {
        self.offsets[d] = self.end;
        self.write(d, Some(seq))
    }

    fn write(&mut self, d: usize, seq: Option<&ShingleSeq>) -> Result<(), Error> {
        let Some(seq) = seq else {
            return Ok(());
        };
        let hashes = seq.hashes();
        self.lens[d] = u32::try_from(hashes.len())
            .ok()
            .filter(|&n| n != NONE)
            .ok_or_else(|| Error::signature("a shingle sequence is too long to spill"))?;
        self.pending
            .extend(hashes.iter().flat_map(|h| h.to_le_bytes()));
        self.end += hashes.len() as u64 * 4;
        if self.pending.len() >= WRITE_BUFFER {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Error> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.file.seek(SeekFrom::End(0)).map_err(Error::io)?;
        self.file.write_all(&self.pending).map_err(Error::io)?;
        self.pending.clear();
        Ok(())
    }

    /// Whether document `d` has a sequence.
    pub(crate) fn has(&self, d: u32) -> bool {
        self.lens[d as usize] != NONE
    }

    /// The sequences of `docs` (each at most once) that have one, read in
    /// file order.
    pub(crate) fn load(&mut self, docs: &[u32]) -> Result<HashMap<u32, ShingleSeq>, Error> {
        self.flush()?;
        let mut wanted: Vec<u32> = docs.iter().copied().filter(|&d| self.has(d)).collect();
        wanted.sort_unstable_by_key(|&d| self.offsets[d as usize]);
        wanted.dedup();
        let mut out = HashMap::with_capacity(wanted.len());
        let mut bytes = Vec::new();
        for d in wanted {
            let (offset, len) = (self.offsets[d as usize], self.lens[d as usize] as usize);
            bytes.resize(len * 4, 0);
            self.file.seek(SeekFrom::Start(offset)).map_err(Error::io)?;
            self.file.read_exact(&mut bytes).map_err(Error::io)?;
            let seq = ShingleSeq::from_bytes(&bytes, self.k)
                .ok_or_else(|| Error::signature("a spilled sequence is cut short"))?;
            out.insert(d, seq);
        }
        Ok(out)
    }

    /// Calls `f` with every document of `docs` (sorted) that has a sequence
    /// and its hashes, reading the file front to back in large blocks.
    pub(crate) fn scan(
        &mut self,
        docs: &[u32],
        mut f: impl FnMut(u32, &[u32]),
    ) -> Result<(), Error> {
        self.flush()?;
        let mut order: Vec<u32> = docs.iter().copied().filter(|&d| self.has(d)).collect();
        order.sort_unstable_by_key(|&d| self.offsets[d as usize]);
        let mut block: Vec<u8> = Vec::new();
        let mut block_start = 0u64;
        let mut hashes: Vec<u32> = Vec::new();
        for d in order {
            let (offset, len) = (self.offsets[d as usize], self.lens[d as usize] as u64 * 4);
            let block_end = block_start + block.len() as u64;
            if offset < block_start || offset + len > block_end {
                let size = (len as usize)
                    .max(SCAN_BUFFER)
                    .min((self.end - offset) as usize);
                block.resize(size, 0);
                self.file.seek(SeekFrom::Start(offset)).map_err(Error::io)?;
                self.file.read_exact(&mut block).map_err(Error::io)?;
                block_start = offset;
            }
            let from = (offset - block_start) as usize;
            hashes.clear();
            hashes.extend(
                block[from..from + len as usize]
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
            f(d, &hashes);
        }
        Ok(())
    }
}

impl Drop for SeqSpill {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
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
        let mut scanned = Vec::new();
        let all: Vec<u32> = (0..2000).collect();
        spill
            .scan(&all, |d, h| scanned.push((d, h.to_vec())))
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

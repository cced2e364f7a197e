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
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::Error;
use crate::verify::ShingleSeq;

/// Bytes buffered before they are written.
const WRITE_BUFFER: usize = 1 << 20;
/// Bytes read at once by a scan.
const SCAN_BUFFER: usize = 4 << 20;
/// `len` of a document without a sequence.
const NONE: u32 = u32::MAX;
/// Documents read back by one task of [`SeqSpill::load`].
const LOAD_CHUNK: usize = 512;

/// Fills `buf` from `file` at `offset`, without moving the file's cursor
/// (so that threads can read at once).
#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> Result<(), Error> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, offset).map_err(Error::io)
}

/// Fills `buf` from `file` at `offset`, without moving the file's cursor
/// (so that threads can read at once).
#[cfg(windows)]
fn read_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> Result<(), Error> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => {
                return Err(Error::io(std::io::Error::from(
                    std::io::ErrorKind::UnexpectedEof,
                )))
            }
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(e)),
        }
    }
    Ok(())
}

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
    /// file order: in parallel, [`LOAD_CHUNK`] documents a task, with
    /// positional reads (the disk and the page cache serve several at once,
    /// and the decoding is spread over the cores).
    pub(crate) fn load(&mut self, docs: &[u32]) -> Result<HashMap<u32, ShingleSeq>, Error> {
        self.flush()?;
        let mut wanted: Vec<u32> = docs.iter().copied().filter(|&d| self.has(d)).collect();
        wanted.sort_unstable_by_key(|&d| self.offsets[d as usize]);
        wanted.dedup();
        let this = &*self;
        let chunks: Vec<Vec<(u32, ShingleSeq)>> = wanted
            .par_chunks(LOAD_CHUNK)
            .map(|chunk| {
                let mut bytes = Vec::new();
                chunk
                    .iter()
                    .map(|&d| {
                        let (offset, len) = (this.offsets[d as usize], this.lens[d as usize]);
                        bytes.resize(len as usize * 4, 0);
                        read_at(&this.file, &mut bytes, offset)?;
                        let seq = ShingleSeq::from_bytes(&bytes, this.k)
                            .ok_or_else(|| Error::signature("a spilled sequence is cut short"))?;
                        Ok((d, seq))
                    })
                    .collect()
            })
            .collect::<Result<_, Error>>()?;
        let mut out = HashMap::with_capacity(wanted.len());
        out.extend(chunks.into_iter().flatten());
        Ok(out)
    }

    /// What `f` appends for every document of `docs` that has a sequence,
    /// given its hashes, in file order: the file is read in spans of about
    /// [`SCAN_BUFFER`] bytes, each span by one task (positional reads, in
    /// parallel), the tasks' outputs joined in order.
    pub(crate) fn par_scan<T: Send>(
        &mut self,
        docs: &[u32],
        f: impl Fn(u32, &[u32], &mut Vec<T>) + Sync,
    ) -> Result<Vec<T>, Error> {
        self.flush()?;
        let mut order: Vec<u32> = docs.iter().copied().filter(|&d| self.has(d)).collect();
        order.sort_unstable_by_key(|&d| self.offsets[d as usize]);
        let end_of = |d: u32| self.offsets[d as usize] + u64::from(self.lens[d as usize]) * 4;
        // Spans of consecutive documents (in file order) at most
        // SCAN_BUFFER bytes from first to last byte, or one document.
        let mut spans: Vec<&[u32]> = Vec::new();
        let mut from = 0;
        for i in 1..=order.len() {
            let split = i == order.len()
                || end_of(order[i]) - self.offsets[order[from] as usize] > SCAN_BUFFER as u64;
            if split {
                spans.push(&order[from..i]);
                from = i;
            }
        }
        let this = &*self;
        let parts: Vec<Vec<T>> = spans
            .into_par_iter()
            .map(|span| {
                let first = this.offsets[span[0] as usize];
                let last = span.iter().map(|&d| end_of(d)).max().unwrap_or(first);
                let mut block = vec![0u8; (last - first) as usize];
                read_at(&this.file, &mut block, first)?;
                let (mut hashes, mut out) = (Vec::new(), Vec::new());
                for &d in span {
                    let at = (this.offsets[d as usize] - first) as usize;
                    let bytes = &block[at..(end_of(d) - first) as usize];
                    hashes.clear();
                    hashes.extend(
                        bytes
                            .chunks_exact(4)
                            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                    );
                    f(d, &hashes, &mut out);
                }
                Ok(out)
            })
            .collect::<Result<_, Error>>()?;
        Ok(parts.into_iter().flatten().collect())
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

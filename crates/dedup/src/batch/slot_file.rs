//! [`SlotFile`]: byte strings spilled to a file, one slot per document in
//! input order, for the per-document data a batch run keeps on disk (the
//! shingle sequences of [`crate::SeqSpill`], the signatures of
//! [`crate::SigSpill`]). Only where each slot is stays in memory (12 bytes
//! a document).
//!
//! Slots are appended in document order; a slot rewritten later (the site
//! template pass) is appended again and its document points there. Reads
//! are positional, so threads read at once. The file is removed when the
//! store is dropped.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::Error;

/// Bytes buffered before they are written.
const WRITE_BUFFER: usize = 1 << 20;
/// Bytes read at once by a scan.
const SCAN_BUFFER: usize = 4 << 20;
/// `len` of a document without a slot.
const NONE: u32 = u32::MAX;
/// Documents read back by one task of [`SlotFile::load`].
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

/// Byte strings on disk, one optional slot per document.
#[derive(Debug)]
pub(crate) struct SlotFile {
    file: File,
    path: PathBuf,
    /// Per document: byte offset of its slot in the file.
    offsets: Vec<u64>,
    /// Per document: its length in bytes, [`NONE`] without a slot.
    lens: Vec<u32>,
    /// Bytes written so far, buffered ones included.
    end: u64,
    pending: Vec<u8>,
}

impl SlotFile {
    /// A new store in a new file in `dir`, its name ending in `.{ext}`.
    pub(crate) fn create(dir: &Path, ext: &str) -> Result<SlotFile, Error> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("neardup-{}-{n}.{ext}", std::process::id()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(Error::io)?;
        Ok(SlotFile {
            file,
            path,
            offsets: Vec::new(),
            lens: Vec::new(),
            end: 0,
            pending: Vec::with_capacity(WRITE_BUFFER),
        })
    }

    /// The file's name without its extension, unique to it: a prefix for
    /// files that go with it.
    pub(crate) fn stem(&self) -> String {
        self.path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
    }

    /// The directory of the file.
    pub(crate) fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// Documents held.
    pub(crate) fn len(&self) -> usize {
        self.lens.len()
    }

    /// Bytes of memory the store holds (not the file).
    pub(crate) fn memory_bytes(&self) -> usize {
        self.offsets.capacity() * 8 + self.lens.capacity() * 4 + self.pending.capacity()
    }

    /// Appends the next document's slot, its bytes written by `write`.
    pub(crate) fn push(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> Result<(), Error> {
        self.push_empty();
        self.write(self.lens.len() - 1, write)
    }

    /// Appends the next document's slot, written by `write` from `value`,
    /// or no slot when `value` is `None`.
    pub(crate) fn push_opt<V>(
        &mut self,
        value: Option<V>,
        write: impl FnOnce(V, &mut Vec<u8>),
    ) -> Result<(), Error> {
        match value {
            Some(v) => self.push(|out| write(v, out)),
            None => {
                self.push_empty();
                Ok(())
            }
        }
    }

    /// Appends the next document, without a slot.
    pub(crate) fn push_empty(&mut self) {
        self.offsets.push(self.end);
        self.lens.push(NONE);
    }

    /// Points document `d` at a new slot, appended to the file.
    pub(crate) fn replace(
        &mut self,
        d: usize,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> Result<(), Error> {
        self.offsets[d] = self.end;
        self.write(d, write)
    }

    fn write(&mut self, d: usize, write: impl FnOnce(&mut Vec<u8>)) -> Result<(), Error> {
        let before = self.pending.len();
        write(&mut self.pending);
        let len = self.pending.len() - before;
        self.lens[d] = u32::try_from(len)
            .ok()
            .filter(|&n| n != NONE)
            .ok_or_else(|| Error::corpus("a document's data is too long to spill"))?;
        self.end += len as u64;
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

    /// Whether document `d` has a slot (`false` past the last document).
    pub(crate) fn has(&self, d: u32) -> bool {
        self.lens.get(d as usize).is_some_and(|&n| n != NONE)
    }

    /// `decode` of the slots of `docs` (each at most once) that have one,
    /// read in file order: in parallel, [`LOAD_CHUNK`] documents a task,
    /// with positional reads (the disk and the page cache serve several at
    /// once, and the decoding is spread over the cores).
    pub(crate) fn load<T: Send>(
        &mut self,
        docs: &[u32],
        decode: impl Fn(&[u8]) -> Result<T, Error> + Sync,
    ) -> Result<HashMap<u32, T>, Error> {
        self.flush()?;
        let mut wanted: Vec<u32> = docs.iter().copied().filter(|&d| self.has(d)).collect();
        wanted.sort_unstable_by_key(|&d| self.offsets[d as usize]);
        wanted.dedup();
        let this = &*self;
        let chunks: Vec<Vec<(u32, T)>> = wanted
            .par_chunks(LOAD_CHUNK)
            .map(|chunk| {
                let mut bytes = Vec::new();
                chunk
                    .iter()
                    .map(|&d| {
                        let (offset, len) = (this.offsets[d as usize], this.lens[d as usize]);
                        bytes.resize(len as usize, 0);
                        read_at(&this.file, &mut bytes, offset)?;
                        Ok((d, decode(&bytes)?))
                    })
                    .collect()
            })
            .collect::<Result<_, Error>>()?;
        let mut out = HashMap::with_capacity(wanted.len());
        out.extend(chunks.into_iter().flatten());
        Ok(out)
    }

    /// What `f` appends for every document of `docs` that has a slot,
    /// given its bytes, in file order: the file is read in spans of about
    /// [`SCAN_BUFFER`] bytes, each span by one task (positional reads, in
    /// parallel), the tasks' outputs joined in order.
    ///
    /// `f` is also given a scratch value of its own per span (`S::default()`
    /// at the span's start), to decode into without allocating per document.
    pub(crate) fn par_scan<S: Default, T: Send>(
        &mut self,
        docs: &[u32],
        f: impl Fn(&mut S, u32, &[u8], &mut Vec<T>) -> Result<(), Error> + Sync,
    ) -> Result<Vec<T>, Error> {
        self.flush()?;
        let mut order: Vec<u32> = docs.iter().copied().filter(|&d| self.has(d)).collect();
        order.sort_unstable_by_key(|&d| self.offsets[d as usize]);
        let end_of = |d: u32| self.offsets[d as usize] + u64::from(self.lens[d as usize]);
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
                let (mut out, mut scratch) = (Vec::new(), S::default());
                for &d in span {
                    let at = (this.offsets[d as usize] - first) as usize;
                    f(
                        &mut scratch,
                        d,
                        &block[at..(end_of(d) - first) as usize],
                        &mut out,
                    )?;
                }
                Ok(out)
            })
            .collect::<Result<_, Error>>()?;
        Ok(parts.into_iter().flatten().collect())
    }
}

impl Drop for SlotFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

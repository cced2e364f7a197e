//! The substring unit past the memory budget: every window goes to disk,
//! partitioned by its fingerprint, and each partition is decided alone.
//!
//! A window's fingerprint ([`crate::substring_windows`]) is two
//! polynomial hashes modulo 2^61 - 1; 93 bits of them are kept here (the
//! first hash and 32 bits of the second), and windows are the same when
//! their fingerprints and lengths are: over all the pairs of 10^9 windows
//! of 50 tokens the chance of any collision is below 10^-8 (it grows with
//! the window length).
//! A window is written as one record ([`RECORD_BYTES`]: fingerprint,
//! stream position, length) to one of [`PARTITIONS`] files by its
//! fingerprint. At the end each partition is read and sorted alone; the
//! records of one fingerprint are the copies of one window, the smallest
//! position its earliest occurrence, and the copies are written (position,
//! length, document of the earliest copy) sorted by position. The
//! partitions' copies are merged back per document: the same windows,
//! lengths and first documents as the suffix array gives in memory
//! ([`crate::suffix`]).
//!
//! Memory: while windows are written, the tokens of the window being cut
//! (24 bytes each, [`WindowStream`]), not a document's; then one partition
//! at a time, about 40 bytes per window in it (a corpus's windows may be
//! about `PARTITIONS` times the budget / 40).
//! Disk: 24 bytes per window, then 16 per copied window; the read and the
//! write are each one pass, so time grows linearly with the corpus (the
//! sorts: n log n within partitions).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};

use crate::error::Error;
use crate::options::Keep;
use crate::spill::{u32_at, u64_at, SpillDir};
use crate::substring_windows::{Window, WindowStream};

/// Number of partitions of the windows.
pub const PARTITIONS: usize = 256;
/// Bytes of one window on disk.
pub const RECORD_BYTES: u64 = 24;

/// What makes a window.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WindowRule {
    pub min_tokens: u32,
    pub min_bytes: u64,
    pub keep: Keep,
}

/// The windows of the stream on their way to disk.
pub(crate) struct WindowSpool {
    parts: Vec<BufWriter<File>>,
    rule: WindowRule,
    /// Stream position of each document's first token.
    pub doc_start: Vec<u64>,
    /// Tokens and windows written.
    pub tokens: u64,
    pub windows: u64,
    /// Index of the run's document at which the stream went to disk.
    pub from: u32,
    /// The windows of the document being pushed.
    windows_of_doc: WindowStream,
}

fn part_of(fp: (u64, u64)) -> usize {
    // The first hash is below 2^61: its top 8 bits.
    (fp.0 >> 53) as usize % PARTITIONS
}

/// Writes one window at stream position `pos` to its partition.
fn write_window(parts: &mut [BufWriter<File>], pos: u64, w: Window) -> Result<(), Error> {
    let fp = w.fingerprint;
    let out = &mut parts[part_of(fp)];
    out.write_all(&fp.0.to_le_bytes())?;
    out.write_all(&pos.to_le_bytes())?;
    // 32 bits of the second hash: see the module docs.
    out.write_all(&(fp.1 as u32).to_le_bytes())?;
    out.write_all(&w.length.to_le_bytes())?;
    Ok(())
}

impl WindowSpool {
    /// A spool in `dir`, from the run's document `from`.
    pub fn create(dir: &SpillDir, rule: WindowRule, from: u32) -> Result<WindowSpool, Error> {
        let mut parts = Vec::with_capacity(PARTITIONS);
        for p in 0..PARTITIONS {
            parts.push(dir.writer(&format!("windows-{p}"))?);
        }
        Ok(WindowSpool {
            parts,
            rule,
            doc_start: Vec::new(),
            tokens: 0,
            windows: 0,
            from,
            windows_of_doc: WindowStream::new(rule.min_tokens, rule.min_bytes),
        })
    }

    /// Adds one document: `feed` gives its tokens (hash, normalized
    /// bytes) in order to the function it is called with. Each window is
    /// written as soon as its last token is in: memory for the tokens of
    /// one window, not the document's.
    pub fn push(&mut self, feed: impl FnOnce(&mut dyn FnMut(u64, u32))) -> Result<(), Error> {
        self.doc_start.push(self.tokens);
        let base = self.tokens;
        let (parts, stream) = (&mut self.parts, &mut self.windows_of_doc);
        let (mut tokens, mut windows, mut result) = (0u64, 0u64, Ok(()));
        feed(&mut |hash, bytes| {
            tokens += 1;
            stream.push(hash, bytes, |w| {
                if result.is_ok() {
                    result = write_window(parts, base + u64::from(w.position), w);
                    windows += 1;
                }
            });
        });
        stream.end();
        self.tokens += tokens;
        self.windows += windows;
        result
    }

    /// Bytes written.
    pub fn bytes(&self) -> u64 {
        self.windows * RECORD_BYTES
    }

    /// Decides every partition; returns the names of the files of copies
    /// (sorted by stream position each).
    pub fn decide(mut self, dir: &SpillDir) -> Result<Vec<String>, Error> {
        for w in &mut self.parts {
            w.flush()?;
        }
        self.parts.clear();
        let doc_of = |pos: u64| (self.doc_start.partition_point(|&s| s <= pos).max(1) - 1) as u32;
        let mut names = Vec::with_capacity(PARTITIONS);
        for p in 0..PARTITIONS {
            let name = format!("windows-{p}");
            let bytes = dir.read_all(&name)?;
            dir.remove(&name);
            // (first hash, second hash, length, position): the copies of one
            // window have the same fingerprint and length.
            let mut recs: Vec<(u64, u32, u32, u64)> = bytes
                .chunks_exact(RECORD_BYTES as usize)
                .map(|c| (u64_at(c, 0), u32_at(c, 16), u32_at(c, 20), u64_at(c, 8)))
                .collect();
            drop(bytes);
            recs.sort_unstable();
            let mut copies: Vec<(u64, u32, u32)> = Vec::new();
            let mut i = 0;
            while i < recs.len() {
                let mut j = i + 1;
                let key = |r: &(u64, u32, u32, u64)| (r.0, r.1, r.2);
                while j < recs.len() && key(&recs[j]) == key(&recs[i]) {
                    j += 1;
                }
                if j - i > 1 {
                    let first = doc_of(recs[i].3);
                    let skip = usize::from(self.rule.keep == Keep::First);
                    copies.extend(recs[i + skip..j].iter().map(|r| (r.3, r.2, first)));
                }
                i = j;
            }
            drop(recs);
            copies.sort_unstable();
            let name = format!("copies-{p}");
            let mut out = dir.writer(&name)?;
            for (pos, w, first) in copies {
                out.write_all(&pos.to_le_bytes())?;
                out.write_all(&w.to_le_bytes())?;
                out.write_all(&first.to_le_bytes())?;
            }
            out.flush()?;
            names.push(name);
        }
        Ok(names)
    }
}

/// The partitions' copies merged back in stream order.
pub(crate) struct Copies {
    readers: Vec<BufReader<File>>,
    heap: BinaryHeap<Reverse<(u64, u32, u32, usize)>>,
}

impl Copies {
    pub fn open(dir: &SpillDir, names: &[String]) -> Result<Copies, Error> {
        let mut c = Copies {
            readers: Vec::new(),
            heap: BinaryHeap::new(),
        };
        for (i, name) in names.iter().enumerate() {
            c.readers.push(dir.reader(name)?);
            c.refill(i)?;
        }
        Ok(c)
    }

    fn refill(&mut self, i: usize) -> Result<(), Error> {
        let mut b = [0u8; 16];
        match self.readers[i].read_exact(&mut b) {
            Ok(()) => {
                self.heap
                    .push(Reverse((u64_at(&b, 0), u32_at(&b, 8), u32_at(&b, 12), i)));
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Calls `f(position, length, first document)` for the copied windows
    /// at stream positions below `end`, in order.
    pub fn take_until(&mut self, end: u64, mut f: impl FnMut(u64, u32, u32)) -> Result<(), Error> {
        while let Some(&Reverse((pos, w, first, i))) = self.heap.peek() {
            if pos >= end {
                break;
            }
            self.heap.pop();
            f(pos, w, first);
            self.refill(i)?;
        }
        Ok(())
    }
}

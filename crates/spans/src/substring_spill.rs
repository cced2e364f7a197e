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
//! fingerprint, in order of position. At the end each partition is
//! decided alone, in two passes over it: the first finds each distinct
//! window (fingerprint and length) and the document of its first record,
//! its earliest occurrence; the second writes the copies (position,
//! length, document of the earliest copy), in order of position. The
//! partitions' copies are merged back per document: the same windows,
//! lengths and first documents as the suffix array gives in memory
//! ([`crate::suffix`]).
//!
//! Memory: while windows are written, the tokens of the window being cut
//! (about 40 bytes each, [`WindowStream`]), not a document's; then one partition
//! at a time, 30 to 60 bytes per distinct window in it (a hash table of 24
//! bytes an entry), whatever the number of its copies: a corpus's distinct
//! windows may be about `PARTITIONS` times the budget / 60.
//! Disk: 24 bytes per window, then 16 per copied window; the write is one
//! pass and the decision two reads, so time grows linearly with the
//! corpus.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{BufReader, BufWriter, Read, Write};

use crate::error::Error;
use crate::hashmap::IdentityBuild;
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
        let keep_first = self.rule.keep == Keep::First;
        let mut names = Vec::with_capacity(PARTITIONS);
        // Per distinct window of a partition: the document of its earliest
        // occurrence, and flags.
        let mut seen: HashMap<WindowKey, (u32, u32), IdentityBuild> = HashMap::default();
        for p in 0..PARTITIONS {
            let name = format!("windows-{p}");
            // A partition is written in order of stream position: a
            // window's first record is its earliest occurrence.
            seen.clear();
            each_record(&mut dir.reader(&name)?, |key, pos| {
                seen.entry(key)
                    .and_modify(|e| e.1 |= REPEATED)
                    .or_insert_with(|| (doc_of(pos), 0));
            })?;
            let copies = format!("copies-{p}");
            let mut out = dir.writer(&copies)?;
            let mut result = Ok(());
            each_record(&mut dir.reader(&name)?, |key, pos| {
                let Some(e) = seen.get_mut(&key) else {
                    return;
                };
                let earliest = e.1 & PASSED == 0;
                e.1 |= PASSED;
                if e.1 & REPEATED == 0 || (keep_first && earliest) || result.is_err() {
                    return;
                }
                let mut rec = [0u8; 16];
                rec[..8].copy_from_slice(&pos.to_le_bytes());
                rec[8..12].copy_from_slice(&key.length().to_le_bytes());
                rec[12..].copy_from_slice(&e.0.to_le_bytes());
                result = out.write_all(&rec);
            })?;
            result?;
            out.flush()?;
            dir.remove(&name);
            names.push(copies);
            if seen.capacity() > KEPT_WINDOWS {
                seen = HashMap::default();
            }
        }
        Ok(names)
    }
}

/// Flags of a distinct window while its partition is decided: it occurs
/// more than once; its earliest occurrence was passed.
const REPEATED: u32 = 1;
const PASSED: u32 = 2;

/// Distinct windows whose room is kept from one partition to the next.
const KEPT_WINDOWS: usize = 1 << 16;

/// What makes two windows the same: the first hash, 32 bits of the second
/// and the length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WindowKey(u64, u64);

impl WindowKey {
    fn length(self) -> u32 {
        self.1 as u32
    }
}

impl Hash for WindowKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // The first hash is uniform below 2^61 (its top bits the partition);
        // the rest, multiplied, fills the top bits.
        state.write_u64(self.0 ^ self.1.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    }
}

/// Calls `f(key, position)` for each record of a partition, in order.
fn each_record(r: &mut BufReader<File>, mut f: impl FnMut(WindowKey, u64)) -> Result<(), Error> {
    let mut b = [0u8; RECORD_BYTES as usize];
    loop {
        match r.read_exact(&mut b) {
            Ok(()) => {
                let second = u64::from(u32_at(&b, 16)) << 32 | u64::from(u32_at(&b, 20));
                f(WindowKey(u64_at(&b, 0), second), u64_at(&b, 8));
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e.into()),
        }
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

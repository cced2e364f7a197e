//! The substring unit past the memory budget: the token stream waits on
//! disk and its windows are decided in rounds, each round taking the
//! windows whose fingerprint falls in its share of the hash space.
//!
//! A window's fingerprint is two polynomial hashes modulo the Mersenne
//! prime 2^61 - 1 with fixed bases over its tokens' hashes (computed from
//! prefix hashes, so any window length costs the same): windows holding
//! the same tokens have the same fingerprint, and two different windows of
//! `w` tokens share one with probability at most (w / 2^61)^2, below
//! 10^-30 for any pair of a corpus's windows and below 10^-12 over all the
//! pairs of 10^9 windows. Each round reads the stream in order; with
//! `--keep first` a window is a copy when its fingerprint was seen before
//! in the round (and the first sight names the document), with `--keep
//! none` a first read counts the copies and a second one decides. Decisions
//! go to one file per round, in stream order, and are merged back per
//! document: the same windows, lengths and first documents as the suffix
//! array gives in memory ([`crate::suffix`]).
//!
//! Memory: one round's table, about [`ROUND_BYTES_PER_WINDOW`] bytes per
//! distinct window of the round, sized to the budget; the rounds are as
//! many as that takes. Disk: 8 bytes per token (12 with `--min-bytes`),
//! 4 per document, 16 per copied window.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};

use crate::error::Error;
use crate::options::Keep;
use crate::spill::{u32_at, u64_at, SpillDir};

/// Bytes of a round's table per distinct window: key and value (24), the
/// hash table's control byte, a table at most 7/8 full and rounds sized to
/// 85% of that (the table's size is a power of two at most the budget).
pub const ROUND_BYTES_PER_WINDOW: u64 = 34;

/// Hashes a fingerprint for the round's table (its parts are hashes
/// already: a multiply spreads them over the table's bits).
#[derive(Default)]
struct FpHasher(u64);

impl std::hash::Hasher for FpHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(29) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type FpBuild = std::hash::BuildHasherDefault<FpHasher>;

const PRIME: u64 = (1 << 61) - 1;
const BASES: [u64; 2] = [0x1F2E_3D4C_5B6A_7988 % PRIME, 0x0DEC_AF0C_0FFE_E123 % PRIME];

#[inline]
fn mulmod(a: u64, b: u64) -> u64 {
    let x = u128::from(a) * u128::from(b);
    let lo = (x as u64) & PRIME;
    let hi = (x >> 61) as u64;
    let s = lo + hi;
    if s >= PRIME {
        s - PRIME
    } else {
        s
    }
}

#[inline]
fn addmod(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= PRIME {
        s - PRIME
    } else {
        s
    }
}

/// The token stream on its way to disk.
pub(crate) struct TokenSpool {
    tokens: BufWriter<File>,
    lengths: BufWriter<File>,
    with_bytes: bool,
    /// Tokens and documents written.
    pub tokens_written: u64,
    pub docs: u32,
    /// Index of the run's document at which the stream went to disk.
    pub from: u32,
}

impl TokenSpool {
    /// A spool in `dir`; `with_bytes`: whether each token's normalized
    /// bytes are kept (`--min-bytes`).
    pub fn create(dir: &SpillDir, with_bytes: bool, from: u32) -> Result<TokenSpool, Error> {
        Ok(TokenSpool {
            tokens: dir.writer("tokens")?,
            lengths: dir.writer("lengths")?,
            with_bytes,
            tokens_written: 0,
            docs: 0,
            from,
        })
    }

    /// Adds one document's tokens (hash, normalized bytes).
    pub fn push(&mut self, tokens: impl Iterator<Item = (u64, u32)>) -> Result<(), Error> {
        let mut n = 0u32;
        for (h, b) in tokens {
            self.tokens.write_all(&h.to_le_bytes())?;
            if self.with_bytes {
                self.tokens.write_all(&b.to_le_bytes())?;
            }
            n += 1;
        }
        self.lengths.write_all(&n.to_le_bytes())?;
        self.tokens_written += u64::from(n);
        self.docs += 1;
        Ok(())
    }

    /// Bytes written.
    pub fn bytes(&self) -> u64 {
        self.tokens_written * if self.with_bytes { 12 } else { 8 } + 4 * u64::from(self.docs)
    }

    fn flush(&mut self) -> Result<(), Error> {
        self.tokens.flush()?;
        self.lengths.flush()?;
        Ok(())
    }
}

/// What makes a window.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WindowRule {
    pub min_tokens: u32,
    pub min_bytes: u64,
    pub keep: Keep,
}

/// One document's tokens read back, with its windows' fingerprints.
#[derive(Default)]
struct DocWindows {
    buf: Vec<u8>,
    hashes: Vec<u64>,
    bytes: Vec<u32>,
    prefix: [Vec<u64>; 2],
    powers: [Vec<u64>; 2],
}

impl DocWindows {
    fn read(&mut self, r: &mut impl Read, n: usize, with_bytes: bool) -> Result<(), Error> {
        let width = if with_bytes { 12 } else { 8 };
        let mut buf = std::mem::take(&mut self.buf);
        buf.resize(n * width, 0);
        r.read_exact(&mut buf)?;
        self.hashes.clear();
        self.bytes.clear();
        for c in buf.chunks_exact(width) {
            self.hashes.push(u64_at(c, 0));
            if with_bytes {
                self.bytes.push(u32_at(c, 8));
            }
        }
        self.buf = buf;
        self.prefix_hashes(0);
        self.prefix[1].clear();
        Ok(())
    }

    /// Prefix hashes of base `k` (the second is computed only for the
    /// documents that have a window in the round).
    fn prefix_hashes(&mut self, k: usize) {
        let n = self.hashes.len();
        {
            let base = &BASES[k];
            let (pre, pow) = (&mut self.prefix[k], &mut self.powers[k]);
            pre.clear();
            pre.push(0);
            if pow.is_empty() {
                pow.push(1);
            }
            while pow.len() <= n {
                let last = pow[pow.len() - 1];
                pow.push(mulmod(last, *base));
            }
            let mut h = 0u64;
            for &t in &self.hashes {
                h = addmod(mulmod(h, *base), t % PRIME + 1);
                pre.push(h);
            }
        }
    }

    /// Window lengths of the document, as [`crate::substring::window_lengths`]
    /// gives them in memory.
    fn windows(&self, rule: WindowRule, out: &mut Vec<u32>) {
        out.clear();
        let n = self.hashes.len();
        if rule.min_bytes == 0 {
            let m = rule.min_tokens as usize;
            out.extend((0..n).map(|p| if p + m <= n { m as u32 } else { 0 }));
            return;
        }
        let stream: Vec<i32> = (0..n as i32).chain([-1]).collect();
        let lens = |t: i32| (t >= 0).then(|| self.bytes[t as usize]);
        let mut w = crate::substring::window_lengths(stream, lens, rule.min_tokens, rule.min_bytes);
        w.pop();
        *out = w;
    }

    /// One of the two hashes of the window of `w` tokens at `p`.
    #[inline]
    fn hash(&self, k: usize, p: usize, w: usize) -> u64 {
        let pre = &self.prefix[k];
        let sub = mulmod(pre[p], self.powers[k][w]);
        addmod(pre[p + w], PRIME - sub)
    }

    #[cfg(test)]
    fn fingerprint(&self, p: usize, w: usize) -> (u64, u64) {
        (self.hash(0, p, w), self.hash(1, p, w))
    }
}

/// Decides every window of the spooled stream in rounds of at most
/// `table_budget` bytes of table each; returns the per-round decision
/// files' names.
pub(crate) fn decide_rounds(
    dir: &SpillDir,
    spool: &mut TokenSpool,
    rule: WindowRule,
    table_budget: u64,
) -> Result<Vec<String>, Error> {
    spool.flush()?;
    let with_bytes = spool.with_bytes;
    let windows = spool.tokens_written.max(1);
    // The table's buckets: the largest power of two whose entries (25
    // bytes each with the control byte) fit the budget; filled to 7/8 at
    // most, and rounds sized to 85% of that so that it never grows.
    let buckets = (table_budget / 25).max(2048).next_power_of_two() / 2;
    let cap = buckets / 8 * 7;
    let per_round = (cap * 85 / 100).max(1024);
    let rounds = windows.div_ceil(per_round).max(1);
    let lengths: Vec<u32> = dir
        .read_all("lengths")?
        .chunks_exact(4)
        .map(|c| u32_at(c, 0))
        .collect();
    let mut names = Vec::new();
    for round in 0..rounds {
        // The round of a window: its first hash's share of [0, 2^61).
        let in_round = |h: u64| ((u128::from(h) * u128::from(rounds)) >> 61) as u64 == round;
        let cap = cap as usize;
        let mut table: HashMap<(u64, u64), (u32, u32), FpBuild> =
            HashMap::with_capacity_and_hasher(cap, FpBuild::default());
        let passes = if rule.keep == Keep::None { 2 } else { 1 };
        let name = format!("copies-{round}");
        let mut out = dir.writer(&name)?;
        for pass in 0..passes {
            let deciding = pass + 1 == passes;
            let mut r = dir.reader("tokens")?;
            let mut doc = DocWindows::default();
            let mut wins = Vec::new();
            let mut base = 0u64;
            for (d, &n) in lengths.iter().enumerate() {
                doc.read(&mut r, n as usize, with_bytes)?;
                doc.windows(rule, &mut wins);
                for (p, &w) in wins.iter().enumerate() {
                    if w == 0 {
                        continue;
                    }
                    let h0 = doc.hash(0, p, w as usize);
                    if !in_round(h0) {
                        continue;
                    }
                    if doc.prefix[1].is_empty() {
                        doc.prefix_hashes(1);
                    }
                    let fp = (h0, doc.hash(1, p, w as usize));
                    let pos = base + p as u64;
                    match rule.keep {
                        Keep::First => match table.get(&fp) {
                            Some(&(first, _)) => write_copy(&mut out, pos, w, first)?,
                            None => {
                                table.insert(fp, (d as u32, 1));
                            }
                        },
                        Keep::None if !deciding => {
                            let e = table.entry(fp).or_insert((d as u32, 0));
                            e.1 = e.1.saturating_add(1);
                        }
                        Keep::None => {
                            if let Some(&(first, copies)) = table.get(&fp) {
                                if copies > 1 {
                                    write_copy(&mut out, pos, w, first)?;
                                }
                            }
                        }
                    }
                }
                base += u64::from(n);
            }
        }
        out.flush()?;
        names.push(name);
    }
    Ok(names)
}

fn write_copy(w: &mut impl Write, pos: u64, len: u32, first: u32) -> Result<(), Error> {
    w.write_all(&pos.to_le_bytes())?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(&first.to_le_bytes())?;
    Ok(())
}

/// The rounds' decisions merged back in stream order.
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

    /// The copied windows at stream positions below `end`, in order:
    /// (position, length, first document).
    pub fn take_until(&mut self, end: u64, out: &mut Vec<(u64, u32, u32)>) -> Result<(), Error> {
        out.clear();
        while let Some(&Reverse((pos, w, first, i))) = self.heap.peek() {
            if pos >= end {
                break;
            }
            self.heap.pop();
            out.push((pos, w, first));
            self.refill(i)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mulmod_is_modular_multiplication() {
        for &(a, b) in &[
            (3u64, 5u64),
            (PRIME - 1, PRIME - 1),
            (1 << 60, 12345),
            (0, 7),
        ] {
            let want = (u128::from(a) * u128::from(b) % u128::from(PRIME)) as u64;
            assert_eq!(mulmod(a, b), want);
        }
    }

    #[test]
    fn equal_windows_have_equal_fingerprints() {
        let mut d = DocWindows::default();
        let toks: Vec<u64> = [1u64, 2, 3, 1, 2, 3, 4, u64::MAX].to_vec();
        let bytes: Vec<u8> = toks.iter().flat_map(|t| t.to_le_bytes()).collect();
        d.read(&mut &bytes[..], toks.len(), false).unwrap();
        d.prefix_hashes(1);
        assert_eq!(d.fingerprint(0, 3), d.fingerprint(3, 3));
        assert_ne!(d.fingerprint(0, 3), d.fingerprint(1, 3));
        assert_ne!(d.fingerprint(0, 4), d.fingerprint(3, 4));
    }
}

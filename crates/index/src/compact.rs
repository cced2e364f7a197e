//! [`CompactPostings`]: a multimap from 32-bit keys to 32-bit document ids
//! at six bytes an entry, for indexes that must hold tens of millions of
//! documents in RAM (the service's band tables).
//!
//! Entries live in three levels: `fresh`, a small hash map that takes
//! insertions; `mid`, a sorted run that `fresh` is merged into when it
//! reaches a sixteenth of `mid` (at least [`FRESH_MIN`] keys); and `main`,
//! a sorted run that `mid` is merged into when it reaches an eighth of
//! `main`. A merge copies its target once, so every entry is copied a
//! constant number of times per doubling of the index.
//!
//! A large sorted run stores the top 16 bits of every key once, as a
//! directory of offsets, and per entry only the low 16 bits (`u16`) and the
//! id (`u32`): keys are kept whole, so merges are exact. Runs below
//! [`LARGE_RUN`] entries keep `(key, id)` pairs. Ids that are no longer
//! wanted are dropped at merges (`alive`); until then a lookup returns
//! them and the caller filters.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::io::{self, Read, Write};

use crate::error::{Error, Result};
use crate::table::MixHasher;

/// Keys `fresh` holds at least before it is merged.
pub const FRESH_MIN: usize = 8192;

/// Entries from which a run uses the directory layout.
const LARGE_RUN: usize = 1 << 18;

/// Offsets in a large run's directory (one per top-16-bit prefix, and the end).
const DIR_LEN: usize = (1 << 16) + 1;

/// A sorted run of `(key, id)` entries.
#[derive(Debug, Clone, Default, PartialEq)]
enum Run {
    /// No entry.
    #[default]
    Empty,
    /// Pairs, sorted; `dir[p]..dir[p + 1]` are the pairs whose key's top
    /// `bits` bits are `p` (about four a prefix).
    Small {
        bits: u32,
        dir: Vec<u32>,
        pairs: Vec<(u32, u32)>,
    },
    /// `dir[p]..dir[p + 1]` are the entries whose key starts with `p`.
    Large {
        dir: Vec<u32>,
        low: Vec<u16>,
        ids: Vec<u32>,
    },
}

/// The top `bits` bits of `key`.
fn prefix(key: u32, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        (key >> (32 - bits)) as usize
    }
}

impl Run {
    /// A small run of sorted pairs, with a directory of about one prefix
    /// per four pairs.
    fn small(pairs: Vec<(u32, u32)>) -> Run {
        let bits = (usize::BITS - pairs.len().leading_zeros())
            .saturating_sub(2)
            .min(16);
        let mut dir = vec![0u32; (1 << bits) + 1];
        for &(k, _) in &pairs {
            dir[prefix(k, bits) + 1] += 1;
        }
        for p in 1..dir.len() {
            dir[p] += dir[p - 1];
        }
        Run::Small { bits, dir, pairs }
    }

    fn len(&self) -> usize {
        match self {
            Run::Empty => 0,
            Run::Small { pairs, .. } => pairs.len(),
            Run::Large { ids, .. } => ids.len(),
        }
    }

    /// A run of sorted entries (`len` of them).
    fn from_sorted(entries: impl Iterator<Item = (u32, u32)>, len: usize) -> Run {
        if len == 0 {
            return Run::Empty;
        }
        if len < LARGE_RUN {
            return Run::small(entries.collect());
        }
        let mut dir = vec![0u32; DIR_LEN];
        let mut low = Vec::with_capacity(len);
        let mut ids = Vec::with_capacity(len);
        for (key, id) in entries {
            dir[(key >> 16) as usize + 1] += 1;
            low.push(key as u16);
            ids.push(id);
        }
        for p in 1..DIR_LEN {
            dir[p] += dir[p - 1];
        }
        Run::Large { dir, low, ids }
    }

    /// Appends the ids stored under `key`.
    fn get(&self, key: u32, out: &mut Vec<u32>) {
        match self {
            Run::Empty => {}
            Run::Small { bits, dir, pairs } => {
                let p = prefix(key, *bits);
                let v = &pairs[dir[p] as usize..dir[p + 1] as usize];
                let from = v.partition_point(|&(k, _)| k < key);
                out.extend(v[from..].iter().take_while(|e| e.0 == key).map(|e| e.1));
            }
            Run::Large { dir, low, ids } => {
                let p = (key >> 16) as usize;
                let (a, b) = (dir[p] as usize, dir[p + 1] as usize);
                let k = key as u16;
                let from = a + low[a..b].partition_point(|&l| l < k);
                let to = from + low[from..b].iter().take_while(|&&l| l == k).count();
                out.extend_from_slice(&ids[from..to]);
            }
        }
    }

    /// Every entry, in order.
    fn iter(&self) -> Box<dyn Iterator<Item = (u32, u32)> + '_> {
        match self {
            Run::Empty => Box::new(std::iter::empty()),
            Run::Small { pairs, .. } => Box::new(pairs.iter().copied()),
            Run::Large { dir, low, ids } => Box::new((0..DIR_LEN - 1).flat_map(move |p| {
                let (a, b) = (dir[p] as usize, dir[p + 1] as usize);
                (a..b).map(move |i| (((p as u32) << 16) | u32::from(low[i]), ids[i]))
            })),
        }
    }

    fn memory_bytes(&self) -> usize {
        match self {
            Run::Empty => 0,
            Run::Small { dir, pairs, .. } => dir.capacity() * 4 + pairs.capacity() * 8,
            Run::Large { dir, low, ids } => {
                dir.capacity() * 4 + low.capacity() * 2 + ids.capacity() * 4
            }
        }
    }

    /// The sorted union of two runs, without the ids `alive` refuses.
    fn merge(a: &Run, b: &Run, alive: &impl Fn(u32) -> bool) -> Run {
        let kept = |&(_, id): &(u32, u32)| alive(id);
        let mut x = a.iter().filter(kept).peekable();
        let mut y = b.iter().filter(kept).peekable();
        let mut merged = Vec::with_capacity(a.len() + b.len());
        loop {
            let next = match (x.peek(), y.peek()) {
                (Some(p), Some(q)) if p <= q => x.next(),
                (Some(_), Some(_)) => y.next(),
                (Some(_), None) => x.next(),
                (None, Some(_)) => y.next(),
                (None, None) => break,
            };
            merged.extend(next);
        }
        let len = merged.len();
        Run::from_sorted(merged.into_iter(), len)
    }
}

/// The insertion level: entries in insertion order, chained by key.
#[derive(Debug, Clone, Default)]
struct Fresh {
    /// Key → its last entry.
    heads: HashMap<u32, u32, BuildHasherDefault<MixHasher>>,
    /// `(key, id)`, in insertion order.
    entries: Vec<(u32, u32)>,
    /// The entry before, of the same key (`u32::MAX`: none).
    prev: Vec<u32>,
}

impl Fresh {
    fn insert(&mut self, key: u32, id: u32) {
        let i = self.entries.len() as u32;
        let before = self.heads.insert(key, i).unwrap_or(u32::MAX);
        self.entries.push((key, id));
        self.prev.push(before);
    }

    fn get(&self, key: u32, out: &mut Vec<u32>) {
        let mut i = self.heads.get(&key).copied().unwrap_or(u32::MAX);
        while let Some(&(_, id)) = self.entries.get(i as usize) {
            out.push(id);
            i = self.prev[i as usize];
        }
    }

    fn into_sorted(self) -> Vec<(u32, u32)> {
        let mut v = self.entries;
        v.sort_unstable();
        v
    }
}

/// A multimap from `u32` keys to `u32` ids in about six bytes an entry.
///
/// ```
/// use neardup_index::CompactPostings;
///
/// let mut p = CompactPostings::new();
/// p.insert(7, 1, |_| true);
/// p.insert(7, 2, |_| true);
/// p.insert(9, 3, |_| true);
/// let mut out = Vec::new();
/// p.get(7, &mut out);
/// out.sort_unstable();
/// assert_eq!(out, [1, 2]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct CompactPostings {
    main: Run,
    mid: Run,
    fresh: Fresh,
}

impl CompactPostings {
    /// An empty multimap.
    pub fn new() -> CompactPostings {
        CompactPostings::default()
    }

    /// Entries stored (ids dropped at merges no longer count).
    pub fn len(&self) -> usize {
        self.main.len() + self.mid.len() + self.fresh.entries.len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds `id` under `key`; `alive` says which ids to keep when levels
    /// are merged.
    pub fn insert(&mut self, key: u32, id: u32, alive: impl Fn(u32) -> bool) {
        self.fresh.insert(key, id);
        if self.fresh.heads.len() >= FRESH_MIN.max(self.mid.len() / 16) {
            self.merge_fresh(&alive);
            if self.mid.len() >= LARGE_RUN.max(self.main.len() / 8) {
                self.main = Run::merge(&self.main, &self.mid, &alive);
                self.mid = Run::Empty;
            }
        }
    }

    fn merge_fresh(&mut self, alive: &impl Fn(u32) -> bool) {
        let fresh = std::mem::take(&mut self.fresh).into_sorted();
        let len = fresh.len();
        self.mid = Run::merge(&self.mid, &Run::from_sorted(fresh.into_iter(), len), alive);
    }

    /// Merges every level into one run, without the ids `alive` refuses.
    pub fn compact(&mut self, alive: impl Fn(u32) -> bool) {
        self.merge_fresh(&alive);
        self.main = Run::merge(&self.main, &self.mid, &alive);
        self.mid = Run::Empty;
    }

    /// Every entry, sorted by key then id.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let fresh = self.fresh.clone().into_sorted();
        sorted_union(
            self.main.iter(),
            sorted_union(self.mid.iter(), fresh.into_iter()),
        )
    }

    /// Appends the ids stored under `key` (in no particular order).
    pub fn get(&self, key: u32, out: &mut Vec<u32>) {
        self.main.get(key, out);
        self.mid.get(key, out);
        self.fresh.get(key, out);
    }

    /// Approximate heap bytes.
    pub fn memory_bytes(&self) -> usize {
        self.main.memory_bytes()
            + self.mid.memory_bytes()
            + self.fresh.heads.capacity() * 9
            + self.fresh.entries.capacity() * 8
            + self.fresh.prev.capacity() * 4
    }

    /// Writes every entry: the `u64` count, then each level as a `u64`
    /// count and its sorted `(key, id)` pairs (little endian).
    ///
    /// # Errors
    /// What `w` returns.
    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        let fresh = Run::small(self.fresh.clone().into_sorted());
        w.write_all(&(self.len() as u64).to_le_bytes())?;
        let mut buf = Vec::with_capacity(1 << 16);
        for run in [&self.main, &self.mid, &fresh] {
            w.write_all(&(run.len() as u64).to_le_bytes())?;
            for (k, id) in run.iter() {
                buf.extend_from_slice(&k.to_le_bytes());
                buf.extend_from_slice(&id.to_le_bytes());
                if buf.len() >= 1 << 16 {
                    w.write_all(&buf)?;
                    buf.clear();
                }
            }
            w.write_all(&buf)?;
            buf.clear();
        }
        Ok(())
    }

    /// Reads what [`CompactPostings::write_to`] wrote.
    ///
    /// # Errors
    /// Truncated input, runs out of order, or what `r` returns.
    pub fn read_from(r: &mut impl Read) -> Result<CompactPostings> {
        let total = read_u64(r)?;
        let mut runs = Vec::with_capacity(3);
        let mut sum = 0u64;
        for _ in 0..3 {
            let n = read_u64(r)?;
            sum = sum.saturating_add(n);
            if sum > total {
                return Err(Error::invalid("postings count mismatch"));
            }
            let n = usize::try_from(n).map_err(|_| Error::invalid("postings too long"))?;
            let mut entries: Vec<(u32, u32)> = Vec::with_capacity(n.min(1 << 24));
            let mut buf = vec![0u8; 1 << 16];
            let mut left = n;
            while left > 0 {
                let take = left.min(buf.len() / 8);
                read_exact(r, &mut buf[..take * 8])?;
                entries.extend(buf[..take * 8].chunks_exact(8).map(|c| {
                    let w = |i: usize| u32::from_le_bytes([c[i], c[i + 1], c[i + 2], c[i + 3]]);
                    (w(0), w(4))
                }));
                left -= take;
            }
            if entries.windows(2).any(|w| w[0] > w[1]) {
                return Err(Error::invalid("postings out of order"));
            }
            runs.push(entries);
        }
        if sum != total {
            return Err(Error::invalid("postings count mismatch"));
        }
        let fresh_entries = runs.pop().unwrap_or_default();
        let mid = runs.pop().unwrap_or_default();
        let main = runs.pop().unwrap_or_default();
        let mut p = CompactPostings {
            main: Run::from_sorted(main.iter().copied(), main.len()),
            mid: Run::from_sorted(mid.iter().copied(), mid.len()),
            ..CompactPostings::default()
        };
        for (k, id) in fresh_entries {
            p.fresh.insert(k, id);
        }
        Ok(p)
    }
}

/// The sorted union of two sorted iterators.
fn sorted_union<T: Ord + Copy>(
    a: impl Iterator<Item = T>,
    b: impl Iterator<Item = T>,
) -> impl Iterator<Item = T> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if x <= y => a.next(),
        (Some(_), Some(_)) => b.next(),
        (Some(_), None) => a.next(),
        (None, _) => b.next(),
    })
}

fn read_exact(r: &mut impl Read, buf: &mut [u8]) -> Result<()> {
    r.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => Error::invalid("truncated postings"),
        _ => Error::from(e),
    })
}

/// Reads a little-endian `u64`.
pub(crate) fn read_u64(r: &mut impl Read) -> Result<u64> {
    let mut b = [0u8; 8];
    read_exact(r, &mut b)?;
    Ok(u64::from_le_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn sorted(p: &CompactPostings, key: u32) -> Vec<u32> {
        let mut out = Vec::new();
        p.get(key, &mut out);
        out.sort_unstable();
        out
    }

    #[test]
    fn large_runs_find_every_entry_after_merges() {
        let mut p = CompactPostings::new();
        let n = 3 * LARGE_RUN as u32;
        let key = |i: u32| i.wrapping_mul(0x9E37_79B1) % (n / 2);
        for i in 0..n {
            p.insert(key(i), i, |_| true);
        }
        assert!(
            matches!(p.main, Run::Large { .. }),
            "main became a large run"
        );
        for i in (0..n).step_by(9973) {
            assert!(sorted(&p, key(i)).contains(&i), "entry {i}");
        }
        assert_eq!(p.len(), n as usize);
        assert!(p.memory_bytes() < n as usize * 8, "{}", p.memory_bytes());
    }

    #[test]
    fn dead_ids_go_at_merges() {
        let mut p = CompactPostings::new();
        for i in 0..10 {
            p.insert(i % 3, i, |_| true);
        }
        p.compact(|id| id % 2 == 0);
        assert_eq!(sorted(&p, 0), [0, 6]);
        assert_eq!(p.len(), 5);
    }

    proptest! {
        #[test]
        fn equals_a_btree_multimap_and_survives_a_round_trip(
            entries in proptest::collection::vec((0u32..64, any::<u32>()), 0..300),
            compact_at in 0usize..300,
        ) {
            let mut p = CompactPostings::new();
            let mut model: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
            for (i, &(k, id)) in entries.iter().enumerate() {
                p.insert(k, id, |_| true);
                model.entry(k).or_default().push(id);
                if i == compact_at {
                    p.compact(|_| true);
                }
            }
            let mut all: Vec<(u32, u32)> = entries.clone();
            all.sort_unstable();
            prop_assert_eq!(p.iter().collect::<Vec<_>>(), all);
            let mut bytes = Vec::new();
            p.write_to(&mut bytes).unwrap();
            let mut reader = bytes.as_slice();
            let q = CompactPostings::read_from(&mut reader).unwrap();
            prop_assert!(reader.is_empty());
            for k in 0..64 {
                let mut want = model.get(&k).cloned().unwrap_or_default();
                want.sort_unstable();
                prop_assert_eq!(sorted(&p, k), want.clone());
                prop_assert_eq!(sorted(&q, k), want);
            }
            for cut in [0, bytes.len() / 2, bytes.len().saturating_sub(1)] {
                if cut < bytes.len() {
                    prop_assert!(CompactPostings::read_from(&mut &bytes[..cut]).is_err());
                }
            }
        }
    }
}

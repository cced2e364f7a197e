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

use std::io::{self, Read, Write};
use std::sync::Arc;

use crate::compact_run::{sorted_union, Fresh, Run, LARGE_RUN};
use crate::error::{Error, Result};

/// Keys `fresh` holds at least before it is merged.
pub const FRESH_MIN: usize = 8192;

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
    /// Shared, never changed in place: a clone (a snapshot's) costs only
    /// the copy of `fresh`.
    main: Arc<Run>,
    mid: Arc<Run>,
    fresh: Fresh,
    /// Raises the merge thresholds by `stagger / 64` (see
    /// [`CompactPostings::staggered`]).
    stagger: u32,
}

/// Levels past which a merge is due: `base` raised by `stagger / 64`.
fn due(base: usize, stagger: u32) -> usize {
    base + base / 64 * stagger.min(63) as usize
}

impl CompactPostings {
    /// An empty multimap.
    pub fn new() -> CompactPostings {
        CompactPostings::default()
    }

    /// An empty multimap whose levels merge later than
    /// [`CompactPostings::new`]'s, by `stagger / 64` (0 to 63) of the
    /// thresholds. Tables that grow together (the bands of one index)
    /// merge at different insertions when their staggers differ, so that
    /// no insertion pays for all their merges at once.
    pub fn staggered(stagger: u32) -> CompactPostings {
        CompactPostings {
            stagger: stagger.min(63),
            ..CompactPostings::default()
        }
    }

    /// See [`CompactPostings::staggered`].
    pub(crate) fn stagger(&self) -> u32 {
        self.stagger
    }

    /// See [`CompactPostings::staggered`].
    pub(crate) fn set_stagger(&mut self, stagger: u32) {
        self.stagger = stagger.min(63);
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
        if self.fresh.heads.len() >= due(FRESH_MIN.max(self.mid.len() / 16), self.stagger) {
            self.merge_fresh(&alive);
            if self.mid.len() >= due(LARGE_RUN.max(self.main.len() / 8), self.stagger) {
                self.main = Arc::new(Run::merge(&self.main, &self.mid, &alive));
                self.mid = Arc::default();
            }
        }
    }

    fn merge_fresh(&mut self, alive: &impl Fn(u32) -> bool) {
        let fresh = std::mem::take(&mut self.fresh).into_sorted();
        let len = fresh.len();
        self.mid = Arc::new(Run::merge(
            &self.mid,
            &Run::from_sorted(fresh.into_iter(), len),
            alive,
        ));
    }

    /// Merges every level into one run, without the ids `alive` refuses.
    pub fn compact(&mut self, alive: impl Fn(u32) -> bool) {
        self.merge_fresh(&alive);
        self.main = Arc::new(Run::merge(&self.main, &self.mid, &alive));
        self.mid = Arc::default();
    }

    /// Every entry, sorted by key then id.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let fresh = self.fresh.clone().into_sorted();
        sorted_union(
            self.main.iter(),
            sorted_union(self.mid.iter(), fresh.into_iter()),
        )
    }

    /// The `limit` smallest ids stored under `key` that `keep` accepts,
    /// ascending, each once.
    pub fn earliest(&self, key: u32, keep: impl Fn(u32) -> bool, limit: usize) -> Vec<u32> {
        let mut ids = Vec::new();
        self.get(key, &mut ids);
        ids.sort_unstable();
        ids.dedup();
        ids.retain(|&id| keep(id));
        ids.truncate(limit);
        ids
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
        for run in [&*self.main, &*self.mid, &fresh] {
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
            main: Arc::new(Run::from_sorted(main.iter().copied(), main.len())),
            mid: Arc::new(Run::from_sorted(mid.iter().copied(), mid.len())),
            ..CompactPostings::default()
        };
        for (k, id) in fresh_entries {
            p.fresh.insert(k, id);
        }
        Ok(p)
    }
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
            matches!(*p.main, Run::Large { .. }),
            "main became a large run"
        );
        for i in (0..n).step_by(9973) {
            assert!(sorted(&p, key(i)).contains(&i), "entry {i}");
        }
        assert_eq!(p.len(), n as usize);
        assert!(p.memory_bytes() < n as usize * 8, "{}", p.memory_bytes());
    }

    #[test]
    fn staggered_tables_merge_at_other_insertions_and_hold_the_same() {
        // 32 tables growing together, as the bands of one index do: at
        // no insertion do more than a few of them merge.
        let mut tables: Vec<CompactPostings> =
            (0..32).map(|b| CompactPostings::staggered(2 * b)).collect();
        let mut most = 0;
        for i in 0..(6 * FRESH_MIN as u32) {
            let mut merging = 0;
            for t in &mut tables {
                let before = t.fresh.entries.len();
                t.insert(i.wrapping_mul(0x9E37_79B1), i, |_| true);
                merging += usize::from(t.fresh.entries.len() < before);
            }
            most = most.max(merging);
        }
        assert!((1..=4).contains(&most), "{most} tables merged at once");
        assert!(tables.windows(2).all(|w| w[0].iter().eq(w[1].iter())));
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

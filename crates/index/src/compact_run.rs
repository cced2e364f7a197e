//! The levels of a [`CompactPostings`](crate::CompactPostings): sorted
//! runs (pairs with a prefix directory when small, six bytes an entry
//! under a 16-bit directory when large) and the insertion level.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::table::MixHasher;

/// Entries from which a run uses the directory layout.
pub(crate) const LARGE_RUN: usize = 1 << 18;

/// Offsets in a large run's directory (one per top-16-bit prefix, and the end).
const DIR_LEN: usize = (1 << 16) + 1;

/// A sorted run of `(key, id)` entries.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) enum Run {
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
    pub(crate) fn small(pairs: Vec<(u32, u32)>) -> Run {
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

    pub(crate) fn len(&self) -> usize {
        match self {
            Run::Empty => 0,
            Run::Small { pairs, .. } => pairs.len(),
            Run::Large { ids, .. } => ids.len(),
        }
    }

    /// A run of sorted entries (`len` of them).
    pub(crate) fn from_sorted(entries: impl Iterator<Item = (u32, u32)>, len: usize) -> Run {
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
    pub(crate) fn get(&self, key: u32, out: &mut Vec<u32>) {
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

    pub(crate) fn memory_bytes(&self) -> usize {
        match self {
            Run::Empty => 0,
            Run::Small { dir, pairs, .. } => dir.capacity() * 4 + pairs.capacity() * 8,
            Run::Large { dir, low, ids } => {
                dir.capacity() * 4 + low.capacity() * 2 + ids.capacity() * 4
            }
        }
    }

    /// Every entry, in order, as a concrete iterator (no dynamic call per
    /// entry: merges go through every entry of their runs).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        match self {
            Run::Empty => Cursor::Pairs([].iter()),
            Run::Small { pairs, .. } => Cursor::Pairs(pairs.iter()),
            Run::Large { dir, low, ids } => Cursor::Large {
                dir,
                low,
                ids,
                prefix: 0,
                at: 0,
            },
        }
    }

    /// The sorted union of two runs, without the ids `alive` refuses.
    pub(crate) fn merge(a: &Run, b: &Run, alive: &impl Fn(u32) -> bool) -> Run {
        let mut x = a.iter().filter(|&(_, id)| alive(id));
        let mut y = b.iter().filter(|&(_, id)| alive(id));
        let mut merged = Vec::with_capacity(a.len() + b.len());
        let (mut p, mut q) = (x.next(), y.next());
        loop {
            match (p, q) {
                (Some(e), Some(f)) => {
                    if e <= f {
                        merged.push(e);
                        p = x.next();
                    } else {
                        merged.push(f);
                        q = y.next();
                    }
                }
                (Some(e), None) => {
                    merged.push(e);
                    merged.extend(x);
                    break;
                }
                (None, Some(f)) => {
                    merged.push(f);
                    merged.extend(y);
                    break;
                }
                (None, None) => break,
            }
        }
        let len = merged.len();
        Run::from_sorted(merged.into_iter(), len)
    }
}

/// A run's entries in order (see [`Run::iter`]).
enum Cursor<'a> {
    Pairs(std::slice::Iter<'a, (u32, u32)>),
    Large {
        dir: &'a [u32],
        low: &'a [u16],
        ids: &'a [u32],
        /// The prefix of the entry at `at`, once found.
        prefix: usize,
        at: usize,
    },
}

impl Iterator for Cursor<'_> {
    type Item = (u32, u32);

    #[inline]
    fn next(&mut self) -> Option<(u32, u32)> {
        match self {
            Cursor::Pairs(it) => it.next().copied(),
            Cursor::Large {
                dir,
                low,
                ids,
                prefix,
                at,
            } => {
                let i = *at;
                let id = *ids.get(i)?;
                // The first prefix whose range ends past `i`.
                while dir[*prefix + 1] as usize <= i {
                    *prefix += 1;
                }
                *at = i + 1;
                Some((((*prefix as u32) << 16) | u32::from(low[i]), id))
            }
        }
    }
}

/// The insertion level: entries in insertion order, chained by key.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fresh {
    /// Key → its last entry.
    pub(crate) heads: HashMap<u32, u32, BuildHasherDefault<MixHasher>>,
    /// `(key, id)`, in insertion order.
    pub(crate) entries: Vec<(u32, u32)>,
    /// The entry before, of the same key (`u32::MAX`: none).
    pub(crate) prev: Vec<u32>,
}

impl Fresh {
    pub(crate) fn insert(&mut self, key: u32, id: u32) {
        let i = self.entries.len() as u32;
        let before = self.heads.insert(key, i).unwrap_or(u32::MAX);
        self.entries.push((key, id));
        self.prev.push(before);
    }

    pub(crate) fn get(&self, key: u32, out: &mut Vec<u32>) {
        let mut i = self.heads.get(&key).copied().unwrap_or(u32::MAX);
        while let Some(&(_, id)) = self.entries.get(i as usize) {
            out.push(id);
            i = self.prev[i as usize];
        }
    }

    pub(crate) fn into_sorted(self) -> Vec<(u32, u32)> {
        let mut v = self.entries;
        v.sort_unstable();
        v
    }
}

/// The sorted union of two sorted iterators.
pub(crate) fn sorted_union<T: Ord + Copy>(
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The merge as a sort of both runs' live entries.
    fn merge_by_iter(a: &Run, b: &Run, alive: &impl Fn(u32) -> bool) -> Run {
        let kept = |&(_, id): &(u32, u32)| alive(id);
        let mut all: Vec<(u32, u32)> = a.iter().filter(kept).chain(b.iter().filter(kept)).collect();
        all.sort();
        let len = all.len();
        Run::from_sorted(all.into_iter(), len)
    }

    fn run(n: u32, mul: u32, bits: u32) -> Run {
        let mut v: Vec<(u32, u32)> = (0..n)
            .map(|i| (i.wrapping_mul(mul) >> (32 - bits), i ^ 0x55))
            .collect();
        v.sort_unstable();
        let len = v.len();
        let r = Run::from_sorted(v.iter().copied(), len);
        // Every layout gives its entries back as they went in.
        assert_eq!(r.iter().collect::<Vec<_>>(), v);
        r
    }

    #[test]
    fn merges_are_the_sorted_union_of_the_live_entries() {
        let large = run(LARGE_RUN as u32 + 1000, 0x9E37_79B1, 32);
        let small = run(5000, 0x85EB_CA6B, 32);
        let clustered = run(3000, 0xC2B2_AE35, 20);
        assert!(matches!(large, Run::Large { .. }));
        let runs = [Run::Empty, large, small, clustered];
        let alive_all = |_: u32| true;
        let alive_some = |id: u32| id % 3 != 1;
        // Enough dead to fall below the large layout.
        let alive_few = |id: u32| id % 4 == 0;
        for a in &runs {
            for b in &runs {
                assert_eq!(
                    Run::merge(a, b, &alive_all),
                    merge_by_iter(a, b, &alive_all)
                );
                assert_eq!(
                    Run::merge(a, b, &alive_some),
                    merge_by_iter(a, b, &alive_some)
                );
                assert_eq!(
                    Run::merge(a, b, &alive_few),
                    merge_by_iter(a, b, &alive_few)
                );
            }
        }
    }
}

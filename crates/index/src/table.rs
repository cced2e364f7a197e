//! Internal building blocks shared by the incremental indexes: a bucket
//! table with intrusive per-id chains, a dense id set, a cheap hasher for keys
//! that are already hashes, and pair emission from a group of ids.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::error::{Error, ErrorKind, Result};

/// Marks the end of a chain; also the one id callers may not use.
pub(crate) const NONE: u32 = u32::MAX;

/// Hasher for `u64` keys: one multiply and a fold, so that keys with few
/// significant bits (SimHash blocks) still spread over the whole table.
#[derive(Default, Clone, Copy)]
pub(crate) struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        let m = self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        m ^ (m >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 ^= v;
    }
}

pub(crate) type MixMap<V> = HashMap<u64, V, BuildHasherDefault<MixHasher>>;

/// A table from `u64` key to the ids stored under it. Each key keeps the id
/// inserted last; every id keeps the next id of its key, so one bucket costs
/// one map entry and each id four bytes per table.
#[derive(Default, Clone, Debug)]
pub(crate) struct ChainTable {
    heads: MixMap<u32>,
    next: Vec<u32>,
}

impl ChainTable {
    /// Adds `id` under `key`. The caller guarantees that `id != NONE` and that
    /// `id` was never added to this table before.
    pub(crate) fn insert(&mut self, key: u64, id: u32) {
        let slot = id as usize;
        if self.next.len() <= slot {
            self.next.resize(slot + 1, NONE);
        }
        let head = self.heads.entry(key).or_insert(NONE);
        self.next[slot] = *head;
        *head = id;
    }

    /// Makes room for `additional` more ids (and as many new keys).
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.heads.reserve(additional);
        self.next.reserve(additional);
    }

    /// The ids stored under `key`, most recently inserted first.
    pub(crate) fn bucket(&self, key: u64) -> Chain<'_> {
        Chain {
            next: &self.next,
            cur: self.heads.get(&key).copied().unwrap_or(NONE),
        }
    }

    /// Every bucket of the table, in unspecified order.
    pub(crate) fn buckets(&self) -> impl Iterator<Item = Chain<'_>> + '_ {
        self.heads.values().map(|&cur| Chain {
            next: &self.next,
            cur,
        })
    }

    /// Approximate heap bytes.
    pub(crate) fn memory_bytes(&self) -> usize {
        // hashbrown: key + value + one control byte per slot.
        self.heads.capacity() * (8 + 4 + 1) + self.next.capacity() * 4
    }
}

/// Iterator over one bucket of a [`ChainTable`].
pub(crate) struct Chain<'a> {
    next: &'a [u32],
    cur: u32,
}

impl Iterator for Chain<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.cur == NONE {
            return None;
        }
        let id = self.cur;
        self.cur = self.next.get(id as usize).copied().unwrap_or(NONE);
        Some(id)
    }
}

/// A dense set of ids, one bit each.
#[derive(Default, Clone, Debug)]
pub(crate) struct IdSet {
    words: Vec<u64>,
    len: usize,
}

impl IdSet {
    /// Adds `id`; fails if it is reserved or already present.
    pub(crate) fn insert(&mut self, id: u32) -> Result<()> {
        if id == NONE {
            return Err(Error::new(ErrorKind::IdOutOfRange(id)));
        }
        let w = (id / 64) as usize;
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        let bit = 1u64 << (id % 64);
        if self.words[w] & bit != 0 {
            return Err(Error::new(ErrorKind::DuplicateId(id)));
        }
        self.words[w] |= bit;
        self.len += 1;
        Ok(())
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.words.capacity() * 8
    }
}

/// Appends the pairs `(a, b)`, `a < b`, of a group of ids sorted ascending.
///
/// With `cap = Some(c)` and a group longer than `c`, only pairs whose smaller
/// member is among the first `c` ids are emitted: `O(len * c)` pairs instead of
/// `O(len^2)`. Every member still meets the group's lowest ids.
pub(crate) fn group_pairs(group: &[u32], cap: Option<usize>, out: &mut Vec<(u32, u32)>) {
    let heads = match cap {
        Some(c) if group.len() > c => c,
        _ => group.len(),
    };
    for (i, &a) in group.iter().enumerate().take(heads) {
        for &b in &group[i + 1..] {
            if a != b {
                out.push((a, b));
            }
        }
    }
}

/// Converts a collection length into the number of `u32` ids it needs.
pub(crate) fn check_doc_count(n: usize) -> Result<()> {
    if n >= NONE as usize {
        return Err(Error::new(ErrorKind::TooManyDocuments));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_table_buckets() {
        let mut t = ChainTable::default();
        t.insert(7, 3);
        t.insert(7, 1);
        t.insert(9, 2);
        let mut b: Vec<u32> = t.bucket(7).collect();
        b.sort_unstable();
        assert_eq!(b, vec![1, 3]);
        assert_eq!(t.bucket(9).collect::<Vec<_>>(), vec![2]);
        assert_eq!(t.bucket(8).count(), 0);
        assert_eq!(t.buckets().map(|c| c.count()).sum::<usize>(), 3);
    }

    #[test]
    fn id_set_rejects_duplicates_and_reserved() {
        let mut s = IdSet::default();
        s.insert(5).unwrap();
        s.insert(500).unwrap();
        assert!(matches!(
            s.insert(5).unwrap_err().kind(),
            ErrorKind::DuplicateId(5)
        ));
        assert!(matches!(
            s.insert(NONE).unwrap_err().kind(),
            ErrorKind::IdOutOfRange(_)
        ));
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn group_pairs_full_and_capped() {
        let mut out = Vec::new();
        group_pairs(&[1, 4, 6], None, &mut out);
        assert_eq!(out, vec![(1, 4), (1, 6), (4, 6)]);
        out.clear();
        group_pairs(&[1, 2, 3, 4], Some(1), &mut out);
        assert_eq!(out, vec![(1, 2), (1, 3), (1, 4)]);
        out.clear();
        group_pairs(&[1, 2], Some(1), &mut out);
        assert_eq!(out, vec![(1, 2)]);
    }

    #[test]
    fn mix_hasher_spreads_small_keys() {
        let h = |k: u64| {
            let mut m = MixHasher::default();
            m.write_u64(k);
            m.finish()
        };
        assert_ne!(h(1) >> 57, h(2) >> 57);
    }
}

//! Exact and I-Match keys: documents with equal keys form a group.
//!
//! [`KeyGroups::build`] groups a whole collection at once (one parallel sort
//! of `(key, id)`); [`KeyIndex`] answers "was this key seen, and by whom
//! first?" one document at a time.

use std::collections::HashMap;
use std::hash::Hash;

use rayon::prelude::*;

use crate::error::Result;
use crate::lsh::for_each_run;
use crate::table::{check_doc_count, group_pairs, IdSet};

/// Incremental exact-key index: remembers the first id inserted per key.
#[derive(Debug, Clone)]
pub struct KeyIndex<K> {
    first: HashMap<K, u32>,
    ids: IdSet,
}

impl<K: Hash + Eq + Copy> Default for KeyIndex<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Hash + Eq + Copy> KeyIndex<K> {
    /// An empty index.
    pub fn new() -> Self {
        Self {
            first: HashMap::new(),
            ids: IdSet::default(),
        }
    }

    /// Adds document `id` under `key`; returns the id first inserted under
    /// the same key, `None` if the key is new. Fails on an id inserted before
    /// or `u32::MAX`.
    pub fn insert(&mut self, id: u32, key: K) -> Result<Option<u32>> {
        self.ids.insert(id)?;
        match self.first.get(&key) {
            Some(&f) => Ok(Some(f)),
            None => {
                self.first.insert(key, id);
                Ok(None)
            }
        }
    }

    /// The id first inserted under `key`.
    pub fn get(&self, key: &K) -> Option<u32> {
        self.first.get(key).copied()
    }

    /// Number of documents inserted.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no document was inserted.
    pub fn is_empty(&self) -> bool {
        self.ids.len() == 0
    }

    /// Number of distinct keys.
    pub fn distinct_keys(&self) -> usize {
        self.first.len()
    }
}

/// Groups of documents (two or more) sharing a key, in compressed form.
/// Members of a group are ascending; groups are ordered by their lowest id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyGroups {
    offsets: Vec<usize>,
    members: Vec<u32>,
    len: usize,
}

impl KeyGroups {
    /// Groups document `i`, keyed `keys[i]`, with every other of equal key.
    pub fn build<K>(keys: &[K]) -> Result<Self>
    where
        K: Ord + Copy + Send + Sync,
    {
        check_doc_count(keys.len())?;
        let mut entries: Vec<(K, u32)> = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, i as u32))
            .collect();
        entries.par_sort_unstable();
        let ks: Vec<K> = entries.iter().map(|e| e.0).collect();
        let mut groups: Vec<&[(K, u32)]> = Vec::new();
        for_each_run(&ks, |lo, hi| {
            if hi - lo > 1 {
                groups.push(&entries[lo..hi]);
            }
        });
        // Within a run ids ascend, so the first one is the lowest.
        groups.sort_unstable_by_key(|g| g[0].1);
        let mut offsets = vec![0];
        let mut members = Vec::new();
        for g in groups {
            members.extend(g.iter().map(|e| e.1));
            offsets.push(members.len());
        }
        Ok(Self {
            offsets,
            members,
            len: keys.len(),
        })
    }

    /// Number of groups.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether no two documents share a key.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The groups, each a sorted slice of ids.
    pub fn groups(&self) -> impl Iterator<Item = &[u32]> + '_ {
        self.offsets.windows(2).map(|w| &self.members[w[0]..w[1]])
    }

    /// For every document, the lowest id sharing its key (itself if alone).
    pub fn representatives(&self) -> Vec<u32> {
        let mut rep: Vec<u32> = (0..self.len as u32).collect();
        for g in self.groups() {
            for &m in g {
                rep[m as usize] = g[0];
            }
        }
        rep
    }

    /// Pairs `(i, j)`, `i < j`, of equal key, sorted. `max_group_len` bounds
    /// the work on huge groups as in [`MinHashLsh::set_max_bucket_len`](crate::MinHashLsh::set_max_bucket_len).
    pub fn pairs(&self, max_group_len: Option<usize>) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for g in self.groups() {
            group_pairs(g, max_group_len.map(|c| c.max(1)), &mut out);
        }
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_representatives() {
        let keys: [u128; 6] = [9, 3, 9, 7, 3, 9];
        let g = KeyGroups::build(&keys).unwrap();
        assert_eq!(g.len(), 2);
        let groups: Vec<&[u32]> = g.groups().collect();
        assert_eq!(groups, vec![&[0u32, 2, 5][..], &[1, 4][..]]);
        assert_eq!(g.representatives(), vec![0, 1, 0, 3, 1, 0]);
        assert_eq!(g.pairs(None), vec![(0, 2), (0, 5), (1, 4), (2, 5)]);
        assert_eq!(g.pairs(Some(1)), vec![(0, 2), (0, 5), (1, 4)]);
        assert!(KeyGroups::build::<u64>(&[1, 2]).unwrap().is_empty());
    }

    #[test]
    fn incremental_first_seen() {
        let mut k = KeyIndex::new();
        assert_eq!(k.insert(4, 77u64).unwrap(), None);
        assert_eq!(k.insert(2, 77u64).unwrap(), Some(4));
        assert_eq!(k.insert(3, 78u64).unwrap(), None);
        assert!(k.insert(3, 79u64).is_err());
        assert_eq!(k.get(&77), Some(4));
        assert_eq!((k.len(), k.distinct_keys()), (3, 2));
    }
}

//! Inverted index over sets of feature hashes (long sentences, feature
//! codes, super-shingles, ...): candidates are documents sharing at least
//! `m` distinct features.
//!
//! ## Common features
//! A feature held by more than `max_posting_len` documents (a copyright line,
//! a navigation sentence, a super-shingle of boilerplate) says little about
//! duplication and would cost `O(len^2)` pairs. Such features are ignored for
//! candidate generation: in batch mode a feature is dropped when its distinct
//! documents exceed the cap; in the incremental index a posting list that
//! grows past the cap is released and the feature ignored from then on (so
//! after all inserts both modes agree). Default cap: 1000; `None` keeps all.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::lsh::for_each_run;
use crate::table::{check_doc_count, IdSet, MixMap};

/// A pair sharing features: `(i, j, shared)` with `i < j`.
pub type SharedPair = (u32, u32, u32);

#[derive(Debug, Clone)]
enum Posting {
    Ids(Vec<u32>),
    Common,
}

/// Inverted index from feature hash to documents.
#[derive(Debug, Clone)]
pub struct InvertedIndex {
    min_shared: u32,
    max_posting_len: Option<usize>,
    postings: MixMap<Posting>,
    ids: IdSet,
    common: usize,
}

impl Default for InvertedIndex {
    fn default() -> Self {
        Self::new()
    }
}

impl InvertedIndex {
    /// An empty index: `m = 1`, posting cap 1000.
    pub fn new() -> Self {
        Self {
            min_shared: 1,
            max_posting_len: Some(1000),
            postings: MixMap::default(),
            ids: IdSet::default(),
            common: 0,
        }
    }

    /// Sets `m`, the distinct features two documents must share (2 for
    /// super-shingles); `m >= 1`.
    pub fn set_min_shared(&mut self, m: u32) -> Result<&mut Self> {
        if m == 0 {
            return Err(Error::invalid("min_shared must be at least 1"));
        }
        self.min_shared = m;
        Ok(self)
    }

    /// Sets the posting-list cap (see the module documentation). Fails with
    /// `NotEmpty` once documents were inserted. `Some(0)` acts as `Some(1)`.
    pub fn set_max_posting_len(&mut self, cap: Option<usize>) -> Result<&mut Self> {
        if !self.is_empty() {
            return Err(Error::new(crate::ErrorKind::NotEmpty));
        }
        self.max_posting_len = cap.map(|c| c.max(1));
        Ok(self)
    }

    /// Number of documents inserted.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no document was inserted.
    pub fn is_empty(&self) -> bool {
        self.ids.len() == 0
    }

    /// Features ignored so far as too common (incremental index).
    pub fn common_features(&self) -> usize {
        self.common
    }

    /// Adds document `id` with its features (duplicates are ignored).
    pub fn insert(&mut self, id: u32, features: &[u64]) -> Result<()> {
        self.ids.insert(id)?;
        let cap = self.max_posting_len.unwrap_or(usize::MAX);
        for f in distinct(features) {
            let p = self
                .postings
                .entry(f)
                .or_insert_with(|| Posting::Ids(Vec::new()));
            if let Posting::Ids(ids) = p {
                if ids.len() >= cap {
                    *p = Posting::Common;
                    self.common += 1;
                } else {
                    ids.push(id);
                }
            }
        }
        Ok(())
    }

    /// Inserted documents sharing at least `m` distinct features with
    /// `features`, as `(id, shared)` sorted by id.
    pub fn query(&self, features: &[u64]) -> Vec<(u32, u32)> {
        let mut hits = Vec::new();
        for f in distinct(features) {
            if let Some(Posting::Ids(ids)) = self.postings.get(&f) {
                hits.extend_from_slice(ids);
            }
        }
        count_runs(&mut hits, self.min_shared)
    }

    /// Batch mode: every pair of `sets` sharing at least `m` distinct
    /// features, ignoring features of more than `max_posting_len` documents;
    /// sorted, the same for any thread count. Uses only this index's
    /// settings (inserted documents are not involved).
    pub fn pairs<S: AsRef<[u64]> + Sync>(&self, sets: &[S]) -> Result<Vec<SharedPair>> {
        check_doc_count(sets.len())?;
        let cap = self.max_posting_len.unwrap_or(usize::MAX);
        // (feature, doc), each feature once per doc.
        let mut entries: Vec<(u64, u32)> = sets
            .par_iter()
            .enumerate()
            .flat_map_iter(|(i, s)| distinct(s.as_ref()).into_iter().map(move |f| (f, i as u32)))
            .collect();
        entries.par_sort_unstable();
        // Kept postings as ranges of `entries`; per doc, the postings it is in.
        let starts = posting_starts(&entries, cap);
        let mut doc_posts: Vec<(u32, u32)> = starts
            .iter()
            .enumerate()
            .flat_map(|(p, &(lo, hi))| entries[lo..hi].iter().map(move |e| (e.1, p as u32)))
            .collect();
        let ids: Vec<u32> = entries.iter().map(|e| e.1).collect();
        drop(entries);
        doc_posts.par_sort_unstable();
        let doc_keys: Vec<u32> = doc_posts.iter().map(|e| e.0).collect();
        let mut runs = Vec::new();
        for_each_run(&doc_keys, |lo, hi| runs.push((lo, hi)));
        let m = self.min_shared;
        let per_doc: Vec<Vec<SharedPair>> = runs
            .par_iter()
            .map_init(Vec::new, |hits: &mut Vec<u32>, &(lo, hi)| {
                let i = doc_posts[lo].0;
                hits.clear();
                for &(_, p) in &doc_posts[lo..hi] {
                    // Posting ids ascend: take those after `i`.
                    let (s, e) = starts[p as usize];
                    let post = &ids[s..e];
                    hits.extend_from_slice(&post[post.partition_point(|&j| j <= i)..]);
                }
                count_runs(hits, m)
                    .into_iter()
                    .map(|(j, c)| (i, j, c))
                    .collect()
            })
            .collect();
        Ok(per_doc.into_iter().flatten().collect())
    }
}

/// `(start, end)` in the sorted entries of each kept posting (length in
/// `2..=cap`), in feature order.
fn posting_starts(entries: &[(u64, u32)], cap: usize) -> Vec<(usize, usize)> {
    let keys: Vec<u64> = entries.iter().map(|e| e.0).collect();
    let mut out = Vec::new();
    for_each_run(&keys, |lo, hi| {
        if hi - lo > 1 && hi - lo <= cap {
            out.push((lo, hi));
        }
    });
    out
}

/// Sorted distinct features.
fn distinct(features: &[u64]) -> Vec<u64> {
    let mut v = features.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// Sorts `hits` and returns `(id, count)` for ids occurring `>= m` times.
fn count_runs(hits: &mut [u32], m: u32) -> Vec<(u32, u32)> {
    hits.sort_unstable();
    let mut out = Vec::new();
    for_each_run(hits, |lo, hi| {
        let c = u32::try_from(hi - lo).unwrap_or(u32::MAX);
        if c >= m {
            out.push((hits[lo], c));
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_counts_shared_features() {
        let sets: Vec<Vec<u64>> = vec![vec![1, 2, 3, 3], vec![2, 3, 4], vec![9], vec![1, 9, 3]];
        let idx = InvertedIndex::new();
        assert_eq!(
            idx.pairs(&sets).unwrap(),
            vec![(0, 1, 2), (0, 3, 2), (1, 3, 1), (2, 3, 1)]
        );
        let mut two = InvertedIndex::new();
        two.set_min_shared(2).unwrap();
        assert_eq!(two.pairs(&sets).unwrap(), vec![(0, 1, 2), (0, 3, 2)]);
        assert!(two.set_min_shared(0).is_err());
    }

    #[test]
    fn common_features_are_ignored_in_both_modes() {
        // Feature 7 is in all four documents; cap 3 drops it.
        let sets: Vec<Vec<u64>> = vec![vec![7, 1], vec![7, 1], vec![7], vec![7, 2]];
        let mut idx = InvertedIndex::new();
        idx.set_max_posting_len(Some(3)).unwrap();
        assert_eq!(idx.pairs(&sets).unwrap(), vec![(0, 1, 1)]);
        for (i, s) in sets.iter().enumerate() {
            idx.insert(i as u32, s).unwrap();
        }
        assert_eq!(idx.common_features(), 1);
        assert_eq!(idx.query(&[7, 1]), vec![(0, 1), (1, 1)]);
        assert!(idx.set_max_posting_len(None).is_err());
        assert!(idx.insert(0, &[5]).is_err());
        let mut all = InvertedIndex::new();
        all.set_max_posting_len(None).unwrap();
        assert_eq!(all.pairs(&sets).unwrap().len(), 6);
    }

    #[test]
    fn incremental_query_counts_distinct() {
        let mut idx = InvertedIndex::new();
        idx.set_min_shared(2).unwrap();
        idx.insert(5, &[10, 11, 12]).unwrap();
        idx.insert(6, &[10, 13]).unwrap();
        assert_eq!(idx.query(&[10, 10, 11]), vec![(5, 2)]);
        assert_eq!(idx.query(&[10, 13, 12]), vec![(5, 2), (6, 2)]);
        assert_eq!(idx.len(), 2);
    }
}

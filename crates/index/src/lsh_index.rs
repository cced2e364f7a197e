//! Incremental MinHash LSH (for a service): insert documents one at a time
//! and query candidates at any point.
//!
//! Each band is a [`ChainTable`]: a hash map from band key to the last id
//! inserted under it, plus a per-id link to the previous one. A document
//! costs about `bands * (4 + ~15)` bytes, with no per-bucket allocation.

use crate::error::Result;
use crate::lsh::{each_band_key, SignatureValue};
use crate::params::LshParams;
use crate::table::{group_pairs, ChainTable, IdSet};

/// An incremental MinHash LSH index; made by [`MinHashLsh::index`](crate::MinHashLsh::index).
#[derive(Debug, Clone)]
pub struct LshIndex {
    params: LshParams,
    max_bucket_len: Option<usize>,
    tables: Vec<ChainTable>,
    ids: IdSet,
}

impl LshIndex {
    pub(crate) fn with_config(params: LshParams, max_bucket_len: Option<usize>) -> Self {
        Self {
            params,
            max_bucket_len,
            tables: vec![ChainTable::default(); params.bands()],
            ids: IdSet::default(),
        }
    }

    /// Bands and rows in use.
    pub fn params(&self) -> LshParams {
        self.params
    }

    /// Number of documents inserted.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no document was inserted.
    pub fn is_empty(&self) -> bool {
        self.ids.len() == 0
    }

    /// Makes room for `additional` more documents, avoiding rehashing
    /// while they are inserted.
    pub fn reserve(&mut self, additional: usize) {
        for t in &mut self.tables {
            t.reserve(additional);
        }
    }

    /// Adds document `id`. Fails, leaving the index unchanged, on a signature
    /// shorter than `bands * rows`, on an id inserted before, or on
    /// `u32::MAX`.
    ///
    /// Ids are dense indices: per-id arrays grow to the largest id inserted.
    pub fn insert<T: SignatureValue>(&mut self, id: u32, signature: &[T]) -> Result<()> {
        let keys = each_band_key(self.params, signature)?;
        self.ids.insert(id)?;
        for (table, key) in self.tables.iter_mut().zip(keys) {
            table.insert(key, id);
        }
        Ok(())
    }

    /// Ids sharing at least one band key with `signature`, sorted, each once.
    /// With a bucket cap, only the `cap` lowest ids of a bucket are returned.
    pub fn query<T: SignatureValue>(&self, signature: &[T]) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        let mut bucket = Vec::new();
        for (table, key) in self
            .tables
            .iter()
            .zip(each_band_key(self.params, signature)?)
        {
            bucket.clear();
            bucket.extend(table.bucket(key));
            if let Some(cap) = self.max_bucket_len {
                if bucket.len() > cap {
                    bucket.sort_unstable();
                    bucket.truncate(cap);
                }
            }
            out.extend_from_slice(&bucket);
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// Every pair of inserted documents sharing a band key, `(i, j)` with
    /// `i < j`, each once, sorted: the same as [`LshTables::candidate_pairs`](crate::LshTables::candidate_pairs)
    /// over the same documents.
    pub fn candidate_pairs(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let mut group = Vec::new();
        for table in &self.tables {
            for chain in table.buckets() {
                group.clear();
                group.extend(chain);
                if group.len() > 1 {
                    group.sort_unstable();
                    group_pairs(&group, self.max_bucket_len, &mut out);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Approximate heap bytes held by the index.
    pub fn memory_bytes(&self) -> usize {
        self.tables
            .iter()
            .map(ChainTable::memory_bytes)
            .sum::<usize>()
            + self.ids.memory_bytes()
    }
}

#[cfg(test)]
mod tests {
    use crate::error::ErrorKind;
    use crate::{LshParams, MinHashLsh};

    #[test]
    fn insert_query_and_pairs() {
        let mut l = MinHashLsh::new();
        l.set_params(LshParams::new(2, 2).unwrap());
        let mut idx = l.index();
        assert!(idx.is_empty());
        idx.reserve(3);
        idx.insert(0, &[1u64, 2, 3, 4]).unwrap();
        idx.insert(1, &[1u64, 2, 9, 9]).unwrap();
        idx.insert(7, &[7u64, 7, 9, 9]).unwrap();
        assert_eq!(idx.query(&[1u64, 2, 0, 0]).unwrap(), vec![0, 1]);
        assert_eq!(idx.query(&[0u64, 0, 9, 9]).unwrap(), vec![1, 7]);
        assert_eq!(idx.candidate_pairs(), vec![(0, 1), (1, 7)]);
        assert_eq!(idx.len(), 3);
        assert!(idx.memory_bytes() > 0);
    }

    #[test]
    fn duplicate_and_short_inserts_fail_without_change() {
        let mut l = MinHashLsh::new();
        l.set_params(LshParams::new(1, 2).unwrap());
        let mut idx = l.index();
        idx.insert(3, &[1u32, 1]).unwrap();
        let e = idx.insert(3, &[1u32, 1]).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::DuplicateId(3)));
        assert!(idx.insert(4, &[1u32]).is_err());
        assert!(idx.insert(u32::MAX, &[1u32, 1]).is_err());
        assert_eq!(idx.query(&[1u32, 1]).unwrap(), vec![3]);
        assert_eq!(idx.len(), 1);
    }

    #[test]
    fn bucket_cap_keeps_lowest_ids() {
        let mut l = MinHashLsh::new();
        l.set_params(LshParams::new(1, 1).unwrap())
            .set_max_bucket_len(Some(2));
        let mut idx = l.index();
        for id in [9, 4, 6, 1] {
            idx.insert(id, &[5u64]).unwrap();
        }
        assert_eq!(idx.query(&[5u64]).unwrap(), vec![1, 4]);
        assert_eq!(
            idx.candidate_pairs(),
            vec![(1, 4), (1, 6), (1, 9), (4, 6), (4, 9)]
        );
    }
}

//! [`BandEntries`]: the band entries of an external LSH pass
//! ([`crate::SpillLsh`]) fed one document at a time while a corpus is
//! read, so that a caller need not keep the band keys until the pass: they
//! go into the sort's runs as they come, and only there.

use crate::band_merge::entry_sorter;
use crate::error::{Error, ErrorKind, Result};
use crate::sorter::Sorter;
use crate::storage::SpillStorage;
use crate::table::NONE;

/// Band entries `(band, key, id)` being sorted through a storage; made by
/// [`SpillLsh::entries`](crate::SpillLsh::entries), consumed by
/// [`SpillLsh::candidate_pairs_of_entries`](crate::SpillLsh::candidate_pairs_of_entries).
/// It holds at most the pass's run records in memory (16 bytes each), the
/// rest in the storage's runs.
pub struct BandEntries<St> {
    sorter: Sorter<(u32, u64, u32)>,
    storage: St,
    /// The next run's number in the storage.
    ids: u32,
    /// Keys a document has (one a band).
    bands: usize,
    /// Documents fed.
    docs: usize,
}

impl<St: SpillStorage> BandEntries<St> {
    pub(crate) fn new(bands: usize, run_records: usize, storage: St) -> Self {
        BandEntries {
            sorter: entry_sorter(bands, run_records),
            storage,
            ids: 0,
            bands,
            docs: 0,
        }
    }

    /// Adds the band keys of the document `id` (one a band).
    ///
    /// # Errors
    /// Keys that are not one a band, the id `u32::MAX` (reserved), or a
    /// run that cannot be written.
    pub fn push(&mut self, id: u32, keys: &[u64]) -> Result<()> {
        if keys.len() != self.bands {
            return Err(Error::invalid("a document's band keys are not one a band"));
        }
        if id == NONE {
            return Err(Error::new(ErrorKind::TooManyDocuments));
        }
        for (b, &key) in keys.iter().enumerate() {
            self.sorter
                .push((b as u32, key, id), &mut self.storage, &mut self.ids)?;
        }
        self.docs += 1;
        Ok(())
    }

    /// Documents fed so far (a document fed twice counts twice).
    pub fn docs(&self) -> usize {
        self.docs
    }

    /// Keys a document has: one a band.
    pub fn bands(&self) -> usize {
        self.bands
    }

    /// Runs written to the storage so far.
    pub fn runs(&self) -> usize {
        self.ids as usize
    }

    pub(crate) fn into_parts(self) -> (Sorter<(u32, u64, u32)>, St, u32, usize) {
        (self.sorter, self.storage, self.ids, self.docs)
    }
}

impl<St> std::fmt::Debug for BandEntries<St> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BandEntries")
            .field("bands", &self.bands)
            .field("docs", &self.docs)
            .field("runs", &self.ids)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use crate::storage::MemoryStorage;
    use crate::test_data::{lsh, rows};
    use crate::MinHashLsh;

    fn keys(n: usize) -> Vec<Vec<u64>> {
        rows(n, 4, 5, 0x9E37_79B9_7F4A_7C15)
    }

    /// The pairs of `keys` streamed the old way.
    fn streamed(l: &MinHashLsh, keys: &[Vec<u64>]) -> Vec<(u32, u32)> {
        let mut got = Vec::new();
        l.spill()
            .candidate_pairs_of_keys(keys, &mut MemoryStorage::new(), |a, b| got.push((a, b)))
            .unwrap();
        got
    }

    #[test]
    fn fed_entries_give_the_pairs_of_streamed_keys() {
        let keys = keys(300);
        for cap in [None, Some(4)] {
            let l = lsh(cap);
            let want = streamed(&l, &keys);
            assert!(want.len() > 1000);
            for run in [1, 7, 1 << 20] {
                let mut s = l.spill();
                s.set_run_records(run);
                let mut fed = s.entries(MemoryStorage::new());
                // Fed out of order: the id, not the order, counts.
                for (i, k) in keys.iter().enumerate().rev() {
                    fed.push(i as u32, k).unwrap();
                }
                assert_eq!(fed.docs(), 300);
                assert_eq!(fed.runs() > 0, run < 1000);
                let mut got = Vec::new();
                let stats = s
                    .candidate_pairs_of_entries(fed, Some, |a, b| got.push((a, b)))
                    .unwrap();
                assert_eq!(got, want, "cap {cap:?} run {run}");
                assert_eq!(stats.pairs, want.len() as u64);
            }
        }
    }

    #[test]
    fn a_map_leaves_documents_out_and_renumbers_the_rest() {
        let keys = keys(200);
        let l = lsh(Some(3));
        // Keep every third document, and take document 1's keys from a
        // second feed under id 1000 (its first feed left out).
        let mut changed = keys.clone();
        changed[1] = keys[7].clone();
        let kept: Vec<usize> = (0..200).filter(|i| i % 3 != 2).collect();
        let subset: Vec<Vec<u64>> = kept.iter().map(|&i| changed[i].clone()).collect();
        let want = streamed(&l, &subset);
        let mut s = l.spill();
        s.set_run_records(11);
        let mut fed = s.entries(MemoryStorage::new());
        for (i, k) in keys.iter().enumerate() {
            fed.push(i as u32, k).unwrap();
        }
        fed.push(1000, &changed[1]).unwrap();
        let map = |id: u32| match id {
            1 => None,
            1000 => Some(1),
            i if i % 3 == 2 => None,
            i => Some(i - i / 3),
        };
        let mut got = Vec::new();
        s.candidate_pairs_of_entries(fed, map, |a, b| got.push((a, b)))
            .unwrap();
        assert_eq!(got, want);
    }

    #[test]
    fn wrong_keys_and_the_reserved_id_are_errors() {
        let mut fed = lsh(None).spill().entries(MemoryStorage::new());
        assert!(fed.push(0, &[1, 2, 3]).is_err());
        assert!(fed.push(u32::MAX, &[1, 2, 3, 4]).is_err());
        assert!(fed.push(0, &[1, 2, 3, 4]).is_ok());
    }
}

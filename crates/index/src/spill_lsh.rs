//! MinHash LSH for band tables larger than RAM: external sort of
//! `(band, key, doc)` entries into sorted runs, a k-way merge that walks the
//! runs of equal `(band, key)` to produce candidate pairs, and a second
//! external sort that deduplicates the pairs. Output equals
//! [`LshTables::candidate_pairs`](crate::LshTables::candidate_pairs) for the
//! same signatures and settings.

use crate::band_entries::BandEntries;
use crate::band_merge::{bucket_pairs, entry_sorter, merge_parts};
use crate::error::{Error, ErrorKind, Result};
use crate::lsh::{band_keys, SignatureValue};
use crate::params::LshParams;
use crate::sorter::Sorter;
use crate::storage::SpillStorage;
use crate::table::NONE;

/// Figures of one spilled run of [`SpillLsh::candidate_pairs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SpillStats {
    /// Documents read.
    pub docs: usize,
    /// Runs of band entries written (0 when everything fit in memory).
    pub entry_runs: usize,
    /// Runs of pairs written.
    pub pair_runs: usize,
    /// Distinct candidate pairs emitted.
    pub pairs: u64,
}

/// External-memory LSH candidate generation; made by
/// [`MinHashLsh::spill`](crate::MinHashLsh::spill).
#[derive(Debug, Clone)]
pub struct SpillLsh {
    params: LshParams,
    max_bucket_len: Option<usize>,
    run_records: usize,
}

impl SpillLsh {
    pub(crate) fn with_config(params: LshParams, max_bucket_len: Option<usize>) -> Self {
        Self {
            params,
            max_bucket_len,
            run_records: 1 << 22,
        }
    }

    /// Band entries (16 bytes each) held in memory before a run is written;
    /// default 4 Mi (64 MiB). Pair runs hold twice as many 8-byte pairs.
    /// Values below 1 act as 1.
    pub fn set_run_records(&mut self, n: usize) -> &mut Self {
        self.run_records = n.max(1);
        self
    }

    /// Reads the signatures (document `i` is the `i`-th), spills through
    /// `storage` as needed and calls `sink(i, j)` for every candidate pair,
    /// `i < j`, once, in ascending order. Runs are removed when consumed. On
    /// error, pairs already passed to `sink` must be discarded.
    pub fn candidate_pairs<T, S, I, St, F>(
        &self,
        signatures: I,
        storage: &mut St,
        sink: F,
    ) -> Result<SpillStats>
    where
        T: SignatureValue,
        S: AsRef<[T]>,
        I: IntoIterator<Item = S>,
        St: SpillStorage,
        F: FnMut(u32, u32),
    {
        let p = self.params;
        let mut failed = None;
        let keys = signatures.into_iter().map_while(|sig| {
            band_keys(p, sig.as_ref())
                .map_err(|e| failed = Some(e))
                .ok()
        });
        let mut stats = SpillStats::default();
        let mut ids = 0u32;
        let entries = self.sort_entries(keys, storage, &mut ids, &mut stats)?;
        if let Some(e) = failed {
            return Err(e);
        }
        self.merge(entries, storage, &mut ids, stats, Some, sink)
    }

    /// As [`SpillLsh::candidate_pairs`], given each document's band keys
    /// ([`band_keys`] of its signature) instead of its signature: what a
    /// caller keeps on disk in place of the signatures (8 bytes a band
    /// instead of 4 a value). The same pairs as for the signatures the keys
    /// were made of.
    ///
    /// # Errors
    /// A document whose keys are not one per band, and as
    /// [`SpillLsh::candidate_pairs`].
    pub fn candidate_pairs_of_keys<K, I, St, F>(
        &self,
        band_keys: I,
        storage: &mut St,
        sink: F,
    ) -> Result<SpillStats>
    where
        K: AsRef<[u64]>,
        I: IntoIterator<Item = K>,
        St: SpillStorage,
        F: FnMut(u32, u32),
    {
        let bands = self.params.bands();
        let mut failed = None;
        let checked = band_keys.into_iter().map_while(|k| {
            if k.as_ref().len() == bands {
                Some(k)
            } else {
                failed = Some(Error::invalid("a document's band keys are not one a band"));
                None
            }
        });
        let mut stats = SpillStats::default();
        let mut ids = 0u32;
        let entries = self.sort_entries(checked, storage, &mut ids, &mut stats)?;
        if let Some(e) = failed {
            return Err(e);
        }
        self.merge(entries, storage, &mut ids, stats, Some, sink)
    }

    /// A store of band entries fed a document at a time as a corpus is
    /// read ([`BandEntries::push`]), sorted through `storage`, whose
    /// candidate pairs [`SpillLsh::candidate_pairs_of_entries`] gives.
    pub fn entries<St: SpillStorage>(&self, storage: St) -> BandEntries<St> {
        BandEntries::new(self.params.bands(), self.run_records, storage)
    }

    /// The candidate pairs of fed band entries, as
    /// [`SpillLsh::candidate_pairs_of_keys`] gives them for the documents
    /// `map` keeps: an entry fed under id `i` counts as document `map(i)`,
    /// or not at all when that is `None` (a document left out of the pass,
    /// or keys fed again under another id after they changed). The pairs
    /// are those of the kept documents' keys fed in the order of their new
    /// ids.
    ///
    /// # Errors
    /// Entries of another number of bands, and as
    /// [`SpillLsh::candidate_pairs`].
    pub fn candidate_pairs_of_entries<St, M, F>(
        &self,
        entries: BandEntries<St>,
        map: M,
        sink: F,
    ) -> Result<SpillStats>
    where
        St: SpillStorage,
        M: Fn(u32) -> Option<u32> + Sync,
        F: FnMut(u32, u32),
    {
        if entries.bands() != self.params.bands() {
            return Err(Error::invalid(
                "band entries of other bands than the pass's",
            ));
        }
        let (sorter, mut storage, mut ids, docs) = entries.into_parts();
        let stats = SpillStats {
            docs,
            ..SpillStats::default()
        };
        self.merge(sorter, &mut storage, &mut ids, stats, map, sink)
    }

    /// The band entries of every document, sorted (in runs through
    /// `storage` when they do not fit).
    fn sort_entries<K, I, St>(
        &self,
        band_keys: I,
        storage: &mut St,
        ids: &mut u32,
        stats: &mut SpillStats,
    ) -> Result<Sorter<(u32, u64, u32)>>
    where
        K: AsRef<[u64]>,
        I: IntoIterator<Item = K>,
        St: SpillStorage,
    {
        let mut entries = entry_sorter(self.params.bands(), self.run_records);
        for (i, keys) in band_keys.into_iter().enumerate() {
            let id = u32::try_from(i)
                .ok()
                .filter(|&id| id != NONE)
                .ok_or_else(|| Error::new(ErrorKind::TooManyDocuments))?;
            for (b, &key) in keys.as_ref().iter().enumerate() {
                entries.push((b as u32, key, id), storage, ids)?;
            }
            stats.docs += 1;
        }
        Ok(entries)
    }

    /// The candidate pairs of sorted band entries, deduplicated, to `sink`,
    /// each entry's document `map`ped (left out on `None`). The parts of
    /// the entries (ranges of bands) are merged on threads of their own.
    fn merge<St, M, F>(
        &self,
        entries: Sorter<(u32, u64, u32)>,
        storage: &mut St,
        ids: &mut u32,
        mut stats: SpillStats,
        map: M,
        mut sink: F,
    ) -> Result<SpillStats>
    where
        St: SpillStorage,
        M: Fn(u32) -> Option<u32> + Sync,
        F: FnMut(u32, u32),
    {
        let mut parts = entries.into_sorted_parts(storage, ids)?;
        let runs: Vec<u32> = parts.iter().flat_map(|p| p.runs.iter().copied()).collect();
        stats.entry_runs = runs.len();
        let mut pairs = Sorter::<(u32, u32)>::new(self.run_records.saturating_mul(2));
        let cap = self.max_bucket_len;
        let threads = rayon::current_num_threads().min(parts.len());
        let mut emit = |found: &[(u32, u32)]| {
            found
                .iter()
                .try_for_each(|&pr| pairs.push(pr, &mut *storage, &mut *ids))
        };
        if threads <= 1 {
            for part in &mut parts {
                bucket_pairs(part, &map, cap, &mut emit)?;
            }
        } else {
            merge_parts(parts, threads, &map, cap, emit)?;
        }
        for &run in &runs {
            storage.remove(run)?;
        }
        let mut out = pairs.into_sorted(storage, ids)?;
        stats.pair_runs = out.runs.len();
        let mut last = None;
        while let Some(pr) = out.next()? {
            if last != Some(pr) {
                sink(pr.0, pr.1);
                stats.pairs += 1;
                last = Some(pr);
            }
        }
        for &run in &out.runs {
            storage.remove(run)?;
        }
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use crate::storage::{DirStorage, MemoryStorage};
    use crate::test_data::{band_keys_of, lsh, signatures};

    #[test]
    fn spilled_output_equals_in_memory_output() {
        let sigs = signatures(300);
        for cap in [None, Some(5)] {
            let l = lsh(cap);
            let want = l.build(&sigs).unwrap().candidate_pairs();
            assert!(want.len() > 1000);
            for run in [1, 7, 1000, 1 << 20] {
                let mut store = MemoryStorage::new();
                let mut got = Vec::new();
                let mut s = l.spill();
                s.set_run_records(run);
                let stats = s
                    .candidate_pairs(&sigs, &mut store, |a, b| got.push((a, b)))
                    .unwrap();
                assert_eq!(got, want, "cap {cap:?} run {run}");
                assert_eq!(stats.pairs, want.len() as u64);
                assert_eq!(stats.docs, 300);
                assert!(store.is_empty());
                if run == 7 {
                    assert!(stats.entry_runs > 100 && stats.pair_runs > 1);
                }
                if run == 1 << 20 {
                    assert_eq!((stats.entry_runs, stats.pair_runs), (0, 0));
                }
            }
        }
    }

    #[test]
    fn band_keys_give_the_pairs_of_their_signatures() {
        let sigs = signatures(200);
        let l = lsh(None);
        let want = l.build(&sigs).unwrap().candidate_pairs();
        let keys = band_keys_of(&sigs);
        let mut s = l.spill();
        s.set_run_records(13);
        let mut store = MemoryStorage::new();
        let mut got = Vec::new();
        s.candidate_pairs_of_keys(&keys, &mut store, |a, b| got.push((a, b)))
            .unwrap();
        assert_eq!(got, want);
        assert!(store.is_empty());
        let short = vec![vec![1u64; 4], vec![1u64; 3]];
        assert!(s
            .candidate_pairs_of_keys(&short, &mut store, |_, _| {})
            .is_err());
    }

    #[test]
    fn spills_to_a_directory() {
        let sigs = signatures(100);
        let l = lsh(None);
        let want = l.build(&sigs).unwrap().candidate_pairs();
        let dir = std::env::temp_dir().join(format!("neardup-index-lsh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut store = DirStorage::new(&dir);
        let mut got = Vec::new();
        let mut s = l.spill();
        s.set_run_records(50);
        s.candidate_pairs(&sigs, &mut store, |a, b| got.push((a, b)))
            .unwrap();
        assert_eq!(got, want);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        drop(store);
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn short_signature_is_an_error() {
        let sigs = vec![vec![1u64; 8], vec![1u64; 3]];
        let mut store = MemoryStorage::new();
        assert!(lsh(None)
            .spill()
            .candidate_pairs(&sigs, &mut store, |_, _| {})
            .is_err());
    }
}

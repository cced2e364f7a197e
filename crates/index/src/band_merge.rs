//! The merge of a spilled LSH pass ([`crate::SpillLsh`]): the band entries
//! are sorted in parts, ranges of bands, each spill writing one run a part;
//! each part's runs are merged on a thread of its own, the runs of equal
//! `(band, key)` give the candidate pairs, and the pairs come back to the
//! calling thread in batches. The pairs are sorted afterwards, so they do
//! not depend on the number of parts or threads.

use std::io::Read;
use std::sync::mpsc;

use crate::error::{Error, Result};
use crate::sorter::{Sorted, Sorter};
use crate::table::group_pairs;

/// Parts of a pass's band entries at most.
const MAX_PARTS: usize = 8;

/// The band entries of a pass, partitioned by ranges of bands into one
/// part a thread of the pool (at most [`MAX_PARTS`]; results do not depend
/// on it), so that the merge of each range can run on a thread of its own.
/// Each part writes a run of its own at each spill.
pub(crate) fn entry_sorter(bands: usize, run_records: usize) -> Sorter<(u32, u64, u32)> {
    let parts = rayon::current_num_threads().clamp(1, bands.clamp(1, MAX_PARTS));
    let bands = bands.max(1);
    Sorter::partitioned(
        run_records,
        parts,
        Box::new(move |&(b, _, _)| (b as usize).min(bands - 1) * parts / bands),
    )
}

/// Pairs found in an entry stream handed over at a time.
const PAIR_BATCH: usize = 1 << 16;

/// Walks the runs of equal `(band, key)` of a sorted stream, calling
/// `emit` with the pairs of each (mapped documents, in ascending order).
pub(crate) fn bucket_pairs<Rd, M, E>(
    stream: &mut Sorted<Rd, (u32, u64, u32)>,
    map: &M,
    cap: Option<usize>,
    mut emit: E,
) -> Result<()>
where
    Rd: Read,
    M: Fn(u32) -> Option<u32>,
    E: FnMut(&[(u32, u32)]) -> Result<()>,
{
    let mut group: Vec<u32> = Vec::new();
    let mut current = None;
    let mut found = Vec::new();
    loop {
        let next = stream.next()?;
        let head = next.map(|(b, k, _)| (b, k));
        if head != current || next.is_none() {
            found.clear();
            // In the order of the mapped ids (a no-op without a map).
            group.sort_unstable();
            group_pairs(&group, cap, &mut found);
            if !found.is_empty() {
                emit(&found)?;
            }
            group.clear();
            current = head;
        }
        match next {
            Some((_, _, d)) => group.extend(map(d)),
            None => return Ok(()),
        }
    }
}

/// [`bucket_pairs`] of every part on `threads` threads (part `i` on thread
/// `i % threads`), the pairs handed to `emit` on the calling thread in
/// batches.
pub(crate) fn merge_parts<Rd, M, E>(
    parts: Vec<Sorted<Rd, (u32, u64, u32)>>,
    threads: usize,
    map: &M,
    cap: Option<usize>,
    mut emit: E,
) -> Result<()>
where
    Rd: Read + Send,
    M: Fn(u32) -> Option<u32> + Sync,
    E: FnMut(&[(u32, u32)]) -> Result<()>,
{
    let mut shares: Vec<Vec<_>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, part) in parts.into_iter().enumerate() {
        shares[i % threads].push(part);
    }
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel::<Result<Vec<(u32, u32)>>>(2 * threads);
        for share in shares {
            let tx = tx.clone();
            s.spawn(move || {
                let mut batch = Vec::with_capacity(PAIR_BATCH);
                let mut pass = |found: &[(u32, u32)]| {
                    batch.extend_from_slice(found);
                    if batch.len() >= PAIR_BATCH {
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(PAIR_BATCH));
                        // A closed channel: the receiver failed and said so.
                        tx.send(Ok(full))
                            .map_err(|_| Error::invalid("merge stopped"))?;
                    }
                    Ok(())
                };
                let done = share
                    .into_iter()
                    .try_for_each(|mut part| bucket_pairs(&mut part, map, cap, &mut pass));
                let _ = tx.send(done.map(|()| batch));
            });
        }
        drop(tx);
        // The first error stops the merge: the channel closes, and the
        // workers stop at their next batch.
        for msg in rx {
            emit(&msg?)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::storage::{DirStorage, MemoryStorage};
    use crate::test_data::{band_keys_of, lsh, signatures};

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    #[test]
    fn the_pairs_do_not_depend_on_the_threads_of_the_sort_or_the_merge() {
        let sigs = signatures(400);
        let keys = band_keys_of(&sigs);
        for cap in [None, Some(3)] {
            let l = lsh(cap);
            let want = l.build(&sigs).unwrap().candidate_pairs();
            // Threads when the entries are fed (the parts), then when merged.
            for (fed, merged) in [(1, 1), (2, 2), (3, 3), (5, 5), (5, 1), (1, 4), (4, 2)] {
                for run in [5, 1 << 20] {
                    let mut s = l.spill();
                    s.set_run_records(run);
                    let mut entries = pool(fed).install(|| s.entries(MemoryStorage::new()));
                    for (i, k) in keys.iter().enumerate() {
                        entries.push(i as u32, k).unwrap();
                    }
                    let mut got = Vec::new();
                    let stats = pool(merged)
                        .install(|| {
                            s.candidate_pairs_of_entries(entries, Some, |a, b| got.push((a, b)))
                        })
                        .unwrap();
                    assert_eq!(got, want, "cap {cap:?} threads {fed}/{merged} run {run}");
                    if run == 5 {
                        // One run a part at each spill.
                        assert!(stats.entry_runs >= 1600 / 5, "{stats:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_damaged_run_on_a_merge_thread_is_an_error() {
        let sigs = signatures(300);
        let l = lsh(None);
        let dir =
            std::env::temp_dir().join(format!("neardup-index-lsh-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut s = l.spill();
        s.set_run_records(64);
        let mut entries = pool(2).install(|| s.entries(DirStorage::new(&dir)));
        for (i, k) in band_keys_of(&sigs).iter().enumerate() {
            entries.push(i as u32, k).unwrap();
        }
        // A run of the second part (bands 2 and 3): the last one written.
        let mut runs: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        runs.sort();
        let last = runs.last().unwrap();
        let mut bytes = std::fs::read(last).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x55;
        std::fs::write(last, bytes).unwrap();
        let got = pool(2).install(|| s.candidate_pairs_of_entries(entries, Some, |_, _| {}));
        let err = got.unwrap_err();
        assert!(
            matches!(err.kind(), crate::ErrorKind::Corrupt(_)),
            "{err:?}"
        );
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir(&dir).unwrap();
    }
}

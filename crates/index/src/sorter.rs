//! The external sort of the LSH spill ([`crate::SpillLsh`]): records
//! buffered in memory, written as sorted, deduplicated runs when the buffer
//! is full, and read back in order by a k-way merge of the runs.

use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::spill::{write_run, Record, RunReader};
use crate::storage::SpillStorage;

/// Buffers records, writing sorted, deduplicated runs when full.
///
/// A partitioned sorter ([`Sorter::partitioned`]) writes each run as one
/// run a part, so that the parts can be merged apart
/// ([`Sorter::into_sorted_parts`]), in parallel.
pub(crate) struct Sorter<R> {
    buf: Vec<R>,
    cap: usize,
    /// The runs of each part, in the order written.
    runs: Vec<Vec<u32>>,
    /// The part of a record: not decreasing in the records' order.
    part: PartOf<R>,
}

/// The part of a record of a partitioned [`Sorter`].
pub(crate) type PartOf<R> = Box<dyn Fn(&R) -> usize + Send + Sync>;

impl<R: Record + Send> Sorter<R> {
    pub(crate) fn new(cap: usize) -> Self {
        Self::partitioned(cap, 1, Box::new(|_| 0))
    }

    /// A sorter whose records fall in `parts` parts by `part` (each below
    /// `parts`, not decreasing in the records' order).
    pub(crate) fn partitioned(cap: usize, parts: usize, part: PartOf<R>) -> Self {
        Self {
            buf: Vec::new(),
            cap,
            runs: vec![Vec::new(); parts.max(1)],
            part,
        }
    }

    pub(crate) fn push<S: SpillStorage>(
        &mut self,
        r: R,
        storage: &mut S,
        ids: &mut u32,
    ) -> Result<()> {
        self.buf.push(r);
        if self.buf.len() >= self.cap {
            self.spill(storage, ids)?;
        }
        Ok(())
    }

    /// Runs written so far, of every part.
    fn run_count(&self) -> usize {
        self.runs.iter().map(Vec::len).sum()
    }

    fn spill<S: SpillStorage>(&mut self, storage: &mut S, ids: &mut u32) -> Result<()> {
        self.buf.par_sort_unstable();
        self.buf.dedup();
        let mut rest = &self.buf[..];
        for p in 0..self.runs.len() {
            let n = rest.partition_point(|r| (self.part)(r) <= p);
            let (here, after) = rest.split_at(n);
            rest = after;
            if here.is_empty() {
                continue;
            }
            let run = *ids;
            *ids = ids
                .checked_add(1)
                .ok_or_else(|| Error::invalid("too many spill runs"))?;
            write_run(storage, run, here)?;
            self.runs[p].push(run);
        }
        if !rest.is_empty() {
            return Err(Error::invalid("a record's part is out of range"));
        }
        self.buf.clear();
        Ok(())
    }

    /// All records in order: from memory when nothing was spilled, else by a
    /// k-way merge of the runs (the rest of the buffer becomes a run too).
    pub(crate) fn into_sorted<S: SpillStorage>(
        self,
        storage: &mut S,
        ids: &mut u32,
    ) -> Result<Sorted<S::Reader, R>> {
        let mut parts = self.merged_parts(storage, ids, false)?;
        Ok(parts.pop().unwrap_or_else(Sorted::empty))
    }

    /// The records of each part in order, one stream a part (the records
    /// of part 0 first): the parts' streams are independent, to be merged
    /// on threads of their own.
    pub(crate) fn into_sorted_parts<S: SpillStorage>(
        self,
        storage: &mut S,
        ids: &mut u32,
    ) -> Result<Vec<Sorted<S::Reader, R>>> {
        self.merged_parts(storage, ids, true)
    }

    fn merged_parts<S: SpillStorage>(
        mut self,
        storage: &mut S,
        ids: &mut u32,
        apart: bool,
    ) -> Result<Vec<Sorted<S::Reader, R>>> {
        if self.run_count() == 0 {
            self.buf.par_sort_unstable();
            self.buf.dedup();
            if !apart {
                return Ok(vec![Sorted::memory(self.buf)]);
            }
            let mut out = Vec::with_capacity(self.runs.len());
            let mut rest = self.buf;
            for p in (0..self.runs.len()).rev() {
                let n = rest.partition_point(|r| (self.part)(r) < p);
                out.push(Sorted::memory(rest.split_off(n)));
            }
            out.reverse();
            return Ok(out);
        }
        if !self.buf.is_empty() {
            self.spill(storage, ids)?;
        }
        let groups = if apart {
            std::mem::take(&mut self.runs)
        } else {
            vec![self.runs.concat()]
        };
        groups
            .into_iter()
            .map(|runs| Sorted::runs(runs, storage))
            .collect()
    }
}

/// A sorted stream of records, from memory or merged from runs.
pub(crate) struct Sorted<Rd: std::io::Read, R: Record> {
    mem: std::vec::IntoIter<R>,
    readers: Vec<RunReader<Rd, R>>,
    heap: BinaryHeap<Reverse<(R, usize)>>,
    pub(crate) runs: Vec<u32>,
}

impl<Rd: std::io::Read, R: Record> Sorted<Rd, R> {
    fn empty() -> Self {
        Self::memory(Vec::new())
    }

    fn memory(records: Vec<R>) -> Self {
        Sorted {
            mem: records.into_iter(),
            readers: Vec::new(),
            heap: BinaryHeap::new(),
            runs: Vec::new(),
        }
    }

    /// The k-way merge of `runs`.
    fn runs<S: SpillStorage<Reader = Rd>>(runs: Vec<u32>, storage: &mut S) -> Result<Self> {
        let mut readers = Vec::with_capacity(runs.len());
        let mut heap = BinaryHeap::with_capacity(runs.len());
        for (i, &run) in runs.iter().enumerate() {
            let file = storage.open(run).map_err(|e| {
                // Every run is open at once: say so when the system's
                // limit of open files is what stops the merge.
                std::io::Error::new(
                    e.kind(),
                    format!(
                        "opening sorted run {} of {} at once (a merge keeps its runs open: \
                         see the limit of open files): {e}",
                        i + 1,
                        runs.len()
                    ),
                )
            })?;
            let mut r = RunReader::open_checked(file)?;
            if let Some(first) = r.next_record()? {
                heap.push(Reverse((first, readers.len())));
            }
            readers.push(r);
        }
        Ok(Sorted {
            mem: Vec::new().into_iter(),
            readers,
            heap,
            runs,
        })
    }
}

impl<Rd: std::io::Read, R: Record> Sorted<Rd, R> {
    pub(crate) fn next(&mut self) -> Result<Option<R>> {
        if let Some(r) = self.mem.next() {
            return Ok(Some(r));
        }
        // The top is replaced by its run's next record and sifted down
        // once (a pop and a push would sift twice).
        let Some(mut top) = self.heap.peek_mut() else {
            return Ok(None);
        };
        let Reverse((r, src)) = *top;
        match self.readers.get_mut(src) {
            Some(reader) => match reader.next_record()? {
                Some(n) => top.0 = (n, src),
                None => drop(PeekMut::pop(top)),
            },
            None => drop(PeekMut::pop(top)),
        }
        Ok(Some(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStorage;
    use proptest::prelude::*;

    type Entry = (u32, u64, u32);

    /// The records of a stream, in order; its duplicates (a record in
    /// two runs) left out, as the merge's consumers leave them out.
    fn drain<Rd: std::io::Read>(mut s: Sorted<Rd, Entry>) -> Vec<Entry> {
        let mut out: Vec<Entry> = Vec::new();
        while let Some(r) = s.next().unwrap() {
            assert!(out.last().is_none_or(|&l| l <= r), "out of order");
            if out.last() != Some(&r) {
                out.push(r);
            }
        }
        out
    }

    /// A sorter of `parts` parts by band (bands below 8), fed `records`.
    fn fed(
        records: &[Entry],
        cap: usize,
        parts: usize,
        store: &mut MemoryStorage,
    ) -> (Sorter<Entry>, u32) {
        let mut s = Sorter::partitioned(
            cap,
            parts,
            Box::new(move |r: &Entry| r.0 as usize * parts / 8),
        );
        let mut ids = 0;
        for &r in records {
            s.push(r, store, &mut ids).unwrap();
        }
        (s, ids)
    }

    proptest! {
        #[test]
        fn parts_merged_apart_or_together_give_the_records_in_order(
            records in proptest::collection::vec((0u32..8, 0u64..20, 0u32..50), 0..300),
            cap in 1usize..40,
            parts in 1usize..5,
        ) {
            let mut want = records.clone();
            want.sort_unstable();
            want.dedup();
            let mut store = MemoryStorage::new();
            let (s, mut ids) = fed(&records, cap, parts, &mut store);
            prop_assert_eq!(drain(s.into_sorted(&mut store, &mut ids).unwrap()), want.clone());
            let (s, mut ids) = fed(&records, cap, parts, &mut store);
            let streams = s.into_sorted_parts(&mut store, &mut ids).unwrap();
            prop_assert_eq!(streams.len(), parts);
            let mut all = Vec::new();
            for (p, stream) in streams.into_iter().enumerate() {
                let got = drain(stream);
                prop_assert!(got.iter().all(|r| r.0 as usize * parts / 8 == p));
                all.extend(got);
            }
            prop_assert_eq!(all, want);
        }
    }

    #[test]
    fn a_record_of_no_part_is_an_error() {
        let mut store = MemoryStorage::new();
        let mut s = Sorter::partitioned(2, 2, Box::new(|r: &Entry| r.0 as usize));
        let mut ids = 0;
        s.push((0, 1, 1), &mut store, &mut ids).unwrap();
        assert!(s.push((5, 1, 1), &mut store, &mut ids).is_err());
    }
}

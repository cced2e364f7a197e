//! The external sort of the LSH spill ([`crate::SpillLsh`]): records
//! buffered in memory, written as sorted, deduplicated runs when the buffer
//! is full, and read back in order by a k-way merge of the runs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::spill::{write_run, Record, RunReader};
use crate::storage::SpillStorage;

/// Buffers records, writing sorted, deduplicated runs when full.
pub(crate) struct Sorter<R> {
    buf: Vec<R>,
    cap: usize,
    runs: Vec<u32>,
}

impl<R: Record + Send> Sorter<R> {
    pub(crate) fn new(cap: usize) -> Self {
        Self {
            buf: Vec::new(),
            cap,
            runs: Vec::new(),
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

    fn spill<S: SpillStorage>(&mut self, storage: &mut S, ids: &mut u32) -> Result<()> {
        self.buf.par_sort_unstable();
        self.buf.dedup();
        let run = *ids;
        *ids = ids
            .checked_add(1)
            .ok_or_else(|| Error::invalid("too many spill runs"))?;
        write_run(storage, run, &self.buf)?;
        self.runs.push(run);
        self.buf.clear();
        Ok(())
    }

    /// All records in order: from memory when nothing was spilled, else by a
    /// k-way merge of the runs (the rest of the buffer becomes a run too).
    pub(crate) fn into_sorted<S: SpillStorage>(
        mut self,
        storage: &mut S,
        ids: &mut u32,
    ) -> Result<Sorted<S::Reader, R>> {
        if self.runs.is_empty() {
            self.buf.par_sort_unstable();
            self.buf.dedup();
            return Ok(Sorted {
                mem: self.buf.into_iter(),
                readers: Vec::new(),
                heap: BinaryHeap::new(),
                runs: Vec::new(),
            });
        }
        if !self.buf.is_empty() {
            self.spill(storage, ids)?;
        }
        let mut readers = Vec::with_capacity(self.runs.len());
        let mut heap = BinaryHeap::with_capacity(self.runs.len());
        for &run in &self.runs {
            let mut r = RunReader::open_checked(storage.open(run)?)?;
            if let Some(first) = r.next_record()? {
                heap.push(Reverse((first, readers.len())));
            }
            readers.push(r);
        }
        Ok(Sorted {
            mem: Vec::new().into_iter(),
            readers,
            heap,
            runs: self.runs,
        })
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
    pub(crate) fn next(&mut self) -> Result<Option<R>> {
        if let Some(r) = self.mem.next() {
            return Ok(Some(r));
        }
        let Some(Reverse((r, src))) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some(reader) = self.readers.get_mut(src) {
            if let Some(n) = reader.next_record()? {
                self.heap.push(Reverse((n, src)));
            }
        }
        Ok(Some(r))
    }
}

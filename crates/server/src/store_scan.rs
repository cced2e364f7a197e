//! Reading the stored documents in insertion order, with many reads in
//! flight.
//!
//! The `order` table gives the ids in insertion order; each document is
//! then a lookup by id in `docs`, at a random place in the file. Once the
//! store outgrows the page cache (10^7 documents take about 30 GB), each
//! lookup waits on the disk: read one at a time, a restart replayed about
//! 5,500 documents a second at 10^7. A disk serves many reads at once, so
//! the ids of the next [`SCAN_CHUNK`] documents are looked up ahead by
//! [`SCAN_READERS`] threads, which only bring their pages into the cache
//! (nothing is kept: memory does not grow), while the current chunk is
//! decoded and handed out in order.

use redb::ReadOnlyTable;

use crate::error::Error;
use crate::record::{Record, Text, Unpacker};
use crate::store::{unwinding, Store, DOCS, ORDER};

/// Documents looked up ahead at once.
pub(crate) const SCAN_CHUNK: usize = 4096;

/// Threads looking documents up ahead: reads the disk serves at once.
pub(crate) const SCAN_READERS: usize = 16;

type Docs = ReadOnlyTable<&'static str, &'static [u8]>;

impl Store {
    /// Every stored document from sequence number `from` on, in insertion
    /// order.
    pub fn load_from(
        &self,
        from: u64,
        f: impl FnMut(&str, Record) -> Result<(), Error>,
    ) -> Result<(), Error> {
        unwinding("reading the store", || self.scan(from, f))
    }

    /// Every stored document in insertion order.
    #[cfg(test)]
    pub fn load(&self, f: impl FnMut(&str, Record) -> Result<(), Error>) -> Result<(), Error> {
        self.load_from(0, f)
    }

    fn scan(
        &self,
        from: u64,
        mut f: impl FnMut(&str, Record) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let txn = self.db.begin_read().map_err(Error::store)?;
        let docs = txn.open_table(DOCS).map_err(Error::store)?;
        let order = txn.open_table(ORDER).map_err(Error::store)?;
        let mut rows = order.range(from..).map_err(Error::store)?;
        let mut next_ids = || -> Result<Vec<(u64, String)>, Error> {
            let mut ids = Vec::with_capacity(SCAN_CHUNK);
            for row in rows.by_ref().take(SCAN_CHUNK) {
                let (seq, id) = row.map_err(Error::store)?;
                ids.push((seq.value(), id.value().to_owned()));
            }
            Ok(ids)
        };
        let mut unpacker = Unpacker::default();
        let mut current = next_ids()?;
        look_up(&docs, &current);
        while !current.is_empty() {
            let next = next_ids()?;
            std::thread::scope(|s| {
                s.spawn(|| look_up(&docs, &next));
                for (seq, id) in &current {
                    let bytes = docs.get(id.as_str()).map_err(Error::store)?;
                    let bytes = bytes.ok_or_else(|| {
                        Error::corrupt(format!("order entry {seq} has no document"))
                    })?;
                    let record = Record::decode_with(bytes.value(), Text::Unpack(&mut unpacker))?;
                    if record.seq != *seq {
                        return Err(Error::corrupt(format!("document {id:?} is out of order")));
                    }
                    f(id, record)?;
                }
                Ok(())
            })?;
            current = next;
        }
        Ok(())
    }
}

/// Looks the documents of `ids` up on [`SCAN_READERS`] threads, so that
/// their pages are in the cache when they are read in order. What goes
/// wrong here is left for that read to report.
fn look_up(docs: &Docs, ids: &[(u64, String)]) {
    if ids.len() < 2 {
        return;
    }
    std::thread::scope(|s| {
        for first in 0..SCAN_READERS.min(ids.len()) {
            s.spawn(move || {
                let mine = ids.iter().skip(first).step_by(SCAN_READERS);
                for (_, id) in mine {
                    // A damaged page is the ordered read's error to give.
                    let looked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        docs.get(id.as_str()).map(|g| g.map(|v| v.value().len()))
                    }));
                    if !matches!(looked, Ok(Ok(_))) {
                        return;
                    }
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_testkit::TempDir;

    fn record(n: u64) -> Record {
        Record::sample(n)
    }

    /// Ids whose key order is not their insertion order, over several
    /// chunks (the last one short), with texts.
    #[test]
    fn documents_come_in_insertion_order_across_chunks() {
        let dir = TempDir::new("store-scan");
        let s = Store::open(&dir, "m", "m").unwrap();
        let n = 2 * SCAN_CHUNK as u64 + 7;
        let id = |i: u64| format!("{:08x}", i.wrapping_mul(0x9E37_79B9) % 1_000_003);
        s.write(|t| {
            for i in 0..n {
                let text = format!("text of {i} é");
                let mut r = record(i);
                r.text_len = text.len() as u32;
                t.put(&id(i), &mut r, Some(&s.pack(&text)))?;
            }
            Ok(())
        })
        .unwrap();
        for from in [0, 1, SCAN_CHUNK as u64, n - 1, n, n + 5] {
            let mut got = Vec::new();
            s.load_from(from, |key, r| {
                assert_eq!(
                    r.text.as_deref(),
                    Some(format!("text of {} é", r.seq).as_str())
                );
                got.push((key.to_string(), r.seq, r.stored_at_ms));
                Ok(())
            })
            .unwrap();
            let want: Vec<_> = (from.min(n)..n).map(|i| (id(i), i, i)).collect();
            assert_eq!(got, want, "from {from}");
        }
    }

    /// An error from the caller stops the scan and is its result.
    #[test]
    fn the_callers_error_ends_the_scan() {
        let dir = TempDir::new("store-scan-stop");
        let s = Store::open(&dir, "m", "m").unwrap();
        s.write(|t| {
            for i in 0..10 {
                t.put(&format!("d{i}"), &mut record(i), None)?;
            }
            Ok(())
        })
        .unwrap();
        let mut calls = 0;
        let e = s
            .load_from(0, |_, r| {
                calls += 1;
                if r.seq == 3 {
                    return Err(Error::corrupt("stop here"));
                }
                Ok(())
            })
            .unwrap_err();
        assert_eq!(calls, 4);
        assert!(e.to_string().contains("stop here"), "{e}");
    }
}

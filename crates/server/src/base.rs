//! [`Base`]: a store's state as a list of records, what a shared store's
//! compacted base holds (see [`crate::redis`]): every stored document's
//! record, as the store keeps it (its sequence number, storing time,
//! recorded verdict, signature or band keys, packed text or sketch), in
//! insertion order, with the next sequence number and the count of
//! evictions. [`BaseReader::read`] reads it; [`restore`] (the writer's
//! [`crate::writer::Op::Restore`]) makes a store and its index hold the
//! same documents without judging any of them again: the records are
//! stored as they are and added to the index with their recorded
//! verdicts, by the same function that rebuilds the index at open
//! ([`crate::recover::add_records`]).
//!
//! Replicas of one log apply the same operations in the same order, so
//! they give every document the same sequence number: a replica that is
//! behind the base holds a prefix of its history. [`restore`] removes
//! what the base no longer holds, keeps what both hold (the same records)
//! and stores the rest under their own numbers.

use std::collections::HashSet;
use std::sync::atomic::Ordering;

use redb::{ReadableTable, ReadableTableMetadata};

use crate::error::Error;
use crate::record::Record;
use crate::shared::Shared;
use crate::store::{meta_u64, unwinding, Store, DOCS, META, ORDER};
use crate::store_tables::Tables;

/// Every stored document's record, in insertion order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Base {
    /// The next insertion sequence number.
    pub next_seq: u64,
    /// Documents evicted before (a counter of [`crate::Stats`]).
    pub evicted: u64,
    /// Each document's id and encoded record.
    pub docs: Vec<(String, Vec<u8>)>,
}

impl Store {
    /// The committed documents, as one read transaction sees them.
    #[cfg(test)]
    pub(crate) fn base(&self) -> Result<Base, Error> {
        self.base_reader()?.read()
    }

    /// Begins the read transaction of a base: it sees the store as it is
    /// now, however long the reading takes (the writer goes on).
    pub(crate) fn base_reader(&self) -> Result<BaseReader, Error> {
        unwinding("reading the store", || {
            self.db.begin_read().map(BaseReader).map_err(Error::store)
        })
    }
}

/// A read transaction for [`BaseReader::read`].
pub(crate) struct BaseReader(redb::ReadTransaction);

impl BaseReader {
    /// The documents the transaction sees, with the next sequence number
    /// (the eviction count is the caller's to set).
    pub(crate) fn read(self) -> Result<Base, Error> {
        unwinding("reading the store", || {
            let txn = self.0;
            let meta = txn.open_table(META).map_err(Error::store)?;
            let docs = txn.open_table(DOCS).map_err(Error::store)?;
            let order = txn.open_table(ORDER).map_err(Error::store)?;
            let mut out = Vec::with_capacity(order.len().map_err(Error::store)? as usize);
            for row in order.iter().map_err(Error::store)? {
                let (seq, id) = row.map_err(Error::store)?;
                let id = id.value().to_string();
                let got = docs.get(id.as_str()).map_err(Error::store)?;
                let bytes = got
                    .ok_or_else(|| {
                        Error::corrupt(format!("order entry {} has no document", seq.value()))
                    })?
                    .value()
                    .to_vec();
                out.push((id, bytes));
            }
            Ok(Base {
                next_seq: meta_u64(&meta, "next_seq")?,
                evicted: 0,
                docs: out,
            })
        })
    }
}

/// Makes the store (in the writer's transaction `t`) and the index hold
/// the documents of `base` and nothing else. Documents stored under a
/// sequence number the base does not hold are removed (as eviction
/// removes them); the base's documents from the store's next sequence
/// number on are stored as recorded and added to the index with their
/// recorded verdicts. A document before that number must be stored here
/// under the same id: else this store is not a prefix of the base's
/// history, an error.
pub(crate) fn restore(shared: &Shared, t: &mut Tables<'_>, base: Base) -> Result<(), Error> {
    let mut held = HashSet::with_capacity(base.docs.len());
    let mut fresh = Vec::new();
    for (id, bytes) in base.docs {
        let r = Record::decode_meta(&bytes)?;
        held.insert(r.seq);
        if r.seq >= t.next_seq {
            fresh.push((id, bytes));
        } else if t.seq_of(&id)? != Some(r.seq) {
            return Err(Error::corrupt(format!(
                "the base holds {id:?} as document {}, this store does not: not the same history",
                r.seq
            )));
        }
    }
    let gone: Vec<(u64, String)> = t
        .order
        .iter()
        .map_err(Error::store)?
        .map(|row| row.map(|(s, id)| (s.value(), id.value().to_string())))
        .collect::<Result<_, _>>()
        .map_err(Error::store)?;
    for (seq, id) in gone.into_iter().filter(|(s, _)| !held.contains(s)) {
        if let Ok(d) = u32::try_from(seq) {
            shared.write_state().remove(d);
        }
        t.delete(&id)?;
    }
    let mut records = Vec::with_capacity(fresh.len());
    for (id, bytes) in fresh {
        records.push(Record::decode(&bytes)?);
        t.restore(&id, bytes)?;
    }
    crate::recover::add_records(&shared.store, &mut shared.write_state(), &mut records)?;
    t.next_seq = t.next_seq.max(base.next_seq);
    shared.evicted.store(base.evicted, Ordering::Relaxed);
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::record::Record;
    use crate::writer::Op;
    use crate::{Config, ContentSeen};
    use neardup::io::{Content, RawDocument};
    use neardup_testkit::TempDir;
    use std::sync::mpsc;

    fn doc(i: u64) -> RawDocument {
        let text: String = (0..80)
            .map(|w| format!("w{} ", (i * 7919 + w * 104_729) % 50_021))
            .collect();
        RawDocument {
            id: format!("d{i}"),
            url: None,
            content: Content::Text(text),
        }
    }

    fn restore(seen: &ContentSeen, base: super::Base) {
        let (tx, rx) = mpsc::sync_channel(1);
        seen.send_local(Op::Restore(Box::new(base), tx)).unwrap();
        rx.recv().unwrap().unwrap();
    }

    /// A store restored from another's base, empty or a prefix of its
    /// history, holds the same records and judges the same.
    #[test]
    fn a_restored_store_holds_and_judges_as_the_original() {
        let mut config = Config::new();
        config.max_documents(Some(20));
        let dirs = [0, 1, 2].map(|i| TempDir::new(&format!("base-restore-{i}")));
        let [full, empty, prefix] = dirs
            .each_ref()
            .map(|d| ContentSeen::open(d, &config).unwrap());
        for i in 0..30 {
            full.insert(doc(i)).unwrap();
            if i < 12 {
                prefix.insert(doc(i)).unwrap();
            }
        }
        let mut base = full.shared().store.base().unwrap();
        base.evicted = full.stats().evicted;
        assert_eq!(base.docs.len(), 20);
        let numbers = |b: &super::Base| -> Vec<(String, u64)> {
            b.docs
                .iter()
                .map(|(id, r)| (id.clone(), Record::decode_meta(r).unwrap().seq))
                .collect()
        };
        for s in [&empty, &prefix] {
            restore(s, base.clone());
            let mut got = s.shared().store.base().unwrap();
            assert_eq!(numbers(&got), numbers(&base));
            assert_eq!(s.stats().documents, 20);
            assert_eq!(s.stats().evicted, full.stats().evicted);
            // The records restored are the base's, byte for byte (those
            // both held before keep this replica's storing time).
            if std::ptr::eq(s, &empty) {
                got.evicted = base.evicted;
                assert_eq!(got, base);
            }
        }
        // A copy of a live document is a duplicate everywhere, of an
        // evicted one nowhere; the next sequence number is the same.
        for (i, want) in [(15, Some("d15")), (3, None)] {
            let mut copy = doc(i);
            copy.id = format!("copy{i}");
            for s in [&full, &empty, &prefix] {
                let v = s.insert(copy.clone()).unwrap();
                assert_eq!(v.duplicate_of.as_deref(), want, "{i}");
            }
        }
        let last = |s: &ContentSeen| s.shared().store.base().unwrap().next_seq;
        assert_eq!(last(&empty), last(&full));
        assert_eq!(last(&prefix), last(&full));
        // A store that is not a prefix refuses the base.
        let other_dir = TempDir::new("base-restore-other");
        let other = ContentSeen::open(&other_dir, &config).unwrap();
        for i in 0..12 {
            let mut d = doc(100 + i);
            d.id = format!("x{i}");
            other.insert(d).unwrap();
        }
        let (tx, rx) = mpsc::sync_channel(1);
        other.send_local(Op::Restore(Box::new(base), tx)).unwrap();
        // (The writer's transaction fails: the answer is dropped.)
        assert!(!matches!(rx.recv(), Ok(Ok(()))));
    }
}

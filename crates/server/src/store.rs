//! The embedded store: one redb file in the data directory.
//!
//! Tables: `meta` (format version, method, next sequence number, next
//! removal number, the store's instance id), `docs` (id → [`Record`]),
//! `order` (sequence number → id: the insertion order, and the dense id
//! the in-memory index knows a document by) and `removed` (removal number
//! → sequence number: what an index snapshot must forget when it is
//! loaded; entries the newest snapshot covers are pruned). Every write
//! goes through one transaction per group of operations, committed with
//! redb's default immediate durability (fsync before the commit returns).
//!
//! Format 2 added `removed`, the instance id and the original's sequence
//! number in records; a format 1 store is upgraded when opened.

use std::path::{Path, PathBuf};

use redb::{
    Database, Durability, ReadableTable, ReadableTableMetadata, TableDefinition, TableError,
};

use crate::error::Error;
use crate::journal::Journal;
use crate::record::{PackedText, Packer, Record};
pub(crate) use crate::store_open::{make_private, open_error};
pub(crate) use crate::store_tables::{Position, ReadTables, Tables};

/// The store format this build writes and the newest it reads.
pub const FORMAT_VERSION: u32 = 3;

/// The store's file name inside the data directory.
pub const FILE_NAME: &str = "neardup.redb";

/// redb's page cache.
pub(crate) const CACHE_BYTES: usize = 64 << 20;

/// Compression contexts kept for reuse (about 1 MiB each); threads that
/// pack at once beyond these make their own.
pub(crate) const PACKERS_KEPT: usize = 8;

pub(crate) const META: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("meta");
pub(crate) const DOCS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("docs");
pub(crate) const ORDER: TableDefinition<'_, u64, &str> = TableDefinition::new("order");
pub(crate) const REMOVED: TableDefinition<'_, u64, u64> = TableDefinition::new("removed");

/// An open store.
#[derive(Debug)]
pub(crate) struct Store {
    pub(crate) db: Db,
    pub(crate) path: PathBuf,
    /// Compression contexts for texts, taken by the threads that pack
    /// (at most [`PACKERS_KEPT`] kept).
    pub(crate) packers: std::sync::Mutex<Vec<Packer>>,
    /// The write-ahead journal, once the store is open: until then every
    /// write is a durable commit.
    pub(crate) journal: std::sync::Mutex<Option<Journal>>,
    /// Documents stored again from the journal when the store was opened.
    pub(crate) from_journal: u64,
    /// Journal bytes that make the next write a checkpoint
    /// ([`crate::journal::CHECKPOINT_BYTES`]; smaller in tests).
    pub(crate) checkpoint_bytes: u64,
}

/// The database, closed without a panic escaping even when the storage
/// engine chokes on a damaged file while it closes.
#[derive(Debug)]
pub(crate) struct Db(pub(crate) Option<Database>);

impl std::ops::Deref for Db {
    type Target = Database;

    fn deref(&self) -> &Database {
        self.0
            .as_ref()
            .expect("the database lives until the store is dropped")
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Some(db) = self.0.take() {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(db)));
        }
    }
}

/// A `u64` of the metadata.
pub(crate) fn meta_u64(
    meta: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &str,
) -> Result<u64, Error> {
    meta.get(key)
        .map_err(Error::store)?
        .and_then(|g| <[u8; 8]>::try_from(g.value()).ok())
        .map(u64::from_le_bytes)
        .ok_or_else(|| Error::corrupt(format!("no {key} in the metadata")))
}

/// A `u64` of the metadata, `default` when it is not there.
pub(crate) fn meta_u64_or(
    meta: &impl ReadableTable<&'static str, &'static [u8]>,
    key: &str,
    default: u64,
) -> Result<u64, Error> {
    match meta.get(key).map_err(Error::store)? {
        None => Ok(default),
        Some(g) => <[u8; 8]>::try_from(g.value())
            .map(u64::from_le_bytes)
            .map_err(|_| Error::corrupt(format!("bad {key} in the metadata"))),
    }
}

/// Runs a store operation, turning a panic inside the storage engine (a
/// damaged file it did not expect) into an error naming the store as
/// corrupt: the service exits with a message, never a crash.
pub(crate) fn unwinding<T>(what: &str, f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(Error::corrupt(format!(
            "{what}: the storage engine failed on a damaged file"
        )))
    })
}

impl Store {
    /// The store file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The sequence numbers removed from removal number `from` on.
    pub fn removed_from(&self, from: u64, mut f: impl FnMut(u64)) -> Result<(), Error> {
        unwinding("reading the store", || {
            let txn = self.db.begin_read().map_err(Error::store)?;
            let removed = txn.open_table(REMOVED).map_err(Error::store)?;
            for row in removed.range(from..).map_err(Error::store)? {
                f(row.map_err(Error::store)?.1.value());
            }
            Ok(())
        })
    }

    /// Where the store stands (committed state).
    pub fn position(&self) -> Result<Position, Error> {
        unwinding("reading the store's metadata", || {
            let txn = self.db.begin_read().map_err(Error::store)?;
            let meta = txn.open_table(META).map_err(Error::store)?;
            Ok(Position {
                instance: meta_u64(&meta, "instance")?,
                next_seq: meta_u64(&meta, "next_seq")?,
                next_removal: meta_u64(&meta, "next_removal")?,
            })
        })
    }

    /// Runs `f` over the tables of one read transaction (committed state).
    pub fn read<R>(&self, f: impl FnOnce(&ReadTables) -> Result<R, Error>) -> Result<R, Error> {
        unwinding("reading the store", || {
            let txn = self.db.begin_read().map_err(Error::store)?;
            let tables = ReadTables {
                docs: txn.open_table(DOCS).map_err(Error::store)?,
                order: txn.open_table(ORDER).map_err(Error::store)?,
            };
            f(&tables)
        })
    }

    /// The number of stored documents.
    pub fn count(&self) -> Result<u64, Error> {
        unwinding("counting the store", || {
            let txn = self.db.begin_read().map_err(Error::store)?;
            match txn.open_table(DOCS) {
                Ok(t) => t.len().map_err(Error::store),
                Err(TableError::TableDoesNotExist(_)) => Ok(0),
                Err(e) => Err(Error::store(e)),
            }
        })
    }

    /// One stored document.
    pub fn get(&self, id: &str) -> Result<Option<Record>, Error> {
        unwinding("reading the store", || {
            let txn = self.db.begin_read().map_err(Error::store)?;
            let docs = match txn.open_table(DOCS) {
                Ok(t) => t,
                Err(TableError::TableDoesNotExist(_)) => return Ok(None),
                Err(e) => return Err(Error::store(e)),
            };
            let got = docs.get(id).map_err(Error::store)?;
            got.map(|g| Record::decode(g.value())).transpose()
        })
    }

    /// Runs `f` over the tables of one write transaction and commits it
    /// when `f` succeeds (durable when this returns: in the journal, or in
    /// the store itself at a checkpoint; see the `journal` module); aborts
    /// it when `f` fails.
    pub fn write<R>(
        &self,
        f: impl FnOnce(&mut Tables<'_>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        unwinding("writing to the store", || self.write_txn(false, f))
    }

    /// Like [`Store::write`], always as a checkpoint: the store file holds
    /// everything committed, the journal is emptied.
    pub(crate) fn write_checkpoint<R>(
        &self,
        f: impl FnOnce(&mut Tables<'_>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        unwinding("writing to the store", || self.write_txn(true, f))
    }

    /// `text` compressed for its record, on the calling thread.
    pub(crate) fn pack(&self, text: &str) -> PackedText {
        let taken = self.packers.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut packer = taken.unwrap_or_else(Packer::new);
        let packed = PackedText::new(text, &mut packer);
        let mut kept = self.packers.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() < PACKERS_KEPT {
            kept.push(packer);
        }
        packed
    }

    fn write_txn<R>(
        &self,
        checkpoint: bool,
        f: impl FnOnce(&mut Tables<'_>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let mut journal = self.journal.lock().unwrap_or_else(|p| p.into_inner());
        let durable = checkpoint
            || journal
                .as_ref()
                .is_none_or(|j| j.len() >= self.checkpoint_bytes);
        let mut txn = self.db.begin_write().map_err(Error::store)?;
        if durable {
            // The allocator's state goes with the commit: a crash after
            // it needs no walk over the whole file.
            txn.set_quick_repair(true);
        } else {
            txn.set_durability(Durability::None);
        }
        let (out, batch, log) = {
            let mut meta = txn.open_table(META).map_err(Error::store)?;
            let next_seq = meta_u64(&meta, "next_seq")?;
            let next_removal = meta_u64(&meta, "next_removal")?;
            let batch = meta_u64_or(&meta, "journal_batch", 0)? + 1;
            let mut tables = Tables {
                docs: txn.open_table(DOCS).map_err(Error::store)?,
                order: txn.open_table(ORDER).map_err(Error::store)?,
                removed: txn.open_table(REMOVED).map_err(Error::store)?,
                next_seq,
                next_removal,
                log: Vec::new(),
                batch,
            };
            let out = f(&mut tables)?;
            if !tables.log.is_empty() {
                meta.insert("journal_batch", tables.batch.to_le_bytes().as_slice())
                    .map_err(Error::store)?;
            }
            if tables.next_seq != next_seq {
                meta.insert("next_seq", tables.next_seq.to_le_bytes().as_slice())
                    .map_err(Error::store)?;
            }
            if tables.next_removal != next_removal {
                meta.insert("next_removal", tables.next_removal.to_le_bytes().as_slice())
                    .map_err(Error::store)?;
            }
            (out, tables.batch, std::mem::take(&mut tables.log))
        };
        txn.commit().map_err(Error::store)?;
        match journal.as_mut() {
            Some(j) if durable => j.clear()?,
            Some(j) if !log.is_empty() => j.append(batch, &log)?,
            _ => {}
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use neardup_testkit::TempDir;

    fn record(sig: u8) -> Record {
        Record {
            seq: 0,
            stored_at_ms: 1,
            text_len: 3,
            url: None,
            signature: Some(vec![sig]),
            duplicate_of: None,
            original_seq: None,
            text: None,
            sketch: None,
            band_keys: None,
        }
    }

    #[test]
    fn writes_survive_reopen_in_order() {
        let dir = TempDir::new("store-reopen");
        {
            let s = Store::open(&dir, "m", "m").unwrap();
            s.write(|t| {
                t.put("b", &mut record(1), None).unwrap();
                t.put("a", &mut record(2), None).unwrap();
                t.put("c", &mut record(3), None).unwrap();
                assert!(t.delete("c").unwrap());
                assert!(!t.delete("zz").unwrap());
                Ok(())
            })
            .unwrap();
        }
        let s = Store::open(&dir, "m", "m").unwrap();
        let mut seen = Vec::new();
        s.load(|id, r| {
            seen.push((id.to_string(), r.seq));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [("b".to_string(), 0), ("a".to_string(), 1)]);
        assert_eq!(s.get("a").unwrap().unwrap().signature, Some(vec![2]));
        assert!(s.get("c").unwrap().is_none());
        // Sequence numbers are not reused.
        s.write(|t| t.put("d", &mut record(4), None)).unwrap();
        assert_eq!(s.get("d").unwrap().unwrap().seq, 3);
        drop(s);
        let e = Store::open(&dir, "other", "other").unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::MethodMismatch { .. }), "{e}");
    }
}

//! The store and its journal: at open, the journal's batches the store
//! does not hold are applied again (checked read-only first, so that a
//! store whose journal is refused is not written to); at close, a last
//! checkpoint leaves the journal empty. The journal itself: `journal.rs`.

use std::path::Path;

use redb::TableError;

use crate::error::Error;
use crate::journal::{Batches, Journal};
use crate::store::{meta_u64, meta_u64_or, unwinding, Store, META};

impl Store {
    /// The batches of the journal in `dir` that the store does not hold,
    /// in order; read-only. Refuses a journal of another store, or one
    /// whose batches do not follow the store's last.
    pub(crate) fn pending_journal(&self, dir: &Path) -> Result<Batches, Error> {
        let Some((instance, batches)) = Journal::read(dir)? else {
            return Ok(Vec::new());
        };
        let stored = unwinding("reading the store's metadata", || {
            let txn = self.db.begin_read().map_err(Error::store)?;
            match txn.open_table(META) {
                Ok(meta) => Ok(Some((
                    meta_u64(&meta, "instance")?,
                    meta_u64_or(&meta, "journal_batch", 0)?,
                ))),
                Err(TableError::TableDoesNotExist(_)) => Ok(None),
                Err(e) => Err(Error::store(e)),
            }
        })?;
        let (store_instance, done) = match stored {
            Some(s) => s,
            None if batches.is_empty() => return Ok(Vec::new()),
            None => (0, 0),
        };
        if batches.is_empty() {
            return Ok(batches);
        }
        if store_instance != instance {
            return Err(Error::corrupt(format!(
                "{}: the journal belongs to another store; move it away to open this one without it",
                dir.join(crate::journal::JOURNAL_FILE).display()
            )));
        }
        let pending: Batches = batches.into_iter().filter(|(b, _)| *b > done).collect();
        for (i, (b, _)) in pending.iter().enumerate() {
            if *b != done + 1 + i as u64 {
                return Err(Error::corrupt(format!(
                    "journal: batch {b} where batch {} was expected",
                    done + 1 + i as u64
                )));
            }
        }
        Ok(pending)
    }

    /// Applies `pending` (from [`Store::pending_journal`]) in one
    /// checkpoint, then starts the journal afresh: from here on writes go
    /// through it. The number of documents stored again.
    pub(crate) fn attach_journal(&self, dir: &Path, pending: Batches) -> Result<u64, Error> {
        let mut puts = 0;
        if let Some(last) = pending.last().map(|(b, _)| *b) {
            self.write_checkpoint(|t| {
                for (_, ops) in pending {
                    for op in ops {
                        puts += u64::from(matches!(op, crate::journal::Logged::Put { .. }));
                        t.redo(op)?;
                    }
                }
                t.batch = last;
                Ok(())
            })?;
        }
        let instance = self.position()?.instance;
        let journal = Journal::create(dir, instance)?;
        *self.journal.lock().unwrap_or_else(|p| p.into_inner()) = Some(journal);
        Ok(puts)
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        let journal = self.journal.get_mut().unwrap_or_else(|p| p.into_inner());
        if journal.as_ref().is_some_and(|j| j.len() > 0) {
            // Nothing is lost when this fails: the journal stays.
            let _ = self.write_checkpoint(|_| Ok(()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::JOURNAL_FILE;
    use crate::record::Record;
    use crate::store::FILE_NAME;
    use neardup_testkit::TempDir;

    fn record(n: u64) -> Record {
        Record::sample(n)
    }

    /// The files of `from` as a crash would leave them (what was written,
    /// synced or not), in `to`.
    fn crash_image(from: &Path, to: &Path) {
        for name in [FILE_NAME, JOURNAL_FILE] {
            std::fs::copy(from.join(name), to.join(name)).unwrap();
        }
    }

    fn contents(s: &Store) -> Vec<(String, u64, u64)> {
        let mut all = Vec::new();
        s.load_from(0, |id, r| {
            all.push((id.to_string(), r.seq, r.stored_at_ms));
            Ok(())
        })
        .unwrap();
        all
    }

    /// Batches of puts and deletes, some of them past a checkpoint.
    fn write_batches(s: &Store, batches: u64) {
        for b in 0..batches {
            s.write(|t| {
                for i in 0..20 {
                    t.put(&format!("d{b}-{i}"), &mut record(b * 100 + i), None)?;
                }
                if b > 0 {
                    t.delete(&format!("d{}-3", b - 1))?;
                }
                Ok(())
            })
            .unwrap();
        }
    }

    #[test]
    fn a_crash_image_holds_every_committed_batch() {
        for checkpoint_bytes in [u64::MAX, 3000] {
            let dir = TempDir::new("journal-crash");
            let image = TempDir::new("journal-crash-image");
            let mut s = Store::open(&dir, "m", "m").unwrap();
            s.checkpoint_bytes = checkpoint_bytes;
            write_batches(&s, 12);
            let journal = std::fs::metadata(dir.join(JOURNAL_FILE)).unwrap().len();
            if checkpoint_bytes == u64::MAX {
                assert!(journal > 2000, "the batches are in the journal: {journal}");
            } else {
                assert!(journal < 3000 + 2000, "checkpoints emptied it: {journal}");
            }
            crash_image(&dir, &image);
            let want = contents(&s);
            assert_eq!(want.len(), 12 * 20 - 11);
            let again = Store::open(&image, "m", "m").unwrap();
            assert_eq!(contents(&again), want);
            // The journal was applied and emptied; writing goes on.
            assert_eq!(
                std::fs::metadata(image.join(JOURNAL_FILE)).unwrap().len(),
                20
            );
            assert_eq!(again.position().unwrap(), s.position().unwrap());
            again
                .write(|t| t.put("more", &mut record(7), None))
                .unwrap();
            assert_eq!(contents(&again).len(), want.len() + 1);
        }
    }

    #[test]
    fn a_clean_close_leaves_an_empty_journal() {
        let dir = TempDir::new("journal-close");
        let s = Store::open(&dir, "m", "m").unwrap();
        write_batches(&s, 3);
        let want = contents(&s);
        drop(s);
        assert_eq!(std::fs::metadata(dir.join(JOURNAL_FILE)).unwrap().len(), 20);
        let s = Store::open(&dir, "m", "m").unwrap();
        assert_eq!(s.from_journal, 0);
        assert_eq!(contents(&s), want);
    }

    #[test]
    fn a_journal_of_another_store_is_refused_before_anything_is_written() {
        let dir = TempDir::new("journal-mine");
        let other = TempDir::new("journal-other-store");
        let image = TempDir::new("journal-mine-image");
        let s = Store::open(&dir, "m", "m").unwrap();
        write_batches(&s, 2);
        crash_image(&dir, &image);
        drop(s);
        drop(Store::open(&other, "m", "m").unwrap());
        let before = std::fs::read(other.join(FILE_NAME)).unwrap();
        std::fs::copy(image.join(JOURNAL_FILE), other.join(JOURNAL_FILE)).unwrap();
        let e = Store::open(&other, "m", "m").unwrap_err();
        assert!(e.to_string().contains("another store"), "{e}");
        assert!(std::fs::read(other.join(FILE_NAME)).unwrap() == before);
        // A batch missing between the store and the journal is refused
        // too, the store left as it was.
        let (instance, mut batches) = Journal::read(&image).unwrap().unwrap();
        assert!(batches.len() >= 2);
        batches.remove(0);
        let mut j = Journal::create(&image, instance).unwrap();
        for (b, ops) in &batches {
            j.append(*b, ops).unwrap();
        }
        drop(j);
        let journal = std::fs::read(image.join(JOURNAL_FILE)).unwrap();
        let e = Store::open(&image, "m", "m").unwrap_err();
        assert!(e.to_string().contains("was expected"), "{e}");
        // The journal is left for whoever looks into it.
        assert!(std::fs::read(image.join(JOURNAL_FILE)).unwrap() == journal);
    }
}

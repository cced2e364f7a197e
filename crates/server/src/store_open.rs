//! Opening a [`Store`]: refusing what is not a neardup store before
//! anything is written to it (a file of another kind, a newer format,
//! another method, a store open elsewhere), creating a new one, upgrading
//! a format 1 store or a legacy method description, and opening any
//! store for offline maintenance.

use std::path::{Path, PathBuf};

use redb::{
    Database, DatabaseError, ReadableTable, ReadableTableMetadata, StorageError, TableError,
};

use crate::error::{Error, ErrorKind};
use crate::store::{
    unwinding, Db, Store, CACHE_BYTES, DOCS, FILE_NAME, FORMAT_VERSION, META, ORDER, REMOVED,
};

/// A fresh instance id for a new store: different for every store made.
fn new_instance() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!("{now} {} {:p}", std::process::id(), &now);
    xxhash_rust::xxh3::xxh3_64(seed.as_bytes())
}

pub(crate) fn open_error(e: DatabaseError) -> Error {
    match e {
        DatabaseError::DatabaseAlreadyOpen => Error::new(ErrorKind::Locked),
        DatabaseError::Storage(StorageError::Corrupted(m)) => Error::corrupt(m),
        DatabaseError::UpgradeRequired(v) => Error::corrupt(format!(
            "redb file format {v} is not readable by this build"
        )),
        other => Error::store(other),
    }
}

/// Refuses a file that is not a redb database before redb opens it (and
/// perhaps writes to it): a file of another kind, or one cut short.
fn check_magic(path: &Path) -> Result<(), Error> {
    const MAGIC: [u8; 9] = [b'r', b'e', b'd', b'b', 0x1A, 0x0A, 0xA9, 0x0D, 0x0A];
    let mut head = [0u8; 9];
    let n = match std::fs::File::open(path) {
        Ok(mut f) => {
            use std::io::Read;
            f.read(&mut head).map_err(|e| {
                Error::with_source(ErrorKind::Io(format!("{}: {e}", path.display())), e)
            })?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(Error::with_source(
                ErrorKind::Io(format!("{}: {e}", path.display())),
                e,
            ))
        }
    };
    if n == 0 {
        return Ok(());
    }
    if n < MAGIC.len() || head != MAGIC {
        return Err(Error::corrupt(format!(
            "{} is not a neardup store (not a redb database)",
            path.display()
        )));
    }
    Ok(())
}

/// Only the owner may read or write the store: it holds every page's text.
#[cfg(unix)]
pub(crate) fn make_private(path: &Path) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| Error::with_source(ErrorKind::Io(format!("{}: {e}", path.display())), e))
}

#[cfg(not(unix))]
pub(crate) fn make_private(_path: &Path) -> Result<(), Error> {
    Ok(())
}

impl Store {
    /// Opens or creates the store in `dir`, checking its format version and
    /// method description (`method`); a store that records `legacy` (the
    /// same method, as an older version described it) is upgraded to
    /// `method`.
    pub fn open(dir: &Path, method: &str, legacy: &str) -> Result<Store, Error> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::with_source(ErrorKind::Io(format!("{}: {e}", dir.display())), e))?;
        let mut store = Store::open_file(dir.join(FILE_NAME))?;
        make_private(&store.path)?;
        let pending = store.pending_journal(dir)?;
        unwinding("reading the store's metadata", || {
            store.check_meta(method, legacy)
        })?;
        store.from_journal = store.attach_journal(dir, pending)?;
        Ok(store)
    }

    /// Opens (or creates) the redb file at `path`, after checking that an
    /// existing file is a redb database.
    fn open_file(path: PathBuf) -> Result<Store, Error> {
        check_magic(&path)?;
        // redb's page cache defaults to 1 GiB; the store is read once at
        // open and then mostly appended to, so a small cache does.
        let db = unwinding("opening the store", || {
            Database::builder()
                .set_cache_size(CACHE_BYTES)
                .create(&path)
                .map_err(open_error)
        })?;
        Ok(Store {
            db: Db(Some(db)),
            path,
            packers: std::sync::Mutex::new(Vec::new()),
            journal: std::sync::Mutex::new(None),
            from_journal: 0,
            checkpoint_bytes: crate::journal::CHECKPOINT_BYTES,
        })
    }

    /// Opens an existing store in `dir` for offline maintenance, whatever
    /// its method: its recorded format version and method description.
    pub fn open_existing(dir: &Path) -> Result<(Store, u32, String), Error> {
        let path = dir.join(FILE_NAME);
        if !path.is_file() {
            return Err(Error::new(ErrorKind::Io(format!(
                "{}: no store here",
                path.display()
            ))));
        }
        let store = Store::open_file(path)?;
        let (format, method) = unwinding("reading the store's metadata", || {
            let txn = store.db.begin_read().map_err(Error::store)?;
            let meta = txn.open_table(META).map_err(Error::store)?;
            let format = meta
                .get("format")
                .map_err(Error::store)?
                .and_then(|g| <[u8; 4]>::try_from(g.value()).ok())
                .map(u32::from_le_bytes)
                .ok_or_else(|| Error::corrupt("no format version"))?;
            let method = meta
                .get("method")
                .map_err(Error::store)?
                .map(|g| String::from_utf8_lossy(g.value()).into_owned())
                .ok_or_else(|| Error::corrupt("no method recorded"))?;
            Ok((format, method))
        })?;
        if format > FORMAT_VERSION {
            return Err(Error::new(ErrorKind::NewerFormat {
                found: format,
                supported: FORMAT_VERSION,
            }));
        }
        let pending = store.pending_journal(dir)?;
        let mut store = store;
        store.from_journal = store.attach_journal(dir, pending)?;
        Ok((store, format, method))
    }

    /// Compacts the file (frees the pages of deleted documents); whether
    /// anything was freed.
    pub fn compact(mut self) -> Result<bool, Error> {
        let db = self.db.0.as_mut();
        unwinding("compacting the store", || match db {
            Some(db) => db.compact().map_err(Error::store),
            None => Ok(false),
        })
    }

    /// Checks the format version and the method read-only, and writes only
    /// to a new store (its metadata) or to upgrade a legacy description: a
    /// store that is refused is never written to.
    fn check_meta(&self, method: &str, legacy: &str) -> Result<(), Error> {
        let mut stored_format = None;
        let stored = {
            let txn = self.db.begin_read().map_err(Error::store)?;
            let meta = match txn.open_table(META) {
                Ok(t) => Some(t),
                Err(TableError::TableDoesNotExist(_)) => None,
                Err(e) => return Err(Error::store(e)),
            };
            let docs = match txn.open_table(DOCS) {
                Ok(t) => t.len().map_err(Error::store)?,
                Err(TableError::TableDoesNotExist(_)) => 0,
                Err(e) => return Err(Error::store(e)),
            };
            let get = |key: &str| -> Result<Option<Vec<u8>>, Error> {
                match &meta {
                    Some(m) => Ok(m
                        .get(key)
                        .map_err(Error::store)?
                        .map(|g| g.value().to_vec())),
                    None => Ok(None),
                }
            };
            match get("format")? {
                None if docs > 0 => return Err(Error::corrupt("documents but no format version")),
                None => None,
                Some(v) => {
                    let v: [u8; 4] = v
                        .as_slice()
                        .try_into()
                        .map_err(|_| Error::corrupt("bad format version"))?;
                    let found = u32::from_le_bytes(v);
                    stored_format = Some(found);
                    if found > FORMAT_VERSION {
                        return Err(Error::new(ErrorKind::NewerFormat {
                            found,
                            supported: FORMAT_VERSION,
                        }));
                    }
                    let stored = get("method")?
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                        .ok_or_else(|| Error::corrupt("no method recorded"))?;
                    if stored != method && stored != legacy {
                        return Err(Error::new(ErrorKind::MethodMismatch {
                            stored,
                            configured: method.to_string(),
                        }));
                    }
                    Some(stored)
                }
            }
        };
        if stored.as_deref() == Some(method) && stored_format == Some(FORMAT_VERSION) {
            return Ok(());
        }
        // A new store, one of format 1, or one whose legacy description is
        // upgraded.
        let txn = self.db.begin_write().map_err(Error::store)?;
        {
            let mut meta = txn.open_table(META).map_err(Error::store)?;
            txn.open_table(DOCS).map_err(Error::store)?;
            txn.open_table(ORDER).map_err(Error::store)?;
            txn.open_table(REMOVED).map_err(Error::store)?;
            if stored.is_none() {
                meta.insert("next_seq", 0u64.to_le_bytes().as_slice())
                    .map_err(Error::store)?;
            }
            if meta.get("next_removal").map_err(Error::store)?.is_none() {
                meta.insert("next_removal", 0u64.to_le_bytes().as_slice())
                    .map_err(Error::store)?;
            }
            if meta.get("instance").map_err(Error::store)?.is_none() {
                meta.insert("instance", new_instance().to_le_bytes().as_slice())
                    .map_err(Error::store)?;
            }
            meta.insert("format", FORMAT_VERSION.to_le_bytes().as_slice())
                .map_err(Error::store)?;
            meta.insert("method", method.as_bytes())
                .map_err(Error::store)?;
        }
        txn.commit().map_err(Error::store)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_testkit::TempDir;

    #[test]
    fn a_store_recording_the_legacy_description_is_upgraded() {
        let dir = TempDir::new("store-legacy");
        drop(Store::open(&dir, "old", "older").unwrap());
        // Opened by a build that describes the same method anew.
        drop(Store::open(&dir, "new", "old").unwrap());
        // The record now says the new description: the old one is refused.
        let e = Store::open(&dir, "old", "old").unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::MethodMismatch { .. }), "{e}");
        drop(Store::open(&dir, "new", "unrelated").unwrap());
    }

    #[test]
    fn newer_format_is_refused() {
        let dir = TempDir::new("store-newer");
        {
            let s = Store::open(&dir, "m", "m").unwrap();
            let txn = s.db.begin_write().unwrap();
            txn.open_table(META)
                .unwrap()
                .insert("format", 99u32.to_le_bytes().as_slice())
                .unwrap();
            txn.commit().unwrap();
        }
        let e = Store::open(&dir, "m", "m").unwrap_err();
        assert_eq!(
            e.kind(),
            &ErrorKind::NewerFormat {
                found: 99,
                supported: FORMAT_VERSION
            }
        );
    }

    #[test]
    fn garbage_file_is_an_error_not_a_reset() {
        let dir = TempDir::new("store-garbage");
        let junk: Vec<u8> = (0..100_000u32).map(|i| (i * 7919 % 251) as u8).collect();
        std::fs::write(dir.join(FILE_NAME), &junk).unwrap();
        assert!(Store::open(&dir, "m", "m").is_err());
        // The file was left as it was.
        assert_eq!(std::fs::read(dir.join(FILE_NAME)).unwrap(), junk);
    }

    #[test]
    fn second_open_is_locked() {
        let dir = TempDir::new("store-locked");
        let _s = Store::open(&dir, "m", "m").unwrap();
        let e = Store::open(&dir, "m", "m").unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::Locked);
    }
}

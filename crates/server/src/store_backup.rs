//! Online backups of a store: a consistent copy (one read transaction)
//! into a new store file while the service goes on.

use std::path::Path;

use redb::{Database, ReadableTable};

use crate::error::{Error, ErrorKind};
use crate::store::{
    make_private, open_error, unwinding, Store, CACHE_BYTES, DOCS, META, ORDER, REMOVED,
};

impl Store {
    /// Copies a consistent snapshot of the store (one read transaction:
    /// every document committed before it, none after) into a new store
    /// file at `to`, which must not exist; the service goes on meanwhile.
    /// Returns the documents copied.
    pub fn backup(&self, to: &Path) -> Result<u64, Error> {
        let io = |e: std::io::Error| {
            Error::with_source(ErrorKind::Io(format!("{}: {e}", to.display())), e)
        };
        if to.exists() {
            return Err(Error::new(ErrorKind::Io(format!(
                "{}: already exists",
                to.display()
            ))));
        }
        let tmp = to.with_extension("partial");
        let _ = std::fs::remove_file(&tmp);
        let copied = unwinding("backing the store up", || {
            let out = Database::builder()
                .set_cache_size(CACHE_BYTES)
                .create(&tmp)
                .map_err(open_error)?;
            make_private(&tmp)?;
            let read = self.db.begin_read().map_err(Error::store)?;
            let write = out.begin_write().map_err(Error::store)?;
            let mut copied = 0;
            {
                let (src, mut dst) = (
                    read.open_table(META).map_err(Error::store)?,
                    write.open_table(META).map_err(Error::store)?,
                );
                for row in src.iter().map_err(Error::store)? {
                    let (k, v) = row.map_err(Error::store)?;
                    dst.insert(k.value(), v.value()).map_err(Error::store)?;
                }
                let (src, mut dst) = (
                    read.open_table(DOCS).map_err(Error::store)?,
                    write.open_table(DOCS).map_err(Error::store)?,
                );
                for row in src.iter().map_err(Error::store)? {
                    let (k, v) = row.map_err(Error::store)?;
                    dst.insert(k.value(), v.value()).map_err(Error::store)?;
                    copied += 1;
                }
                let (src, mut dst) = (
                    read.open_table(ORDER).map_err(Error::store)?,
                    write.open_table(ORDER).map_err(Error::store)?,
                );
                for row in src.iter().map_err(Error::store)? {
                    let (k, v) = row.map_err(Error::store)?;
                    dst.insert(k.value(), v.value()).map_err(Error::store)?;
                }
                let (src, mut dst) = (
                    read.open_table(REMOVED).map_err(Error::store)?,
                    write.open_table(REMOVED).map_err(Error::store)?,
                );
                for row in src.iter().map_err(Error::store)? {
                    let (k, v) = row.map_err(Error::store)?;
                    dst.insert(k.value(), v.value()).map_err(Error::store)?;
                }
            }
            write.commit().map_err(Error::store)?;
            Ok(copied)
        });
        match copied {
            Ok(n) => {
                std::fs::rename(&tmp, to).map_err(io)?;
                Ok(n)
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(e)
            }
        }
    }
}

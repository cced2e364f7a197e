//! The files of a partitioned run: a private directory under the spill
//! directory, removed with everything in it when the run ends, and the
//! fixed-size records written there.

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Buffer size of each spill file.
const BUF: usize = 1 << 16;

/// A directory of spill files, removed when dropped.
#[derive(Debug)]
pub(crate) struct SpillDir {
    path: PathBuf,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

impl SpillDir {
    /// Creates `neardup-spans-<pid>-<n>` under `parent`.
    pub fn create(parent: &Path) -> io::Result<SpillDir> {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = parent.join(format!("neardup-spans-{}-{n}", std::process::id()));
        fs::create_dir_all(&path)?;
        Ok(SpillDir { path })
    }

    /// A new file `name` in the directory, for writing.
    pub fn writer(&self, name: &str) -> io::Result<BufWriter<File>> {
        Ok(BufWriter::with_capacity(
            BUF,
            File::create(self.path.join(name))?,
        ))
    }

    /// The file `name`, for reading.
    pub fn reader(&self, name: &str) -> io::Result<BufReader<File>> {
        Ok(BufReader::with_capacity(
            BUF,
            File::open(self.path.join(name))?,
        ))
    }

    /// Reads the whole file `name`.
    pub fn read_all(&self, name: &str) -> io::Result<Vec<u8>> {
        fs::read(self.path.join(name))
    }

    /// Where the directory is.
    #[cfg(test)]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the file `name`.
    pub fn remove(&self, name: &str) {
        let _ = fs::remove_file(self.path.join(name));
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// One occurrence of a key, as a partition holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Occurrence {
    pub key: u64,
    pub doc: u32,
    pub unit: u32,
    /// Index of the key in its document (`u32::MAX` for a first
    /// occurrence carried over from the streaming index).
    pub key_idx: u32,
}

impl Occurrence {
    pub const SIZE: usize = 20;

    pub fn write(&self, w: &mut impl Write) -> io::Result<()> {
        let mut b = [0u8; Self::SIZE];
        b[..8].copy_from_slice(&self.key.to_le_bytes());
        b[8..12].copy_from_slice(&self.doc.to_le_bytes());
        b[12..16].copy_from_slice(&self.unit.to_le_bytes());
        b[16..20].copy_from_slice(&self.key_idx.to_le_bytes());
        w.write_all(&b)
    }

    pub fn read_all(bytes: &[u8]) -> Vec<Occurrence> {
        bytes
            .chunks_exact(Self::SIZE)
            .map(|b| Occurrence {
                key: u64_at(b, 0),
                doc: u32_at(b, 8),
                unit: u32_at(b, 12),
                key_idx: u32_at(b, 16),
            })
            .collect()
    }
}

/// A decision of a partition: key `key_idx` of document `doc` was seen,
/// first in document `first`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Decision {
    pub doc: u32,
    pub key_idx: u32,
    pub first: u32,
}

impl Decision {
    pub const SIZE: usize = 12;

    pub fn write(&self, w: &mut impl Write) -> io::Result<()> {
        let mut b = [0u8; Self::SIZE];
        b[..4].copy_from_slice(&self.doc.to_le_bytes());
        b[4..8].copy_from_slice(&self.key_idx.to_le_bytes());
        b[8..12].copy_from_slice(&self.first.to_le_bytes());
        w.write_all(&b)
    }

    /// The next decision of `r`, `None` at its end.
    pub fn read(r: &mut impl Read) -> io::Result<Option<Decision>> {
        let mut b = [0u8; Self::SIZE];
        match r.read_exact(&mut b) {
            Ok(()) => Ok(Some(Decision {
                doc: u32_at(&b, 0),
                key_idx: u32_at(&b, 4),
                first: u32_at(&b, 8),
            })),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(x)
}

pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back() {
        let dir = neardup_testkit::TempDir::new("spans-spill");
        let spill = SpillDir::create(&dir).unwrap();
        let occ = Occurrence {
            key: u64::MAX - 3,
            doc: 7,
            unit: 2,
            key_idx: u32::MAX,
        };
        let mut w = spill.writer("o").unwrap();
        occ.write(&mut w).unwrap();
        occ.write(&mut w).unwrap();
        drop(w);
        assert_eq!(
            Occurrence::read_all(&spill.read_all("o").unwrap()),
            [occ, occ]
        );
        let d = Decision {
            doc: 1,
            key_idx: 2,
            first: 0,
        };
        let mut w = spill.writer("d").unwrap();
        d.write(&mut w).unwrap();
        drop(w);
        let mut r = spill.reader("d").unwrap();
        assert_eq!(Decision::read(&mut r).unwrap(), Some(d));
        assert_eq!(Decision::read(&mut r).unwrap(), None);
        drop(spill);
        assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0);
    }
}

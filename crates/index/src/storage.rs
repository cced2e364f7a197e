//! Where spill runs live: the [`SpillStorage`] trait, a directory of files
//! ([`DirStorage`]) and memory ([`MemoryStorage`], for tests and small
//! inputs).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Where runs are kept. Run ids are chosen by the caller and unique while
/// the runs exist.
pub trait SpillStorage {
    /// Writer of a new run.
    type Writer: Write;
    /// Reader of a finished run (read on a merge thread of its own).
    type Reader: Read + Send;
    /// Starts run `run`.
    fn create(&mut self, run: u32) -> io::Result<Self::Writer>;
    /// Completes run `run` once everything was written.
    fn finish(&mut self, run: u32, writer: Self::Writer) -> io::Result<()>;
    /// Opens finished run `run` for reading.
    fn open(&mut self, run: u32) -> io::Result<Self::Reader>;
    /// Deletes run `run`.
    fn remove(&mut self, run: u32) -> io::Result<()>;
}

/// Runs kept in memory (tests, small inputs).
#[derive(Debug, Default, Clone)]
pub struct MemoryStorage {
    runs: HashMap<u32, Vec<u8>>,
}

impl MemoryStorage {
    /// Empty storage.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of runs currently stored.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// Whether no run is stored.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The bytes of run `run`, for inspection (and fault injection in tests).
    pub fn run_mut(&mut self, run: u32) -> Option<&mut Vec<u8>> {
        self.runs.get_mut(&run)
    }
}

impl SpillStorage for MemoryStorage {
    type Writer = Vec<u8>;
    type Reader = io::Cursor<Vec<u8>>;
    fn create(&mut self, _run: u32) -> io::Result<Vec<u8>> {
        Ok(Vec::new())
    }
    fn finish(&mut self, run: u32, writer: Vec<u8>) -> io::Result<()> {
        self.runs.insert(run, writer);
        Ok(())
    }
    fn open(&mut self, run: u32) -> io::Result<Self::Reader> {
        match self.runs.get(&run) {
            Some(b) => Ok(io::Cursor::new(b.clone())),
            None => Err(io::Error::new(io::ErrorKind::NotFound, "no such run")),
        }
    }
    fn remove(&mut self, run: u32) -> io::Result<()> {
        self.runs.remove(&run);
        Ok(())
    }
}

/// Runs kept as files `PREFIX-RUN.run` in a caller-given directory. Files
/// are created exclusively (an existing file is an error, never
/// overwritten); those still present when the storage is dropped are
/// deleted.
#[derive(Debug)]
pub struct DirStorage {
    dir: PathBuf,
    prefix: String,
    live: Vec<u32>,
}

impl DirStorage {
    /// Storage in `dir` (which must exist) with file prefix `neardup-spill`.
    pub fn new(dir: impl AsRef<Path>) -> Self {
        Self {
            dir: dir.as_ref().to_path_buf(),
            prefix: "neardup-spill".to_owned(),
            live: Vec::new(),
        }
    }

    /// Sets the file prefix, so that several users can share a directory.
    pub fn set_prefix(&mut self, prefix: &str) -> &mut Self {
        self.prefix = prefix.to_owned();
        self
    }

    fn path(&self, run: u32) -> PathBuf {
        self.dir.join(format!("{}-{run:08}.run", self.prefix))
    }
}

impl SpillStorage for DirStorage {
    type Writer = BufWriter<File>;
    /// Unbuffered: a run's reader buffers what it reads itself.
    type Reader = File;
    fn create(&mut self, run: u32) -> io::Result<Self::Writer> {
        let f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.path(run))?;
        self.live.push(run);
        Ok(BufWriter::with_capacity(1 << 16, f))
    }
    fn finish(&mut self, _run: u32, mut writer: Self::Writer) -> io::Result<()> {
        writer.flush()
    }
    fn open(&mut self, run: u32) -> io::Result<Self::Reader> {
        File::open(self.path(run))
    }
    fn remove(&mut self, run: u32) -> io::Result<()> {
        self.live.retain(|&r| r != run);
        std::fs::remove_file(self.path(run))
    }
}

impl Drop for DirStorage {
    fn drop(&mut self) {
        for run in std::mem::take(&mut self.live) {
            // Best effort: a file that cannot be removed is left behind.
            let _ = std::fs::remove_file(self.path(run));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spill::{write_run, RunReader};

    fn read_all(bytes: Vec<u8>) -> Vec<(u32, u32)> {
        let mut r = RunReader::<_, (u32, u32)>::open_checked(io::Cursor::new(bytes)).unwrap();
        let mut out = Vec::new();
        while let Some(x) = r.next_record().unwrap() {
            out.push(x);
        }
        out
    }

    #[test]
    fn dir_storage_creates_exclusively_and_cleans_up() {
        let dir = std::env::temp_dir().join(format!("neardup-index-spill-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        {
            let mut s = DirStorage::new(&dir);
            s.set_prefix("t");
            write_run(&mut s, 1, &[(1u32, 2u32)]).unwrap();
            assert!(write_run(&mut s, 1, &[(1u32, 2u32)]).is_err());
            let bytes = {
                let mut v = Vec::new();
                s.open(1).unwrap().read_to_end(&mut v).unwrap();
                v
            };
            assert_eq!(read_all(bytes), vec![(1, 2)]);
            write_run(&mut s, 2, &[(3u32, 4u32)]).unwrap();
            s.remove(2).unwrap();
            assert!(s.open(2).is_err());
        }
        // Dropping the storage removed run 1.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir(&dir).unwrap();
    }
}

//! Writing the store file's pages out in the background between
//! checkpoints.
//!
//! Batches are committed to redb without an fsync (the journal makes them
//! durable), so their pages pile up in the page cache as dirty pages until
//! the next checkpoint has to write them all before it returns: 300 to
//! 500 ms with the writer waiting, at 10^6 documents on a busy machine.
//! A thread of its own syncs the file every [`FLUSH_EVERY`] while there
//! have been such commits, so that a checkpoint finds little left to write.

use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::error::{Error, ErrorKind};

/// How often the store file is synced while commits without an fsync
/// come in.
pub(crate) const FLUSH_EVERY: Duration = Duration::from_millis(100);

/// The background sync of the store file; stopped when dropped.
#[derive(Debug)]
pub(crate) struct Flusher {
    shared: Arc<FlushState>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Debug, Default)]
struct FlushState {
    /// Commits without an fsync since the last sync.
    dirty: AtomicBool,
    stop: Mutex<bool>,
    wake: Condvar,
}

impl Flusher {
    /// Starts syncing the file at `path` (opened once, read-only: a sync
    /// writes out the file's pages whatever descriptor asks).
    pub fn start(path: &Path) -> Result<Flusher, Error> {
        let file = File::open(path).map_err(|e| {
            Error::with_source(ErrorKind::Io(format!("{}: {e}", path.display())), e)
        })?;
        let shared = Arc::new(FlushState::default());
        let state = shared.clone();
        let thread = std::thread::Builder::new()
            .name("neardup-flush".into())
            .spawn(move || state.run(&file))
            .map_err(|e| Error::with_source(ErrorKind::Io(format!("flush thread: {e}")), e))?;
        Ok(Flusher {
            shared,
            thread: Some(thread),
        })
    }

    /// A commit without an fsync was made.
    pub fn dirty(&self) {
        self.shared.dirty.store(true, Ordering::Release);
    }
}

impl FlushState {
    fn run(&self, file: &File) {
        let mut stop = self.stop.lock().unwrap_or_else(|p| p.into_inner());
        while !*stop {
            stop = match self.wake.wait_timeout(stop, FLUSH_EVERY) {
                Ok((s, _)) => s,
                Err(p) => p.into_inner().0,
            };
            if self.dirty.swap(false, Ordering::AcqRel) {
                drop(stop);
                // A failed sync loses nothing: the journal holds the
                // batches and the checkpoint syncs again.
                let _ = file.sync_data();
                stop = self.stop.lock().unwrap_or_else(|p| p.into_inner());
            }
        }
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        *self.shared.stop.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

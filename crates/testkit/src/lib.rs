//! Test support shared by the neardup crates' unit and integration tests.
//!
//! A dev-dependency only: nothing here ships in a library or binary.
//!
//! ```
//! let dir = neardup_testkit::TempDir::new("doc");
//! let path = dir.write("a.html", b"<p>hello</p>");
//! assert!(path.exists());
//! let kept = dir.to_path_buf();
//! drop(dir);
//! assert!(!kept.exists());
//! ```
#![deny(missing_docs)]

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A fresh directory under the system's temporary directory, removed with
/// everything in it when dropped, so that test runs leave nothing behind.
///
/// Named `neardup-<pid>-<name>`: tests running in parallel in one process
/// need distinct names; separate processes never collide.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates the directory for the test `name`, emptied first.
    ///
    /// # Panics
    /// When the directory cannot be created (a test set-up failure).
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("neardup-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        TempDir(dir)
    }

    /// Writes `data` to the file `name` in the directory; returns its path.
    ///
    /// # Panics
    /// When the file cannot be written (a test set-up failure).
    pub fn write(&self, name: &str, data: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, data).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        path
    }
}

impl Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_emptied_on_creation_and_removed_on_drop() {
        let first = TempDir::new("lifecycle");
        first.write("stale.txt", "x");
        let path = first.to_path_buf();
        std::mem::forget(first);
        let again = TempDir::new("lifecycle");
        assert_eq!(std::fs::read_dir(&*again).unwrap().count(), 0);
        drop(again);
        assert!(!path.exists());
    }
}

//! Checks made before any work: a run that cannot write its results fails
//! at once, not after reading and clustering everything.

use std::fs::OpenOptions;
use std::path::Path;

use anyhow::{bail, Result};

/// Fails unless `path` (an output file; `-` is standard output) can be
/// created or written. A file that did not exist is not left behind.
pub fn writable_file(path: &Path, what: &str) -> Result<()> {
    if path == Path::new("-") {
        return Ok(());
    }
    if path.is_dir() {
        bail!("{what} {}: is a directory", path.display());
    }
    let existed = path.exists();
    match OpenOptions::new().append(true).create(true).open(path) {
        Ok(_) => {
            if !existed {
                let _ = std::fs::remove_file(path);
            }
            Ok(())
        }
        Err(e) => bail!("cannot write {what} {}: {e}", path.display()),
    }
}

/// Fails unless `dir` is a directory that can be written into, or can be
/// created: an existing directory that holds files is refused unless
/// `force` (its files would be mixed with the new ones).
pub fn writable_dir(dir: &Path, what: &str, force: bool) -> Result<()> {
    if dir.exists() {
        if !dir.is_dir() {
            bail!("{what} {}: exists and is not a directory", dir.display());
        }
        let mut entries = std::fs::read_dir(dir)
            .map_err(|e| anyhow::anyhow!("cannot read {what} {}: {e}", dir.display()))?;
        if entries.next().is_some() && !force {
            bail!(
                "{what} {}: directory is not empty (use --force to write into it)",
                dir.display()
            );
        }
        let probe = dir.join(format!(".neardup-probe-{}", std::process::id()));
        writable_file(&probe, what)
    } else {
        let parent = dir
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !parent.is_dir() {
            bail!(
                "cannot create {what} {}: {} is not a directory",
                dir.display(),
                parent.display()
            );
        }
        let probe = parent.join(format!(".neardup-probe-{}", std::process::id()));
        writable_file(&probe, what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_testkit::TempDir;

    #[test]
    fn files_are_probed_without_leaving_them() {
        let dir = TempDir::new("validate-file");
        let p = dir.join("out.jsonl");
        writable_file(&p, "output").unwrap();
        assert!(!p.exists());
        assert!(writable_file(&dir.join("no/such/dir/out.jsonl"), "output").is_err());
        assert!(writable_file(&dir, "output").is_err());
        assert!(writable_file(Path::new("-"), "output").is_ok());
    }

    #[test]
    fn non_empty_directories_need_force() {
        let dir = TempDir::new("validate-dir");
        let kept = dir.join("kept");
        writable_dir(&kept, "--kept", false).unwrap();
        std::fs::create_dir(&kept).unwrap();
        writable_dir(&kept, "--kept", false).unwrap();
        std::fs::write(kept.join("old.html"), "x").unwrap();
        let err = writable_dir(&kept, "--kept", false).unwrap_err();
        assert!(err.to_string().contains("--force"), "{err}");
        writable_dir(&kept, "--kept", true).unwrap();
    }
}

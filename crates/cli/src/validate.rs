//! Checks made before any work: a run that cannot write its results fails
//! at once, not after reading and clustering everything.

use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::path::Path;

use anyhow::{anyhow, bail, Result};

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
/// created with its missing parents (the writers create them): an existing
/// directory that holds files is refused unless `force` (its files would be
/// mixed with the new ones). Nothing is created here.
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
        let cannot = || format!("cannot create {what} {}", dir.display());
        let base = nearest_existing(dir)
            .map_err(|(p, e)| anyhow!("{}: {}: {e}", cannot(), p.display()))?;
        if !base.is_dir() {
            let is = if base.is_file() {
                "is a file, not a directory"
            } else {
                "is not a directory"
            };
            bail!("{}: {} {is}", cannot(), base.display());
        }
        let probe = base.join(format!(".neardup-probe-{}", std::process::id()));
        let existed = probe.exists();
        match OpenOptions::new().append(true).create(true).open(&probe) {
            Ok(_) => {
                if !existed {
                    let _ = std::fs::remove_file(&probe);
                }
                Ok(())
            }
            Err(e) => bail!("{}: cannot write into {}: {e}", cannot(), base.display()),
        }
    }
}

/// The nearest ancestor of `path` that exists (`.` for a relative path
/// none of whose parents exist), or the ancestor that could not be looked
/// at and why. A path below a regular file is "not a directory" rather
/// than missing: the walk goes on up to that file.
fn nearest_existing(path: &Path) -> std::result::Result<&Path, (&Path, std::io::Error)> {
    for p in path.ancestors().skip(1) {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        match std::fs::metadata(p) {
            Ok(_) => return Ok(p),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {}
            Err(e) => return Err((p, e)),
        }
    }
    Err((Path::new("."), ErrorKind::NotFound.into()))
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

    #[test]
    fn missing_parents_are_left_to_the_writer_and_a_file_above_is_named() {
        let dir = TempDir::new("validate-parents");
        let deep = dir.join("attributes/a/b");
        writable_dir(&deep, "--attributes directory", true).unwrap();
        assert!(!dir.join("attributes").exists(), "nothing is created");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no probe left");
        let file = dir.join("file");
        std::fs::write(&file, "x").unwrap();
        for below in [file.join("a"), file.join("a/b/c")] {
            let err = writable_dir(&below, "--attributes directory", true).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "cannot create --attributes directory {}: {} is a file, not a directory",
                    below.display(),
                    file.display()
                )
            );
        }
    }
}

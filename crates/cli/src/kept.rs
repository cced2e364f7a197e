//! `neardup dedup --kept`: the kept documents, written back in the inputs'
//! own format: WARC records stay WARC records (copied byte for byte), JSON
//! Lines stay lines, HTML files are copied into a directory under their
//! paths relative to the directory named on the command line.
//!
//! [`check`] runs before any work: inputs of mixed kinds, a format that
//! cannot be written back, an unwritable target or a non-empty target
//! directory (without `--force`) fail the run at once.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use neardup::io::{open_input, Inputs, RawRecord, Source, SourceKind, WarcWriter};

use crate::validate;

/// What `--kept` wrote.
pub struct Written {
    /// How many documents.
    pub count: u64,
    /// What they were written as.
    pub what: &'static str,
}

/// The one kind of document the sources hold (skipped and unreadable
/// sources aside), if any.
fn kind(sources: &[Source]) -> Result<Option<SourceKind>> {
    let kinds: HashSet<SourceKind> = sources
        .iter()
        .map(|s| s.kind)
        .filter(|k| {
            !matches!(
                k,
                SourceKind::Other | SourceKind::Unreadable | SourceKind::Unrecognized
            )
        })
        .collect();
    if kinds.len() > 1 {
        bail!("--kept needs inputs of one kind (all WARC, all JSONL or all HTML)");
    }
    Ok(kinds.into_iter().next())
}

/// Checks, before the work, that the kept documents can be written to
/// `target`.
pub fn check(target: &Path, sources: &[Source], force: bool) -> Result<()> {
    match kind(sources)? {
        None => Ok(()),
        Some(SourceKind::Parquet) => {
            bail!("--kept cannot write Parquet; the dedup output lists the kept ids")
        }
        Some(SourceKind::Arc) => {
            bail!("--kept cannot write ARC; the dedup output lists the kept ids")
        }
        Some(SourceKind::Stdin) => bail!("--kept cannot copy documents read from standard input"),
        Some(SourceKind::Html) => validate::writable_dir(target, "--kept directory", force),
        Some(_) => validate::writable_file(target, "--kept file"),
    }
}

/// Writes the documents whose ids are in `kept`. `roots` are the paths
/// named on the command line (HTML copies keep their paths below them).
pub fn write_kept(
    target: &Path,
    inputs: &Inputs,
    sources: &[Source],
    roots: &[PathBuf],
    kept: &HashSet<&str>,
    id_field: &str,
) -> Result<Written> {
    match kind(sources)? {
        None => Ok(Written {
            count: 0,
            what: "documents",
        }),
        Some(SourceKind::Warc) => write_warc(target, inputs, sources, kept),
        Some(SourceKind::Jsonl) => write_jsonl(target, sources, kept, id_field),
        Some(SourceKind::Html) => copy_html(target, sources, roots, kept),
        Some(_) => bail!("--kept cannot write this kind of input"),
    }
}

fn create(path: &Path) -> Result<BufWriter<File>> {
    Ok(BufWriter::new(File::create(path).with_context(|| {
        format!("cannot create {}", path.display())
    })?))
}

fn write_warc(
    target: &Path,
    inputs: &Inputs,
    sources: &[Source],
    kept: &HashSet<&str>,
) -> Result<Written> {
    let gzip = target.to_string_lossy().ends_with(".gz");
    let mut out = WarcWriter::new(create(target)?, gzip);
    let mut count = 0;
    for (id, bytes) in inputs.document_records(sources) {
        if kept.contains(id.as_str()) {
            out.write(&RawRecord {
                warc_type: String::new(),
                target_uri: None,
                bytes,
            })?;
            count += 1;
        }
    }
    out.finish()?;
    Ok(Written {
        count,
        what: "WARC records",
    })
}

fn write_jsonl(
    target: &Path,
    sources: &[Source],
    kept: &HashSet<&str>,
    id_field: &str,
) -> Result<Written> {
    let mut out = create(target)?;
    let mut count = 0;
    for source in sources.iter().filter(|s| s.kind == SourceKind::Jsonl) {
        let name = source.path.display().to_string();
        let reader = open_input(&source.path).with_context(|| format!("cannot open {name}"))?;
        for (i, line) in reader.split(b'\n').enumerate() {
            let line = line.with_context(|| format!("cannot read {name}"))?;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            // Only lines that are JSON objects: an invalid line's
            // `PATH:LINE` name is never a kept document.
            let Ok(serde_json::Value::Object(v)) = serde_json::from_slice(&line) else {
                continue;
            };
            let id = match v.get(id_field) {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(serde_json::Value::Number(x)) => x.to_string(),
                _ => format!("{name}:{}", i + 1),
            };
            if kept.contains(id.as_str()) {
                out.write_all(&line)?;
                out.write_all(b"\n")?;
                count += 1;
            }
        }
    }
    out.flush()?;
    Ok(Written {
        count,
        what: "JSON lines",
    })
}

/// Where a copy of `path` goes below the target: its path relative to the
/// directory named on the command line that holds it, else its file name.
fn relative(path: &Path, roots: &[PathBuf]) -> PathBuf {
    roots
        .iter()
        .filter(|r| r.is_dir())
        .filter_map(|r| path.strip_prefix(r).ok())
        .filter(|rel| !rel.as_os_str().is_empty())
        .min_by_key(|rel| rel.components().count())
        .map(Path::to_path_buf)
        .or_else(|| path.file_name().map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("page.html"))
}

fn copy_html(
    target: &Path,
    sources: &[Source],
    roots: &[PathBuf],
    kept: &HashSet<&str>,
) -> Result<Written> {
    std::fs::create_dir_all(target)
        .with_context(|| format!("cannot create directory {}", target.display()))?;
    let mut used: HashSet<PathBuf> = HashSet::new();
    let mut count = 0;
    for source in sources.iter().filter(|s| s.kind == SourceKind::Html) {
        let id = source.path.display().to_string();
        if !kept.contains(id.as_str()) {
            continue;
        }
        let rel = relative(&source.path, roots);
        let mut dest = target.join(&rel);
        let mut k = 2;
        // The same file named twice, or two roots with the same layout.
        while used.contains(&dest) {
            let name = rel
                .file_name()
                .map_or("page.html".into(), |n| n.to_string_lossy().into_owned());
            dest = target.join(&rel).with_file_name(format!("{k}-{name}"));
            k += 1;
        }
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create directory {}", parent.display()))?;
        }
        std::fs::copy(&source.path, &dest)
            .with_context(|| format!("cannot copy {id} to {}", dest.display()))?;
        used.insert(dest);
        count += 1;
    }
    Ok(Written {
        count,
        what: "HTML files",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_keep_paths_below_their_root() {
        let dir = neardup_testkit::TempDir::new("kept-relative");
        std::fs::create_dir_all(dir.join("in/d1")).unwrap();
        let roots = vec![dir.join("in")];
        assert_eq!(
            relative(&dir.join("in/d1/page.html"), &roots),
            Path::new("d1/page.html")
        );
        assert_eq!(
            relative(Path::new("/elsewhere/x.html"), &roots),
            Path::new("x.html")
        );
    }
}

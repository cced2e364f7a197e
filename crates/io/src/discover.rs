//! Finding the files to read: walking directories and telling formats
//! apart by their content (magic bytes, first line), not only by name.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use crate::compressed::decoded;
use crate::http::is_html;
use crate::source::{Source, SourceKind};

/// How many leading (decompressed) bytes are looked at.
const SNIFF_BYTES: usize = 1024;

/// The kind of input the first bytes of a (decompressed) file show, if any.
pub(crate) fn sniff(head: &[u8]) -> SourceKind {
    let text = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let trimmed = match text.iter().position(|c| !c.is_ascii_whitespace()) {
        Some(p) => &text[p..],
        None => return SourceKind::Other,
    };
    if text.starts_with(b"WARC/") {
        SourceKind::Warc
    } else if text.starts_with(b"filedesc://") {
        SourceKind::Arc
    } else if head.starts_with(b"PAR1") {
        SourceKind::Parquet
    } else if trimmed.starts_with(b"{\"") {
        SourceKind::Jsonl
    } else if is_html(None, trimmed) {
        SourceKind::Html
    } else {
        SourceKind::Other
    }
}

/// The first bytes of a file, decompressed when it is gzip or zstd (as
/// much as decompresses, errors ignored).
pub(crate) fn head_of(path: &Path) -> std::io::Result<Vec<u8>> {
    let file = BufReader::with_capacity(SNIFF_BYTES, File::open(path)?);
    let mut out = Vec::with_capacity(SNIFF_BYTES);
    let _ = decoded(file)?
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut out);
    Ok(out)
}

/// The kind of a file named on the command line: by its name, else by its
/// content; text that is nothing else is read as HTML, binary content is
/// [`SourceKind::Unrecognized`]; unreadable files are
/// [`SourceKind::Unreadable`].
pub(crate) fn kind_of_named_file(path: &Path) -> SourceKind {
    match SourceKind::from_name(&path.to_string_lossy()) {
        SourceKind::Other => match head_of(path) {
            Err(_) => SourceKind::Unreadable,
            Ok(head) => match sniff(&head) {
                SourceKind::Other if looks_textual(&head) => SourceKind::Html,
                SourceKind::Other => SourceKind::Unrecognized,
                k => k,
            },
        },
        k => k,
    }
}

/// The kind of a file found in a directory: by its name, else archives and
/// HTML recognized by content; anything else is skipped.
fn kind_of_found_file(path: &Path, name: &str) -> SourceKind {
    match SourceKind::from_name(name) {
        SourceKind::Other => match head_of(path).map(|h| sniff(&h)) {
            Ok(k @ (SourceKind::Warc | SourceKind::Arc | SourceKind::Html)) => k,
            Ok(_) => SourceKind::Other,
            Err(_) => SourceKind::Unreadable,
        },
        k => k,
    }
}

/// Adds the files below `dir` to `out` in byte order of paths. Hidden
/// entries are left out; an entry that cannot be read is an
/// [`SourceKind::Unreadable`] source (reported when read) and the walk goes
/// on; symbolic links to directories, dangling and looping links are
/// [`SourceKind::Other`] sources (skipped and counted).
pub(crate) fn walk(dir: &Path, out: &mut Vec<Source>) {
    let mut entries: Vec<(std::ffi::OsString, PathBuf, Option<std::fs::FileType>)> =
        match std::fs::read_dir(dir) {
            Ok(rd) => rd
                .filter_map(Result::ok)
                .map(|e| (e.file_name(), e.path(), e.file_type().ok()))
                .collect(),
            Err(_) => {
                out.push(Source {
                    path: dir.to_path_buf(),
                    kind: SourceKind::Unreadable,
                });
                return;
            }
        };
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, path, ft) in entries {
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let Some(ft) = ft else {
            out.push(Source {
                path,
                kind: SourceKind::Unreadable,
            });
            continue;
        };
        if ft.is_dir() {
            walk(&path, out);
        } else if ft.is_file() || (ft.is_symlink() && path.is_file()) {
            let kind = kind_of_found_file(&path, &name);
            out.push(Source { path, kind });
        } else {
            // Links to directories (not followed), dangling or looping
            // links, sockets, devices: skipped, counted.
            out.push(Source {
                path,
                kind: SourceKind::Other,
            });
        }
    }
}

/// Why a [`SourceKind::Other`] source is skipped.
pub(crate) fn skip_reason(path: &Path) -> String {
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match (link, std::fs::metadata(path)) {
        (true, Ok(m)) if m.is_dir() => "symbolic link to a directory (not followed)".into(),
        (true, Err(_)) => "dangling or looping symbolic link".into(),
        (_, Ok(m)) if !m.is_file() => "not a regular file".into(),
        _ => "not an HTML, WARC, ARC, JSONL or Parquet file".into(),
    }
}

/// Text rather than binary: no NUL byte and few C0 controls.
fn looks_textual(head: &[u8]) -> bool {
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0c))
        .count();
    !head.contains(&0) && controls * 20 <= head.len()
}

/// What a [`SourceKind::Unrecognized`] file is not, and how it starts.
pub(crate) fn unrecognized_reason(path: &Path) -> String {
    let head = head_of(path).unwrap_or_default();
    let hex: Vec<String> = head.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!(
        "not an HTML, WARC, ARC, JSON Lines or Parquet file (gzip and zstd \
         are read; it starts with bytes {})",
        hex.join(" ")
    )
}

/// Why an [`SourceKind::Unreadable`] source could not be read.
pub(crate) fn unreadable_reason(path: &Path) -> String {
    let result = if path.is_dir() {
        std::fs::read_dir(path).map(|_| ())
    } else {
        File::open(path).map(|_| ())
    };
    match result {
        Err(e) => e.to_string(),
        Ok(()) => "could not be read".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_files_are_told_by_content() {
        let dir = neardup_testkit::TempDir::new("named-kinds");
        let png = dir.write("logo", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR");
        let text = dir.write("notes", b"just some words");
        assert_eq!(kind_of_named_file(&png), SourceKind::Unrecognized);
        assert_eq!(kind_of_named_file(&text), SourceKind::Html);
        assert!(unrecognized_reason(&png).contains("starts with bytes 89 50 4e 47"));
    }

    #[test]
    fn sniffs_formats() {
        assert_eq!(sniff(b"WARC/1.1\r\n"), SourceKind::Warc);
        assert_eq!(sniff(b"filedesc://x.arc 0 0"), SourceKind::Arc);
        assert_eq!(sniff(b"PAR1\x15"), SourceKind::Parquet);
        assert_eq!(sniff(b"{\"id\": 1}"), SourceKind::Jsonl);
        assert_eq!(sniff(b"\xef\xbb\xbf <!DOCTYPE html>"), SourceKind::Html);
        assert_eq!(sniff(b"\x89PNG"), SourceKind::Other);
        assert_eq!(sniff(b""), SourceKind::Other);
    }
}

//! Inputs named on a command line: files and directories, walked in a stable
//! order, each read as HTML, WARC, ARC, JSON Lines or Parquet by its name
//! and, when the name says nothing, by its content.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::counting::ReadCounter;
use crate::discover::{kind_of_named_file, walk};
use crate::error::{DocErrorKind, Error};
use crate::ids::TruncatedIds;
use crate::jsonl::JsonlFields;
use crate::read::open_archive;

/// The default limit on one document's size: 64 MiB.
pub const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 64 * 1024 * 1024;

/// How a file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SourceKind {
    /// One HTML page (`.html`, `.htm`, `.xhtml`, optionally `.gz`).
    Html,
    /// A WARC file (`.warc`, `.warc.gz`), any version from 0.17 to 1.1;
    /// also WET files (`conversion` records).
    Warc,
    /// An ARC file (`.arc`, `.arc.gz`), version 1 or 2.
    Arc,
    /// JSON Lines (`.jsonl`, `.ndjson`, optionally `.gz`).
    Jsonl,
    /// Parquet (`.parquet`): one document per row, the JSONL field names as
    /// column names (needs the `parquet` feature, on by default).
    Parquet,
    /// A file of another kind found in a directory, or a symbolic link not
    /// followed: skipped and counted.
    Other,
    /// A file or directory that could not be read: one error, and the run
    /// goes on.
    Unreadable,
    /// Standard input (the path `-`), its format told by its first bytes.
    Stdin,
    /// A file named on the command line that is none of the formats read:
    /// one error saying so.
    Unrecognized,
}

impl SourceKind {
    /// The kind a file name implies; names with no known extension are
    /// [`SourceKind::Other`].
    pub fn from_name(name: &str) -> SourceKind {
        let lower = name.to_ascii_lowercase();
        let base = lower
            .strip_suffix(".gz")
            .or_else(|| lower.strip_suffix(".zst"))
            .unwrap_or(&lower);
        let ext = base.rsplit_once('.').map_or("", |(_, e)| e);
        match ext {
            "html" | "htm" | "xhtml" | "shtml" => SourceKind::Html,
            "warc" | "wet" => SourceKind::Warc,
            "arc" => SourceKind::Arc,
            "jsonl" | "ndjson" => SourceKind::Jsonl,
            "parquet" if base == lower => SourceKind::Parquet,
            _ => SourceKind::Other,
        }
    }
}

/// One file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Its path.
    pub path: PathBuf,
    /// How it is read.
    pub kind: SourceKind,
}

/// Reads inputs: expands directories and turns files into [`Item`]s.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("neardup-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("a.html"), "<p>hello</p>").unwrap();
/// let inputs = neardup_io::Inputs::new();
/// let sources = inputs.sources(&[&dir]).unwrap();
/// let items: Vec<_> = inputs.read(&sources[0]).collect();
/// assert!(matches!(&items[0], neardup_io::Item::Document(d) if d.id.ends_with("a.html")));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub(crate) config: Config,
}

#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) max_document_bytes: u64,
    pub(crate) fields: JsonlFields,
    pub(crate) counter: Option<ReadCounter>,
    pub(crate) truncated: Option<TruncatedIds>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            fields: JsonlFields::default(),
            counter: None,
            truncated: None,
        }
    }
}

/// Configures [`Inputs`].
#[derive(Debug, Clone, Default)]
pub struct InputsBuilder {
    config: Config,
}

impl InputsBuilder {
    /// Documents (files, WARC records, JSONL lines) larger than this are
    /// reported as too large and skipped. Default 64 MiB.
    pub fn max_document_bytes(&mut self, n: u64) -> &mut InputsBuilder {
        self.config.max_document_bytes = n;
        self
    }

    /// The JSON Lines field names.
    pub fn jsonl_fields(&mut self, fields: JsonlFields) -> &mut InputsBuilder {
        self.config.fields = fields;
        self
    }

    /// Counts the bytes read from input files into `counter` (for a
    /// progress bar: compare with the sum of the sources' sizes).
    pub fn read_counter(&mut self, counter: ReadCounter) -> &mut InputsBuilder {
        self.config.counter = Some(counter);
        self
    }

    /// Records into `ids` the (final) ids of documents that
    /// [`Inputs::read_all`] reads from records cut short.
    pub fn truncated_ids(&mut self, ids: TruncatedIds) -> &mut InputsBuilder {
        self.config.truncated = Some(ids);
        self
    }

    /// Builds the reader.
    pub fn build(&self) -> Inputs {
        Inputs {
            config: self.config.clone(),
        }
    }
}

impl Inputs {
    /// A reader with default limits.
    pub fn new() -> Inputs {
        Inputs::default()
    }

    /// A builder to set limits and field names.
    pub fn builder() -> InputsBuilder {
        InputsBuilder::default()
    }

    /// Expands `paths` into files: a file stands for itself (read by its
    /// name, else by its content; text of no known kind is read as HTML), a
    /// directory for every file below it, in byte order of paths (hidden
    /// files are left out, symbolic links to directories not followed; an
    /// entry that cannot be read is a source that reports its error). A
    /// path named in `paths` that does not exist is an error.
    pub fn sources<P: AsRef<Path>>(&self, paths: &[P]) -> Result<Vec<Source>, Error> {
        let mut out = Vec::new();
        for p in paths {
            let p = p.as_ref();
            if p == Path::new("-") {
                out.push(Source {
                    path: p.to_path_buf(),
                    kind: SourceKind::Stdin,
                });
                continue;
            }
            let meta = std::fs::metadata(p).map_err(|e| Error::io(p, e))?;
            if meta.is_dir() {
                walk(p, &mut out);
            } else {
                out.push(Source {
                    path: p.to_path_buf(),
                    kind: kind_of_named_file(p),
                });
            }
        }
        Ok(out)
    }

    /// The log of documents read from records cut short, when one was
    /// given ([`InputsBuilder::truncated_ids`]).
    pub fn truncated_ids(&self) -> Option<&TruncatedIds> {
        self.config.truncated.as_ref()
    }

    /// The total size in bytes of the sources' files (as stored, so
    /// compressed for compressed files): what a [`ReadCounter`] counts up to.
    pub fn total_bytes(sources: &[Source]) -> u64 {
        sources
            .iter()
            .filter_map(|s| std::fs::metadata(&s.path).ok())
            .map(|m| m.len())
            .sum()
    }

    /// The raw records of a WARC source, for copying them (`None` for other
    /// kinds of source).
    pub fn raw_records(
        &self,
        source: &Source,
    ) -> Option<Result<crate::RawRecords<Box<dyn BufRead + Send>>, DocErrorKind>> {
        (source.kind == SourceKind::Warc).then(|| {
            open_archive(&source.path, None)
                .map(|r| crate::RawRecords::new(r, self.config.max_document_bytes))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Item;
    use neardup_testkit::TempDir;

    #[test]
    fn kinds_from_names() {
        let cases = [
            ("a.html", SourceKind::Html),
            ("a.HTM.gz", SourceKind::Html),
            ("crawl.warc.gz", SourceKind::Warc),
            ("x.warc", SourceKind::Warc),
            ("old.arc.gz", SourceKind::Arc),
            ("c.jsonl.zst", SourceKind::Jsonl),
            ("x.warc.zst", SourceKind::Warc),
            ("c.jsonl", SourceKind::Jsonl),
            ("c.ndjson.gz", SourceKind::Jsonl),
            ("docs.parquet", SourceKind::Parquet),
            ("readme.txt", SourceKind::Other),
            ("noext", SourceKind::Other),
            (".gz", SourceKind::Other),
        ];
        for (name, kind) in cases {
            assert_eq!(SourceKind::from_name(name), kind, "{name}");
        }
    }

    #[test]
    fn walks_directories_in_stable_order() {
        let dir = TempDir::new("walk");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        for f in ["b.html", "a.html", "sub/c.htm", ".hidden.html"] {
            std::fs::write(dir.join(f), "<p>x</p>").unwrap();
        }
        std::fs::write(dir.join("notes.txt"), "some notes").unwrap();
        let inputs = Inputs::new();
        let sources = inputs.sources(&[&dir]).unwrap();
        let names: Vec<_> = sources
            .iter()
            .map(|s| {
                s.path
                    .strip_prefix(&*dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(names, ["a.html", "b.html", "notes.txt", "sub/c.htm"]);
        let items: Vec<Item> = inputs.read_all(&sources).collect();
        assert_eq!(
            items
                .iter()
                .filter(|i| matches!(i, Item::Document(_)))
                .count(),
            3
        );
        assert_eq!(
            items
                .iter()
                .filter(|i| matches!(i, Item::Skipped { .. }))
                .count(),
            1
        );
    }

    #[test]
    fn an_unreadable_entry_is_one_error_and_the_walk_goes_on() {
        let dir = TempDir::new("unreadable");
        let file = dir.write("a.html", b"<p>a</p>");
        // A path whose listing fails (here: a file taken for a directory;
        // a directory without read permission goes the same way).
        let mut sources = Vec::new();
        walk(&file, &mut sources);
        walk(&dir, &mut sources);
        assert_eq!(sources[0].kind, SourceKind::Unreadable);
        assert_eq!(sources[1].kind, SourceKind::Html);
        let items: Vec<Item> = Inputs::new().read_all(&sources).collect();
        assert!(
            matches!(&items[0], Item::Error(e) if e.id.ends_with("a.html")),
            "{items:?}"
        );
        assert!(matches!(&items[1], Item::Document(d) if d.id.ends_with("a.html#2")));
    }

    #[test]
    fn missing_path_is_an_error_naming_it() {
        let err = Inputs::new()
            .sources(&["/nonexistent/neardup/x.html"])
            .unwrap_err();
        assert!(err.to_string().contains("/nonexistent/neardup/x.html"));
    }
}

//! Reading sources into items: each kind of file through its reader,
//! archives told apart by their first bytes, standard input by its content,
//! and ids made unique over all sources ([`Inputs::read_all`]).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::arc::ArcReader;
use crate::compressed::{decoded, decoded_archive, read_file, read_limited};
use crate::counting::{CountingReader, ReadCounter};
use crate::discover::{skip_reason, sniff, unreadable_reason, unrecognized_reason};
use crate::document::{Content, Item, RawDocument};
use crate::error::{DocError, DocErrorKind};
use crate::gzip_members::is_member_cut;
use crate::ids::IdRegistry;
use crate::jsonl::JsonlReader;
use crate::source::{Inputs, Source, SourceKind};
use crate::warc::WarcReader;

/// Items of one source, each with whether its content was cut short.
pub(crate) type Marked = Box<dyn Iterator<Item = (Item, bool)> + Send>;

impl Inputs {
    /// The items of one source, read lazily (ids as the source gives them;
    /// [`Inputs::read_all`] makes them unique).
    pub fn read(&self, source: &Source) -> Box<dyn Iterator<Item = Item> + Send> {
        Box::new(self.read_marked(source).map(|(item, _)| item))
    }

    pub(crate) fn read_marked(&self, source: &Source) -> Marked {
        let name = source.path.display().to_string();
        let limit = self.config.max_document_bytes;
        let one = |item: Item| -> Marked { Box::new(std::iter::once((item, false))) };
        let error = |kind| {
            one(Item::Error(DocError {
                id: name.clone(),
                kind,
            }))
        };
        match source.kind {
            SourceKind::Html => one(
                match read_file(&source.path, limit, self.config.counter.as_ref()) {
                    Ok(bytes) => Item::Document(RawDocument {
                        id: name.clone(),
                        url: None,
                        content: Content::Html {
                            bytes,
                            content_type: None,
                        },
                    }),
                    Err(kind) => Item::Error(DocError {
                        id: name.clone(),
                        kind,
                    }),
                },
            ),
            SourceKind::Other => one(Item::Skipped {
                id: name.clone(),
                reason: skip_reason(&source.path),
            }),
            SourceKind::Unreadable => error(DocErrorKind::Read(unreadable_reason(&source.path))),
            SourceKind::Unrecognized => {
                error(DocErrorKind::Read(unrecognized_reason(&source.path)))
            }
            SourceKind::Warc | SourceKind::Arc => {
                match open_archive(&source.path, self.config.counter.as_ref()) {
                    Ok(r) => self.archive(r, name, source.kind == SourceKind::Arc),
                    Err(kind) => error(kind),
                }
            }
            SourceKind::Stdin => {
                let stdin = std::io::BufReader::with_capacity(256 * 1024, std::io::stdin());
                // Its format is known once decoded: gzip members are read as
                // an archive's (the same bytes when none is cut short).
                match decoded_archive(stdin) {
                    Ok(r) => self.stdin(r),
                    Err(e) => error(DocErrorKind::Read(e.to_string())),
                }
            }
            #[cfg(feature = "parquet")]
            SourceKind::Parquet => Box::new(
                crate::parquet_input::ParquetReader::new(
                    &source.path,
                    self.config.fields.clone(),
                    limit,
                )
                .map(|item| (item, false)),
            ),
            #[cfg(not(feature = "parquet"))]
            SourceKind::Parquet => error(DocErrorKind::Read(
                "Parquet support is not built in (cargo feature `parquet`)".into(),
            )),
            SourceKind::Jsonl => match open_stream(&source.path, self.config.counter.as_ref()) {
                Ok(r) => Box::new(
                    JsonlReader::new(r, name, self.config.fields.clone(), limit)
                        .map(|item| (item, false)),
                ),
                Err(kind) => error(kind),
            },
        }
    }

    /// An archive stream: ARC when it starts like one (or `arc` and it
    /// starts like neither), else WARC.
    fn archive(&self, mut r: Box<dyn BufRead + Send>, name: String, arc: bool) -> Marked {
        let limit = self.config.max_document_bytes;
        // An error met here (a first gzip member cut short) is the first
        // item; after a cut member the next one tells the format.
        let first_error = r.fill_buf().err();
        let head = match &first_error {
            Some(e) if !is_member_cut(e) => None,
            _ => r.fill_buf().ok(),
        };
        let arc = match head {
            Some(head) if head.starts_with(b"filedesc:") => true,
            Some(head) if head.starts_with(b"WARC/") => false,
            Some(head) if crate::arc::starts_record(head) => true,
            _ => arc,
        };
        if arc {
            let mut arc = ArcReader::new(r, name, limit).after_error(first_error);
            Box::new(std::iter::from_fn(move || arc.next_read()))
        } else {
            let mut warc = WarcReader::new(r, name, limit).after_error(first_error);
            Box::new(std::iter::from_fn(move || {
                warc.next_read().map(|r| (r.item, r.truncated))
            }))
        }
    }

    /// Standard input, its format told by its first bytes: an archive,
    /// JSON Lines, else one HTML page named `stdin`.
    fn stdin(&self, mut r: Box<dyn BufRead + Send>) -> Marked {
        let name = "stdin".to_string();
        let limit = self.config.max_document_bytes;
        let kind = r.fill_buf().map(sniff).unwrap_or(SourceKind::Other);
        match kind {
            SourceKind::Warc | SourceKind::Arc => self.archive(r, name, kind == SourceKind::Arc),
            SourceKind::Jsonl => Box::new(
                JsonlReader::new(r, name, self.config.fields.clone(), limit)
                    .map(|item| (item, false)),
            ),
            _ => {
                let item = match read_limited(r, limit, false) {
                    Ok(bytes) => Item::Document(RawDocument {
                        id: name,
                        url: None,
                        content: Content::Html {
                            bytes,
                            content_type: None,
                        },
                    }),
                    Err(kind) => Item::Error(DocError { id: name, kind }),
                };
                Box::new(std::iter::once((item, false)))
            }
        }
    }

    /// Every item of every source, in order, with unique ids (see the
    /// module `ids`: a repeated archive URI becomes `URI#2`; a repeated
    /// JSONL or Parquet id is a [`DocErrorKind::DuplicateId`] error).
    pub fn read_all<'a>(&'a self, sources: &'a [Source]) -> impl Iterator<Item = Item> + 'a {
        self.read_all_sourced(sources).map(|(_, item)| item)
    }

    /// As [`Inputs::read_all`], each item with the index of its source in
    /// `sources` (for outputs written per input file).
    pub fn read_all_sourced<'a>(
        &'a self,
        sources: &'a [Source],
    ) -> impl Iterator<Item = (usize, Item)> + 'a {
        let mut ids = IdRegistry::default();
        sources
            .iter()
            .enumerate()
            .flat_map(move |(i, s)| {
                let strict = matches!(s.kind, SourceKind::Jsonl | SourceKind::Parquet);
                self.read_marked(s)
                    .map(move |(item, truncated)| (i, item, truncated, strict))
            })
            .map(move |(i, item, truncated, strict)| {
                let item = ids.assign(item, strict);
                if let (true, Some(log), Item::Document(d)) =
                    (truncated, &self.config.truncated, &item)
                {
                    log.insert(&d.id);
                }
                (i, item)
            })
    }

    /// The WARC records that became documents, each with its document id
    /// (as [`Inputs::read_all`] gives it) and its bytes as stored, for
    /// writing a subset of the inputs back out. Sources of other kinds
    /// count for ids but give no records.
    pub fn document_records<'a>(
        &'a self,
        sources: &'a [Source],
    ) -> impl Iterator<Item = (String, Vec<u8>)> + 'a {
        let mut ids = IdRegistry::default();
        sources
            .iter()
            .flat_map(
                move |s| -> Box<dyn Iterator<Item = (Item, Option<Vec<u8>>, bool)>> {
                    let strict = matches!(s.kind, SourceKind::Jsonl | SourceKind::Parquet);
                    let warc = s.kind == SourceKind::Warc;
                    match open_archive(&s.path, None) {
                        Ok(r) if warc => {
                            let name = s.path.display().to_string();
                            let mut w = WarcReader::new(r, name, self.config.max_document_bytes)
                                .keeping_raw();
                            Box::new(std::iter::from_fn(move || {
                                w.next_read().map(|r| (r.item, r.raw, strict))
                            }))
                        }
                        _ => Box::new(self.read(s).map(move |i| (i, None, strict))),
                    }
                },
            )
            .filter_map(move |(item, raw, strict)| match ids.assign(item, strict) {
                Item::Document(d) => raw.map(|raw| (d.id, raw)),
                _ => None,
            })
    }
}

/// Opens a file as a buffered stream, gunzipping it (all members) if needed.
pub fn open_input(path: &Path) -> std::io::Result<Box<dyn BufRead + Send>> {
    open_stream(path, None).map_err(|e| std::io::Error::other(e.to_string()))
}

/// Opens an archive (WARC, ARC) as a buffered stream: its gzip members are
/// read by `GzipMembers` (a member cut short is cut at the next one).
pub(crate) fn open_archive(
    path: &Path,
    counter: Option<&ReadCounter>,
) -> Result<Box<dyn BufRead + Send>, DocErrorKind> {
    let file = File::open(path).map_err(|e| DocErrorKind::Read(e.to_string()))?;
    let file = CountingReader::new(file, counter.cloned());
    decoded_archive(BufReader::with_capacity(256 * 1024, file))
        .map_err(|e| DocErrorKind::Compression(e.to_string()))
}

pub(crate) fn open_stream(
    path: &Path,
    counter: Option<&ReadCounter>,
) -> Result<Box<dyn BufRead + Send>, DocErrorKind> {
    let file = File::open(path).map_err(|e| DocErrorKind::Read(e.to_string()))?;
    let file = CountingReader::new(file, counter.cloned());
    decoded(BufReader::with_capacity(256 * 1024, file))
        .map_err(|e| DocErrorKind::Compression(e.to_string()))
}

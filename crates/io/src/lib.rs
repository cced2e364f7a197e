//! Input for neardup: HTML files, directories, WARC files and JSON Lines,
//! read lazily into [`RawDocument`]s, with the charset of HTML determined
//! and decoded the way browsers do it.
//!
//! A problem with one document (a truncated WARC record, an invalid JSON
//! line, a page over the size limit) is an [`Item::Error`] naming the
//! document, and reading goes on; only a path that cannot be opened at all is
//! an [`Error`].
//!
//! ```
//! use neardup_io::{decode_html, Item, WarcReader};
//!
//! let record = b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/\r\n\
//! Content-Type: application/http; msgtype=response\r\nContent-Length: 60\r\n\r\n\
//! HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>caf\xe9 au lait</p>\r\n\r\n";
//! let items: Vec<Item> = WarcReader::new(&record[..], "x.warc", 1 << 20).collect();
//! let Item::Document(doc) = &items[0] else { panic!() };
//! assert_eq!(doc.id, "http://example.com/");
//! let decoded = doc.decode().unwrap();
//! assert_eq!(decoded.charset, "windows-1252");
//! assert!(decoded.text.contains("café"));
//! ```
//!
//! Limits: one document (file, record or line) is at most 64 MiB by default
//! ([`InputsBuilder::max_document_bytes`]); a WARC header line at most 64 KiB
//! and 1,024 header lines; the charset prescan reads the first 16 KiB and
//! detection the first 64 KiB.

#![deny(missing_docs)]

mod arc;
mod charset;
mod compressed;
mod counting;
mod discover;
mod document;
mod error;
mod gzip_members;
mod http;
mod ids;
mod jsonl;
mod jsonl_fields;
mod jsonl_flat;
#[cfg(feature = "parquet")]
mod parquet_input;
mod parts;
mod prefetch;
mod prescan;
mod read;
mod record;
mod rewind;
mod source;
mod warc;
mod warc_raw;
mod warc_resync;

pub use arc::ArcReader;
pub use charset::{
    charset_param, decode_html, decode_html_for_url, decode_html_owned, CharsetSource, Decoded,
};
pub use counting::ReadCounter;
pub use document::{Content, Item, RawDocument};
pub use error::{DocError, DocErrorKind, Error, ErrorKind};
pub use ids::TruncatedIds;
pub use jsonl::{JsonlFields, JsonlReader};
pub use read::open_input;
pub use source::{Inputs, InputsBuilder, Source, SourceKind, DEFAULT_MAX_DOCUMENT_BYTES};
pub use warc::WarcReader;
pub use warc_raw::{RawRecord, RawRecords, WarcWriter};

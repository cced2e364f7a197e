//! neardup: near-duplicate web page detection.
//!
//! This facade re-exports the stages of the pipeline, one crate each:
//! [`io`] (files, WARC, JSON Lines, charsets), [`extract`] (main text
//! extraction), [`text`] (normalization and features), [`sketch`]
//! (fingerprints) and [`index`] (candidate search and clustering), and joins
//! the first two in [`Page::from_raw`].
//!
//! ```
//! use neardup::{extract::Extractor, io::{Content, RawDocument}, Page};
//!
//! let raw = RawDocument {
//!     id: "a.html".into(),
//!     url: None,
//!     content: Content::Html {
//!         bytes: b"<title>T</title><article><p>Some text of the article, long enough to be \
//!                  the main content of this little page.</p></article>".to_vec(),
//!         content_type: None,
//!     },
//! };
//! let page = Page::from_raw(raw, &Extractor::new())?;
//! assert!(page.text.starts_with("Some text"));
//! assert_eq!(page.charset, Some("UTF-8"));
//! # Ok::<(), neardup::extract::Error>(())
//! ```

#![deny(missing_docs)]

mod candidates;
mod composite;
mod dedup;
mod error;
mod fingerprinted;
mod host;
mod keep;
mod method;
mod page;
mod partial;
mod templates;
#[cfg(test)]
mod test_text;
mod verify;

pub use neardup_extract as extract;
pub use neardup_index as index;
pub use neardup_io as io;
pub use neardup_sketch as sketch;
pub use neardup_text as text;

pub use candidates::Spill;
pub use composite::CompositeCheck;
pub use dedup::{default_method, Dedup, DedupBuilder, DocFingerprint, Groups};
pub use error::{Error, ErrorKind};
pub use fingerprinted::{shingles_of, Fingerprinted};
pub use host::host_of;
pub use keep::{glob_match, KeepKey, KeepPolicy};
pub use method::build_method;
pub use page::Page;
pub use partial::PartialCopyCheck;
pub use templates::{SiteTemplates, TemplateStats};
pub use verify::{compare as compare_shingles, Comparison, ShingleSeq, Verifier};

//! neardup: near-duplicate web page detection.
//!
//! This facade re-exports the stages of the pipeline, one crate each:
//! [`io`] (files, WARC, JSON Lines, charsets), [`extract`] (main text
//! extraction), [`text`] (normalization and features), [`sketch`]
//! (fingerprints), [`index`] (candidate search and clustering) and
//! [`dedup`] (the engine: verification, corpus-level rules, groups), and
//! joins ingest with extraction in [`Page::from_raw`] and
//! [`fingerprint_item`]. It holds no engine logic.
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

mod item;
mod page;
mod span_item;

pub use neardup_dedup as dedup;
pub use neardup_extract as extract;
pub use neardup_index as index;
pub use neardup_io as io;
pub use neardup_sketch as sketch;
pub use neardup_spans as spans;
pub use neardup_text as text;

pub use item::fingerprint_item;
pub use neardup_dedup::{
    build_method, compare_shingles, default_memory_budget, default_method, glob_match, held_bytes,
    host_of, keep_first_by_component, machine_memory, shingles_of, spilled_floor,
    verify_signatures, BatchCorpus, Comparison, ComponentEdge, CompositeCheck, Dedup, DedupBuilder,
    DocFingerprint, DocTable, DuplicateOf, Error, ErrorKind, Fingerprinted, Groups, KeepKey,
    KeepPolicy, PartialCopyCheck, PostingFilter, RunProgress, RunStep, SeqSpill, ShingleSeq,
    SigSpill, SiteTemplates, Spill, TemplateStats, Verifier, DOCS_SHARE, SPILLED_BYTES_PER_DOC,
    SPILLED_FIXED_BYTES,
};
pub use page::Page;
pub use span_item::{span_item, span_item_for_run, SpanDoc};

//! The span stage of neardup: what repeats *inside* documents that are
//! otherwise unique. Repeated paragraphs, lines or sentences across a
//! corpus (boilerplate, pasted passages), fuzzy paragraphs (most of their
//! word n-grams seen before), and stretches shared with a reference set
//! (decontamination against benchmark items).
//!
//! * [`SpanFinder`] holds the options ([`SpanFinder::builder`]):
//!   the [`Unit`], `min_chars`, the [`Keep`] policy, fuzzy paragraphs, the
//!   memory budget and the spill directory, a [`ReferenceIndex`].
//! * [`SpanFinder::analyze`] turns one document's text into its units and
//!   keys: a pure function, run it on any thread.
//! * [`SpanFinder::run`] takes the analyses in input order and gives each
//!   document's [`Span`]s: byte ranges of its text that never cross it,
//!   never overlap, never split a character, each naming the document of
//!   the first occurrence or the reference item. The result is the same
//!   whatever thread analysed which document.
//!
//! Units are compared by a 64-bit hash of their normalized text (NFKC,
//! lowercase, punctuation as space, whitespace collapsed; see [`units`](crate::Unit)),
//! and the index keeps one hash per distinct unit (about
//! [`BYTES_PER_KEY`] bytes), not the text. Past the memory budget the keys
//! are partitioned by hash onto disk.
//!
//! ```
//! use neardup_spans::{Emitted, Keep, SpanFinder, Unit};
//!
//! let finder = SpanFinder::builder().unit(Unit::Line).keep(Keep::First).build()?;
//! let docs = [
//!     ("a", "A story about the harbour.\nSubscribe to our weekly newsletter!"),
//!     ("b", "Another story, on the market.\nSUBSCRIBE to our weekly newsletter"),
//! ];
//! let mut run = finder.run()?;
//! let mut found: Vec<(String, String, String)> = Vec::new();
//! let mut sink = |e: &Emitted<'_>| {
//!     for s in e.spans {
//!         found.push((e.id.to_string(), e.text[s.start..s.end].to_string(), e.source_id(s).to_string()));
//!     }
//!     Ok(())
//! };
//! for (id, text) in docs {
//!     let analysis = finder.analyze(text, None);
//!     run.push(id, Ok((text.to_string(), analysis)), &mut sink)?;
//! }
//! run.finish(&mut sink)?;
//! drop(sink);
//! assert_eq!(
//!     found,
//!     [("b".into(), "SUBSCRIBE to our weekly newsletter".into(), "a".into())]
//! );
//! # Ok::<(), neardup_spans::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod analysis;
mod clean;
mod decide;
mod deferred;
mod docs_file;
mod error;
mod first_seen;
mod hashmap;
mod ids;
mod kept_text;
mod options;
mod reference;
mod run;
mod seen_filter;
mod span;
mod spill;
mod stats;
mod substring;
mod substring_docs;
mod substring_spill;
mod substring_windows;
mod suffix;
mod units;
mod words;

pub use analysis::{Analysis, RefMatch};
pub use clean::clean;
pub use deferred::PARTITIONS;
pub use error::{Error, ErrorKind};
pub use first_seen::BYTES_PER_KEY;
pub use ids::IdTable;
pub use options::{
    Keep, SpanFinder, SpanFinderBuilder, DEFAULT_LONG_DOCUMENT_BYTES, DEFAULT_MEMORY,
    DEFAULT_MIN_CHARS, DEFAULT_MIN_TOKENS, DEFAULT_NGRAM, DEFAULT_OVERLAP,
};
pub use reference::{ReferenceIndex, REFERENCE_BYTES_PER_NGRAM};
pub use run::{Emitted, Sink, SpanRun};
pub use span::{char_len, char_offsets, Source, Span, SpanKind};
pub use stats::{LongSpan, Repeated, Stats, LONGEST_KEPT, SAMPLE_CHARS, TRACKED_PASSAGES};
pub use substring::SUBSTRING_BYTES_PER_TOKEN;
pub use substring_spill::{
    PARTITIONS as SUBSTRING_PARTITIONS, RECORD_BYTES as SUBSTRING_RECORD_BYTES,
};
pub use substring_windows::Window as SubstringWindow;
pub use units::Unit;

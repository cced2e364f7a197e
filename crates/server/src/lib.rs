//! neardup-server: the ContentSeen service.
//!
//! A crawler that fetched a page asks whether its content was seen before.
//! [`ContentSeen`] answers in-process: it extracts and fingerprints the
//! page with the [`neardup`] pipeline, judges it against every original
//! stored so far with the same rules as the batch engine ([`neardup::Dedup`],
//! first-seen keep policy, no chaining), and stores it durably in an
//! embedded redb file, rebuilding its in-memory candidate index when opened
//! again. [`http`] serves the same over HTTP/1.1 with JSON (the `neardup
//! serve` command), and [`client`] is a minimal blocking HTTP client for
//! tests and the load tool.
//!
//! Writes go through one writer thread that applies check-and-insert
//! operations one at a time (verdicts are linearizable: two near-duplicates
//! posted at once never both become originals) and commits them in groups,
//! answering each caller after the commit that made its document durable.
//!
//! ```
//! use neardup::io::{Content, RawDocument};
//! use neardup_server::{Config, ContentSeen};
//!
//! let text = |id: &str, t: &str| RawDocument {
//!     id: id.into(),
//!     url: None,
//!     content: Content::Text(t.into()),
//! };
//! let story = "The council approved the new cycle lanes on the high street after a \
//!     long debate on Monday evening, and work will start in the spring.";
//! let dir = std::env::temp_dir().join(format!("neardup-server-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! let seen = ContentSeen::open(&dir, &Config::new())?;
//! assert!(!seen.insert(text("a", story))?.is_duplicate());
//! let copy = seen.check(text("b", &format!("{story} Reporting by the desk.")))?;
//! assert_eq!(copy.duplicate_of.as_deref(), Some("a"));
//! # drop(seen);
//! # let _ = std::fs::remove_dir_all(&dir);
//! # Ok::<(), neardup_server::Error>(())
//! ```

#![deny(missing_docs)]

mod answers;
mod base;
pub mod client;
mod config;
mod error;
mod evict;
mod explain;
pub mod http;
mod journal;
pub mod maintenance;
mod postings;
mod postings_frozen;
mod recent;
mod record;
pub(crate) mod recover;
pub mod redis;
mod seen;
mod segment;
mod segment_worker;
mod shared;
mod store;
mod store_backup;
mod store_docs;
mod store_journal;
mod store_open;
mod store_scan;
mod store_tables;
mod writer;

pub use answers::{DocumentInfo, Stats, Verdict};
pub use config::Config;
pub use error::{Error, ErrorKind};
pub use explain::{Explained, Original, PASSAGE_K};
pub use journal::JOURNAL_FILE;
pub use postings::{DiskPostings, POSTINGS_DIR};
pub use recent::{Recent, RecentVerdict, DEFAULT_RECENT};
pub use recover::{Recovery, SNAPSHOT_FILE};
pub use seen::{ContentSeen, Prepared, MAX_ID_BYTES};
pub use store::{FILE_NAME, FORMAT_VERSION};

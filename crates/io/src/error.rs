//! Typed errors of the input layer.

use std::fmt;
use std::path::PathBuf;

/// An error that stops reading a whole input (a path that cannot be opened or
/// walked). Errors that concern one document are [`DocError`]s instead and the
/// run goes on.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
}

/// What went wrong with an input as a whole.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The path could not be read (missing, permission denied, ...).
    Io {
        /// The path concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error {
            kind: ErrorKind::Io {
                path: path.into(),
                source,
            },
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Io { path, source } => write!(f, "{}: {}", path.display(), source),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io { source, .. } => Some(source),
        }
    }
}

/// An error about one document: the document is reported and skipped, the
/// run goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocError {
    /// The document's id (a path, a WARC target URI, or `path#record-N` /
    /// `path:LINE` when no better name is known).
    pub id: String,
    /// What went wrong.
    pub kind: DocErrorKind,
}

/// What went wrong with one document.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DocErrorKind {
    /// The document could not be read.
    Read(String),
    /// A compressed stream ended early or is corrupt.
    Compression(String),
    /// A WARC record is malformed or ends early.
    Warc(String),
    /// A JSONL line is not a valid document.
    Json(String),
    /// A JSONL or Parquet document repeats the id (given here) of an
    /// earlier one.
    DuplicateId(String),
    /// The document is larger than the configured limit.
    TooLarge {
        /// Its size in bytes (or at least this many bytes).
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
}

impl fmt::Display for DocErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DocErrorKind::Read(m) => write!(f, "read error: {m}"),
            DocErrorKind::Compression(m) => write!(f, "compressed data: {m}"),
            DocErrorKind::Warc(m) => write!(f, "WARC: {m}"),
            DocErrorKind::Json(m) => write!(f, "JSON: {m}"),
            DocErrorKind::DuplicateId(id) => {
                write!(f, "document id {id:?} occurs more than once in the input")
            }
            DocErrorKind::TooLarge { size, limit } => {
                write!(
                    f,
                    "document of {size} bytes exceeds the limit of {limit} bytes"
                )
            }
        }
    }
}

impl fmt::Display for DocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.id, self.kind)
    }
}

impl std::error::Error for DocError {}

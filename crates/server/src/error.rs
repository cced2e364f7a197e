//! Typed errors of the ContentSeen service.

use std::fmt;

/// An error of the ContentSeen library.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The data directory could not be created or read.
    Io(String),
    /// The embedded store failed (open, read, write or commit).
    Store(String),
    /// The store is held by another process (or another handle in this one).
    Locked,
    /// The store was written by a newer version of neardup.
    NewerFormat {
        /// The format version found in the store.
        found: u32,
        /// The newest format version this build reads.
        supported: u32,
    },
    /// The store's content cannot be read back.
    Corrupt(String),
    /// The store was built with another fingerprinting method.
    MethodMismatch {
        /// The method recorded in the store.
        stored: String,
        /// The method configured now.
        configured: String,
    },
    /// A document id is empty or too long.
    InvalidId(String),
    /// The id exists with different content (a re-post of the same content
    /// is answered with the stored verdict instead).
    Conflict(String),
    /// The document's HTML could not be extracted.
    Extract(String),
    /// The candidate index refused a signature.
    Index(String),
    /// The writer stopped after a failed commit; reopen the store.
    Failed,
    /// The service is shutting down.
    Closed,
    /// The request's deadline passed before its document was stored: it
    /// was not stored.
    Cancelled,
    /// The shared store (`--store redis://...`) is unreachable, refused the
    /// operation, or no longer holds what this instance applied; no verdict
    /// was given. The message never holds credentials.
    SharedStore(String),
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error { kind, source: None }
    }

    pub(crate) fn with_source(
        kind: ErrorKind,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        Error {
            kind,
            source: Some(Box::new(source)),
        }
    }

    /// A store error from redb, keeping it as the source.
    pub(crate) fn store(e: impl std::error::Error + Send + Sync + 'static) -> Error {
        let msg = e.to_string();
        Error::with_source(ErrorKind::Store(msg), e)
    }

    pub(crate) fn corrupt(msg: impl Into<String>) -> Error {
        Error::new(ErrorKind::Corrupt(msg.into()))
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl From<neardup::Error> for Error {
    fn from(e: neardup::Error) -> Error {
        Error::new(ErrorKind::Index(e.to_string()))
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error::new(kind)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Io(m) => write!(f, "data directory: {m}"),
            ErrorKind::Store(m) => write!(f, "store: {m}"),
            ErrorKind::Locked => f.write_str("the store is already open in another process"),
            ErrorKind::NewerFormat { found, supported } => write!(
                f,
                "the store has format version {found}, newer than the version {supported} this build reads"
            ),
            ErrorKind::Corrupt(m) => write!(f, "the store is corrupt: {m}"),
            ErrorKind::MethodMismatch { stored, configured } => write!(
                f,
                "the store was built with method {stored}, not the configured {configured}"
            ),
            ErrorKind::InvalidId(m) => write!(f, "invalid id: {m}"),
            ErrorKind::Conflict(id) => {
                write!(f, "document {id:?} exists with different content")
            }
            ErrorKind::Extract(m) => write!(f, "extraction failed: {m}"),
            ErrorKind::Index(m) => write!(f, "index: {m}"),
            ErrorKind::Failed => {
                f.write_str("a commit failed; the store is read-only until it is reopened")
            }
            ErrorKind::Closed => f.write_str("the service is shutting down"),
            ErrorKind::Cancelled => f.write_str(
                "the request took longer than its timeout; the document was not stored",
            ),
            ErrorKind::SharedStore(m) => write!(f, "shared store: {m}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_problem() {
        let e = Error::new(ErrorKind::NewerFormat {
            found: 9,
            supported: 1,
        });
        assert!(e.to_string().contains("format version 9"));
        let e = Error::new(ErrorKind::Conflict("a".into()));
        assert_eq!(e.kind(), &ErrorKind::Conflict("a".into()));
        assert!(e.to_string().contains("different content"));
    }
}

//! Typed errors of the facade's deduplication engine.

use std::fmt;

/// An error of the deduplication engine.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The index refused the input (too many documents, bad parameters).
    Index(neardup_index::Error),
    /// A signature is unusable (wrong method, no values).
    Signature(String),
    /// An unknown method, or an option that does not apply to it.
    Method(String),
    /// The documents of the online engine could not be read (from an
    /// [`OnlineDocs`](crate::OnlineDocs) on disk).
    Documents(String),
    /// An index snapshot is damaged or of another engine.
    Snapshot(String),
    /// Spilled shingle sequences could not be written or read back.
    Io(std::io::Error),
    /// Verified pairs given by component are not a partition into
    /// components (a document in two of them).
    Components(String),
    /// A batch corpus refused what it was asked: a document after its run,
    /// ids that occur more than once, a document's data too long to spill.
    Corpus(String),
}

impl Error {
    pub(crate) fn signature(msg: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Signature(msg.into()),
        }
    }

    pub(crate) fn corpus(msg: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Corpus(msg.into()),
        }
    }

    pub(crate) fn method(msg: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Method(msg.into()),
        }
    }

    /// Reading the online engine's documents failed.
    pub fn documents(msg: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Documents(msg.into()),
        }
    }

    pub(crate) fn components(msg: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Components(msg.into()),
        }
    }

    pub(crate) fn snapshot(msg: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Snapshot(msg.into()),
        }
    }

    pub(crate) fn io(e: std::io::Error) -> Error {
        Error {
            kind: ErrorKind::Io(e),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl From<neardup_index::Error> for Error {
    fn from(e: neardup_index::Error) -> Error {
        Error {
            kind: ErrorKind::Index(e),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Index(e) => write!(f, "index: {e}"),
            ErrorKind::Signature(m) => write!(f, "signature: {m}"),
            ErrorKind::Method(m) => write!(f, "method: {m}"),
            ErrorKind::Documents(m) => write!(f, "documents: {m}"),
            ErrorKind::Snapshot(m) => write!(f, "index snapshot: {m}"),
            ErrorKind::Io(e) => write!(f, "spilled shingles: {e}"),
            ErrorKind::Components(m) => write!(f, "components: {m}"),
            ErrorKind::Corpus(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Index(e) => Some(e),
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

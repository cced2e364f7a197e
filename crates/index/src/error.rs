//! Typed errors of the crate.

use std::fmt;
use std::io;

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A parameter is outside its valid range; the string names it and the rule.
    InvalidParameter(&'static str),
    /// A signature is shorter than the number of values the index needs.
    SignatureTooShort {
        /// Values required (`bands * rows`).
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// A document id was inserted twice into the same incremental index.
    DuplicateId(u32),
    /// A document id is out of range (for example `u32::MAX`, reserved, or
    /// `>= n` for a collection of `n` documents).
    IdOutOfRange(u32),
    /// Two inputs that must have the same length do not.
    LengthMismatch {
        /// Expected length.
        expected: usize,
        /// Given length.
        got: usize,
    },
    /// A priority order is not a permutation of `0..n`.
    NotAPermutation,
    /// A setting cannot change once an index holds documents.
    NotEmpty,
    /// More documents than `u32` ids can address.
    TooManyDocuments,
    /// A spill file is damaged: bad magic, unknown version, wrong record
    /// layout, truncated, or checksum mismatch.
    Corrupt(&'static str),
    /// An I/O error from spill storage.
    Io(io::Error),
}

/// The error type of the crate.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
}

impl Error {
    /// Creates an error of the given kind.
    pub fn new(kind: ErrorKind) -> Self {
        Self { kind }
    }

    /// The kind of error.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    pub(crate) fn invalid(what: &'static str) -> Self {
        Self::new(ErrorKind::InvalidParameter(what))
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Self::new(kind)
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Self::new(ErrorKind::Io(e))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::InvalidParameter(w) => write!(f, "invalid parameter: {w}"),
            ErrorKind::SignatureTooShort { expected, got } => {
                write!(f, "signature too short: need {expected} values, got {got}")
            }
            ErrorKind::DuplicateId(id) => write!(f, "document id {id} inserted twice"),
            ErrorKind::IdOutOfRange(id) => write!(f, "document id {id} out of range"),
            ErrorKind::LengthMismatch { expected, got } => {
                write!(f, "length mismatch: expected {expected}, got {got}")
            }
            ErrorKind::NotAPermutation => write!(f, "priority order is not a permutation"),
            ErrorKind::NotEmpty => write!(f, "setting cannot change on a non-empty index"),
            ErrorKind::TooManyDocuments => write!(f, "more documents than u32 ids"),
            ErrorKind::Corrupt(w) => write!(f, "corrupt spill file: {w}"),
            ErrorKind::Io(e) => write!(f, "spill i/o: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_source() {
        let e = Error::new(ErrorKind::SignatureTooShort {
            expected: 4,
            got: 2,
        });
        assert_eq!(e.to_string(), "signature too short: need 4 values, got 2");
        assert!(std::error::Error::source(&e).is_none());
        let io = Error::from(io::Error::other("disk"));
        assert!(matches!(io.kind(), ErrorKind::Io(_)));
        assert!(std::error::Error::source(&io).is_some());
    }
}

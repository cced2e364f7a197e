//! Typed errors: an [`Error`] carries an [`ErrorKind`].

use std::fmt;

/// The error type of this crate. Inspect [`Error::kind`] to tell cases apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A method name given to [`crate::Method::from_str`](std::str::FromStr) is
    /// not known. Holds the name.
    UnknownMethod(String),
    /// Bytes do not start with the expected magic.
    BadMagic,
    /// The format version is newer (or older) than this crate understands.
    UnsupportedVersion(u8),
    /// The method tag in the header is unknown.
    UnknownTag(u8),
    /// The input ended before the structure it announces.
    Truncated,
    /// The stored checksum does not match the content.
    ChecksumMismatch,
    /// The content is structurally invalid (bad counts, lengths, values).
    Malformed(&'static str),
    /// Two signatures of different methods were compared, or a signature was
    /// given to a method that did not make it.
    MethodMismatch,
    /// Two signatures of the same method but incompatible parameters (seed,
    /// size, shingle length...) were compared.
    ParameterMismatch,
    /// A dictionary segmenter was given to a method that does not support
    /// one ([`crate::Method::set_segmenter`]). Holds the method.
    SegmenterNotSupported(crate::MethodKind),
}

impl Error {
    /// Creates an error of the given kind.
    pub fn new(kind: ErrorKind) -> Self {
        Error { kind }
    }

    /// The kind of this error.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error { kind }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::UnknownMethod(name) => write!(f, "unknown method {name:?}"),
            ErrorKind::BadMagic => f.write_str("not a neardup signature (bad magic)"),
            ErrorKind::UnsupportedVersion(v) => write!(f, "unsupported format version {v}"),
            ErrorKind::UnknownTag(t) => write!(f, "unknown method tag {t}"),
            ErrorKind::Truncated => f.write_str("truncated input"),
            ErrorKind::ChecksumMismatch => f.write_str("checksum mismatch"),
            ErrorKind::Malformed(what) => write!(f, "malformed signature: {what}"),
            ErrorKind::MethodMismatch => f.write_str("signatures come from different methods"),
            ErrorKind::ParameterMismatch => {
                f.write_str("signatures come from incompatible method parameters")
            }
            ErrorKind::SegmenterNotSupported(kind) => write!(
                f,
                "CJK bigram or word segmentation applies to minhash, minhash-oph and supershingle, not {kind}"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;

//! Error type.

use std::fmt;

/// Why extraction failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
}

/// The kind of an [`Error`].
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input is larger than the configured limit.
    TooLarge {
        /// Input size in bytes.
        size: usize,
        /// Configured limit in bytes.
        limit: usize,
    },
    /// The input does not look like text (many control characters), e.g. an
    /// image or compressed data served as HTML.
    NotHtml,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error { kind }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::TooLarge { size, limit } => {
                write!(
                    f,
                    "input of {size} bytes exceeds the limit of {limit} bytes"
                )
            }
            ErrorKind::NotHtml => write!(f, "input does not look like HTML or text"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_kind() {
        let e = Error::new(ErrorKind::TooLarge { size: 10, limit: 5 });
        assert_eq!(
            e.to_string(),
            "input of 10 bytes exceeds the limit of 5 bytes"
        );
        assert!(matches!(
            e.kind(),
            ErrorKind::TooLarge { size: 10, limit: 5 }
        ));
        assert!(Error::new(ErrorKind::NotHtml).to_string().contains("HTML"));
    }
}

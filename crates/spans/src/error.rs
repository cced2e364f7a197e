//! Typed errors of the span stage.

use std::fmt;

/// An error of the span stage.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An option is out of range or does not apply to the chosen unit.
    Option(String),
    /// The run's spill files could not be written or read back.
    Io(std::io::Error),
    /// A spill file did not read back as it was written.
    Corrupt(String),
    /// More documents than a run can index (`u32::MAX`).
    TooManyDocuments,
    /// The reference set does not fit in the memory budget.
    ReferenceTooLarge {
        /// Bytes the reference index needs.
        needed: u64,
        /// The budget.
        budget: u64,
    },
}

impl Error {
    pub(crate) fn option(msg: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Option(msg.into()),
        }
    }

    pub(crate) fn io(e: std::io::Error) -> Error {
        Error {
            kind: ErrorKind::Io(e),
        }
    }

    pub(crate) fn corrupt(msg: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Corrupt(msg.into()),
        }
    }

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
            ErrorKind::Option(m) => write!(f, "{m}"),
            ErrorKind::Io(e) => write!(f, "spill files: {e}"),
            ErrorKind::Corrupt(m) => write!(f, "spill files damaged: {m}"),
            ErrorKind::TooManyDocuments => {
                write!(f, "more than {} documents in one run", u32::MAX)
            }
            ErrorKind::ReferenceTooLarge { needed, budget } => write!(
                f,
                "the reference set needs about {needed} bytes of memory, more than the budget of {budget} bytes (raise --memory)"
            ),

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

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::io(e)
    }
}

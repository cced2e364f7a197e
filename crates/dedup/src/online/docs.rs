//! [`OnlineDocs`]: where the online engine reads the documents it judged,
//! by dense id. The engine ([`OnlineCore`](crate::OnlineCore)) keeps in RAM
//! only what finds candidates (compact band tables, one byte of role per
//! document); signatures, shingles and verdicts are read from here for the
//! few candidates of each new document. [`Online`](crate::Online) keeps
//! them in memory; `neardup serve` reads them from its store on disk.

use std::borrow::Borrow;

use neardup_sketch::Signature;

use crate::error::Error;
use crate::verify::ShingleSeq;

/// Per-document data of the online engine, by dense id.
pub trait OnlineDocs {
    /// The shingles an original's data is lent or given as.
    type Shingles: Borrow<ShingleSeq>;

    /// Calls `f` with original `d`'s signature (`None` when it keeps only
    /// band keys: [`OnlineCore::keeps_signature`](crate::OnlineCore::keeps_signature))
    /// and its shingles (kept with exact verification); `None` when `d` is
    /// not a stored original.
    ///
    /// # Errors
    /// The data could not be read.
    fn with_original<R>(
        &self,
        d: u32,
        f: impl FnOnce(Option<&Signature>, Option<&ShingleSeq>) -> R,
    ) -> Result<Option<R>, Error>;

    /// Original `d`'s shingles, when kept (for the composite page check).
    ///
    /// # Errors
    /// The data could not be read.
    fn shingles(&self, d: u32) -> Result<Option<Self::Shingles>, Error>;

    /// The hash of document `d`'s signature bytes
    /// ([`signature_key`](crate::signature_key)); `None` without text.
    ///
    /// # Errors
    /// The data could not be read.
    fn key(&self, d: u32) -> Result<Option<u128>, Error>;

    /// The original that duplicate `d` was judged a duplicate of, and the
    /// similarity to it.
    ///
    /// # Errors
    /// The data could not be read.
    fn duplicate_of(&self, d: u32) -> Result<Option<(u32, f64)>, Error>;
}

/// What a dense id of the online engine is, in one byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// No document was added under this id.
    Absent = 0,
    /// A kept document: a target for later documents.
    Original = 1,
    /// A duplicate of an original.
    Duplicate = 2,
    /// A document without text: never a duplicate nor a target.
    Empty = 3,
    /// Removed.
    Deleted = 4,
}

impl Kind {
    /// The kind of a byte written by a snapshot.
    pub(crate) fn from_byte(b: u8) -> Option<Kind> {
        Some(match b {
            0 => Kind::Absent,
            1 => Kind::Original,
            2 => Kind::Duplicate,
            3 => Kind::Empty,
            4 => Kind::Deleted,
            _ => return None,
        })
    }

    /// Whether a document of this kind is stored.
    pub fn is_live(self) -> bool {
        matches!(self, Kind::Original | Kind::Duplicate | Kind::Empty)
    }
}

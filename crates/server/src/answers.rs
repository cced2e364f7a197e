//! What a [`crate::ContentSeen`] answers: the verdict for a document, what
//! it knows of a stored document, and its counters.

/// The answer for one document.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The document's id.
    pub id: String,
    /// The id of the stored original it duplicates, if any.
    pub duplicate_of: Option<String>,
    /// The method's similarity to that original.
    pub similarity: Option<f64>,
    /// Whether the document is stored (now or from an earlier identical post).
    pub stored: bool,
    /// Whether the document has no text to judge (no letters or digits
    /// after extraction): never a duplicate nor an original.
    pub empty: bool,
}

impl Verdict {
    /// Whether the document duplicates a stored original.
    pub fn is_duplicate(&self) -> bool {
        self.duplicate_of.is_some()
    }

    /// The verdict in a word: `duplicate`, `empty` (too little text to
    /// judge) or `new` (content not seen before).
    pub fn kind(&self) -> &'static str {
        if self.is_duplicate() {
            "duplicate"
        } else if self.empty {
            "empty"
        } else {
            "new"
        }
    }
}

/// A stored document, as [`ContentSeen::get`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentInfo {
    /// Its id.
    pub id: String,
    /// Its URL, when given.
    pub url: Option<String>,
    /// When it was stored, in milliseconds since the Unix epoch.
    pub stored_at_ms: u64,
    /// Its main text length in bytes.
    pub text_len: u32,
    /// The original it duplicates and the similarity to it.
    pub duplicate_of: Option<(String, f64)>,
    /// The method of its signature (`None` for a document without text).
    pub method: Option<&'static str>,
    /// The encoded signature's size in bytes.
    pub signature_bytes: usize,
    /// A hash of the signature, hexadecimal (equal for identical signatures).
    pub signature_hash: Option<String>,
}

/// Counters of a [`ContentSeen`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    /// Stored documents.
    pub documents: usize,
    /// Among them, originals.
    pub originals: usize,
    /// Among them, duplicates.
    pub duplicates: usize,
    /// Among them, documents without text.
    pub empty: usize,
    /// Approximate heap bytes of the in-memory index.
    pub index_bytes: usize,
    /// Transactions committed since the store was opened.
    pub commits: u64,
    /// Operations those transactions held.
    pub committed_ops: u64,
    /// Documents evicted by the document or age limit since the store was
    /// opened.
    pub evicted: u64,
    /// The method's name.
    pub method: &'static str,
}

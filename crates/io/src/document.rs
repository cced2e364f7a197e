//! What the input layer yields: documents, skipped records and errors.

use crate::charset::{decode_html_for_url, Decoded};
use crate::error::DocError;

/// One document read from an input, not yet decoded or parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawDocument {
    /// A unique name: the path for files, `WARC-Target-URI` for WARC records,
    /// the id field for JSONL lines.
    pub id: String,
    /// The URL of the page, when the input says it (WARC target URI, a JSONL
    /// `url` field).
    pub url: Option<String>,
    /// The document's content.
    pub content: Content,
}

/// The content of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// HTML bytes in an unknown or declared charset.
    Html {
        /// The raw bytes, as crawled (transfer and content encodings removed).
        bytes: Vec<u8>,
        /// The HTTP `Content-Type` header, if the input had one.
        content_type: Option<String>,
    },
    /// Plain text whose main-text extraction is already done.
    Text(String),
}

impl RawDocument {
    /// Decodes HTML content (see [`crate::decode_html`]; the URL's
    /// top-level domain guides detection); `None` for plain text.
    pub fn decode(&self) -> Option<Decoded> {
        match &self.content {
            Content::Html {
                bytes,
                content_type,
            } => Some(decode_html_for_url(
                bytes,
                content_type.as_deref(),
                self.url.as_deref(),
            )),
            Content::Text(_) => None,
        }
    }

    /// The size of the content in bytes.
    pub fn len(&self) -> usize {
        match &self.content {
            Content::Html { bytes, .. } => bytes.len(),
            Content::Text(t) => t.len(),
        }
    }

    /// Whether the content is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One item of an input: a document, a record that was skipped on purpose
/// (and is counted), or a document that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A document.
    Document(RawDocument),
    /// A record that is not a document to process (a WARC request or
    /// metadata record, a non-HTML response, a file of an unknown type in a
    /// directory).
    Skipped {
        /// The record's name.
        id: String,
        /// Why it was skipped.
        reason: String,
    },
    /// A document that could not be read; the input goes on after it when
    /// it can.
    Error(DocError),
}

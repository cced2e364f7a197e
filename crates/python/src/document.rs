//! `neardup.extract`: charset decoding and main-text extraction of one page.

use std::sync::OnceLock;

use neardup::extract::{Extractor, Mode};
use neardup::io::{Content, RawDocument};
use neardup::Page;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;

use crate::errors::{err, py_repr};

/// HTML given from Python: bytes in any charset, or an already decoded str.
#[derive(FromPyObject)]
pub enum HtmlArg {
    /// Raw bytes, decoded like a browser would.
    #[pyo3(transparent, annotation = "bytes")]
    Bytes(PyBackedBytes),
    /// A str, taken as UTF-8.
    #[pyo3(transparent, annotation = "str")]
    Str(String),
}

/// A main text from Python: a `str`, or its UTF-8 bytes (an Arrow string
/// column cast to binary reaches Rust without being decoded into Python
/// strings; invalid UTF-8 is replaced by U+FFFD).
#[derive(FromPyObject)]
pub enum TextArg {
    /// A str.
    #[pyo3(transparent, annotation = "str")]
    Str(String),
    /// UTF-8 bytes.
    #[pyo3(transparent, annotation = "bytes")]
    Bytes(PyBackedBytes),
}

impl TextArg {
    /// The text as a `String`.
    pub fn into_text(self) -> String {
        match self {
            TextArg::Str(s) => s,
            TextArg::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
        }
    }
}

/// A document's content from its HTML and its text, either one given:
/// the HTML where there is some, else the text.
pub fn content_of(html: Option<HtmlArg>, text: Option<TextArg>) -> Option<Content> {
    match (html, text) {
        (Some(h), _) => Some(h.into_content(None)),
        (None, t) => t.map(|t| Content::Text(t.into_text())),
    }
}

impl HtmlArg {
    /// The document content, with the charset a str implies.
    pub fn into_content(self, content_type: Option<String>) -> Content {
        match self {
            HtmlArg::Bytes(bytes) => Content::Html {
                bytes: bytes.to_vec(),
                content_type,
            },
            // A str has no charset of its own: its UTF-8 bytes are what the
            // decoder sees, declared as such (a `<meta charset>` inside
            // the markup no longer describes these bytes).
            HtmlArg::Str(s) => Content::Html {
                bytes: s.into_bytes(),
                content_type: Some("text/html; charset=utf-8".to_string()),
            },
        }
    }
}

/// The shared extractor of a mode.
pub fn extractor(all_text: bool) -> &'static Extractor {
    static MAIN: OnceLock<Extractor> = OnceLock::new();
    static ALL: OnceLock<Extractor> = OnceLock::new();
    if all_text {
        ALL.get_or_init(|| Extractor::builder().mode(Mode::AllText).build())
    } else {
        MAIN.get_or_init(|| Extractor::builder().mode(Mode::Main).build())
    }
}

/// Decodes and extracts one document; the error message names it.
pub fn page_of(
    id: &str,
    url: Option<String>,
    content: Content,
    all_text: bool,
) -> Result<Page, String> {
    let raw = RawDocument {
        id: id.to_string(),
        url,
        content,
    };
    Page::from_raw(raw, extractor(all_text)).map_err(|e| format!("{id}: {e}"))
}

/// A page after charset decoding and main-text extraction.
#[pyclass(frozen, get_all, module = "neardup")]
pub struct Document {
    /// The page's URL, when given.
    pub url: Option<String>,
    /// Its title (empty when it has none).
    pub title: String,
    /// Its main text: the paragraphs joined by newlines.
    pub text: String,
    /// Its paragraphs in reading order.
    pub paragraphs: Vec<String>,
    /// The charset the HTML was decoded from (`None` for plain text).
    pub charset: Option<String>,
}

impl From<Page> for Document {
    fn from(p: Page) -> Document {
        Document {
            url: p.url,
            title: p.title,
            text: p.text,
            paragraphs: p.paragraphs,
            charset: p.charset.map(str::to_string),
        }
    }
}

#[pymethods]
impl Document {
    fn __repr__(&self, py: Python<'_>) -> String {
        let mut preview: String = self.text.chars().take(40).collect();
        if preview.len() < self.text.len() {
            preview.push_str("...");
        }
        format!(
            "Document(url={}, title={}, charset={}, paragraphs={}, text={})",
            py_repr(py, self.url.as_deref()),
            py_repr(py, Some(&self.title)),
            py_repr(py, self.charset.as_deref()),
            self.paragraphs.len(),
            py_repr(py, Some(&preview))
        )
    }

    fn __len__(&self) -> usize {
        self.text.len()
    }
}

/// Decodes a page (byte order mark, HTTP `content_type`, `<meta charset>`,
/// then detection) and extracts its main text: title and paragraphs without
/// navigation, ads, footers, comments and link lists. `all_text=True` keeps
/// all visible text. Raises `NeardupError` when the page cannot be
/// extracted (for example when it is over the size limit).
#[pyfunction]
#[pyo3(signature = (html, url=None, *, content_type=None, all_text=false))]
pub fn extract(
    py: Python<'_>,
    html: HtmlArg,
    url: Option<String>,
    content_type: Option<String>,
    all_text: bool,
) -> PyResult<Document> {
    let name = url.clone().unwrap_or_else(|| "<html>".to_string());
    let content = html.into_content(content_type);
    py.allow_threads(|| page_of(&name, url, content, all_text))
        .map(Document::from)
        .map_err(err)
}

//! The input of sketching: a document's main text and its paragraphs.

use neardup_text::{normalize, NormalizeOptions};

/// A document as handed over by extraction: the main text and its
/// paragraphs (which may be empty; methods that need paragraphs then split
/// the text at line breaks).
///
/// ```
/// use neardup_sketch::DocText;
/// let paragraphs = vec!["First paragraph.".to_string(), "Second one.".to_string()];
/// let doc = DocText::new("First paragraph.\nSecond one.", &paragraphs);
/// assert_eq!(doc.paragraphs.len(), 2);
/// let plain = DocText::from_text("Just text.");
/// assert!(plain.paragraphs.is_empty());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct DocText<'a> {
    /// The main text, not necessarily normalized.
    pub text: &'a str,
    /// The paragraphs of the main text, not necessarily normalized.
    pub paragraphs: &'a [String],
}

impl<'a> DocText<'a> {
    /// A document with text and paragraphs.
    pub fn new(text: &'a str, paragraphs: &'a [String]) -> Self {
        DocText { text, paragraphs }
    }

    /// A document with text only.
    pub fn from_text(text: &'a str) -> Self {
        DocText {
            text,
            paragraphs: &[],
        }
    }

    /// The text normalized with punctuation kept (see
    /// [`neardup_text::normalize`]); what every method works on.
    pub fn normalized(&self) -> String {
        normalize(self.text, NormalizeOptions::KEEP_PUNCTUATION)
    }

    /// The normalized, non-empty paragraphs with their index in
    /// [`DocText::paragraphs`]. Without paragraphs, the text's lines are used
    /// and the indices are line numbers (0-based).
    pub fn normalized_paragraphs(&self) -> Vec<(usize, String)> {
        let opts = NormalizeOptions::KEEP_PUNCTUATION;
        let norm = |(i, p): (usize, &str)| {
            let n = normalize(p, opts);
            (!n.is_empty()).then_some((i, n))
        };
        if self.paragraphs.is_empty() {
            self.text.lines().enumerate().filter_map(norm).collect()
        } else {
            self.paragraphs
                .iter()
                .map(String::as_str)
                .enumerate()
                .filter_map(norm)
                .collect()
        }
    }
}

impl<'a> From<&'a str> for DocText<'a> {
    fn from(text: &'a str) -> Self {
        DocText::from_text(text)
    }
}

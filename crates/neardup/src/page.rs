//! A page after ingest and extraction: what every later stage works on.

use neardup_extract::{Error, Extractor};
use neardup_io::{Content, RawDocument};

/// A document's main text, ready for fingerprinting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The document's id.
    pub id: String,
    /// Its URL, when known.
    pub url: Option<String>,
    /// Its title (empty for plain-text input).
    pub title: String,
    /// Its main text: the paragraphs joined by newlines.
    pub text: String,
    /// Its paragraphs in reading order.
    pub paragraphs: Vec<String>,
    /// The charset its HTML was decoded from (`None` for plain text).
    pub charset: Option<&'static str>,
}

impl Page {
    /// Decodes and extracts an HTML document; plain text is taken as main
    /// text, split into paragraphs at line breaks.
    pub fn from_raw(raw: RawDocument, extractor: &Extractor) -> Result<Page, Error> {
        let RawDocument { id, url, content } = raw;
        match content {
            Content::Html {
                bytes,
                content_type,
            } => {
                let decoded =
                    neardup_io::decode_html_owned(bytes, content_type.as_deref(), url.as_deref());
                let doc = extractor.extract(&decoded.text)?;
                Ok(Page {
                    id,
                    url,
                    title: doc.title,
                    text: doc.text,
                    paragraphs: doc.paragraphs,
                    charset: Some(decoded.charset),
                })
            }
            Content::Text(text) => Ok(Page::from_text(id, url, text)),
        }
    }

    /// A page from plain text: paragraphs are its non-empty lines, trimmed.
    pub fn from_text(id: String, url: Option<String>, text: String) -> Page {
        let paragraphs: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        Page {
            id,
            url,
            title: String::new(),
            text: paragraphs.join("\n"),
            paragraphs,
            charset: None,
        }
    }
}

/// The main text of plain-text input, as [`Page::from_text`] makes it:
/// its non-empty lines, trimmed, joined by newlines. `text` itself when it
/// already is so (no copy).
pub(crate) fn plain_text(text: String) -> String {
    let clean = !text.is_empty()
        && text
            .split('\n')
            .all(|l| !l.is_empty() && l.trim().len() == l.len())
        && !text.ends_with('\n');
    if clean || text.is_empty() {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_the_text_of_a_page_from_text() {
        let texts = [
            "",
            "one",
            "one\ntwo",
            "  one \n\n two\r\nthree",
            "a\n",
            "\n\n",
            " ",
            "x\r",
            "tab\t\nend",
            "\u{a0}nbsp\u{3000}\nok",
            "a\n\nb",
        ];
        for t in texts {
            let page = Page::from_text(String::new(), None, t.to_string());
            assert_eq!(plain_text(t.to_string()), page.text, "{t:?}");
        }
    }

    #[test]
    fn text_input_is_split_into_lines() {
        let p = Page::from_text("x".into(), None, "  one \n\n two\r\nthree".into());
        assert_eq!(p.paragraphs, ["one", "two", "three"]);
        assert_eq!(p.text, "one\ntwo\nthree");
    }

    #[test]
    fn gbk_html_is_decoded_before_extraction() {
        let body = "<meta charset=gbk><title>标题</title><body><article><p>这是一个用中文写的段落，内容足够长，可以作为正文。我们再多写一些文字，让它更像一篇文章。</p></article></body>";
        let bytes = encoding_rs::GBK.encode(body).0.into_owned();
        let raw = RawDocument {
            id: "g".into(),
            url: None,
            content: Content::Html {
                bytes,
                content_type: None,
            },
        };
        let page = Page::from_raw(raw, &Extractor::new()).unwrap();
        assert_eq!(page.charset, Some("GBK"));
        assert!(page.text.contains("中文写的段落"), "{page:?}");
    }
}

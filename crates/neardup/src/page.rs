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
        let mut plain = String::new();
        plain_text_into(&text, &mut plain);
        // The main text's lines are trimmed and non-empty: its paragraphs.
        let paragraphs: Vec<String> = plain
            .split('\n')
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        Page {
            id,
            url,
            title: String::new(),
            text: plain,
            paragraphs,
            charset: None,
        }
    }
}

/// Longest text whose buffer [`with_plain_text`] keeps for the next
/// document (a larger one is freed after use).
const PLAIN_TEXT_KEPT: usize = 1 << 20;

thread_local! {
    /// The buffer [`with_plain_text`] writes into, one per thread.
    static PLAIN: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Writes the main text of plain-text input, as [`Page::from_text`] makes
/// it (its non-empty lines, trimmed, joined by newlines), into `out`.
fn plain_text_into(text: &str, out: &mut String) {
    out.clear();
    out.reserve(text.len());
    let mut from = 0;
    // Lines found with SIMD (`str::split` looks a word at a time); a
    // newline byte is always a character boundary in UTF-8.
    for end in memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]) {
        let line = text.get(from..end).unwrap_or_default().trim();
        from = end + 1;
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
}

/// Calls `f` with the main text of plain-text input (see
/// [`plain_text_into`]), written into a buffer of this thread that the
/// next document reuses: no allocation per document.
pub(crate) fn with_plain_text<R>(text: &str, f: impl FnOnce(&str) -> R) -> R {
    PLAIN.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            plain_text_into(text, &mut buf);
            let r = f(&buf);
            if buf.capacity() > PLAIN_TEXT_KEPT {
                *buf = String::new();
            }
            r
        }
        // Called from inside `f`: a buffer of its own.
        Err(_) => {
            let mut own = String::new();
            plain_text_into(text, &mut own);
            f(&own)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule, written out: non-empty lines, trimmed, joined by newlines.
    fn by_lines(t: &str) -> String {
        t.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    }

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
            assert_eq!(page.text, by_lines(t), "{t:?}");
            assert_eq!(page.paragraphs.join("\n"), page.text, "{t:?}");
            assert_eq!(with_plain_text(t, str::to_string), page.text, "{t:?}");
            // Nested, and after a long text: the same.
            let nested = with_plain_text("x", |_| with_plain_text(t, str::to_string));
            assert_eq!(nested, page.text, "{t:?}");
        }
        let long = "word ".repeat(PLAIN_TEXT_KEPT);
        assert_eq!(with_plain_text(&long, str::len), long.len() - 1);
        assert_eq!(with_plain_text(" a \n", str::to_string), "a");
    }

    #[test]
    fn plain_text_equals_the_page_on_generated_texts() {
        // Line breaks, Unicode spaces and letters in every order: the
        // buffer reused across calls gives what the page gives.
        let alphabet = [
            "\n", "\r", " ", "\t", "\u{a0}", "\u{3000}", "a", "é", "中", "\n\n",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            let mut t = String::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            for k in 0..(state % 24) {
                t.push_str(alphabet[((state >> (k * 2)) % alphabet.len() as u64) as usize]);
            }
            let page = Page::from_text(String::new(), None, t.clone());
            assert_eq!(page.text, by_lines(&t), "{t:?}");
            assert_eq!(with_plain_text(&t, str::to_string), page.text, "{t:?}");
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

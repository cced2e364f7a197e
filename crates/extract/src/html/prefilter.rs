//! Input pre-filter: drop the bodies of `<script>`, `<style>` and `<svg>`
//! elements, the content of comments, and attributes the extractor does
//! not need (see [`crate::attrs`]), before tokenizing.
//!
//! None of it ever becomes text, yet on modern pages it is well over half of
//! the bytes, and html5ever tokenizes it character by character and interns
//! every attribute. JSON-LD scripts are kept: they are evidence for the
//! scorer. Markup is read the way the HTML tokenizer reads it
//! ([`crate::markup`]): comments, end tags and raw text (`<title>`,
//! `<textarea>`...) are passed on as written, so that text that looks like
//! a tag is never rewritten as one.

use html5ever::tendril::StrTendril;

use crate::attrs::{attr, element, Attr, Attrs, Element, Fate};
use crate::foreign::foreign_end;
use crate::markup::{
    content, markup_at, name_end, next_attr, raw_end, script_end, Content, Markup, Step,
};
use crate::space::{collapse_space, is_space};

/// What a comment is passed on as: its content is never read.
const EMPTY_COMMENT: &str = "<!---->";

/// A byte range of the input to leave out, and what to write in its place.
type Cut = (usize, usize, &'static str);

/// Bytes of small pieces gathered before they go to the output tendril.
const STAGED_BYTES: usize = 16 << 10;

/// The pre-filter's output, the parser's input buffer. A tendril checks
/// its sharing and capacity on every push, and the pre-filter writes many
/// small pieces: those gather in a `String` and go on in large ones.
pub(crate) struct Output {
    done: StrTendril,
    staged: String,
}

impl Output {
    /// An empty output with room for `bytes` bytes.
    pub(crate) fn with_capacity(bytes: usize) -> Output {
        Output {
            done: StrTendril::with_capacity(u32::try_from(bytes).unwrap_or(u32::MAX)),
            staged: String::with_capacity(STAGED_BYTES),
        }
    }

    /// Writes `s`.
    pub(crate) fn push_str(&mut self, s: &str) {
        if s.len() >= STAGED_BYTES {
            self.flush();
            self.done.push_slice(s);
            return;
        }
        self.staged.push_str(s);
        if self.staged.len() >= STAGED_BYTES {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.done.push_slice(&self.staged);
        self.staged.clear();
    }

    /// Everything written so far.
    #[cfg(test)]
    pub(crate) fn written(&self) -> String {
        format!("{}{}", &*self.done, self.staged)
    }

    /// Everything written.
    pub(crate) fn finish(mut self) -> StrTendril {
        self.flush();
        self.done
    }
}

/// Scan the start tag at `at` (`<` followed by a letter) the way the HTML
/// tokenizer does. Returns the index just past its `>` and whether it is
/// self-closing; `drops` gets the byte ranges to cut: unneeded attributes
/// (with their leading separators), the values of attributes passed on by
/// name and those replaced by another value. `None` when the tag runs to
/// the end of the input.
fn scan_tag<'h>(
    html: &'h str,
    at: usize,
    drops: &mut Vec<Cut>,
    attrs: &mut Attrs<'h>,
) -> Option<(usize, bool)> {
    drops.clear();
    let bytes = html.as_bytes();
    let mut j = name_end(bytes, at + 1);
    let tag = element(bytes.get(at + 1..j)?);
    // The tokenizer keeps the first of repeated attributes: once one was
    // seen, a later one must not take its place when the first is dropped.
    let mut seen = [false; 3];
    loop {
        let a = match next_attr(bytes, j)? {
            Step::Close { past, self_closing } => return Some((past, self_closing)),
            Step::Attr(a) => a,
        };
        j = a.end;
        let name_end = a.name.1;
        let value = a.value.and_then(|(s, e)| html.get(s..e)).unwrap_or("");
        // What to cut to pass the name alone: the value between its quotes
        // (the closing quote ends the attribute), else `=value`.
        let value_cut = match a.value {
            Some(v) if a.quoted => v,
            Some((_, e)) => (name_end, e),
            None => (name_end, name_end),
        };
        let kind = attr(bytes.get(a.name.0..name_end)?);
        let once = match kind {
            _ if tag == Element::Compared => None,
            Attr::Style => seen.get_mut(0),
            Attr::Class => seen.get_mut(1),
            Attr::Id => seen.get_mut(2),
            _ => None,
        };
        let f = match once {
            Some(true) => Fate::Drop,
            Some(s) => {
                *s = true;
                attrs.fate(tag, kind, value)
            }
            None => attrs.fate(tag, kind, value),
        };
        match f {
            Fate::Keep => {}
            Fate::NameOnly => drops.push((value_cut.0, value_cut.1, "")),
            // Only a value that was written gets replaced (an empty one
            // says nothing, see `Attrs::fate`).
            Fate::Value(v) => {
                let (s, e) = a.value.unwrap_or((name_end, name_end));
                drops.push((s, e, v));
            }
            // An attribute written right after this one (`a=""b=1`) keeps
            // the separator in front of this one, lest its name run into
            // the tag's name or the previous attribute's.
            Fate::Drop
                if bytes
                    .get(j)
                    .is_some_and(|&b| is_space(b) || b == b'/' || b == b'>') =>
            {
                drops.push((a.sep_start, j, ""))
            }
            Fate::Drop => drops.push((a.name.0, j, "")),
        }
    }
}

/// Shrink the input before tokenizing: drop the content of `<script>`
/// (except JSON-LD), `<style>` and `<svg>` elements and the attributes the
/// extractor never reads. Produces the parser's input buffer. Text is
/// rewritten (white space) only where the tokenizer reads it as data, tags
/// only where it reads them as tags; where the pre-filter cannot tell (an
/// `<svg>` or `<math>` whose content may go back to HTML, `<plaintext>`,
/// anything running to the end), the rest is passed on as written.
pub(crate) fn prefilter(html: &str) -> StrTendril {
    let bytes = html.as_bytes();
    let mut out = Output::with_capacity(html.len());
    let mut drops = Vec::new();
    let mut attrs = Attrs::default();
    let mut copied = 0;
    let mut i = 0;
    loop {
        let Some(at) = bytes
            .get(i..)
            .and_then(|r| memchr::memchr(b'<', r))
            .map(|off| i + off)
        else {
            collapse_space(html, i, html.len(), &mut copied, &mut out);
            break;
        };
        collapse_space(html, i, at, &mut copied, &mut out);
        match markup_at(bytes, at) {
            Markup::StartTag => {}
            Markup::Text => {
                i = at + 1;
                continue;
            }
            Markup::Whole(past) => {
                // A comment's content never becomes text, yet the
                // tokenizer reads it a character at a time: an empty
                // comment takes its place (one ended at once is already
                // shorter).
                if bytes.get(at + 1..at + 4) == Some(b"!--") && past - at > EMPTY_COMMENT.len() {
                    out.push_str(html.get(copied..at).unwrap_or_default());
                    out.push_str(EMPTY_COMMENT);
                    copied = past;
                }
                i = past;
                continue;
            }
            Markup::Open => break,
        }
        let Some((past, self_closing)) = scan_tag(html, at, &mut drops, &mut attrs) else {
            break;
        };
        let name = bytes
            .get(at + 1..name_end(bytes, at + 1))
            .unwrap_or_default();
        let content = content(name);
        // Every cut point sits at an ASCII byte, hence a char boundary. A
        // `<math>` whose content is passed on keeps its attributes: one
        // dropped could leave a `/` before `>`, self-closing.
        for &(from, to, with) in drops.iter().filter(|_| content != Content::Math) {
            out.push_str(html.get(copied..from).unwrap_or_default());
            out.push_str(with);
            copied = to;
        }
        i = past;
        // The content and where it ends (the `<` of the end tag): left out
        // when `strip`, else passed on as written.
        let (end, strip) = match content {
            Content::Markup => continue,
            Content::Script => {
                // Only JSON-LD is read from scripts (`jsonld.rs`), as
                // written: other JSON data (framework state, often the
                // largest part of a page) goes.
                let tag = html.get(at..past).unwrap_or_default();
                (
                    script_end(bytes, past),
                    !tag.to_ascii_lowercase().contains("ld+json"),
                )
            }
            // A self-closing one may be empty (inside `<noscript>`, see
            // `parse.rs`): the rest is passed on as written.
            Content::Style | Content::Raw if self_closing => break,
            Content::Style => (raw_end(bytes, past, b"style"), true),
            Content::Raw => (raw_end(bytes, past, name), false),
            Content::Plaintext => break,
            Content::Svg | Content::Math if self_closing => continue,
            Content::Svg => (foreign_end(bytes, past, name), true),
            Content::Math => (foreign_end(bytes, past, name), false),
        };
        let Some(end) = end else {
            break;
        };
        if strip && end > past {
            out.push_str(html.get(copied..past).unwrap_or_default());
            copied = end;
        }
        i = end;
    }
    out.push_str(html.get(copied..).unwrap_or_default());
    out.finish()
}

#[cfg(test)]
mod tests;

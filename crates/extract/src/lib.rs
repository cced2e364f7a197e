//! Main text extraction for neardup.
//!
//! [`Extractor::extract`] parses already-decoded HTML with html5ever into an
//! arena DOM and returns the page's [`Document`]: its title and its main text
//! as paragraphs in reading order. In [`Mode::Main`] (the default) navigation,
//! footers, comment sections, link lists and other page furniture are
//! removed; [`Mode::AllText`] keeps all visible text.
//!
//! How [`Mode::Main`] works, in order:
//!
//! 1. A byte-level pre-filter drops script/style/svg bodies (JSON-LD is
//!    kept), comments' content and every attribute the extractor would not
//!    read or that would not change what it sees (class and id values
//!    without evidence, styles that cannot hide, link targets), reading
//!    markup as the HTML tokenizer does (raw text, script escapes,
//!    comments, foreign content), then html5ever's tree builder makes an
//!    arena DOM of it: plain tags, comments, raw-text elements and text
//!    (its plain character references decoded as the tokenizer decodes
//!    them) go to it directly, the rest through html5ever's tokenizer; a
//!    token filter caps nesting depth so hostile nesting stays linear.
//!    `<noscript>` content is read as markup (forums serve their posts
//!    there), but a self-closing raw-text element inside it
//!    (`<iframe … />`) is empty, as a browser with scripting on reads it.
//! 2. Linear passes compute per node: visibility (skipped tags, inline
//!    `display:none` or `visibility:hidden`, `data-nosnippet`; again without
//!    the hiding of an element that holds most of the page's text, a page
//!    hidden until a script shows it; a collapsed panel named by its toggle
//!    or tab through `aria-labelledby`, an accordion's or a tab's, or a
//!    `tabpanel` by its role, is read
//!    though its style hides it, a dialog's is not, and a class of it that
//!    only says hidden, `panel--hidden`, names its state), link ancestry, text
//!    tokens, and class/id/role/tag
//!    evidence (`article`, `main`, `content`... vs `nav`, `footer`,
//!    `comment`, `share`, `related`, `cookie`...; a post's `signature`
//!    even beside a word of content (`post-signature`); utility classes
//!    that hide nothing, such as `overflow-hidden`, and classes that hide
//!    an element on small screens only, such as `hidden-xs` or
//!    `max-md:hidden`, are no evidence; names that say both are content,
//!    except on a `<form>`).
//! 3. The body is segmented into blocks (paragraphs); each is judged good
//!    (running text), neutral (short) or bad (link-dense) on its own, with
//!    text inside boilerplate-flagged elements down-weighted. Blocks that
//!    repeat a JSON-LD `articleBody` (or, on a page that declares a
//!    `Product`, its `description`; on a discussion, a
//!    `DiscussionForumPosting` or `QAPage`, the `text` of its posts) are
//!    boosted, and other text weighs less (on a discussion only when it
//!    declares its replies too); the JSON-LD text itself is never emitted.
//! 4. The container is the element maximising good minus bad text (with a
//!    bonus for positive evidence), outside page furniture (navigation,
//!    header, footer, pop-ups; furniture holding more than 60% of the
//!    page's text, 90% for a `<nav>`, `<header>`, `<footer>` or `<aside>`,
//!    is the page) unless nothing outside it holds more good
//!    text than bad, widened while it holds less than half of the page's
//!    good text. On a page that declares a discussion (a `QAPage` or
//!    `DiscussionForumPosting`, in JSON-LD or as a markup `itemtype`), a
//!    container that misses the first post after the main heading (a
//!    short question beside long answers) is widened to hold it. When that reading finds little running text
//!    (under two paragraphs, none long) and a record region (several
//!    sibling items of the same tag, each a few blocks of similar size: a
//!    product grid, an event list, search results) holds more than twice
//!    as much text (sixteen times as much when it found two paragraphs),
//!    the page is a listing: the items' blocks, whatever their class names
//!    say, count as content and the container is chosen again, never in
//!    furniture. A container that is itself the parent of a large record
//!    region outweighing its running text is read as a listing in place.
//! 5. What the page is decides where its content starts. A page that
//!    declares itself a site's page (`og:type` `website` or `product`, a
//!    JSON-LD web page, list, organisation, service or offer) and shows no
//!    sign of a dated story (no JSON-LD article, `og:type` `article`,
//!    publication time or `<time>`, and no dateline among the short blocks
//!    around its `<h1>`) starts at its main heading: when the container
//!    does not hold the `<h1>`, it is widened to the element holding both
//!    (never `<body>`), and what precedes the heading outside the first
//!    container is left out.
//! 6. The container is cleaned: boilerplate subtrees inside it are removed
//!    (unless that would remove most of its text), link-dense blocks are
//!    dropped unless the container is list-like (a listing keeps its
//!    items' links and drops link lists outside its items: filters, sort
//!    menus, pagination), and on an article a leading headline and
//!    short head/tail notes (bylines, dates, tags) are trimmed, and so is
//!    what follows a tail opener ("about the author", "was this helpful")
//!    or a teaser list (a heading followed by linked titles); the heading
//!    of a listing, a product or a site's page stays. On a page that
//!    declares a discussion (in JSON-LD or microdata), short labels
//!    repeated three times or more outside tables (post actions, the
//!    fields of author cards) are dropped. A run of blocks that repeats,
//!    block for block, the run right before it (a marquee, a looping
//!    carousel) is read once. A page where no block reads as content gives
//!    the text around its main heading.
//!
//! Text: two sibling inline elements whose texts meet without white space
//! are apart when the word they would make changes case or turns into
//! digits mid-way (`<span>2026</span><span>1h 54m</span>`), as the layout
//! shows them; a drop cap or a word styled in pieces stays whole.
//!
//! ```
//! use neardup_extract::{Extractor, Mode};
//!
//! let html = r#"<html><head><title>Rain expected | Daily</title></head><body>
//!   <nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav>
//!   <article><h1>Rain expected</h1>
//!   <p>Forecasters expect heavy rain over the weekend, with up to forty
//!   millimetres falling in the hills, and advise drivers to take care.</p>
//!   <p>The wet weather should clear by Monday, when temperatures will rise
//!   again across most of the region, according to the national service.</p>
//!   </article>
//!   <footer>Copyright 2024 Daily. <a href="/privacy">Privacy</a></footer>
//! </body></html>"#;
//!
//! let doc = Extractor::new().extract(html)?;
//! assert_eq!(doc.title, "Rain expected");
//! assert!(doc.text.contains("heavy rain"));
//! assert!(!doc.text.contains("Copyright"));
//! assert_eq!(doc.text, doc.paragraphs.join("\n"));
//!
//! let all = Extractor::builder().mode(Mode::AllText).build().extract(html)?;
//! assert!(all.text.contains("Copyright"));
//! # Ok::<(), neardup_extract::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod error;
mod html;
mod main_text;
mod nodes;

// The stages' modules by their own names, for paths such as
// `crate::parse::parse`.
use html::{attrs, char_refs, dom, feed, foreign, markup, parse, prefilter, sink, space};
use main_text::{
    clean, extract, jsonld, labels, listing, page_kind, product, records, repeats, score, tail,
    teaser, thread, title,
};
use nodes::{analyze, chars, evidence, page_hidden, segment, tags, visibility};

pub use error::{Error, ErrorKind};

/// Default input size limit: 64 MiB.
const DEFAULT_MAX_INPUT: usize = 64 << 20;
/// Default DOM nesting cap.
const DEFAULT_MAX_DEPTH: usize = 512;

/// What to extract.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The main content, with boilerplate removed.
    #[default]
    Main,
    /// All visible text of the page.
    AllText,
}

/// Extraction result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    /// Page title (headline), with any site name trimmed.
    pub title: String,
    /// Paragraphs of text in reading order, whitespace collapsed.
    pub paragraphs: Vec<String>,
    /// `paragraphs` joined with `"\n"`.
    pub text: String,
}

/// A configured extractor. Cheap to clone and shareable across threads.
#[derive(Clone, Debug)]
pub struct Extractor {
    mode: Mode,
    max_input_bytes: usize,
    max_depth: usize,
}

impl Default for Extractor {
    fn default() -> Extractor {
        Extractor::new()
    }
}

impl Extractor {
    /// An extractor with default settings.
    pub fn new() -> Extractor {
        ExtractorBuilder::default().build()
    }

    /// A builder for custom settings.
    pub fn builder() -> ExtractorBuilder {
        ExtractorBuilder::default()
    }

    /// Extract the title and text of one HTML page.
    ///
    /// Fails when the input exceeds the size limit or is binary garbage.
    pub fn extract(&self, html: &str) -> Result<Document, Error> {
        if html.len() > self.max_input_bytes {
            return Err(Error::new(ErrorKind::TooLarge {
                size: html.len(),
                limit: self.max_input_bytes,
            }));
        }
        if looks_binary(html) {
            return Err(Error::new(ErrorKind::NotHtml));
        }
        Ok(extract::run(html, self.mode, self.max_depth))
    }
}

/// Binary garbage: many C0 control characters in the first few kilobytes.
/// Replacement characters and C1 controls (U+0080 to U+009F, what a page in a
/// multi-byte charset decoded as windows-1252 is full of) do not count: a page
/// decoded with the wrong charset is still a page.
fn looks_binary(html: &str) -> bool {
    let mut total = 0u32;
    let mut bad = 0u32;
    for c in html.chars().take(4096) {
        total += 1;
        if c < '\u{20}' && !matches!(c, '\n' | '\r' | '\t' | '\u{c}') {
            bad += 1;
        }
    }
    total >= 64 && bad * 20 > total
}

/// Builder for [`Extractor`].
#[derive(Clone, Debug)]
pub struct ExtractorBuilder {
    mode: Mode,
    max_input_bytes: usize,
    max_depth: usize,
}

impl Default for ExtractorBuilder {
    fn default() -> ExtractorBuilder {
        ExtractorBuilder {
            mode: Mode::Main,
            max_input_bytes: DEFAULT_MAX_INPUT,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

impl ExtractorBuilder {
    /// Extraction mode (default [`Mode::Main`]).
    pub fn mode(&mut self, mode: Mode) -> &mut Self {
        self.mode = mode;
        self
    }

    /// Larger inputs fail with [`ErrorKind::TooLarge`] (default 64 MiB).
    pub fn max_input_bytes(&mut self, n: usize) -> &mut Self {
        self.max_input_bytes = n;
        self
    }

    /// DOM nesting cap (default 512): deeper elements are flattened into
    /// their ancestor at that depth.
    pub fn max_depth(&mut self, n: usize) -> &mut Self {
        self.max_depth = n;
        self
    }

    /// Build the extractor.
    pub fn build(&self) -> Extractor {
        Extractor {
            mode: self.mode,
            max_input_bytes: self.max_input_bytes,
            max_depth: self.max_depth,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn send_sync_clone() {
        fn check<T: Send + Sync + Clone>() {}
        check::<Extractor>();
    }

    #[test]
    fn size_limit() {
        let ex = Extractor::builder().max_input_bytes(10).build();
        let err = ex.extract("<p>more than ten bytes</p>").unwrap_err();
        assert!(matches!(
            err.kind(),
            ErrorKind::TooLarge {
                size: 26,
                limit: 10
            }
        ));
    }

    #[test]
    fn binary_detection() {
        let garbage: String = (0..1000u32).map(|i| char::from((i % 32) as u8)).collect();
        assert!(looks_binary(&garbage));
        assert!(!looks_binary("<p>plain text</p>\n".repeat(20).as_str()));
        assert!(!looks_binary(
            "<p>\u{fffd}\u{fffd}\u{fffd}</p>".repeat(20).as_str()
        ));
        // Shift_JIS read as windows-1252: C1 controls between letters.
        assert!(!looks_binary(
            "<p>\u{81}E\u{81}F\u{8f}\u{90}\u{9d}a</p>"
                .repeat(50)
                .as_str()
        ));
    }
}

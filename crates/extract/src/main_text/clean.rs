//! Cleaning the selected container: boilerplate subtrees, link lists,
//! a leading headline, and head/tail notes.

use std::collections::HashSet;

use html5ever::local_name;

use crate::analyze::Analysis;
use crate::dom::{Dom, NodeId};
use crate::product::has_price;
use crate::repeats::without_clones;
use crate::score::{classify, Class};
use crate::segment::{segment, Block};
use crate::tail::tail_cut;
use crate::teaser::Following;

/// Share of the container's good text that boilerplate removal must keep...
const KEEP_GOOD_SHARE: f32 = 0.4;
/// ... unless at least this many good tokens remain anyway.
const KEEP_GOOD_MIN: u32 = 100;
/// A container whose good blocks hold less than this share of its tokens is
/// list-like: its link-dense blocks are content, not furniture.
const LISTING_GOOD_SHARE: f32 = 0.6;
/// Link-dense blocks of a list-like container are kept from this size.
const LISTING_MIN_TOKENS: u32 = 4;
/// Repeated paragraphs at least this long are kept once.
const REPEAT_MIN_TOKENS: u32 = 40;
/// Short blocks before the first or after the last running-text block of an
/// article-like container are notes (bylines, dates, tags) below this size.
const NOTE_MAX_TOKENS: u32 = 20;

/// A block with more than this share of its characters in tag syntax is
/// escaped markup shown as text (a tracking pixel, an embed code).
const MARKUP_SHARE: f32 = 0.5;

/// Is `inner` (the text between `<` and `>`) an HTML tag: `name`,
/// `/name`, `!...`, or a name followed by attributes with values?
fn tag_like(inner: &str) -> bool {
    let body = inner.strip_prefix('/').unwrap_or(inner);
    let name_len = body
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .count();
    if inner.starts_with('!') {
        return true;
    }
    if name_len == 0 || name_len > 12 || !body.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return false;
    }
    let rest = body
        .get(name_len..)
        .unwrap_or("")
        .trim_end_matches('/')
        .trim();
    rest.is_empty()
        || (body.get(name_len..).is_some_and(|r| r.starts_with(' ')) && rest.contains('='))
}

/// Is the text mostly escaped markup (`<tag attr="...">`)?
pub(crate) fn markup_like(text: &str) -> bool {
    if !text.contains('<') {
        return false;
    }
    let mut markup = 0usize;
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        let after = rest.get(i + 1..).unwrap_or("");
        match after.find(['<', '>']) {
            Some(j) if after.as_bytes().get(j) == Some(&b'>') => {
                let inner = after.get(..j).unwrap_or("");
                if tag_like(inner) {
                    markup += inner.chars().filter(|c| !c.is_whitespace()).count() + 2;
                }
                rest = after.get(j + 1..).unwrap_or("");
            }
            Some(j) => rest = after.get(j..).unwrap_or(""),
            None => break,
        }
    }
    let total = text.chars().filter(|c| !c.is_whitespace()).count();
    total > 0 && markup as f32 > MARKUP_SHARE * total as f32
}

/// Is the block an item of a list or table (content, not a tail note)?
fn in_list(dom: &Dom, owner: NodeId) -> bool {
    dom.local_name(owner).is_some_and(|n| {
        matches!(
            *n,
            local_name!("li") | local_name!("td") | local_name!("th") | local_name!("dd")
        )
    })
}

pub(crate) fn good_tokens<'b>(blocks: impl Iterator<Item = &'b Block>) -> u32 {
    blocks
        .filter(|b| classify(b) == Class::Good)
        .map(|b| b.tokens)
        .sum()
}

/// What the page is, as far as cleaning goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Running text: its headline is the title, its notes are furniture.
    Article,
    /// A listing of record items (see [`crate::records`]): every block of
    /// its container is kept, links included (titles, prices, dates, short
    /// labels), and its heading names what is listed.
    Listing,
    /// A page that declares a product: its heading is the product's name.
    Product,
    /// A page that is neither a product nor a dated story (a service or
    /// landing page, a category page): its heading says what it offers.
    Page,
}

/// Where a page's content starts when its container was widened to take
/// in its main heading.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Start {
    /// The main heading.
    pub(crate) heading: NodeId,
    /// The container found before widening.
    pub(crate) core: NodeId,
}

/// Blocks of `container` without boilerplate. `good_before` is the amount of
/// good text the scorer saw in the container. With a `start`, blocks before
/// its heading are left out unless they are in its core.
pub(crate) fn clean(
    dom: &Dom,
    a: &Analysis,
    container: NodeId,
    good_before: u32,
    kind: Kind,
    start: Option<Start>,
) -> Vec<Block> {
    clean_keeping(dom, a, container, good_before, kind, start, &[])
}

/// Blocks of a listing's `container`. The parts of its record items
/// (`in_item`, see [`crate::records::items_of`]) are content whatever their
/// class names say: a caption, a date, a byline or a tag line repeated in
/// every item is the record's text, not furniture around the page's.
pub(crate) fn clean_listing(
    dom: &Dom,
    a: &Analysis,
    container: NodeId,
    good_before: u32,
    in_item: &[bool],
) -> Vec<Block> {
    clean_keeping(dom, a, container, good_before, Kind::Listing, None, in_item)
}

/// [`clean`], keeping the elements flagged in `keep` even when their class
/// names look like boilerplate.
fn clean_keeping(
    dom: &Dom,
    a: &Analysis,
    container: NodeId,
    good_before: u32,
    kind: Kind,
    start: Option<Start>,
    keep: &[bool],
) -> Vec<Block> {
    let local = a.boiler_within(dom, container);
    let visible = |id: NodeId| {
        !a.invisible.get(id).copied().unwrap_or(true)
            && (!local.get(id).copied().unwrap_or(true) || keep.get(id).copied().unwrap_or(false))
    };
    let mut inner = segment(dom, a, container, &visible);
    // Class names are only hints: when they would remove most of the
    // container's running text, they are wrong about this page.
    let good_after = good_tokens(inner.iter());
    if (good_after as f32) < KEEP_GOOD_SHARE * good_before as f32 && good_after < KEEP_GOOD_MIN {
        let visible = |id: NodeId| !a.invisible.get(id).copied().unwrap_or(true);
        inner = segment(dom, a, container, &visible);
    }
    let total: u32 = inner.iter().map(|b| b.tokens).sum();
    // In a list-like container (little running text), links are the content.
    let listing = kind == Kind::Listing
        || (good_tokens(inner.iter()) as f32) < LISTING_GOOD_SHARE * total as f32;
    let following = if listing {
        Following::default()
    } else {
        Following::new(a, &inner)
    };
    let mut kept: Vec<Block> = inner
        .into_iter()
        .filter(|b| {
            kind == Kind::Listing
                || classify(b) != Class::Bad
                || (listing && b.tokens >= LISTING_MIN_TOKENS)
        })
        .filter(|b| !markup_like(&b.text))
        .collect();
    if let Some(s) = start {
        // The heading, or what follows it when cleaning left it out.
        let from = a.pos.get(s.heading).copied().unwrap_or(u32::MAX);
        let after = |b: &Block| a.pos.get(b.owner).is_some_and(|&p| p >= from);
        if let Some(at) = kept.iter().position(after) {
            let mut i = 0;
            kept.retain(|b| {
                i += 1;
                i > at || a.contains(s.core, b.owner)
            });
        }
    }
    // An article's headline is the title, not part of the text; a listing's
    // or a product's heading says what the page holds.
    if kind == Kind::Article
        && kept
            .first()
            .is_some_and(|b| dom.local_name(b.owner) == Some(&local_name!("h1")))
    {
        kept.remove(0);
    }
    if !listing {
        if let Some(i) = tail_cut(dom, a, &kept, &following) {
            kept.truncate(i);
        }
        // Head and tail notes: bylines, dates, share prompts, tag lines.
        let first_good = kept
            .iter()
            .position(|b| classify(b) == Class::Good)
            .unwrap_or(0);
        // A heading that names what the page holds stays.
        let heading = usize::from(
            kind != Kind::Article
                && kept
                    .first()
                    .is_some_and(|b| dom.local_name(b.owner) == Some(&local_name!("h1"))),
        );
        let notes = kept
            .iter()
            .take(first_good)
            .skip(heading)
            .take_while(|b| b.tokens < NOTE_MAX_TOKENS);
        // Under the heading of a site's own page, short lines are its
        // tagline and introduction, unless one shows a price (a buy box).
        let tagline =
            heading == 1 && kind == Kind::Page && !notes.clone().any(|b| has_price(&b.text));
        let cut = if tagline { 0 } else { notes.count() };
        kept.drain(heading..heading + cut);
        while kept.last().is_some_and(|b| {
            classify(b) != Class::Good && b.tokens < NOTE_MAX_TOKENS && !in_list(dom, b.owner)
        }) {
            kept.pop();
        }
    }
    // Responsive layouts repeat whole sections (one copy hidden by CSS):
    // keep the first copy of each long paragraph.
    let mut seen = HashSet::new();
    kept.retain(|b| b.tokens < REPEAT_MIN_TOKENS || seen.insert(b.text.clone()));
    without_clones(dom, kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze;
    use crate::parse::parse;

    const PARA: &str = "This paragraph is running text, with enough words, commas and \
                        full stops to count as the main content of the page.";

    fn cleaned(html: &str, container_tag: &str, good_before: u32) -> Vec<String> {
        cleaned_in(html, container_tag, good_before, Kind::Article)
    }

    fn cleaned_in(html: &str, container_tag: &str, good_before: u32, kind: Kind) -> Vec<String> {
        let dom = parse(html, 512);
        let a = analyze(&dom);
        let c = dom.find_element(container_tag).expect("container");
        clean(&dom, &a, c, good_before, kind, None)
            .into_iter()
            .map(|b| b.text)
            .collect()
    }

    #[test]
    fn drops_boilerplate_links_headline_and_notes() {
        let html = format!(
            "<article><h1>Headline</h1><div>By A. Writer</div><p>{PARA}</p>\
             <div class='share'>Share this now please</div><p>{PARA}</p>\
             <p><a href=/1>a link</a> <a href=/2>another link</a></p><div>Tags: x</div></article>"
        );
        assert_eq!(cleaned(&html, "article", 40), vec![PARA, PARA]);
    }

    fn cleaned_as(html: &str, kind: Kind) -> Vec<String> {
        cleaned_in(html, "main", 40, kind)
    }

    #[test]
    fn a_pages_tagline_under_its_heading_stays_an_articles_notes_go() {
        let html = format!(
            "<main><h1>Screen recording</h1><p>Record in a few clicks.</p>\
             <p>Share anywhere, with anyone.</p><p>{PARA}</p><p>{PARA}</p></main>"
        );
        let page = cleaned_as(&html, Kind::Page);
        assert_eq!(page.len(), 5, "{page:?}");
        assert_eq!(page[1], "Record in a few clicks.");
        let article = cleaned_as(&html, Kind::Article);
        assert_eq!(article, vec![PARA, PARA]);
    }

    #[test]
    fn a_buy_box_under_a_pages_heading_is_cut() {
        let html = format!(
            "<main><h1>Sound machine</h1><p>30% off while supplies last</p>\
             <p>$34.99 $49.99 Save $15</p><p>{PARA}</p><p>{PARA}</p></main>"
        );
        assert_eq!(
            cleaned_as(&html, Kind::Page),
            vec!["Sound machine", PARA, PARA]
        );
    }

    #[test]
    fn teaser_sections_after_the_article_are_cut() {
        let teaser = "Another story of the same site, with a summary long enough, and commas, \
                      to read as running text.";
        for opener in ["Read This Next", "Recent posts", "More like this"] {
            let html =
                format!("<main><p>{PARA}</p><p>{PARA}</p><h2>{opener}</h2><p>{teaser}</p></main>");
            assert_eq!(cleaned(&html, "main", 40), vec![PARA, PARA], "{opener}");
        }
    }

    #[test]
    fn long_repeats_are_kept_once() {
        let long = "word ".repeat(45);
        let html = format!(
            "<main><p>{PARA}</p><p>{long}</p><p>{PARA}</p><p>{long}</p><p>{PARA}</p></main>"
        );
        let got = cleaned(&html, "main", 0);
        assert_eq!(got.len(), 4);
        assert_eq!(got.iter().filter(|p| p.as_str() == PARA).count(), 3);
    }

    #[test]
    fn keeps_list_items_at_the_tail() {
        let html = format!("<article><p>{PARA}</p><ul><li>short item</li></ul></article>");
        assert_eq!(cleaned(&html, "article", 20), vec![PARA, "short item"]);
    }

    #[test]
    fn listing_keeps_linked_items() {
        let items: String = (0..6)
            .map(|i| format!("<li><a href=/{i}>Product number {i} in stock</a></li>"))
            .collect();
        let html = format!("<main><h2>Our shoes</h2><ul>{items}</ul></main>");
        let got = cleaned(&html, "main", 0);
        assert_eq!(got.len(), 7);
        assert_eq!(got[1], "Product number 0 in stock");
    }

    #[test]
    fn wrong_class_hints_are_overruled() {
        let html = format!(
            "<main><div class='widget-comment'><p>{PARA}</p></div>\
             <div class='widget-comment'><p>{PARA}</p></div>\
             <div class='widget-comment'><p>{PARA}</p></div></main>"
        );
        assert_eq!(cleaned(&html, "main", 60).len(), 3);
    }
}

#[cfg(test)]
mod markup_tests {
    use super::*;

    #[test]
    fn markup_detection() {
        assert!(markup_like(
            r#"<img height="1" width="1" style="display:none" src="https://x.example/p?a=1">"#
        ));
        assert!(markup_like("<div class=\"x\"></div> ok"));
        assert!(!markup_like("<The Palace: Tale of a Scribe>"));
        assert!(!markup_like(
            "a < b and c > d in plain prose, said the teacher"
        ));
        assert!(!markup_like(
            "Use the <br> tag to break a line inside a long paragraph."
        ));
    }
}

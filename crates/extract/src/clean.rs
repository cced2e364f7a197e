//! Cleaning the selected container: boilerplate subtrees, link lists,
//! a leading headline, and head/tail notes.

use std::collections::HashSet;

use html5ever::local_name;

use crate::analyze::Analysis;
use crate::dom::{Dom, NodeId};
use crate::score::{classify, Class};
use crate::segment::{segment, Block};

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

/// Is the block an item of a list or table (content, not a tail note)?
fn in_list(dom: &Dom, owner: NodeId) -> bool {
    dom.local_name(owner).is_some_and(|n| {
        matches!(
            *n,
            local_name!("li") | local_name!("td") | local_name!("th") | local_name!("dd")
        )
    })
}

fn good_tokens<'b>(blocks: impl Iterator<Item = &'b Block>) -> u32 {
    blocks
        .filter(|b| classify(b) == Class::Good)
        .map(|b| b.tokens)
        .sum()
}

/// Blocks of `container` without boilerplate. `good_before` is the amount of
/// good text the scorer saw in the container.
pub(crate) fn clean(dom: &Dom, a: &Analysis, container: NodeId, good_before: u32) -> Vec<Block> {
    let local = a.boiler_within(dom, container);
    let visible = |id: NodeId| {
        !a.invisible.get(id).copied().unwrap_or(true) && !local.get(id).copied().unwrap_or(true)
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
    let listing = (good_tokens(inner.iter()) as f32) < LISTING_GOOD_SHARE * total as f32;
    let mut kept: Vec<Block> = inner
        .into_iter()
        .filter(|b| classify(b) != Class::Bad || (listing && b.tokens >= LISTING_MIN_TOKENS))
        .collect();
    // The headline is the title, not part of the text.
    if kept
        .first()
        .is_some_and(|b| dom.local_name(b.owner) == Some(&local_name!("h1")))
    {
        kept.remove(0);
    }
    if !listing {
        // Head and tail notes: bylines, dates, share prompts, tag lines.
        let first_good = kept
            .iter()
            .position(|b| classify(b) == Class::Good)
            .unwrap_or(0);
        let cut = kept
            .iter()
            .take(first_good)
            .take_while(|b| b.tokens < NOTE_MAX_TOKENS)
            .count();
        kept.drain(..cut);
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
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze;
    use crate::parse::parse;

    const PARA: &str = "This paragraph is running text, with enough words, commas and \
                        full stops to count as the main content of the page.";

    fn cleaned(html: &str, container_tag: &str, good_before: u32) -> Vec<String> {
        let dom = parse(html, 512);
        let a = analyze(&dom);
        let c = dom.find_element(container_tag).expect("container");
        clean(&dom, &a, c, good_before)
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

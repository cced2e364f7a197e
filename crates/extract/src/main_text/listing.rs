//! The listing reading: a page whose content is the items of a record
//! region (see [`crate::records`]) keeps those items, and the container
//! the article reading chose is widened to hold them.
//!
//! Two kinds of evidence make a page a listing. Either the article reading
//! found little running text and a record region outweighs it (the `weak`
//! case of the pipeline), or the container it found is itself a large
//! record region holding many times the running text the article reading
//! saw in it (a section front whose cards carry summaries): the page is
//! then its records, kept whole, not the summaries alone.

use crate::analyze::Analysis;
use crate::clean::clean_listing;
use crate::dom::{Dom, NodeId, NONE};
use crate::records::{in_any_item, without_stray_links, Region};
use crate::score::{select_container, Class, Furniture};
use crate::segment::Block;

/// Link-dense blocks of record items count as content from this size
/// (titles, not buttons).
const ITEM_LINK_MIN_TOKENS: u32 = 4;
/// The article reading's container read as a record region makes the page
/// a listing when its items hold this many times its good text...
const ENCLOSING_RATIO: u32 = 2;
/// ... and at least this many tokens (smaller regions in a container are
/// a page's own cards: features, plans, related links, read better by the
/// article cleaning).
const ENCLOSING_MIN_TOKENS: u32 = 1500;
/// Sibling regions of the same item tag count as one listing from this
/// many of them (sections of one grid under their own headings).
const MIN_SIBLING_REGIONS: usize = 2;

/// The page's blocks read as a listing of the `chosen` regions: the items' blocks are
/// content whatever their class names say, the container is chosen anew
/// around them, and link lists outside every item of `regions` go.
pub(crate) fn listing_blocks(
    dom: &Dom,
    a: &Analysis,
    blocks: &[Block],
    classes: &[Class],
    boosts: &[f32],
    regions: &[Region],
    chosen: &[&Region],
) -> Vec<Block> {
    let in_item = in_any_item(dom, a, chosen.iter().copied());
    // The items' parts are content whatever their class names say (a
    // caption, a byline, a date in every record).
    let mut item_classes = classes.to_vec();
    let mut item_boosts = boosts.to_vec();
    for ((b, c), w) in blocks
        .iter()
        .zip(item_classes.iter_mut())
        .zip(item_boosts.iter_mut())
    {
        if in_item.get(b.owner).copied().unwrap_or(false) {
            *w = 1.0;
            if *c != Class::Bad || b.tokens >= ITEM_LINK_MIN_TOKENS {
                *c = Class::Good;
            }
        }
    }
    let container = select_container(
        dom,
        a,
        blocks,
        &item_classes,
        &item_boosts,
        Furniture::Never,
    );
    let good_before = good_in(a, container, blocks, classes);
    let kept = clean_listing(dom, a, container, good_before, &in_item);
    without_stray_links(kept, &in_any_item(dom, a, regions))
}

/// Can `container` be a record region large enough for [`enclosing`]?
/// (A cheap test that spares the record scan on most pages.)
pub(crate) fn in_place_candidate(a: &Analysis, container: NodeId) -> bool {
    a.tokens.get(container).copied().unwrap_or(0) >= ENCLOSING_MIN_TOKENS
}

/// The record region whose items are the children of the article
/// reading's `container`, when they hold at least [`ENCLOSING_MIN_TOKENS`]
/// and [`ENCLOSING_RATIO`] times its good text `good`, with the regions of
/// the same item tag among its siblings. Empty when there is none.
pub(crate) fn enclosing<'r>(
    dom: &Dom,
    regions: &'r [Region],
    container: NodeId,
    good: u32,
) -> Vec<&'r Region> {
    regions
        .iter()
        .filter(|r| {
            r.parent == container
                && r.mass >= ENCLOSING_MIN_TOKENS
                && r.mass > ENCLOSING_RATIO * good
        })
        .max_by_key(|r| r.mass)
        .map_or_else(Vec::new, |best| with_siblings(dom, regions, best))
}

/// `best` with the regions of its item tag among its siblings (a grid
/// split into sections under their own headings), or `best` alone.
pub(crate) fn with_siblings<'r>(
    dom: &Dom,
    regions: &'r [Region],
    best: &'r Region,
) -> Vec<&'r Region> {
    let parent_of = |id: NodeId| dom.get(id).map_or(NONE, |n| n.parent);
    let up = parent_of(best.parent);
    let siblings: Vec<&Region> = regions
        .iter()
        .filter(|r| r.tag == best.tag && parent_of(r.parent) == up)
        .collect();
    if siblings.len() >= MIN_SIBLING_REGIONS {
        siblings
    } else {
        vec![best]
    }
}

/// The listing of `chosen` regions read in place: the element holding them
/// all (the regions' parent, or for sibling regions their common parent)
/// cleaned as a listing, its items' parts kept whatever their class names
/// say, link lists outside every item of `regions` dropped.
pub(crate) fn listing_in_place(
    dom: &Dom,
    a: &Analysis,
    blocks: &[Block],
    classes: &[Class],
    regions: &[Region],
    chosen: &[&Region],
) -> Vec<Block> {
    let in_item = in_any_item(dom, a, chosen.iter().copied());
    let container = match chosen {
        [one] => one.parent,
        [first, ..] => dom.get(first.parent).map_or(first.parent, |n| n.parent),
        [] => return Vec::new(),
    };
    let good_before = good_in(a, container, blocks, classes);
    let kept = clean_listing(dom, a, container, good_before, &in_item);
    without_stray_links(kept, &in_any_item(dom, a, regions))
}

/// Tokens of the blocks of `container` judged good.
pub(crate) fn good_in(a: &Analysis, container: NodeId, blocks: &[Block], classes: &[Class]) -> u32 {
    blocks
        .iter()
        .zip(classes)
        .filter(|(b, c)| **c == Class::Good && a.contains(container, b.owner))
        .map(|(b, _)| b.tokens)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze;
    use crate::dom::DOCUMENT;
    use crate::extract::run;
    use crate::parse::parse;
    use crate::records::items_of;
    use crate::records::records;
    use crate::score::classify;
    use crate::segment::segment;
    use crate::Mode;

    const SUMMARY: &str = "Scientists report a finding about the deep sea, and what it means \
                           for the animals that live there, in a study out this week.";

    /// A section front: one element of story cards, each a linked title, a
    /// summary and a byline, the summaries read as running text.
    fn front(lead: &str) -> String {
        let cards: String = (0..40)
            .map(|i| {
                format!(
                    "<article><h2><a href=/s{i}>Story number {i} about the ocean floor</a></h2>\
                     <p>{SUMMARY}</p><div><a href=/a{i}>Reporter {i}</a> <a href=/t{i}>Science desk</a></div>\
                     <div>Published on March {i}, 2026, a four minute read with photos</div>\
                     <div>Image: the ocean floor seen from a research vessel, credit the lab</div></article>"
                )
            })
            .collect();
        format!(
            "<body><nav><a href=/>Home</a> <a href=/n>News</a></nav>\
             <main><div id=stories>{lead}{cards}</div></main></body>"
        )
    }

    fn text(html: &str) -> Vec<String> {
        run(html, Mode::Main, 512).paragraphs
    }

    #[test]
    fn a_container_that_is_a_large_record_region_is_a_listing() {
        let html = front("");
        let dom = parse(&html, 512);
        let a = analyze(&dom);
        let vis = |id: NodeId| !a.invisible.get(id).copied().unwrap_or(true);
        let blocks = segment(&dom, &a, DOCUMENT, &vis);
        let regions = records(&dom, &a, &blocks);
        let cards = regions.iter().max_by_key(|r| r.mass).unwrap();
        assert!(cards.mass >= ENCLOSING_MIN_TOKENS, "{}", cards.mass);
        // Its summaries are a small part of it: a listing, kept whole.
        let chosen = enclosing(&dom, &regions, cards.parent, cards.mass / 3);
        assert_eq!(chosen, vec![cards]);
        let in_item = items_of(&dom, &a, cards);
        let classes: Vec<Class> = blocks.iter().map(classify).collect();
        let kept = listing_in_place(&dom, &a, &blocks, &classes, &regions, &chosen);
        assert!(
            kept.iter().any(|b| b.text == "Reporter 7 Science desk"),
            "{kept:?}"
        );
        assert!(kept.iter().all(|b| in_item[b.owner]), "{kept:?}");
        // Most of it running text, or a smaller element: not a listing.
        assert!(enclosing(&dom, &regions, cards.parent, cards.mass / 2 + 1).is_empty());
        let inner = dom.children(cards.parent).next().unwrap();
        assert!(enclosing(&dom, &regions, inner, 0).is_empty());
    }

    #[test]
    fn not_when_the_container_holds_a_long_paragraph() {
        // The story above the cards is the page's text: the article
        // reading keeps it, and the cards' bylines stay out.
        let long = format!("<p>{}</p>", SUMMARY.repeat(5));
        let kept = text(&front(&long));
        assert!(kept.iter().any(|t| t.len() > 4 * SUMMARY.len()), "{kept:?}");
        assert!(!kept.iter().any(|t| t.contains("Reporter 7")), "{kept:?}");
    }
}

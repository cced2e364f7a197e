//! Repeated item blocks: the records of listings, product grids, search
//! results, event lists and card collections.
//!
//! An element whose children include several siblings of the same tag, each
//! holding a few blocks of text (a title, a price, a date, a summary) of
//! similar size and mostly outside links, is a record region: its items are
//! the page's content even though no single block of them reads as running
//! text. Menus (one short link per item), layout wrappers (one child holding
//! most of the text) and runs of paragraphs (one block per item) are not
//! record regions. Class names are not read: the pre-filter keeps their
//! verdicts only, and the structure is the general evidence.

use html5ever::{local_name, LocalName};

use crate::analyze::Analysis;
use crate::dom::{Dom, NodeId, NONE};
use crate::score::{classify, Class};
use crate::segment::Block;

/// A region has at least this many items with text...
const MIN_ITEMS: u32 = 3;
/// ... holding on average at least this many tokens...
const MIN_ITEM_TOKENS: u32 = 5;
/// ... and this many blocks per item (a title and a price, a date, a
/// summary: a single line per item is a link list or a run of paragraphs).
const MIN_ITEM_BLOCKS: f32 = 1.5;
/// At most this share of a region's text is inside links...
const MAX_LINK_SHARE: f32 = 0.75;
/// ... unless its items average this many blocks...
const MIN_LINKED_ITEM_BLOCKS: f32 = 2.0;
/// ... and this many tokens, in links of this many tokens on average
/// (cards that are one link each, or a title and a summary, not the
/// nested link lists of a table of contents or a menu).
const MIN_LINKED_ITEM_TOKENS: u32 = 15;
const MIN_LINK_TOKENS: u32 = 5;
/// No item holds more than this share of the region's text.
const MAX_ITEM_SHARE: f32 = 0.5;

/// One record region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Region {
    /// The element whose children are the items.
    pub(crate) parent: NodeId,
    /// The items' tag.
    pub(crate) tag: LocalName,
    /// Text tokens of the items.
    pub(crate) mass: u32,
}

/// Per-tag tally of one element's children.
struct Tally {
    tag: LocalName,
    items: u32,
    tokens: u32,
    link_tokens: u32,
    blocks: u32,
    links: u32,
    max_tokens: u32,
}

/// Can elements of this tag be items? Text-level blocks (paragraphs,
/// headings, quotes, code) are the content of items, never items.
fn may_be_item(tag: &LocalName) -> bool {
    !matches!(
        *tag,
        local_name!("p")
            | local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
            | local_name!("pre")
            | local_name!("blockquote")
            | local_name!("br")
            | local_name!("hr")
            | local_name!("img")
            | local_name!("option")
    )
}

fn qualifies(t: &Tally) -> bool {
    if t.items < MIN_ITEMS || t.tokens < MIN_ITEM_TOKENS * t.items {
        return false;
    }
    let items = t.items as f32;
    // Cards wrapped whole in a link are items when they hold several blocks
    // and more than a label.
    let linked_ok = t.link_tokens as f32 <= MAX_LINK_SHARE * t.tokens as f32
        || (t.blocks as f32 >= MIN_LINKED_ITEM_BLOCKS * items
            && t.tokens >= MIN_LINKED_ITEM_TOKENS * t.items
            && t.link_tokens >= MIN_LINK_TOKENS * t.links);
    t.blocks as f32 >= MIN_ITEM_BLOCKS * items
        && linked_ok
        && t.max_tokens as f32 <= MAX_ITEM_SHARE * t.tokens as f32
}

/// Flags for every node inside (or being) an item of `region`.
pub(crate) fn items_of(dom: &Dom, a: &Analysis, region: &Region) -> Vec<bool> {
    let mut flags = vec![false; dom.nodes.len()];
    for c in dom.children(region.parent) {
        if dom.local_name(c) != Some(&region.tag) || !usable(a, c) {
            continue;
        }
        let (Some(&start), Some(&end)) = (a.pos.get(c), a.end.get(c)) else {
            continue;
        };
        for &id in a.order.get(start as usize..end as usize).unwrap_or(&[]) {
            flags[id] = true;
        }
    }
    flags
}

/// Flags for every node inside (or being) an item of any of `regions`.
pub(crate) fn in_any_item<'r>(
    dom: &Dom,
    a: &Analysis,
    regions: impl IntoIterator<Item = &'r Region>,
) -> Vec<bool> {
    let mut flags = vec![false; dom.nodes.len()];
    for r in regions {
        for (f, item) in flags.iter_mut().zip(items_of(dom, a, r)) {
            *f |= item;
        }
    }
    flags
}

/// The blocks of a listing without the link lists around its items: a
/// link-dense block outside every record item is a filter, a sort menu,
/// pagination or navigation, while the items' own links (titles, prices)
/// and the page's text (its heading, an introduction) stay.
pub(crate) fn without_stray_links(mut kept: Vec<Block>, in_item: &[bool]) -> Vec<Block> {
    kept.retain(|b| in_item.get(b.owner).copied().unwrap_or(false) || classify(b) != Class::Bad);
    kept
}

fn usable(a: &Analysis, id: NodeId) -> bool {
    !a.invisible.get(id).copied().unwrap_or(true) && !a.boiler.get(id).copied().unwrap_or(true)
}

/// The record regions among the page's visible, non-boilerplate elements,
/// in document order of their parents. `blocks` are the page's blocks
/// (their owners tell how many blocks each element holds).
pub(crate) fn records(dom: &Dom, a: &Analysis, blocks: &[Block]) -> Vec<Region> {
    let n = dom.nodes.len();
    let mut block_count = vec![0u32; n];
    for b in blocks {
        if let Some(c) = block_count.get_mut(b.owner) {
            *c += 1;
        }
    }
    let mut link_count = vec![0u32; n];
    for &id in a.order.iter().rev() {
        if dom.local_name(id) == Some(&local_name!("a"))
            && a.in_link.get(id).copied().unwrap_or(false)
        {
            link_count[id] = link_count[id].saturating_add(1);
        }
        let parent = dom.get(id).map_or(NONE, |x| x.parent);
        if parent < n {
            block_count[parent] = block_count[parent].saturating_add(block_count[id]);
            link_count[parent] = link_count[parent].saturating_add(link_count[id]);
        }
    }
    let mut regions = Vec::new();
    let mut tallies: Vec<Tally> = Vec::new();
    let usable = |id: NodeId| usable(a, id);
    for &id in &a.order {
        if block_count[id] < MIN_ITEMS || !usable(id) || dom.local_name(id).is_none() {
            continue;
        }
        tallies.clear();
        for c in dom.children(id) {
            let Some(tag) = dom.local_name(c) else {
                continue;
            };
            let tokens = a.tokens.get(c).copied().unwrap_or(0);
            if tokens == 0 || !usable(c) || !may_be_item(tag) {
                continue;
            }
            let t = match tallies.iter_mut().position(|t| t.tag == *tag) {
                Some(i) => &mut tallies[i],
                None => {
                    tallies.push(Tally {
                        tag: tag.clone(),
                        items: 0,
                        tokens: 0,
                        link_tokens: 0,
                        blocks: 0,
                        links: 0,
                        max_tokens: 0,
                    });
                    let last = tallies.len() - 1;
                    &mut tallies[last]
                }
            };
            t.items += 1;
            t.tokens = t.tokens.saturating_add(tokens);
            t.link_tokens = t
                .link_tokens
                .saturating_add(a.link_tokens.get(c).copied().unwrap_or(0));
            t.blocks = t.blocks.saturating_add(block_count[c]);
            t.links = t.links.saturating_add(link_count[c]);
            t.max_tokens = t.max_tokens.max(tokens);
        }
        let Some(best) = tallies
            .iter()
            .filter(|t| qualifies(t))
            .max_by_key(|t| t.tokens)
        else {
            continue;
        };
        regions.push(Region {
            parent: id,
            tag: best.tag.clone(),
            mass: best.tokens,
        });
    }
    regions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze;
    use crate::dom::DOCUMENT;
    use crate::parse::parse;
    use crate::segment::segment;

    fn regions_of(html: &str) -> (Dom, Vec<Region>) {
        let dom = parse(html, 512);
        let a = analyze(&dom);
        let vis = |id: NodeId| !a.invisible.get(id).copied().unwrap_or(true);
        let blocks = segment(&dom, &a, DOCUMENT, &vis);
        let r = records(&dom, &a, &blocks);
        (dom, r)
    }

    fn card(i: u32) -> String {
        format!(
            "<div><h3><a href=/p{i}>Trail shoe model {i} for men</a></h3>\
             <div>$10{i}.00</div><div>Rated 4.{i} out of 5 by 12 buyers</div></div>"
        )
    }

    #[test]
    fn a_product_grid_is_a_region() {
        let grid: String = (0..6).map(card).collect();
        let (dom, r) = regions_of(&format!("<body><section id=grid>{grid}</section></body>"));
        assert_eq!(r.len(), 1);
        assert_eq!(dom.local_name(r[0].parent), Some(&local_name!("section")));
        assert!(r[0].mass > 60);
    }

    #[test]
    fn menus_paragraphs_and_layouts_are_not() {
        let menu: String = (0..8)
            .map(|i| format!("<li><a href=/{i}>Section {i}</a></li>"))
            .collect();
        let paras = "<p>One paragraph of running text, with words.</p>".repeat(5);
        let big = "<p>Main text of the page, long and running on and on.</p>".repeat(9);
        let layout = format!(
            "<div><p>Top bar</p><p>x</p></div><div>{big}</div><div><p>Foot</p><p>y</p></div>"
        );
        for html in [format!("<ul>{menu}</ul>"), paras, layout] {
            assert!(regions_of(&html).1.is_empty(), "{html}");
        }
    }

    #[test]
    fn a_listing_drops_link_lists_outside_its_items() {
        let grid: String = (0..6).map(card).collect();
        let filters: String = (0..5)
            .map(|i| format!("<a href=/f{i}>Size {i}</a> "))
            .collect();
        let html = format!(
            "<body><main><h1>Trail shoes</h1><div>{filters}</div>\
             <section>{grid}</section><div><a href=/2>Next page</a></div></main></body>"
        );
        let dom = parse(&html, 512);
        let a = analyze(&dom);
        let vis = |id: NodeId| !a.invisible.get(id).copied().unwrap_or(true);
        let blocks = segment(&dom, &a, DOCUMENT, &vis);
        let regions = records(&dom, &a, &blocks);
        let kept = without_stray_links(blocks, &in_any_item(&dom, &a, &regions));
        let texts: Vec<&str> = kept.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts[0], "Trail shoes");
        assert!(texts.contains(&"Trail shoe model 0 for men"), "{texts:?}");
        assert!(texts.contains(&"$100.00"), "{texts:?}");
        assert!(!texts.iter().any(|t| t.contains("Size 1")), "{texts:?}");
        assert!(!texts.contains(&"Next page"), "{texts:?}");
    }

    #[test]
    fn boilerplate_and_link_lists_are_not() {
        let grid: String = (0..6).map(card).collect();
        let text = "<p>The page's own text, long enough to be most of it.</p>".repeat(20);
        let (_, r) = regions_of(&format!(
            "<body><main>{text}</main><aside>{grid}</aside></body>"
        ));
        assert!(r.is_empty());
        let links: String = (0..6)
            .map(|i| {
                format!(
                    "<div><a href=/{i}>Story {i} headline</a><a href=/c{i}>12 comments</a></div>"
                )
            })
            .collect();
        assert!(regions_of(&links).1.is_empty());
    }
}

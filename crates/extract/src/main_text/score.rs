//! Main-content selection.
//!
//! Every block is judged on its own (length, punctuation, link density,
//! boilerplate ancestry). Each element then scores the good text it holds
//! minus the bad text it would drag along; the best-scoring element is the
//! main container. Semantic and class/id evidence, and text confirmed by a
//! JSON-LD `articleBody`, raise the score of the elements holding it.

use crate::analyze::Analysis;
use crate::dom::{Dom, NodeId, DOCUMENT, NONE};
use crate::segment::Block;

/// Verdict on one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Looks like main text.
    Good,
    /// Too short to tell.
    Neutral,
    /// Links or page furniture.
    Bad,
}

/// Is most of the block inside boilerplate-flagged elements?
pub(crate) fn mostly_boiler(b: &Block) -> bool {
    b.boiler_tokens.saturating_mul(2) > b.tokens
}

/// Judge a block by itself.
pub(crate) fn classify(b: &Block) -> Class {
    let ld = b.link_density();
    if ld > 0.5 {
        return Class::Bad;
    }
    if ld < 0.35 && (b.tokens >= 25 || (b.tokens >= 10 && b.punct >= 1)) {
        return Class::Good;
    }
    Class::Neutral
}

/// Per-block extra weight, e.g. from JSON-LD confirmation (1.0 = none).
pub(crate) type Boosts = [f32];

/// May the container be inside page furniture (an element flagged as
/// boilerplate: a navigation bar, a footer, a header, a pop-up)?
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Furniture {
    /// Only when no element outside furniture holds more good text than
    /// bad: a policy text in a footer pop-up or a blurb in the header is
    /// not the page when the page has content of its own.
    Fallback,
    /// Never (unless nothing else holds text): record items are never
    /// furniture.
    Never,
    /// Wherever the most text is: a declared product asks where that is,
    /// to read its block around its heading when furniture (reviews, a
    /// seller panel) holds it (`product::product_block`).
    Anywhere,
}

/// Pick the main container: the element maximising good minus bad text,
/// outside page furniture as `furniture` says.
pub(crate) fn select_container(
    dom: &Dom,
    a: &Analysis,
    blocks: &[Block],
    classes: &[Class],
    boosts: &Boosts,
    furniture: Furniture,
) -> NodeId {
    let n = dom.nodes.len();
    let mut good = vec![0f32; n];
    let mut bad = vec![0f32; n];
    for ((b, c), w) in blocks.iter().zip(classes).zip(boosts) {
        let t = b.tokens as f32;
        let Some(slot) = good.get_mut(b.owner) else {
            continue;
        };
        match c {
            Class::Good => *slot += t * w,
            Class::Neutral => *slot += t * 0.1 * w,
            Class::Bad => {
                if let Some(s) = bad.get_mut(b.owner) {
                    *s += t;
                }
            }
        }
    }
    for &id in a.order.iter().rev() {
        let parent = dom.get(id).map_or(NONE, |x| x.parent);
        if parent < n {
            let (g, b) = (good[id], bad[id]);
            good[parent] += g;
            bad[parent] += b;
        }
    }

    // The best element anywhere, and the best outside furniture.
    let (mut any, mut any_score) = (DOCUMENT, f32::MIN);
    let (mut outside, mut outside_score) = (DOCUMENT, f32::MIN);
    for &id in a.order.iter().rev() {
        if dom.local_name(id).is_none() {
            continue;
        }
        let mut s = good[id] - bad[id];
        if a.evidence.get(id).is_some_and(|e| e.positive) {
            s += 0.15 * good[id];
        }
        if s > any_score {
            any_score = s;
            any = id;
        }
        if s > outside_score && !a.boiler.get(id).copied().unwrap_or(false) {
            outside_score = s;
            outside = id;
        }
    }
    let found_outside = match furniture {
        Furniture::Anywhere => false,
        Furniture::Fallback => outside_score > 0.0,
        Furniture::Never => outside_score > f32::MIN,
    };
    let mut best = if found_outside { outside } else { any };
    // Pages without one dominant block of text (listings, product grids):
    // widen the container until it holds most of the page's good text.
    let total = good.get(DOCUMENT).copied().unwrap_or(0.0);
    let min_share = min_share();
    while good.get(best).copied().unwrap_or(0.0) < min_share * total {
        match dom.get(best).map(|n| n.parent) {
            Some(p) if p != NONE && p != DOCUMENT => best = p,
            _ => break,
        }
    }
    best
}

fn min_share() -> f32 {
    0.5
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze;
    use crate::parse::parse;
    use crate::segment::segment;

    fn block(tokens: u32, link_tokens: u32, punct: u32) -> Block {
        Block {
            text: String::from("x"),
            owner: DOCUMENT,
            tokens,
            link_tokens,
            boiler_tokens: 0,
            punct,
        }
    }

    #[test]
    fn classify_blocks() {
        assert_eq!(classify(&block(40, 0, 2)), Class::Good);
        assert_eq!(classify(&block(12, 0, 1)), Class::Good);
        assert_eq!(classify(&block(12, 0, 0)), Class::Neutral);
        assert_eq!(classify(&block(3, 0, 0)), Class::Neutral);
        assert_eq!(classify(&block(40, 30, 2)), Class::Bad);
        assert_eq!(classify(&block(40, 15, 2)), Class::Neutral);
    }

    /// The `id` of the container chosen on `html`, or of its nearest
    /// ancestor with one.
    fn container_id(html: &str, furniture: Furniture) -> Option<String> {
        let dom = parse(html, 512);
        let a = analyze(&dom);
        let vis = |id: NodeId| !a.invisible.get(id).copied().unwrap_or(true);
        let blocks = segment(&dom, &a, DOCUMENT, &vis);
        let classes: Vec<Class> = blocks.iter().map(classify).collect();
        let boosts = vec![1.0; blocks.len()];
        let mut c = select_container(&dom, &a, &blocks, &classes, &boosts, furniture);
        while c != NONE {
            if let Some(id) = dom.attr(c, &html5ever::local_name!("id")) {
                return Some(id.to_string());
            }
            c = dom.get(c).map_or(NONE, |x| x.parent);
        }
        None
    }

    const P: &str = "<p>Running text with enough words, and commas, to be good content here.</p>";

    #[test]
    fn container_is_the_text_holder_not_the_page() {
        let links = "<li><a href=/x>one link</a></li>".repeat(20);
        let html =
            format!("<body><ul>{links}</ul><div id=c>{P}{P}{P}</div><ul>{links}</ul></body>");
        assert_eq!(
            container_id(&html, Furniture::Fallback).as_deref(),
            Some("c")
        );
    }

    #[test]
    fn furniture_holds_the_container_only_when_nothing_else_does() {
        // A long policy text in a footer pop-up outweighs the page's short
        // introduction, but the introduction is the page.
        let intro = "<p>Our socks, knitted from merino wool, keep you warm.</p>";
        let policy = format!("<footer><div id=f>{P}{P}{P}{P}{P}{P}</div></footer>");
        let html = format!("<body><div id=c><h1>Socks</h1>{intro}</div>{policy}</body>");
        assert_ne!(
            container_id(&html, Furniture::Fallback).as_deref(),
            Some("f")
        );
        // When the furniture holds the only text, it is the text.
        let html = format!("<body><div><a href=/>Home</a></div>{policy}</body>");
        assert_eq!(
            container_id(&html, Furniture::Fallback).as_deref(),
            Some("f")
        );
    }

    #[test]
    fn record_items_win_over_furniture_when_furniture_is_never_content() {
        let cards: String = (0..6)
            .map(|i| format!("<div><a href=/p{i}>Wool sock {i} in grey</a></div>"))
            .collect();
        let html =
            format!("<body><header><div id=h>{P}</div></header><main id=m>{cards}</main></body>");
        assert_eq!(
            container_id(&html, Furniture::Fallback).as_deref(),
            Some("h")
        );
        assert_ne!(container_id(&html, Furniture::Never).as_deref(), Some("h"));
    }
}

//! Pages that hide themselves until a script shows them.
//!
//! Some frameworks wrap the whole page in an element hidden by an inline
//! style (`<div style="visibility:hidden">` until the style sheets load,
//! `<body style="display:none">` until a script runs) and show it from
//! script: a reader sees the page, a crawler sees an element that hides
//! everything. Hidden content is otherwise left out (menus, modals, tab
//! panels), so the rule is by share: an element hidden by its style that
//! holds most of the page's text is the page, not something hidden on it.

use crate::analyze::Analysis;
use crate::dom::{Dom, NodeData, NodeId};
use crate::tags::{kind, measure, TagKind};
use crate::visibility::hidden;

/// A hidden element is the page when it holds at least this share of the
/// page's text (its own, hidden, and the visible rest) ...
const PAGE_SHARE: f32 = 0.67;
/// ... and of its nodes: a wrapper of the page holds its structure too,
/// where a hidden copy of the article for machines (schema.org microdata
/// in a `display:none` block) is a small part of the page's nodes.
const NODE_SHARE: f32 = 0.5;
/// ... unless it holds this share of the page's text: a page that shows
/// under a tenth of its words (a header, a title) is waiting for a script
/// to show the rest, whatever else it hides beside it (menus, a footer,
/// pop-ups, each a hidden element of its own and many nodes); a hidden
/// copy for machines is beside a page that shows as much.
const ALONE_SHARE: f32 = 0.9;
/// ... and at least this many tokens (a page of a few words that hides
/// them says nothing).
const MIN_TOKENS: u32 = 50;

/// The element hidden by its inline style that holds the page, if any:
/// analysis leaves its hiding out (`analyze::analyze` runs again).
pub(crate) fn page_hiding_element(dom: &Dom, a: &Analysis) -> Option<NodeId> {
    let visible = a.tokens.first().copied().unwrap_or(0);
    let mut best: Option<(NodeId, u32)> = None;
    let mut i = 0;
    while let Some(&id) = a.order.get(i) {
        let parent = dom.get(id).map_or(usize::MAX, |x| x.parent);
        let parent_shown = !a.invisible.get(parent).copied().unwrap_or(false);
        if parent_shown && a.invisible.get(id) == Some(&true) && hidden(dom, id) {
            let tokens = hidden_tokens(dom, a, id);
            if best.is_none_or(|(_, t)| tokens > t) {
                best = Some((id, tokens));
            }
            // Hidden roots inside it are not roots of their own.
            i = a.end.get(id).map_or(i + 1, |&e| (e as usize).max(i + 1));
            continue;
        }
        i += 1;
    }
    let (id, tokens) = best?;
    let share = tokens as f32 / (tokens.saturating_add(visible)).max(1) as f32;
    let nodes = match (a.pos.get(id), a.end.get(id)) {
        (Some(&p), Some(&e)) => e.saturating_sub(p) as f32 / a.order.len().max(1) as f32,
        _ => 0.0,
    };
    let page = nodes >= NODE_SHARE || share >= ALONE_SHARE;
    (tokens >= MIN_TOKENS && share >= PAGE_SHARE && page).then_some(id)
}

/// Text tokens in the subtree of `root` as if it were shown: skipped tags
/// (scripts, styles, templates) stay out, and so do elements inside it
/// hidden by a style of their own.
fn hidden_tokens(dom: &Dom, a: &Analysis, root: NodeId) -> u32 {
    let (Some(&start), Some(&end)) = (a.pos.get(root), a.end.get(root)) else {
        return 0;
    };
    let mut tokens = 0u32;
    let mut i = start as usize + 1;
    while i < end as usize {
        let Some(&id) = a.order.get(i) else { break };
        let leave_out = match dom.get(id).map(|n| &n.data) {
            Some(NodeData::Text(t)) => {
                tokens = tokens.saturating_add(measure(t).tokens);
                false
            }
            Some(NodeData::Element { name, .. }) => {
                kind(&name.local) == TagKind::Skip || hidden(dom, id)
            }
            _ => false,
        };
        i = match a.end.get(id) {
            Some(&e) if leave_out => (e as usize).max(i + 1),
            _ => i + 1,
        };
    }
    tokens
}

#[cfg(test)]
mod tests {
    use crate::analyze::analyze;
    use crate::parse::parse;

    fn visible_tokens(html: &str) -> u32 {
        let dom = parse(html, 512);
        analyze(&dom).tokens[0]
    }

    fn words(n: usize) -> String {
        "Words of the article run on here. ".repeat(n)
    }

    #[test]
    fn a_page_hidden_until_a_script_shows_it_is_read() {
        let html = format!(
            "<body><div style='visibility:hidden;min-height:100vh'><p>{}</p>\
             <div style='display:none'>Sign in to continue reading</div></div></body>",
            words(20)
        );
        // The page's words count; what is hidden inside it still does not.
        assert_eq!(visible_tokens(&html), 20 * 7);
        let body = format!("<body style='display: none'><p>{}</p></body>", words(20));
        assert_eq!(visible_tokens(&body), 20 * 7);
    }

    #[test]
    fn a_page_that_shows_almost_nothing_is_read_from_its_hidden_block() {
        // Hidden menus of many nodes beside it, a title shown.
        let menu = format!(
            "<div style='display:none'><ul>{}</ul></div>",
            "<li><a href=/x>Section</a></li>".repeat(60)
        );
        let html = format!(
            "<body><h1>A product</h1>{menu}\
             <div style='display: none'><p>{}</p><p>{}</p></div>\
             <div style='display:none'><p>Footer words here.</p></div></body>",
            words(10),
            words(10)
        );
        assert_eq!(visible_tokens(&html), 2 + 20 * 7);
    }

    #[test]
    fn hidden_parts_of_a_page_stay_hidden() {
        // A hidden menu, modal or panel smaller than the page.
        let html = format!(
            "<body><div style='display:none'><p>{}</p></div><p>{}</p></body>",
            words(10),
            words(20)
        );
        assert_eq!(visible_tokens(&html), 20 * 7);
        // A hidden copy of the article for machines, beside the page.
        let nav = "<li><a href=/x>Section</a></li>".repeat(40);
        let copy = format!(
            "<body><ul>{nav}</ul><p>Visible words</p>\
             <div style='display:none' itemscope><p>{}</p></div></body>",
            words(20)
        );
        assert_eq!(visible_tokens(&copy), 40 + 2);
        // A hidden copy as large as what is shown beside it.
        let copy = format!(
            "<body><ul>{nav}</ul><p>{}</p>\
             <div style='display:none' itemscope><p>{}</p></div></body>",
            words(3),
            words(20)
        );
        assert_eq!(visible_tokens(&copy), 40 + 3 * 7);
        // Few words hidden: nothing to read either way.
        let few = "<body><div style='visibility:hidden'><p>Loading the page</p></div></body>";
        assert_eq!(visible_tokens(few), 0);
    }
}

//! Per-node facts computed in a few linear passes over the arena:
//! visibility, link ancestry, subtree text measures and boilerplate flags.

use html5ever::local_name;
use rustc_hash::FxHashMap;

use crate::dom::{Dom, NodeData, NodeId, DOCUMENT, NONE};
use crate::evidence::{judge, judge_role, Evidence};
use crate::page_hidden::page_hiding_element;
use crate::tags::{kind, measure, TagKind};
use crate::visibility::{collapsed_panel, hidden};

/// A subtree flagged as boilerplate keeps its text when it holds more than
/// this share of the page's text: such "boilerplate" is really the page.
const MAX_BOILER_SHARE: f32 = 0.6;

/// The same for furniture by its tag ([`furniture_tag`]): it is the page
/// only when it holds nearly all of its text (a page written into its
/// footer), not merely most of it (a mega menu beside a thin product).
const MAX_FURNITURE_TAG_SHARE: f32 = 0.9;

/// Facts about every node, indexed by `NodeId`.
pub(crate) struct Analysis {
    /// Nodes in document order (pre-order from the document root).
    pub(crate) order: Vec<NodeId>,
    /// Position of each node in `order` (`u32::MAX` when unreachable).
    pub(crate) pos: Vec<u32>,
    /// One past the position of the last node of each subtree.
    pub(crate) end: Vec<u32>,
    /// Not rendered (skipped tag, or hidden by an inline style).
    pub(crate) invisible: Vec<bool>,
    /// Inside an `<a href>`.
    pub(crate) in_link: Vec<bool>,
    /// Visible text tokens in the subtree.
    pub(crate) tokens: Vec<u32>,
    /// Visible text tokens inside links in the subtree.
    pub(crate) link_tokens: Vec<u32>,
    /// Sentence punctuation of each visible text node (0 for elements).
    pub(crate) punct: Vec<u32>,
    /// Own class/id/role/tag evidence.
    pub(crate) evidence: Vec<Evidence>,
    /// Inside (or being) a boilerplate element.
    pub(crate) boiler: Vec<bool>,
    /// Inside (or being) a positive element.
    pub(crate) in_positive: Vec<bool>,
}

impl Analysis {
    /// Boilerplate flags relative to the subtree of `root`: an element inside
    /// it is boilerplate when it or an ancestor below `root` has negative
    /// evidence, unless that element holds most of `root`'s text.
    pub(crate) fn boiler_within(&self, dom: &Dom, root: NodeId) -> Vec<bool> {
        let mut flags = vec![false; self.invisible.len()];
        let (Some(&start), Some(&end)) = (self.pos.get(root), self.end.get(root)) else {
            return flags;
        };
        let total = self.tokens.get(root).copied().unwrap_or(0) as f32;
        let range = self
            .order
            .get(start as usize + 1..end as usize)
            .unwrap_or(&[]);
        for &id in range {
            let parent = dom.get(id).map_or(NONE, |x| x.parent);
            let inherited = flags.get(parent).copied().unwrap_or(false);
            let neg = self.evidence.get(id).is_some_and(|e| e.negative)
                && self.tokens.get(id).copied().unwrap_or(0) as f32 <= max_share(dom, id) * total;
            if let Some(f) = flags.get_mut(id) {
                *f = inherited || neg;
            }
        }
        flags
    }

    /// Is `inner` inside the subtree of `outer` (or equal to it)?
    pub(crate) fn contains(&self, outer: NodeId, inner: NodeId) -> bool {
        match (
            self.pos.get(outer),
            self.end.get(outer),
            self.pos.get(inner),
        ) {
            (Some(&a), Some(&e), Some(&b)) => a <= b && b < e,
            _ => false,
        }
    }
}

/// The share of the page's text above which a boilerplate element is
/// taken for the page.
fn max_share(dom: &Dom, id: NodeId) -> f32 {
    if furniture_tag(dom, id) {
        MAX_FURNITURE_TAG_SHARE
    } else {
        MAX_BOILER_SHARE
    }
}

/// Is the element page furniture by its tag (`<nav>`, `<header>`,
/// `<footer>`, `<aside>`)? The markup says what it is, whatever its size:
/// a mega menu can hold most of a thin page's words and is still no part
/// of its content, while a huge wrapper whose class words merely sound
/// like furniture (`sidebar-layout`) is the page. A furniture tag whose
/// own class words say content has lost its negative evidence already.
fn furniture_tag(dom: &Dom, id: NodeId) -> bool {
    dom.local_name(id).is_some_and(|n| {
        matches!(
            *n,
            local_name!("nav")
                | local_name!("header")
                | local_name!("footer")
                | local_name!("aside")
        )
    })
}

/// Memo of class/id verdicts: pages repeat the same values many times.
/// Keys are hashed a word at a time (FxHash): long utility-class lists are
/// common and a byte-at-a-time hash was a few percent of extraction.
type Memo<'d> = FxHashMap<&'d str, Evidence>;

fn own_evidence<'d>(dom: &'d Dom, id: NodeId, buf: &mut String, memo: &mut Memo<'d>) -> Evidence {
    let Some(name) = dom.local_name(id) else {
        return Evidence::default();
    };
    let mut ev = match *name {
        local_name!("nav")
        | local_name!("footer")
        | local_name!("aside")
        | local_name!("menu")
        | local_name!("form") => Evidence {
            negative: true,
            ..Evidence::default()
        },
        local_name!("header") => Evidence {
            negative: true,
            ..Evidence::default()
        },
        local_name!("article") | local_name!("main") => Evidence {
            positive: true,
            ..Evidence::default()
        },
        _ => Evidence::default(),
    };
    for attr in [local_name!("class"), local_name!("id")] {
        if let Some(v) = dom.attr(id, &attr) {
            let e = match memo.get(v) {
                Some(e) => *e,
                None => {
                    let e = judge(v, buf);
                    memo.insert(v, e);
                    e
                }
            };
            // A value that says both is no verdict.
            if e.negative != e.positive {
                ev = ev.join(e);
            }
        }
    }
    for attr in [local_name!("role"), local_name!("itemprop")] {
        if let Some(v) = dom.attr(id, &attr) {
            ev = ev.join(judge_role(v));
        }
    }
    // A collapsed panel its toggle opens in place: that its class says
    // hidden is its state, not what it is.
    if ev.hiding && collapsed_panel(dom, id) {
        ev.negative = false;
        ev.hiding = false;
    }
    // A form (an answer box, a sign-up) is furniture whatever its class
    // names say (`post-form`); other elements whose names say both are
    // given the benefit of the doubt.
    if ev.positive && ev.negative {
        if *name == local_name!("form") {
            ev.positive = false;
        } else {
            ev.negative = false;
        }
    }
    ev
}

/// Run all passes; again, showing it, when an element hidden by its style
/// holds the page ([`page_hiding_element`]).
pub(crate) fn analyze(dom: &Dom) -> Analysis {
    let a = passes(dom, None);
    match page_hiding_element(dom, &a) {
        Some(page) => passes(dom, Some(page)),
        None => a,
    }
}

/// All passes; `shown`: an element whose hiding style is left out.
fn passes(dom: &Dom, shown: Option<NodeId>) -> Analysis {
    let n = dom.nodes.len();
    let order = dom.preorder(DOCUMENT);
    let mut pos = vec![u32::MAX; n];
    for (i, &id) in order.iter().enumerate() {
        if let Some(p) = pos.get_mut(id) {
            *p = u32::try_from(i).unwrap_or(u32::MAX);
        }
    }
    let mut a = Analysis {
        end: pos.clone(),
        pos,
        invisible: vec![false; n],
        in_link: vec![false; n],
        tokens: vec![0; n],
        link_tokens: vec![0; n],
        punct: vec![0; n],
        evidence: vec![Evidence::default(); n],
        boiler: vec![false; n],
        in_positive: vec![false; n],
        order,
    };
    let mut buf = String::new();
    let mut memo = Memo::default();
    // Pass A, top-down: visibility and link ancestry.
    for &id in &a.order {
        let parent = dom.get(id).map_or(NONE, |x| x.parent);
        let (p_inv, p_link) = match (a.invisible.get(parent), a.in_link.get(parent)) {
            (Some(&i), Some(&l)) => (i, l),
            _ => (false, false),
        };
        let mut inv = p_inv;
        let mut link = p_link;
        if let Some(name) = dom.local_name(id) {
            inv |= kind(name) == TagKind::Skip || (hidden(dom, id) && shown != Some(id));
            link |= *name == local_name!("a") && dom.attr(id, &local_name!("href")).is_some();
            a.evidence[id] = own_evidence(dom, id, &mut buf, &mut memo);
        }
        a.invisible[id] = inv;
        a.in_link[id] = link;
    }
    // Pass B, bottom-up: text measures and subtree ends.
    for &id in a.order.iter().rev() {
        if !a.invisible[id] {
            if let Some(NodeData::Text(t)) = dom.get(id).map(|x| &x.data) {
                let m = measure(t);
                a.tokens[id] = m.tokens;
                a.punct[id] = m.punct;
                if a.in_link[id] {
                    a.link_tokens[id] = m.tokens;
                }
            }
        }
        // Every node of a subtree, its last one included, lies before its end.
        a.end[id] = a.end[id].max(a.pos[id].saturating_add(1));
        let parent = dom.get(id).map_or(NONE, |x| x.parent);
        if parent < n {
            let (t, l, e) = (a.tokens[id], a.link_tokens[id], a.end[id]);
            a.tokens[parent] = a.tokens[parent].saturating_add(t);
            a.link_tokens[parent] = a.link_tokens[parent].saturating_add(l);
            a.end[parent] = a.end[parent].max(e);
        }
    }
    // Pass C, top-down: boilerplate and positive flags.
    let total = a.tokens.get(DOCUMENT).copied().unwrap_or(0).max(1) as f32;
    for &id in &a.order {
        let parent = dom.get(id).map_or(NONE, |x| x.parent);
        let (pb, pp) = match (a.boiler.get(parent), a.in_positive.get(parent)) {
            (Some(&b), Some(&p)) => (b, p),
            _ => (false, false),
        };
        let ev = a.evidence[id];
        let big = a.tokens[id] as f32 > max_share(dom, id) * total;
        a.boiler[id] = pb || (ev.negative && !big);
        a.in_positive[id] = pp || ev.positive;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    #[test]
    fn a_subtree_ends_past_its_last_node() {
        let dom = parse(
            "<body><div><p>one</p><p>two</p></div><p>three</p></body>",
            512,
        );
        let a = analyze(&dom);
        let div = dom.find_element("div").expect("div");
        let texts: Vec<NodeId> = a
            .order
            .iter()
            .copied()
            .filter(|&id| matches!(dom.get(id).map(|n| &n.data), Some(NodeData::Text(_))))
            .collect();
        assert_eq!(texts.len(), 3);
        assert!(a.contains(div, texts[0]) && a.contains(div, texts[1]));
        assert!(!a.contains(div, texts[2]));
        for &id in &a.order {
            assert!(a.end[id] > a.pos[id]);
        }
    }

    #[test]
    fn flags_and_measures() {
        let dom = parse(
            "<body><div id=main><p>one two three</p><p style='display: none'>hidden words</p>\
             <div data-nosnippet>Accept all cookies</div><a href=x>link text</a></div><nav>menu item</nav><script>var x</script></body>",
            512,
        );
        let a = analyze(&dom);
        let main = dom.find_element("div").expect("div");
        assert_eq!(a.tokens[main], 5);
        assert_eq!(a.link_tokens[main], 2);
        let nav = dom.find_element("nav").expect("nav");
        assert!(a.boiler[nav]);
        assert!(!a.boiler[main]);
        assert!(a.contains(main, dom.find_element("a").expect("a")));
        assert!(!a.contains(main, nav));
        // The last node of a subtree is in it.
        let last = *a.order[..a.end[main] as usize].last().expect("a node");
        assert!(
            matches!(dom.get(last).map(|n| &n.data), Some(NodeData::Text(t)) if &**t == "link text")
        );
        assert!(a.contains(main, last) && !a.contains(main, a.order[a.end[main] as usize]));
        let body = dom.find_element("body").expect("body");
        assert_eq!(a.tokens[body], 7);
    }

    #[test]
    fn huge_boilerplate_wrapper_is_not_boilerplate() {
        let dom = parse(
            "<body><div class=sidebar-layout><p>lots of real words here in the page</p></div><p>x</p></body>",
            512,
        );
        let a = analyze(&dom);
        let div = dom.find_element("div").expect("div");
        assert!(!a.boiler[div]);
    }

    #[test]
    fn a_form_stays_furniture_whatever_its_class_says() {
        let text = "<p>many words of running text that make the page long enough</p>";
        let dom = parse(
            &format!(
                "<body>{text}{text}<form class=post-form><label>Email</label>\
                 <p>Required, but never shown</p></form>\
                 <div class=post-sidebar><p>an answer</p></div></body>"
            ),
            512,
        );
        let a = analyze(&dom);
        assert!(a.boiler[dom.find_element("form").expect("form")]);
        // Other names that say both are given the benefit of the doubt.
        assert!(!a.boiler[dom.find_element("div").expect("div")]);
    }

    #[test]
    fn a_huge_furniture_tag_stays_furniture() {
        let menu: String = (0..12)
            .map(|i| format!("<li><a href=x>Category {i}</a></li>"))
            .collect();
        let dom = parse(
            &format!(
                "<body><nav><ul>{menu}</ul></nav>                 <div class=sidebar-layout><p>A chair with a high back.</p></div></body>"
            ),
            512,
        );
        let a = analyze(&dom);
        let nav = dom.find_element("nav").expect("nav");
        let body = dom.find_element("body").expect("body");
        assert!(a.tokens[nav] as f32 > MAX_BOILER_SHARE * a.tokens[body] as f32);
        assert!(a.boiler[nav]);
        assert!(a.boiler_within(&dom, body)[nav]);
        // A footer that holds nearly all the text is the page.
        let dom = parse(
            "<body><footer><p>lots of real words here in the page, written \
             into its footer by a site that puts everything there</p></footer><p>x</p></body>",
            512,
        );
        let a = analyze(&dom);
        assert!(!a.boiler[dom.find_element("footer").expect("footer")]);
        // A wrapper whose class words alone sound like furniture, holding
        // most of the page, is still the page.
        let dom = parse(
            "<body><aside class=post-body><p>lots of real words here in the page</p></aside><p>x</p></body>",
            512,
        );
        let a = analyze(&dom);
        assert!(!a.boiler[dom.find_element("aside").expect("aside")]);
    }
}

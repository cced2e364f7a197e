//! Driving html5ever with a depth-capping token filter.
//!
//! html5ever's tree builder scans its stack of open elements for many start
//! tags, which is quadratic on pathologically deep documents. The filter sits
//! between tokenizer and tree builder: once the insertion point is at
//! `max_depth`, further start tags (and their matching end tags) are dropped,
//! so their content is flattened into the capped ancestor.
//!
//! Pages are parsed with scripting off, so that `<noscript>` content (a
//! forum's posts for crawlers, an image's fallback) is markup that can be
//! read. A browser parses with scripting on, where all of it is raw text
//! that ends at `</noscript>`: the filter makes a self-closing raw-text
//! element inside `<noscript>` (`<noscript><iframe src=… /></noscript>`, as
//! tag managers' snippets are often written) empty, where scripting off
//! would read the rest of the page as its text.
//!
//! The same filter bounds memory: once the tree holds `max_nodes` nodes
//! (see [`node_budget`]), further start tags are dropped the same way (void
//! and raw-text elements too, the document skeleton aside), and so are
//! comments and the end tags the tree builder would answer with a new
//! element (`</p>`, `</br>`), so a page of millions of tiny elements (`<a>`,
//! `<br>`, `</p>` or comments repeated over 30 MB) costs a bounded tree, its
//! text kept in the elements already built.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use html5ever::interface::TreeSink;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{local_name, LocalName, TokenizerResult};

use crate::dom::{Dom, NodeId};
use crate::feed::{end_tag, feed};
use crate::markup::{content, Content};
use crate::sink::ArenaSink;

/// How far back an end tag looks for a suppressed start tag to match.
const MATCH_WINDOW: usize = 32;
/// The most suppressed start tags remembered (the oldest are forgotten).
const MAX_SUPPRESSED: usize = 1 << 16;
/// Nodes every page may have, whatever its size.
const NODE_BASE: usize = 50_000;
/// Bytes of HTML per node allowed beyond [`NODE_BASE`].
const BYTES_PER_NODE: usize = 64;
/// Bytes of (pre-filtered) HTML per node the arena is first sized for: it
/// then grows once or twice on a real page instead of six or seven times,
/// and a page of plain text reserves little.
const BYTES_PER_RESERVED_NODE: usize = 128;

/// The most nodes the tree of `html_len` bytes of HTML may have: real pages
/// have one node per 50 to 500 bytes and stay far below it.
pub(crate) fn node_budget(html_len: usize) -> usize {
    NODE_BASE + html_len / BYTES_PER_NODE
}

struct DepthFilter {
    inner: TreeBuilder<NodeId, ArenaSink>,
    max_depth: u32,
    max_nodes: usize,
    suppressed: RefCell<VecDeque<LocalName>>,
    /// `<noscript>` elements open, as their tags say.
    in_noscript: Cell<u32>,
}

/// Raw-text elements whose content a self-closing tag inside `<noscript>`
/// leaves empty (see the module documentation): the ones the pre-filter and
/// the feed read as raw text ([`content`]), scripts aside.
fn raw_text(name: &LocalName) -> bool {
    matches!(content(name.as_bytes()), Content::Raw | Content::Style)
}

/// Void elements: they cannot deepen the tree, and have no end tag.
fn void(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("area")
            | local_name!("base")
            | local_name!("br")
            | local_name!("col")
            | local_name!("embed")
            | local_name!("hr")
            | local_name!("img")
            | local_name!("input")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("param")
            | local_name!("source")
            | local_name!("track")
            | local_name!("wbr")
    )
}

/// The document skeleton: the tree builder merges repeated ones into the
/// elements it made, so they never add nodes.
fn skeleton(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("html") | local_name!("head") | local_name!("body")
    )
}

/// Elements that reach the tree builder however deep the insertion point:
/// void elements cannot deepen the tree, raw-text elements switch the
/// tokenizer state, and the document skeleton is handled specially anyway.
/// Past the node budget only the skeleton does.
fn always_pass(name: &LocalName) -> bool {
    void(name)
        || skeleton(name)
        || matches!(
            *name,
            local_name!("script")
                | local_name!("style")
                | local_name!("textarea")
                | local_name!("title")
                | local_name!("xmp")
                | local_name!("iframe")
                | local_name!("noembed")
                | local_name!("noframes")
                | local_name!("noscript")
                | local_name!("plaintext")
        )
}

/// End tags the tree builder answers with a new element: `</p>` with no
/// `<p>` open makes an empty one, `</br>` reads as `<br>`.
fn makes_element(name: &LocalName) -> bool {
    matches!(*name, local_name!("p") | local_name!("br"))
}

impl DepthFilter {
    /// Does the tree hold its budget of nodes?
    fn full(&self) -> bool {
        self.inner.sink.node_count() >= self.max_nodes
    }

    /// Should this tag token be dropped?
    fn drop_tag(&self, tag: &Tag) -> bool {
        match tag.kind {
            TagKind::StartTag => {
                if self.full() {
                    // Past the budget nothing adds nodes: a void element
                    // goes without a trace, others until their end tag.
                    if skeleton(&tag.name) {
                        return false;
                    }
                    if void(&tag.name) {
                        return true;
                    }
                } else if always_pass(&tag.name) || self.inner.sink.current_depth() < self.max_depth
                {
                    return false;
                }
                let mut sup = self.suppressed.borrow_mut();
                if sup.len() >= MAX_SUPPRESSED {
                    sup.pop_front();
                }
                sup.push_back(tag.name.clone());
                true
            }
            TagKind::EndTag => {
                let mut sup = self.suppressed.borrow_mut();
                let len = sup.len();
                let start = len.saturating_sub(MATCH_WINDOW);
                let found = sup.range(start..).rposition(|n| *n == tag.name);
                match found {
                    Some(pos) => {
                        sup.remove(start + pos);
                        true
                    }
                    None if self.full() && makes_element(&tag.name) => true,
                    None => {
                        self.inner.sink.closed_one();
                        false
                    }
                }
            }
        }
    }
}

impl TokenSink for DepthFilter {
    type Handle = NodeId;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<NodeId> {
        let mut empty_raw = None;
        // A comment is a node never read: past the budget it goes.
        if matches!(token, Token::CommentToken(_)) && self.full() {
            return TokenSinkResult::Continue;
        }
        if let Token::TagToken(tag) = &token {
            if self.drop_tag(tag) {
                return TokenSinkResult::Continue;
            }
            let n = self.in_noscript.get();
            match tag.kind {
                TagKind::StartTag if tag.name == local_name!("noscript") && !tag.self_closing => {
                    self.in_noscript.set(n.saturating_add(1));
                }
                TagKind::EndTag if tag.name == local_name!("noscript") => {
                    self.in_noscript.set(n.saturating_sub(1));
                }
                TagKind::StartTag if n > 0 && tag.self_closing && raw_text(&tag.name) => {
                    empty_raw = Some(tag.name.clone());
                }
                _ => {}
            }
        }
        let result = self.inner.process_token(token, line_number);
        match (empty_raw, result) {
            (Some(name), TokenSinkResult::RawData(_)) => {
                let end = end_tag(name);
                let _ = self.inner.process_token(Token::TagToken(end), line_number);
                TokenSinkResult::Continue
            }
            (_, result) => result,
        }
    }

    fn end(&self) {
        self.inner.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.inner
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// Parse `html` into an arena DOM, never nesting deeper than about `max_depth`.
#[cfg(test)]
pub(crate) fn parse(html: &str, max_depth: usize) -> Dom {
    parse_tendril(StrTendril::from_slice(html), max_depth)
}

/// Parse an input buffer; see [`parse`]. The tree holds at most
/// [`node_budget`] nodes.
pub(crate) fn parse_tendril(html: StrTendril, max_depth: usize) -> Dom {
    let max_nodes = node_budget(html.len());
    parse_capped(html, max_depth, max_nodes, true)
}

/// Parse with the tokenizer alone, not [`feed`]: what it must agree with.
#[cfg(test)]
pub(crate) fn parse_slowly(html: &str, max_depth: usize) -> Dom {
    let max_nodes = node_budget(html.len());
    parse_capped(StrTendril::from_slice(html), max_depth, max_nodes, false)
}

fn parse_capped(html: StrTendril, max_depth: usize, max_nodes: usize, direct: bool) -> Dom {
    let reserve = (html.len() / BYTES_PER_RESERVED_NODE)
        .min(max_nodes)
        .max(1024);
    let max_depth = u32::try_from(max_depth).unwrap_or(u32::MAX).max(4);
    let tb_opts = TreeBuilderOpts {
        scripting_enabled: false,
        drop_doctype: true,
        ..TreeBuilderOpts::default()
    };
    let filter = DepthFilter {
        inner: TreeBuilder::new(ArenaSink::with_capacity(reserve), tb_opts),
        max_depth,
        max_nodes,
        suppressed: RefCell::new(VecDeque::new()),
        in_noscript: Cell::new(0),
    };
    let opts = TokenizerOpts {
        discard_bom: false,
        ..TokenizerOpts::default()
    };
    let tokenizer = Tokenizer::new(filter, opts);
    if direct {
        feed(&tokenizer, html);
    } else {
        let input = BufferQueue::default();
        // What `feed` leaves out too.
        let bom = u32::from(html.starts_with('\u{feff}')) * 3;
        input.push_back(html.subtendril(bom, html.len32() - bom));
        while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
        tokenizer.end();
    }
    tokenizer.sink.inner.sink.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::NodeData;

    fn max_depth(dom: &Dom) -> u32 {
        dom.nodes.iter().map(|n| n.depth).max().unwrap_or(0)
    }

    /// The text of every text node, in document order.
    fn texts(dom: &Dom) -> Vec<String> {
        dom.nodes
            .iter()
            .filter_map(|n| match &n.data {
                NodeData::Text(t) => Some(t.to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_self_closing_iframe_in_noscript_is_empty() {
        let html = "<noscript><iframe src=gtm height=0 /></noscript><p>Page text</p>";
        assert_eq!(texts(&parse(html, 512)), vec!["Page text"]);
        // Markup in `<noscript>` is still read, and an iframe with content
        // keeps it.
        let html = "<noscript><p>Posts</p><iframe>x</iframe></noscript><p>Page</p>";
        assert_eq!(texts(&parse(html, 512)), vec!["Posts", "x", "Page"]);
        // Outside `<noscript>` a browser reads the rest as the iframe's.
        let html = "<iframe src=x /><p>Rest</p>";
        assert_eq!(texts(&parse(html, 512)), vec!["<p>Rest</p>"]);
    }

    #[test]
    fn parses_simple_document() {
        let dom = parse("<title>T</title><p>Hello <b>world</b>", 512);
        let p = dom.find_element("p").expect("p element");
        assert_eq!(dom.children(p).count(), 2);
        assert!(dom.find_element("head").is_some());
    }

    #[test]
    fn deep_nesting_is_capped() {
        let html = "<div>".repeat(5000) + "deep text" + &"</div>".repeat(5000);
        let dom = parse(&html, 64);
        assert!(max_depth(&dom) <= 70, "depth {}", max_depth(&dom));
        let has_text = dom
            .nodes
            .iter()
            .any(|n| matches!(&n.data, NodeData::Text(t) if t.contains("deep text")));
        assert!(has_text);
    }

    #[test]
    fn siblings_after_deep_part_are_not_dropped() {
        let html = "<div>".repeat(100) + "x" + &"</div>".repeat(100) + "<p>after</p>";
        let dom = parse(&html, 16);
        let p = dom.find_element("p").expect("p survives");
        assert!(dom.get(p).is_some_and(|n| n.depth <= 4));
    }

    #[test]
    fn node_count_is_capped_and_text_kept() {
        let html = "<p>first</p>".to_string() + &"<a>x</a>".repeat(5000) + "<p>last words</p>";
        let dom = parse_capped(StrTendril::from_slice(&html), 512, 200, true);
        assert!(dom.nodes.len() <= 210, "{} nodes", dom.nodes.len());
        let text: String = dom
            .nodes
            .iter()
            .filter_map(|n| match &n.data {
                NodeData::Text(t) => Some(t.to_string()),
                _ => None,
            })
            .collect();
        assert!(text.contains("first") && text.contains("last words"));
        assert_eq!(text.matches('x').count(), 5000);
        assert!(node_budget(30 << 20) < 600_000);
    }

    #[test]
    fn nothing_adds_nodes_past_the_budget() {
        // Void elements, comments, end tags that make elements, raw-text
        // elements, and formatting elements reopened after every `</p>`.
        for unit in [
            "<br>x",
            "<img>",
            "<!-- c -->x",
            "</p>",
            "</br>",
            "<script>a</script><title>t</title>",
            "y</p>",
        ] {
            let html = "<div><p><b>first</p>".to_string() + &unit.repeat(5000) + "<p>last";
            for direct in [true, false] {
                let dom = parse_capped(StrTendril::from_slice(&html), 512, 200, direct);
                assert!(dom.nodes.len() <= 210, "{unit}: {} nodes", dom.nodes.len());
                let text = texts(&dom).concat();
                assert!(text.contains("first") && text.contains("last"), "{unit}");
            }
        }
    }

    #[test]
    fn script_content_is_raw_even_when_deep() {
        let html = "<div>".repeat(50) + "<script>if (a<b) {}</script>";
        let dom = parse(&html, 8);
        assert!(dom.find_element("script").is_some());
        assert!(dom.find_element("b").is_none());
    }
}

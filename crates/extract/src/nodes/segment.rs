//! Paragraph segmentation: turn a subtree into text blocks in reading order.
//!
//! Block-level elements start and end blocks, `<br><br>` splits a block,
//! a single `<br>` becomes a line break, and runs of whitespace collapse to
//! one space. Each block remembers the innermost block element that owns it
//! and how much of its text sits inside links or boilerplate elements.

use crate::analyze::Analysis;
use crate::chars::{char_len, glued, space_len};
use crate::dom::{Dom, NodeData, NodeId, NONE};
use crate::tags::{kind, measure, TagKind};

/// One paragraph of text.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    /// Whitespace-collapsed text, never empty.
    pub(crate) text: String,
    /// Innermost block-level element around the text.
    pub(crate) owner: NodeId,
    /// Word tokens.
    pub(crate) tokens: u32,
    /// Tokens inside links.
    pub(crate) link_tokens: u32,
    /// Tokens inside boilerplate-flagged elements.
    pub(crate) boiler_tokens: u32,
    /// Sentence punctuation marks.
    pub(crate) punct: u32,
}

impl Block {
    /// Share of tokens inside links.
    pub(crate) fn link_density(&self) -> f32 {
        if self.tokens == 0 {
            return 0.0;
        }
        self.link_tokens as f32 / self.tokens as f32
    }
}

struct Builder<'a> {
    dom: &'a Dom,
    a: &'a Analysis,
    out: Vec<Block>,
    buf: String,
    pending_space: bool,
    /// An inline element ended since the last text...
    closed_inline: bool,
    /// ... and another one started: their texts are separate items.
    boundary: bool,
    br_run: u32,
    tokens: u32,
    link_tokens: u32,
    boiler_tokens: u32,
    punct: u32,
    owners: Vec<NodeId>,
    root: NodeId,
    /// Measure text here instead of reading the analysis (which counts
    /// visible text only).
    remeasure: bool,
}

impl Builder<'_> {
    fn owner(&self) -> NodeId {
        self.owners.last().copied().unwrap_or(self.root)
    }

    fn flush(&mut self) {
        let text = self.buf.trim_end();
        if !text.is_empty() && self.tokens > 0 {
            let owner = self.owner();
            self.out.push(Block {
                text: text.to_string(),
                owner,
                tokens: self.tokens,
                link_tokens: self.link_tokens,
                boiler_tokens: self.boiler_tokens,
                punct: self.punct,
            });
        }
        self.buf.clear();
        self.pending_space = false;
        self.closed_inline = false;
        self.boundary = false;
        self.br_run = 0;
        self.tokens = 0;
        self.link_tokens = 0;
        self.boiler_tokens = 0;
        self.punct = 0;
    }

    fn text(&mut self, id: NodeId, t: &str) {
        let (tokens, punct) = if self.remeasure {
            let m = measure(t);
            (m.tokens, m.punct)
        } else {
            (
                self.a.tokens.get(id).copied().unwrap_or(0),
                self.a.punct.get(id).copied().unwrap_or(0),
            )
        };
        self.tokens = self.tokens.saturating_add(tokens);
        self.punct = self.punct.saturating_add(punct);
        if self.a.in_link.get(id).copied().unwrap_or(false) {
            self.link_tokens = self.link_tokens.saturating_add(tokens);
        }
        if self.a.boiler.get(id).copied().unwrap_or(false) {
            self.boiler_tokens = self.boiler_tokens.saturating_add(tokens);
        }
        let before = self.buf.len();
        let bytes = t.as_bytes();
        let mut i = 0;
        while let Some(&first) = bytes.get(i) {
            let space = space_len(t, i);
            if space > 0 {
                self.pending_space = true;
                i += space;
                continue;
            }
            let word = i;
            i += char_len(first);
            while let Some(&b) = bytes.get(i) {
                // Printable ASCII is never white space: no lookup.
                if b > b' ' && b < 0x7f {
                    i += 1;
                    continue;
                }
                if space_len(t, i) > 0 {
                    break;
                }
                i += char_len(b);
            }
            let word_text = t.get(word..i).unwrap_or_default();
            if self.boundary && !self.pending_space && glued(&self.buf, word_text) {
                self.pending_space = true;
            }
            if self.pending_space && !self.buf.is_empty() && !self.buf.ends_with('\n') {
                self.buf.push(' ');
            }
            self.pending_space = false;
            self.closed_inline = false;
            self.boundary = false;
            self.buf.push_str(t.get(word..i).unwrap_or_default());
        }
        if self.buf.len() > before {
            self.br_run = 0;
        }
    }

    fn br(&mut self) {
        self.br_run = self.br_run.saturating_add(1);
        if self.br_run >= 2 {
            self.flush();
        } else if !self.buf.is_empty() {
            let trimmed = self.buf.trim_end().len();
            self.buf.truncate(trimmed);
            self.buf.push('\n');
            self.pending_space = false;
        }
    }

    fn opens_block(&self, id: NodeId) -> bool {
        self.dom
            .local_name(id)
            .is_some_and(|n| kind(n) == TagKind::Block)
    }

    /// Enter a node; returns whether to descend into its children.
    fn enter(&mut self, id: NodeId, visible: &dyn Fn(NodeId) -> bool) -> bool {
        if !visible(id) {
            return false;
        }
        let dom = self.dom;
        match dom.get(id).map(|n| &n.data) {
            Some(NodeData::Text(t)) => {
                self.text(id, t);
                false
            }
            Some(NodeData::Element { name, .. }) => match kind(&name.local) {
                TagKind::Skip => false,
                TagKind::Br => {
                    self.br();
                    false
                }
                TagKind::Block => {
                    self.flush();
                    self.owners.push(id);
                    true
                }
                TagKind::Inline => {
                    self.boundary |= self.closed_inline;
                    true
                }
            },
            Some(NodeData::Document) => true,
            _ => false,
        }
    }

    fn exit(&mut self, id: NodeId, visible: &dyn Fn(NodeId) -> bool) {
        if !visible(id) {
            return;
        }
        if self.opens_block(id) {
            self.flush();
            self.owners.pop();
        } else if self.dom.local_name(id).is_some() {
            self.closed_inline = true;
        }
    }
}

/// Segment the subtree of `root` into blocks, descending only into nodes
/// for which `visible` holds.
pub(crate) fn segment(
    dom: &Dom,
    a: &Analysis,
    root: NodeId,
    visible: &dyn Fn(NodeId) -> bool,
) -> Vec<Block> {
    walk(dom, a, root, visible, false)
}

/// Segment the subtree of `root` including text hidden by inline styles
/// (only skipped tags such as scripts are left out).
pub(crate) fn segment_hidden(dom: &Dom, a: &Analysis, root: NodeId) -> Vec<Block> {
    let visible = |id: NodeId| dom.local_name(id).is_none_or(|n| kind(n) != TagKind::Skip);
    walk(dom, a, root, &visible, true)
}

fn walk(
    dom: &Dom,
    a: &Analysis,
    root: NodeId,
    visible: &dyn Fn(NodeId) -> bool,
    remeasure: bool,
) -> Vec<Block> {
    let mut b = Builder {
        dom,
        a,
        out: Vec::new(),
        buf: String::new(),
        pending_space: false,
        closed_inline: false,
        boundary: false,
        br_run: 0,
        tokens: 0,
        link_tokens: 0,
        boiler_tokens: 0,
        punct: 0,
        owners: Vec::new(),
        root,
        remeasure,
    };
    if dom.get(root).is_none() {
        return b.out;
    }
    let mut cur = root;
    'walk: loop {
        if b.enter(cur, visible) {
            let first = dom.get(cur).map_or(NONE, |n| n.first_child);
            if first != NONE {
                cur = first;
                continue;
            }
        }
        loop {
            b.exit(cur, visible);
            if cur == root {
                break 'walk;
            }
            let node = match dom.get(cur) {
                Some(n) => n,
                None => break 'walk,
            };
            if node.next != NONE {
                cur = node.next;
                continue 'walk;
            }
            cur = node.parent;
            if cur == NONE {
                break 'walk;
            }
        }
    }
    b.flush();
    b.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze;
    use crate::dom::DOCUMENT;
    use crate::parse::parse;

    fn texts(html: &str) -> Vec<String> {
        let dom = parse(html, 512);
        let a = analyze(&dom);
        let vis = |id: NodeId| !a.invisible.get(id).copied().unwrap_or(true);
        segment(&dom, &a, DOCUMENT, &vis)
            .into_iter()
            .map(|b| b.text)
            .collect()
    }

    #[test]
    fn paragraphs_and_whitespace() {
        assert_eq!(
            texts("<p>  Hello \n  <b>big</b>   world </p><p>Second</p>"),
            vec!["Hello big world", "Second"]
        );
    }

    #[test]
    fn unicode_spaces_collapse() {
        assert_eq!(
            texts("<p>\u{a0}a\u{200b}b\u{3000} c\u{b}<b>d</b> <i> e</i>é\u{2029}</p>"),
            vec!["a b c d eé"]
        );
    }

    #[test]
    fn sibling_items_glued_by_markup_are_apart() {
        assert_eq!(
            texts(
                "<div><a>Terrence Sejnowski</a><span>Francis Crick Professor</span></div>\
                 <div><span>2026</span><span>1h 54m</span><span>R</span></div>\
                 <p><span>3 beds</span><span>2 baths</span></p>"
            ),
            vec![
                "Terrence Sejnowski Francis Crick Professor",
                "2026 1h 54m R",
                "3 beds 2 baths"
            ]
        );
        // A drop cap, a word styled in pieces, a word continued after an
        // element and Chinese stay as they are.
        assert_eq!(
            texts(
                "<p><span>I</span><span>f you</span> <em>p</em><em>roducts</em> \
                 <b>un</b>Believable <span>北京</span><span>上海</span></p>"
            ),
            vec!["If you products unBelievable 北京上海"]
        );
    }

    #[test]
    fn br_splits() {
        assert_eq!(
            texts("<div>one<br>two<br><br>three<br> <br>four</div>"),
            vec!["one\ntwo", "three", "four"]
        );
    }

    #[test]
    fn lists_tables_headings() {
        let t = texts(
            "<h2>Title</h2><ul><li>a one</li><li>b two</li></ul>\
             <table><tr><td>c1</td><td>c2</td></tr></table>",
        );
        assert_eq!(t, vec!["Title", "a one", "b two", "c1", "c2"]);
    }

    #[test]
    fn skips_invisible() {
        assert_eq!(
            texts("<p>shown<script>no()</script><span style='display:none'>no</span></p><style>p{}</style>"),
            vec!["shown"]
        );
    }

    #[test]
    fn link_density_is_measured() {
        let dom = parse("<p>plain words <a href=/>linked words here</a></p>", 512);
        let a = analyze(&dom);
        let vis = |id: NodeId| !a.invisible.get(id).copied().unwrap_or(true);
        let blocks = segment(&dom, &a, DOCUMENT, &vis);
        assert_eq!(blocks.len(), 1);
        assert!((blocks[0].link_density() - 0.6).abs() < 1e-6);
    }
}

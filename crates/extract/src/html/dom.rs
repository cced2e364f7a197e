//! Arena DOM: every node lives in one `Vec`, linked by indices.
//!
//! The tree is built by [`crate::sink::ArenaSink`] while html5ever parses and
//! is then read by the extraction passes. No node owns another, so dropping a
//! deep tree never recurses.

use html5ever::tendril::StrTendril;
use html5ever::{ns, Attribute, LocalName, QualName};

/// Index of a node inside [`Dom::nodes`].
pub(crate) type NodeId = usize;

/// Sentinel for "no node" in the sibling/parent links.
pub(crate) const NONE: NodeId = usize::MAX;

/// Index of the document node, always the first node of the arena.
pub(crate) const DOCUMENT: NodeId = 0;

/// What a node is.
#[derive(Debug)]
pub(crate) enum NodeData {
    /// The document root, or a template's content fragment.
    Document,
    /// An element with its qualified name and attributes.
    Element {
        /// Namespace and local name.
        name: QualName,
        /// Attributes in source order.
        attrs: Vec<Attribute>,
    },
    /// A text run (adjacent runs are merged on insertion).
    Text(StrTendril),
    /// Comments, processing instructions, doctypes: kept only as placeholders.
    Other,
}

/// One arena slot.
#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) parent: NodeId,
    pub(crate) first_child: NodeId,
    pub(crate) last_child: NodeId,
    pub(crate) prev: NodeId,
    pub(crate) next: NodeId,
    /// Nesting depth at insertion time (approximate after reparenting).
    pub(crate) depth: u32,
    pub(crate) data: NodeData,
}

impl Node {
    fn new(data: NodeData) -> Node {
        Node {
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            prev: NONE,
            next: NONE,
            depth: 0,
            data,
        }
    }
}

/// The arena tree.
#[derive(Debug)]
pub(crate) struct Dom {
    pub(crate) nodes: Vec<Node>,
}

impl Dom {
    /// An empty document.
    #[cfg(test)]
    pub(crate) fn new() -> Dom {
        Dom::with_capacity(1024)
    }

    /// An empty document with room for `nodes` nodes.
    pub(crate) fn with_capacity(nodes: usize) -> Dom {
        let mut nodes = Vec::with_capacity(nodes.max(1));
        nodes.push(Node::new(NodeData::Document));
        Dom { nodes }
    }

    /// Add a detached node and return its id.
    pub(crate) fn push(&mut self, data: NodeData) -> NodeId {
        self.nodes.push(Node::new(data));
        self.nodes.len() - 1
    }

    /// The node, if the id is valid.
    pub(crate) fn get(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id)
    }

    /// Local name of an element node, `None` for other nodes.
    pub(crate) fn local_name(&self, id: NodeId) -> Option<&LocalName> {
        match self.get(id).map(|n| &n.data) {
            Some(NodeData::Element { name, .. }) => Some(&name.local),
            _ => None,
        }
    }

    /// Whether `id` is an element of the HTML namespace (not SVG or MathML:
    /// an SVG `<title>` is a tooltip, not the page's title).
    pub(crate) fn is_html(&self, id: NodeId) -> bool {
        matches!(self.get(id).map(|n| &n.data),
            Some(NodeData::Element { name, .. }) if name.ns == ns!(html))
    }

    /// Value of attribute `attr` on element `id`.
    pub(crate) fn attr(&self, id: NodeId, attr: &LocalName) -> Option<&str> {
        match self.get(id).map(|n| &n.data) {
            Some(NodeData::Element { attrs, .. }) => attrs
                .iter()
                .find(|a| a.name.local == *attr)
                .map(|a| &*a.value),
            _ => None,
        }
    }

    /// Detach `id` from its parent (no-op when already detached).
    pub(crate) fn detach(&mut self, id: NodeId) {
        let Some(node) = self.nodes.get(id) else {
            return;
        };
        let (parent, prev, next) = (node.parent, node.prev, node.next);
        if let Some(p) = self.nodes.get_mut(prev) {
            p.next = next;
        } else if let Some(par) = self.nodes.get_mut(parent) {
            par.first_child = next;
        }
        if let Some(n) = self.nodes.get_mut(next) {
            n.prev = prev;
        } else if let Some(par) = self.nodes.get_mut(parent) {
            par.last_child = prev;
        }
        if let Some(node) = self.nodes.get_mut(id) {
            node.parent = NONE;
            node.prev = NONE;
            node.next = NONE;
        }
    }

    /// Append detached node `child` as the last child of `parent`.
    pub(crate) fn append(&mut self, parent: NodeId, child: NodeId) {
        if parent == child || parent >= self.nodes.len() || child >= self.nodes.len() {
            return;
        }
        self.detach(child);
        let (last, depth) = match self.nodes.get(parent) {
            Some(p) => (p.last_child, p.depth.saturating_add(1)),
            None => return,
        };
        if let Some(c) = self.nodes.get_mut(child) {
            c.parent = parent;
            c.prev = last;
            c.depth = depth;
        }
        if let Some(l) = self.nodes.get_mut(last) {
            l.next = child;
        }
        if let Some(p) = self.nodes.get_mut(parent) {
            if p.first_child == NONE {
                p.first_child = child;
            }
            p.last_child = child;
        }
    }

    /// Insert detached node `child` immediately before `sibling`.
    pub(crate) fn insert_before(&mut self, sibling: NodeId, child: NodeId) {
        if sibling == child || child >= self.nodes.len() {
            return;
        }
        self.detach(child);
        let (parent, prev, depth) = match self.nodes.get(sibling) {
            Some(s) if s.parent != NONE => (s.parent, s.prev, s.depth),
            _ => return,
        };
        if let Some(c) = self.nodes.get_mut(child) {
            c.parent = parent;
            c.prev = prev;
            c.next = sibling;
            c.depth = depth;
        }
        if let Some(s) = self.nodes.get_mut(sibling) {
            s.prev = child;
        }
        if let Some(p) = self.nodes.get_mut(prev) {
            p.next = child;
        } else if let Some(par) = self.nodes.get_mut(parent) {
            par.first_child = child;
        }
    }

    /// Append text to `parent`, merging with a trailing text child.
    pub(crate) fn append_text(&mut self, parent: NodeId, text: &StrTendril) {
        let last = match self.nodes.get(parent) {
            Some(p) => p.last_child,
            None => return,
        };
        if let Some(Node {
            data: NodeData::Text(t),
            ..
        }) = self.nodes.get_mut(last)
        {
            t.push_tendril(text);
            return;
        }
        let id = self.push(NodeData::Text(text.clone()));
        self.append(parent, id);
    }

    /// Insert text before `sibling`, merging with a preceding text node.
    pub(crate) fn insert_text_before(&mut self, sibling: NodeId, text: &StrTendril) {
        let prev = match self.nodes.get(sibling) {
            Some(s) => s.prev,
            None => return,
        };
        if let Some(Node {
            data: NodeData::Text(t),
            ..
        }) = self.nodes.get_mut(prev)
        {
            t.push_tendril(text);
            return;
        }
        let id = self.push(NodeData::Text(text.clone()));
        self.insert_before(sibling, id);
    }

    /// Move all children of `from` to the end of `to`.
    pub(crate) fn reparent_children(&mut self, from: NodeId, to: NodeId) {
        let mut child = self.nodes.get(from).map_or(NONE, |n| n.first_child);
        while child != NONE {
            let next = self.nodes.get(child).map_or(NONE, |n| n.next);
            self.append(to, child);
            child = next;
        }
    }

    /// Children of `id` in order.
    pub(crate) fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            dom: self,
            next: self.get(id).map_or(NONE, |n| n.first_child),
        }
    }

    /// Nodes of the subtree rooted at `root` in document order (pre-order),
    /// computed without recursion.
    pub(crate) fn preorder(&self, root: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        if root >= self.nodes.len() {
            return out;
        }
        let mut cur = root;
        loop {
            out.push(cur);
            let node = &self.nodes[cur];
            if node.first_child != NONE {
                cur = node.first_child;
                continue;
            }
            // climb until a next sibling exists
            let mut up = cur;
            loop {
                if up == root {
                    return out;
                }
                let n = &self.nodes[up];
                if n.next != NONE {
                    cur = n.next;
                    break;
                }
                up = n.parent;
                if up == NONE {
                    return out;
                }
            }
        }
    }

    /// First element named `name` in document order.
    #[cfg(test)]
    pub(crate) fn find_element(&self, name: &str) -> Option<NodeId> {
        self.preorder(DOCUMENT)
            .into_iter()
            .find(|&id| self.local_name(id).is_some_and(|n| &**n == name))
    }
}

/// Iterator over the children of a node.
pub(crate) struct Children<'a> {
    dom: &'a Dom,
    next: NodeId,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        let cur = self.next;
        let node = self.dom.get(cur)?;
        self.next = node.next;
        Some(cur)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use html5ever::{LocalName, Namespace};

    fn elem(dom: &mut Dom, name: &str) -> NodeId {
        dom.push(NodeData::Element {
            name: QualName::new(None, Namespace::from(""), LocalName::from(name)),
            attrs: Vec::new(),
        })
    }

    #[test]
    fn append_detach_and_order() {
        let _ = ns!(html);
        let mut dom = Dom::new();
        let a = elem(&mut dom, "a");
        let b = elem(&mut dom, "b");
        let c = elem(&mut dom, "c");
        dom.append(DOCUMENT, a);
        dom.append(a, b);
        dom.insert_before(b, c);
        assert_eq!(dom.children(a).collect::<Vec<_>>(), vec![c, b]);
        assert_eq!(dom.preorder(DOCUMENT), vec![DOCUMENT, a, c, b]);
        dom.detach(c);
        assert_eq!(dom.children(a).collect::<Vec<_>>(), vec![b]);
        dom.reparent_children(a, DOCUMENT);
        assert_eq!(dom.children(DOCUMENT).collect::<Vec<_>>(), vec![a, b]);
        assert_eq!(dom.find_element("b"), Some(b));
    }

    #[test]
    fn text_merges() {
        let mut dom = Dom::new();
        let p = elem(&mut dom, "p");
        dom.append(DOCUMENT, p);
        dom.append_text(p, &StrTendril::from("ab"));
        dom.append_text(p, &StrTendril::from("cd"));
        let kids: Vec<_> = dom.children(p).collect();
        assert_eq!(kids.len(), 1);
        match &dom.nodes[kids[0]].data {
            NodeData::Text(t) => assert_eq!(&**t, "abcd"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn deep_preorder_does_not_overflow() {
        let mut dom = Dom::new();
        let mut parent = DOCUMENT;
        for _ in 0..200_000 {
            let e = elem(&mut dom, "div");
            dom.append(parent, e);
            parent = e;
        }
        assert_eq!(dom.preorder(DOCUMENT).len(), 200_001);
    }
}

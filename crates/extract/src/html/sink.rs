//! html5ever `TreeSink` that builds the arena [`Dom`].
//!
//! Handles are plain indices. The sink also tracks the depth of the node the
//! tree builder last inserted into, which the token filter in
//! [`crate::parse`] uses to keep the open-element stack shallow.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};

use html5ever::interface::{ElemName, ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::{Attribute, LocalName, Namespace, QualName};

use crate::dom::{Dom, NodeData, NodeId, DOCUMENT};

/// Tree sink writing into a [`Dom`].
pub(crate) struct ArenaSink {
    dom: RefCell<Dom>,
    /// Returned by `elem_name` for a handle that is not an element.
    placeholder: QualName,
    /// Depth of the current insertion point, as last observed.
    current_depth: Cell<u32>,
}

impl ArenaSink {
    /// A sink whose arena has room for `nodes` nodes.
    pub(crate) fn with_capacity(nodes: usize) -> ArenaSink {
        ArenaSink {
            dom: RefCell::new(Dom::with_capacity(nodes)),
            placeholder: QualName::new(None, Namespace::from(""), LocalName::from("")),
            current_depth: Cell::new(0),
        }
    }

    /// Depth of the node the parser is currently inserting into.
    pub(crate) fn current_depth(&self) -> u32 {
        self.current_depth.get()
    }

    /// How many nodes the arena holds.
    pub(crate) fn node_count(&self) -> usize {
        self.dom.borrow().nodes.len()
    }

    /// Note that an end tag probably closed one level.
    pub(crate) fn closed_one(&self) {
        self.current_depth
            .set(self.current_depth.get().saturating_sub(1));
    }

    fn depth_of(&self, id: NodeId) -> u32 {
        self.dom.borrow().get(id).map_or(0, |n| n.depth)
    }
}

/// Element name borrowed from the arena.
#[derive(Debug)]
pub(crate) enum NameRef<'a> {
    /// Name of a real element.
    Cell(Ref<'a, QualName>),
    /// Placeholder for a non-element handle.
    Plain(&'a QualName),
}

impl ElemName for NameRef<'_> {
    fn ns(&self) -> &Namespace {
        match self {
            NameRef::Cell(r) => &r.ns,
            NameRef::Plain(q) => &q.ns,
        }
    }
    fn local_name(&self) -> &LocalName {
        match self {
            NameRef::Cell(r) => &r.local,
            NameRef::Plain(q) => &q.local,
        }
    }
}

impl TreeSink for ArenaSink {
    type Handle = NodeId;
    type Output = Dom;
    type ElemName<'a> = NameRef<'a>;

    fn finish(self) -> Dom {
        self.dom.into_inner()
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeId {
        DOCUMENT
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> NameRef<'a> {
        let placeholder = &self.placeholder;
        match Ref::filter_map(self.dom.borrow(), |d| {
            match d.get(*target).map(|n| &n.data) {
                Some(NodeData::Element { name, .. }) => Some(name),
                _ => None,
            }
        }) {
            Ok(r) => NameRef::Cell(r),
            Err(_) => NameRef::Plain(placeholder),
        }
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, _: ElementFlags) -> NodeId {
        self.dom
            .borrow_mut()
            .push(NodeData::Element { name, attrs })
    }

    fn create_comment(&self, _text: StrTendril) -> NodeId {
        self.dom.borrow_mut().push(NodeData::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeId {
        self.dom.borrow_mut().push(NodeData::Other)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        match child {
            NodeOrText::AppendNode(c) => {
                self.dom.borrow_mut().append(*parent, c);
                self.current_depth.set(self.depth_of(c));
            }
            NodeOrText::AppendText(t) => {
                self.dom.borrow_mut().append_text(*parent, &t);
                self.current_depth.set(self.depth_of(*parent));
            }
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let has_parent = self
            .dom
            .borrow()
            .get(*element)
            .is_some_and(|n| n.parent != crate::dom::NONE);
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        // Template contents are never rendered: give them a detached
        // fragment so their text can never reach the output.
        let _ = target;
        self.dom.borrow_mut().push(NodeData::Document)
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        match new_node {
            NodeOrText::AppendNode(c) => self.dom.borrow_mut().insert_before(*sibling, c),
            NodeOrText::AppendText(t) => self.dom.borrow_mut().insert_text_before(*sibling, &t),
        }
    }

    fn add_attrs_if_missing(&self, target: &NodeId, new_attrs: Vec<Attribute>) {
        let mut dom = self.dom.borrow_mut();
        if let Some(NodeData::Element { attrs, .. }) =
            dom.nodes.get_mut(*target).map(|n| &mut n.data)
        {
            for a in new_attrs {
                if !attrs.iter().any(|x| x.name == a.name) {
                    attrs.push(a);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.dom.borrow_mut().detach(*target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        self.dom.borrow_mut().reparent_children(*node, *new_parent);
    }
}

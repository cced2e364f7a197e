//! Which attributes the pre-filter passes on to the parser.
//!
//! The extractor reads few attributes, each on some elements only; every
//! other attribute is work for the tokenizer and memory in the tree. Each
//! decision here keeps whatever could change what the extractor sees:
//! values are judged as the extractor would judge them, and values the
//! tokenizer would rewrite (character references, carriage returns, NUL)
//! are kept as written.

use rustc_hash::FxHashMap;

use crate::evidence::{judge, Evidence};

/// What the pre-filter does with one attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Pass it on as written.
    Keep,
    /// Pass on its name only: the extractor asks whether it is there.
    NameOnly,
    /// Remove it.
    Drop,
}

/// Elements, as far as the attributes they keep go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Element {
    /// Elements whose attributes the tree builder reads: it compares those
    /// of formatting elements other than `a` (the "Noah's Ark" clause of the
    /// list of active formatting elements; an `a` never meets another in
    /// that list) and merges those of a repeated `html` or `body` into the
    /// first. They keep every attribute the extractor reads, with its value.
    Compared,
    A,
    Script,
    Input,
    Meta,
    Other,
}

/// Attributes the extractor reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Attr {
    /// Evidence (`evidence::judge`), on every element.
    Class,
    /// Evidence (`evidence::judge`), on every element.
    Id,
    /// `role` and `itemprop`: evidence, on every element.
    Role,
    Style,
    Href,
    Type,
    /// `property`, `name`, `content`: the title, on meta tags.
    MetaField,
    Other,
}

/// `name` in ASCII lower case when it has at most 8 bytes (every name
/// matched here), else an empty slice.
fn lower8<'b>(name: &[u8], buf: &'b mut [u8; 8]) -> &'b [u8] {
    let Some(dst) = buf.get_mut(..name.len()) else {
        return &[];
    };
    for (d, s) in dst.iter_mut().zip(name) {
        *d = s.to_ascii_lowercase();
    }
    dst
}

/// The element class of a tag name as written.
pub(crate) fn element(tag: &[u8]) -> Element {
    match lower8(tag, &mut [0; 8]) {
        b"b" | b"big" | b"code" | b"em" | b"font" | b"i" | b"nobr" | b"s" | b"small"
        | b"strike" | b"strong" | b"tt" | b"u" | b"html" | b"body" => Element::Compared,
        b"a" => Element::A,
        b"script" => Element::Script,
        b"input" => Element::Input,
        b"meta" => Element::Meta,
        _ => Element::Other,
    }
}

/// The attribute class of a name as written.
pub(crate) fn attr(name: &[u8]) -> Attr {
    match lower8(name, &mut [0; 8]) {
        b"class" => Attr::Class,
        b"id" => Attr::Id,
        b"role" | b"itemprop" => Attr::Role,
        b"style" => Attr::Style,
        b"href" => Attr::Href,
        b"type" => Attr::Type,
        b"property" | b"name" | b"content" => Attr::MetaField,
        _ => Attr::Other,
    }
}

/// Would the tokenizer pass on a value other than the one written?
fn rewritten(value: &str) -> bool {
    value.bytes().any(|b| matches!(b, b'&' | b'\r' | b'\0'))
}

/// Could an inline style hide its element? The extractor looks for
/// `display:none` and `visibility:hidden` only in values holding one of
/// these words (see `analyze::hidden`).
fn may_hide(value: &str) -> bool {
    ["none", "hidden", "NONE", "HIDDEN"]
        .iter()
        .any(|w| value.contains(w))
}

/// Attribute decisions for one page, with the class/id verdicts so far.
#[derive(Default)]
pub(crate) struct Attrs<'h> {
    /// Does this class/id value carry evidence?
    memo: FxHashMap<&'h str, bool>,
    buf: String,
}

impl<'h> Attrs<'h> {
    /// The attributes the extractor reads, and only on the elements it
    /// reads them on: class and id when they carry evidence, role and
    /// itemprop, `style` when it may hide, `href` of links (its presence),
    /// `type` of scripts (JSON-LD) and inputs (the tree builder keeps
    /// hidden inputs in tables), `property`/`name`/`content` of meta tags
    /// (the title).
    pub(crate) fn fate(&mut self, tag: Element, name: Attr, value: &'h str) -> Fate {
        let keep_if = |c: bool| if c { Fate::Keep } else { Fate::Drop };
        match (name, tag) {
            (Attr::Other, _) => Fate::Drop,
            (_, Element::Compared) | (Attr::Role, _) => Fate::Keep,
            (Attr::Class | Attr::Id, _) => keep_if(rewritten(value) || self.evidence(value)),
            (Attr::Style, _) => keep_if(rewritten(value) || may_hide(value)),
            (Attr::Href, Element::A) => Fate::NameOnly,
            (Attr::Type, Element::Script | Element::Input) => Fate::Keep,
            (Attr::MetaField, Element::Meta) => Fate::Keep,
            _ => Fate::Drop,
        }
    }

    /// Does the class or id `value` say anything to `evidence::judge`?
    /// One that says nothing is the same to the extractor as none.
    fn evidence(&mut self, value: &'h str) -> bool {
        if let Some(&e) = self.memo.get(value) {
            return e;
        }
        let e = judge(value, &mut self.buf) != Evidence::default();
        self.memo.insert(value, e);
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_elements() {
        assert_eq!(attr(b"CLASS"), Attr::Class);
        assert_eq!(attr(b"itemprop"), Attr::Role);
        assert_eq!(attr(b"data-itemprop"), Attr::Other);
        assert_eq!(element(b"Font"), Element::Compared);
        assert_eq!(element(b"strongest"), Element::Other);
        assert_eq!(element(b"a"), Element::A);
    }

    #[test]
    fn fates() {
        let mut a = Attrs::default();
        assert_eq!(a.fate(Element::Other, Attr::Class, "flex px-4"), Fate::Drop);
        assert_eq!(
            a.fate(Element::Other, Attr::Class, "site-footer"),
            Fate::Keep
        );
        assert_eq!(a.fate(Element::Other, Attr::Id, "main"), Fate::Keep);
        assert_eq!(a.fate(Element::Other, Attr::Class, "x&amp;y"), Fate::Keep);
        assert_eq!(a.fate(Element::Compared, Attr::Class, "flex"), Fate::Keep);
        assert_eq!(a.fate(Element::Other, Attr::Style, "color:red"), Fate::Drop);
        assert_eq!(
            a.fate(Element::Other, Attr::Style, "display:none"),
            Fate::Keep
        );
        assert_eq!(a.fate(Element::A, Attr::Href, "/x"), Fate::NameOnly);
        assert_eq!(a.fate(Element::Other, Attr::Href, "/x"), Fate::Drop);
        assert_eq!(
            a.fate(Element::Meta, Attr::MetaField, "og:title"),
            Fate::Keep
        );
        assert_eq!(a.fate(Element::Other, Attr::MetaField, "q"), Fate::Drop);
        assert_eq!(a.fate(Element::Input, Attr::Type, "hidden"), Fate::Keep);
        assert_eq!(a.fate(Element::Other, Attr::Other, "x"), Fate::Drop);
    }
}

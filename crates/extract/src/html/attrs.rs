//! Which attributes the pre-filter passes on to the parser.
//!
//! The extractor reads few attributes, each on some elements only; every
//! other attribute is work for the tokenizer and memory in the tree. Each
//! decision here keeps whatever could change what the extractor sees:
//! values are judged as the extractor would judge them, and values the
//! tokenizer would rewrite (character references, carriage returns, NUL)
//! are kept as written.
//!
//! A class or id is read for its verdict alone (`analyze::own_evidence`
//! counts it when it is negative only or positive only), so one with a
//! verdict is passed on as a short value judged the same, [`NEGATIVE`],
//! [`HIDING`] or [`POSITIVE`]: the tokenizer takes attribute values a character at a
//! time, and the kept class lists were about 20 MB of the WCXB pages.

use rustc_hash::FxHashMap;

use crate::evidence::{judge, Evidence, MAX_JUDGED};
use crate::visibility::style_hides;

/// What the pre-filter does with one attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Pass it on as written.
    Keep,
    /// Pass on its name only: the extractor asks whether it is there.
    NameOnly,
    /// Pass it on with this value instead of its own.
    Value(&'static str),
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
    /// `role` and `itemprop`: evidence, on every element; `aria-modal`:
    /// whether a dialog is modal.
    Role,
    Style,
    /// `data-nosnippet`: the site's own mark of text that does not stand
    /// for the page (`visibility::hidden`), on every element.
    NoSnippet,
    /// `aria-labelledby`: a panel named by its toggle or tab
    /// (`visibility::hidden`, `visibility::collapsed_panel`), on every
    /// element.
    Labelled,
    Href,
    Type,
    /// `property`, `name`, `content`: the title, on meta tags.
    MetaField,
    Other,
}

/// A class/id value with a negative verdict only (see `evidence::judge`).
pub(crate) const NEGATIVE: &str = "nav";
/// A class/id value with a negative verdict that rests on words that say
/// the element is hidden only (`Evidence::hiding`).
pub(crate) const HIDING: &str = "hidden";
/// A class/id value with a positive verdict only.
pub(crate) const POSITIVE: &str = "main";

/// An inline style that hides its element (`visibility::style_hides`).
pub(crate) const HIDING_STYLE: &str = "display:none";

/// `name` in ASCII lower case when it has at most 16 bytes (every name
/// matched here), else an empty slice.
fn lower16<'b>(name: &[u8], buf: &'b mut [u8; 16]) -> &'b [u8] {
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
    match lower16(tag, &mut [0; 16]) {
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
    match lower16(name, &mut [0; 16]) {
        b"class" => Attr::Class,
        b"id" => Attr::Id,
        b"role" | b"itemprop" | b"itemtype" | b"aria-modal" => Attr::Role,
        b"style" => Attr::Style,
        b"href" => Attr::Href,
        b"type" => Attr::Type,
        b"property" | b"name" | b"content" => Attr::MetaField,
        b"data-nosnippet" => Attr::NoSnippet,
        b"aria-labelledby" => Attr::Labelled,
        _ => Attr::Other,
    }
}

/// Would the tokenizer pass on a value other than the one written?
fn rewritten(value: &str) -> bool {
    memchr::memchr3(b'&', b'\r', b'\0', value.as_bytes()).is_some()
}

/// Attribute decisions for one page, with the class/id verdicts so far.
#[derive(Default)]
pub(crate) struct Attrs<'h> {
    /// What each class/id value seen says to `evidence::judge`.
    memo: FxHashMap<&'h str, Evidence>,
    /// The same for each word of these values: pages combine few class
    /// names in many ways.
    words: FxHashMap<&'h str, Evidence>,
    buf: String,
}

impl<'h> Attrs<'h> {
    /// The attributes the extractor reads, and only on the elements it
    /// reads them on: class and id when they carry evidence (as
    /// [`NEGATIVE`] or [`POSITIVE`]), role and
    /// itemprop, `style` when it hides (as [`HIDING_STYLE`]), `href` of
    /// links (its presence),
    /// `type` of scripts (JSON-LD) and inputs (the tree builder keeps
    /// hidden inputs in tables), `property`/`name`/`content` of meta tags
    /// (the title).
    pub(crate) fn fate(&mut self, tag: Element, name: Attr, value: &'h str) -> Fate {
        match (name, tag) {
            (Attr::Other, _) => Fate::Drop,
            (_, Element::Compared) | (Attr::Role, _) => Fate::Keep,
            (Attr::Class | Attr::Id, _) if rewritten(value) => Fate::Keep,
            (Attr::Class | Attr::Id, _) => match self.evidence(value) {
                Evidence {
                    negative: true,
                    positive: false,
                    hiding: true,
                } => Fate::Value(HIDING),
                Evidence {
                    negative: true,
                    positive: false,
                    hiding: false,
                } => Fate::Value(NEGATIVE),
                Evidence {
                    negative: false,
                    positive: true,
                    ..
                } => Fate::Value(POSITIVE),
                // Both verdicts cancel out: the same as no value.
                _ => Fate::Drop,
            },
            (Attr::Style, _) if rewritten(value) => Fate::Keep,
            // A style is read for whether it hides, nothing else.
            (Attr::Style, _) if style_hides(value) => Fate::Value(HIDING_STYLE),
            (Attr::Style, _) => Fate::Drop,
            (Attr::Href, Element::A) | (Attr::NoSnippet | Attr::Labelled, _) => Fate::NameOnly,
            (Attr::Type, Element::Script | Element::Input) => Fate::Keep,
            (Attr::MetaField, Element::Meta) => Fate::Keep,
            _ => Fate::Drop,
        }
    }

    /// What the class or id `value` says to `evidence::judge`.
    fn evidence(&mut self, value: &'h str) -> Evidence {
        if let Some(&e) = self.memo.get(value) {
            return e;
        }
        let e = if value.len() > MAX_JUDGED {
            judge(value, &mut self.buf)
        } else {
            let mut e = Evidence::default();
            for word in value.split_ascii_whitespace() {
                let w = match self.words.get(word) {
                    Some(&w) => w,
                    None => {
                        let w = judge(word, &mut self.buf);
                        self.words.insert(word, w);
                        w
                    }
                };
                e = e.join(w);
            }
            e
        };
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
        assert_eq!(attr(b"Data-NoSnippet"), Attr::NoSnippet);
        assert_eq!(attr(b"aria-LabelledBy"), Attr::Labelled);
        assert_eq!(attr(b"data-nosnippets"), Attr::Other);
        assert_eq!(attr(b"Aria-Modal"), Attr::Role);
        assert_eq!(attr(b"aria-modals"), Attr::Other);
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
            Fate::Value(NEGATIVE)
        );
        assert_eq!(
            a.fate(Element::Other, Attr::Id, "main-column"),
            Fate::Value(POSITIVE)
        );
        assert_eq!(
            a.fate(Element::Other, Attr::Class, "post-footer"),
            Fate::Drop
        );
        // Negative by a word that says hidden alone: a state, kept apart.
        assert_eq!(
            a.fate(Element::Other, Attr::Class, "panel panel--hidden"),
            Fate::Value(HIDING)
        );
        assert_eq!(
            a.fate(Element::Other, Attr::Class, "panel hidden sidebar"),
            Fate::Value(NEGATIVE)
        );
        assert_eq!(a.fate(Element::Other, Attr::Class, "x&amp;y"), Fate::Keep);
        assert_eq!(a.fate(Element::Compared, Attr::Class, "flex"), Fate::Keep);
        assert_eq!(a.fate(Element::Other, Attr::Style, "color:red"), Fate::Drop);
        assert_eq!(
            a.fate(Element::Other, Attr::Style, "Display : NONE; color:red"),
            Fate::Value(HIDING_STYLE)
        );
        assert_eq!(
            a.fate(Element::Other, Attr::Style, "border:none"),
            Fate::Drop
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
        // A microdata type says what the page is (a discussion): kept.
        assert_eq!(
            a.fate(
                Element::Other,
                attr(b"itemtype"),
                "https://schema.org/QAPage"
            ),
            Fate::Keep
        );
    }

    proptest::proptest! {
        #[test]
        fn a_value_is_judged_as_its_words(
            words in proptest::collection::vec(
                "(nav|Footer|post|ad|-|_|x|main|side|bar|menu|hidden|xs|é| |\t|\n){0,5}",
                0..6,
            ),
        ) {
            let value = words.concat();
            let mut a = Attrs::default();
            let want = judge(&value, &mut String::new());
            proptest::prop_assert_eq!(a.evidence(&value), want);
            // Again from the memo of words alone.
            a.memo.clear();
            proptest::prop_assert_eq!(a.evidence(&value), want);
        }
    }

    #[test]
    fn long_values_are_not_judged() {
        let long = "footer ".repeat(100);
        assert_eq!(Attrs::default().evidence(&long), Evidence::default());
    }

    #[test]
    fn replacement_values_keep_their_verdict() {
        let mut buf = String::new();
        let negative = Evidence {
            negative: true,
            ..Evidence::default()
        };
        let positive = Evidence {
            positive: true,
            ..Evidence::default()
        };
        let hiding = Evidence {
            negative: true,
            hiding: true,
            ..Evidence::default()
        };
        assert_eq!(judge(NEGATIVE, &mut buf), negative);
        assert_eq!(judge(POSITIVE, &mut buf), positive);
        assert_eq!(judge(HIDING, &mut buf), hiding);
        assert!(!rewritten(HIDING));
        assert!(!rewritten(NEGATIVE) && !rewritten(POSITIVE));
        assert!(style_hides(HIDING_STYLE) && !rewritten(HIDING_STYLE));
    }
}

//! Feeding the tree builder: the plain tokens that make up most of a
//! pre-filtered page directly, everything else through html5ever's
//! tokenizer.
//!
//! The tokenizer takes its input a character at a time: tag and attribute
//! names, values, each pushed into a buffer of its own. Most tags of a
//! page, once pre-filtered, are plain (`<p>`, `</div>`, `<a href>`,
//! `<div class=nav>`), and so is most text: those are handed to the tree
//! builder as the tokens the tokenizer would have made of them, and so are
//! comments (empty: their content is never read), text whose character
//! references [`crate::char_refs`] decodes, and elements of raw text
//! (`<script>`, `<style>`, `<title>`...) with a plain start tag and text.
//! Anything else the tokenizer would rewrite or read in another state
//! goes through it: other character references, NUL and carriage
//! returns, DOCTYPEs, a `<` of text, other raw-text elements up to their
//! end tag, foreign content other than an empty `<svg></svg>` (the rest of
//! the page then),
//! the first text of the page (a byte order mark). The tokenizer is handed
//! whole constructs, so it is back in its data state whenever a token goes
//! past it.

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer,
};
use html5ever::{local_name, ns, Attribute, LocalName, QualName, TokenizerResult};

use crate::char_refs;
use crate::markup::{
    content, is_end_tag, markup_at, name_end, next_attr, raw_end, script_end, tag_close, Content,
    Markup, Step,
};

/// A plain token read at some position: the tag, and past its `>`.
type Plain = (Tag, usize);

/// Is `name` a name the tokenizer passes on as written, but for case?
fn plain_name(name: &[u8]) -> bool {
    name.first().is_some_and(u8::is_ascii_alphabetic)
        && name
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `name` (a [`plain_name`]) in ASCII lower case, as an atom.
fn atom(name: &[u8]) -> LocalName {
    let mut buf = [0u8; 24];
    match buf.get_mut(..name.len()) {
        Some(low) => {
            for (d, s) in low.iter_mut().zip(name) {
                *d = s.to_ascii_lowercase();
            }
            common_atom(low)
                .unwrap_or_else(|| LocalName::from(std::str::from_utf8(low).unwrap_or_default()))
        }
        None => LocalName::from(String::from_utf8_lossy(name).to_ascii_lowercase()),
    }
}

/// The atom of the most frequent tag and kept attribute names (lower
/// case), without hashing the name to look it up.
fn common_atom(low: &[u8]) -> Option<LocalName> {
    Some(match low {
        b"div" => local_name!("div"),
        b"a" => local_name!("a"),
        b"span" => local_name!("span"),
        b"li" => local_name!("li"),
        b"p" => local_name!("p"),
        b"img" => local_name!("img"),
        b"ul" => local_name!("ul"),
        b"ol" => local_name!("ol"),
        b"button" => local_name!("button"),
        b"strong" => local_name!("strong"),
        b"em" => local_name!("em"),
        b"b" => local_name!("b"),
        b"i" => local_name!("i"),
        b"br" => local_name!("br"),
        b"svg" => local_name!("svg"),
        b"link" => local_name!("link"),
        b"meta" => local_name!("meta"),
        b"input" => local_name!("input"),
        b"option" => local_name!("option"),
        b"label" => local_name!("label"),
        b"source" => local_name!("source"),
        b"picture" => local_name!("picture"),
        b"h1" => local_name!("h1"),
        b"h2" => local_name!("h2"),
        b"h3" => local_name!("h3"),
        b"h4" => local_name!("h4"),
        b"section" => local_name!("section"),
        b"article" => local_name!("article"),
        b"nav" => local_name!("nav"),
        b"header" => local_name!("header"),
        b"footer" => local_name!("footer"),
        b"figure" => local_name!("figure"),
        b"td" => local_name!("td"),
        b"tr" => local_name!("tr"),
        b"sup" => local_name!("sup"),
        b"hr" => local_name!("hr"),
        b"class" => local_name!("class"),
        b"id" => local_name!("id"),
        b"href" => local_name!("href"),
        b"role" => local_name!("role"),
        b"style" => local_name!("style"),
        b"type" => local_name!("type"),
        b"content" => local_name!("content"),
        b"name" => local_name!("name"),
        b"property" => local_name!("property"),
        b"itemprop" => local_name!("itemprop"),
        _ => return None,
    })
}

/// Would the tokenizer pass on this text or value as written?
fn plain_text(text: &[u8]) -> bool {
    memchr::memchr3(b'&', b'\0', b'\r', text).is_none() && memchr::memchr(b'<', text).is_none()
}

/// The plain start or end tag at `at`, if it is one (a start tag of an
/// element whose content is markup).
fn plain_tag(html: &StrTendril, at: usize) -> Option<Plain> {
    plain_tag_of(html, at, false)
}

/// [`plain_tag`], start tags of raw-text elements too when `raw`.
fn plain_tag_of(html: &StrTendril, at: usize, raw: bool) -> Option<Plain> {
    let bytes = html.as_bytes();
    if bytes.get(at + 1) == Some(&b'/') {
        let e = name_end(bytes, at + 2);
        let name = bytes.get(at + 2..e)?;
        if !plain_name(name) || bytes.get(e) != Some(&b'>') {
            return None;
        }
        return Some((end_tag(atom(name)), e + 1));
    }
    let mut j = name_end(bytes, at + 1);
    let name = bytes.get(at + 1..j)?;
    if !plain_name(name) || (!raw && content(name) != Content::Markup) {
        return None;
    }
    let mut attrs: Vec<Attribute> = Vec::new();
    loop {
        let a = match next_attr(bytes, j)? {
            Step::Attr(a) => a,
            Step::Close { past, self_closing } => {
                let tag = Tag {
                    kind: TagKind::StartTag,
                    name: atom(name),
                    self_closing,
                    attrs,
                    had_duplicate_attributes: false,
                };
                return Some((tag, past));
            }
        };
        j = a.end;
        let an = bytes.get(a.name.0..a.name.1)?;
        let (vs, ve) = a.value.unwrap_or((a.name.1, a.name.1));
        if !plain_name(an) || !plain_text(bytes.get(vs..ve)?) {
            return None;
        }
        let local = atom(an);
        if attrs.iter().any(|x| x.name.local == local) {
            return None;
        }
        attrs.push(Attribute {
            name: QualName::new(None, ns!(), local),
            value: html.subtendril(u32::try_from(vs).ok()?, u32::try_from(ve - vs).ok()?),
        });
    }
}

/// The token at `at` that goes past the tokenizer: a plain tag, or a
/// comment (its content is never read: it goes empty, see
/// `sink::create_comment`).
fn plain_token(html: &StrTendril, at: usize) -> Option<(Token, usize)> {
    let bytes = html.as_bytes();
    if bytes.get(at + 1..at + 4) == Some(b"!--") {
        return match markup_at(bytes, at) {
            Markup::Whole(past) => Some((Token::CommentToken(StrTendril::new()), past)),
            _ => None,
        };
    }
    // An `<svg>` goes past when nothing follows it before its end: the
    // pre-filter's `<svg></svg>`, or `<svg/>`.
    let tag = match content(bytes.get(at + 1..name_end(bytes, at + 1))?) {
        Content::Svg => plain_tag_of(html, at, true)
            .filter(|(t, past)| t.self_closing || is_end_tag(bytes, *past, b"svg")),
        _ => plain_tag(html, at),
    };
    tag.map(|(tag, past)| (Token::TagToken(tag), past))
}

/// An element of raw text (`<script>`, `<style>`, `<title>`...) read past
/// the tokenizer: its plain start tag, the text the tokenizer would hand
/// on when the tree builder switches it to raw text, and past the end tag.
struct RawElement {
    start: Plain,
    text: StrTendril,
    end: usize,
}

/// The element of raw text at `at`, when its start tag is plain and its
/// text would go on as written: no NUL or carriage return, and in RCDATA
/// (`<title>`, `<textarea>`) only the character references
/// [`crate::char_refs`] decodes.
fn raw_element(html: &StrTendril, at: usize) -> Option<RawElement> {
    let bytes = html.as_bytes();
    let name = bytes.get(at + 1..name_end(bytes, at + 1))?;
    let kind = content(name);
    if !matches!(kind, Content::Script | Content::Style | Content::Raw) {
        return None;
    }
    let start = plain_tag_of(html, at, true)?;
    let (to, rcdata) = match kind {
        Content::Script => (script_end(bytes, start.1)?, false),
        _ => {
            let rcdata =
                name.eq_ignore_ascii_case(b"title") || name.eq_ignore_ascii_case(b"textarea");
            (raw_end(bytes, start.1, name)?, rcdata)
        }
    };
    let text = bytes.get(start.1..to)?;
    if memchr::memchr2(b'\0', b'\r', text).is_some() {
        return None;
    }
    let text = if rcdata && memchr::memchr(b'&', text).is_some() {
        StrTendril::from_slice(&char_refs::decode(html.get(start.1..to)?)?)
    } else {
        slice(html, start.1, to)?
    };
    let end = tag_close(bytes, name_end(bytes, to + 2))?.0;
    Some(RawElement { start, text, end })
}

/// The end tag named `name`, as the tokenizer makes it.
pub(crate) fn end_tag(name: LocalName) -> Tag {
    Tag {
        kind: TagKind::EndTag,
        name,
        self_closing: false,
        attrs: Vec::new(),
        had_duplicate_attributes: false,
    }
}

/// What goes past the tokenizer at a `<`: a token ([`plain_token`]) and
/// past it, or an element of raw text ([`raw_element`]).
enum Passing {
    Token(Token, usize),
    Raw(RawElement),
}

/// What goes past the tokenizer at `at`, if anything.
fn passing_at(html: &StrTendril, at: usize) -> Option<Passing> {
    match plain_token(html, at) {
        Some((token, past)) => Some(Passing::Token(token, past)),
        None => raw_element(html, at).map(Passing::Raw),
    }
}

/// `html[from..to]`, text of the data state, as the tokenizer hands it on:
/// as written, or with its character references decoded (`None` when
/// [`crate::char_refs`] leaves one to the tokenizer).
fn text_as_read(html: &StrTendril, from: usize, to: usize) -> Option<StrTendril> {
    let text = html.get(from..to)?;
    if memchr::memchr(b'&', text.as_bytes()).is_none() {
        slice(html, from, to)
    } else {
        char_refs::decode(text).map(|d| StrTendril::from_slice(&d))
    }
}

/// Past the construct at `at` (a `<`) that goes through the tokenizer,
/// with whatever it puts the tokenizer in until its end tag. `None` when
/// the tokenizer should have the rest of the input.
fn construct_end(bytes: &[u8], at: usize) -> Option<usize> {
    match markup_at(bytes, at) {
        Markup::Whole(past) => Some(past),
        // A `<` of text: the tokenizer must see what follows.
        Markup::Text => Some(at),
        Markup::Open => None,
        Markup::StartTag => {
            let e = name_end(bytes, at + 1);
            let name = bytes.get(at + 1..e)?;
            let (past, self_closing) = tag_close(bytes, e)?;
            let end = match content(name) {
                Content::Markup => return Some(past),
                Content::Svg | Content::Math if self_closing => return Some(past),
                Content::Script => script_end(bytes, past)?,
                // Inside `<noscript>` a self-closing one is empty
                // (`parse.rs`): the tokenizer reads on as it is told.
                Content::Style | Content::Raw if self_closing => return None,
                Content::Style | Content::Raw => raw_end(bytes, past, name)?,
                // An empty `<svg></svg>` (the pre-filter's) and nothing else.
                Content::Svg if is_end_tag(bytes, past, name) => past,
                Content::Svg | Content::Math | Content::Plaintext => return None,
            };
            tag_close(bytes, name_end(bytes, end + 2)).map(|t| t.0)
        }
    }
}

/// `html[from..to]` as a tendril sharing its buffer.
fn slice(html: &StrTendril, from: usize, to: usize) -> Option<StrTendril> {
    if from == to {
        // Most pieces between two tags are empty: no sharing to set up.
        return (to <= html.len()).then(StrTendril::new);
    }
    let f = u32::try_from(from).ok()?;
    let n = u32::try_from(to.checked_sub(from)?).ok()?;
    Some(html.subtendril(f, n))
}

/// Parse `html` with `tokenizer`, handing plain tokens to its sink
/// directly; see the module documentation. A leading byte order mark is
/// left out (the tokenizer must not be told to: it would drop one at the
/// start of every piece it is handed).
pub(crate) fn feed<S: TokenSink>(tokenizer: &Tokenizer<S>, html: StrTendril) {
    let input = BufferQueue::default();
    let bytes = html.as_bytes();
    let start = if bytes.starts_with("\u{feff}".as_bytes()) {
        3
    } else {
        0
    };
    // Input from `pending` on goes to the tokenizer; `i` is where the text
    // before the next construct starts, `plain` whether that text, from
    // the end of a construct, can go past the tokenizer.
    let (mut pending, mut i, mut plain) = (start, start, true);
    let through = |from: usize, to: usize| {
        if let Some(piece) = slice(&html, from, to).filter(|t| t.len32() > 0) {
            input.push_back(piece);
            while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
        }
    };
    while let Some(at) = bytes.get(i..).and_then(|r| memchr::memchr(b'<', r)) {
        let at = i + at;
        let text = bytes.get(i..at).unwrap_or_default();
        // What goes past the tokenizer here, and the text before it as the
        // tokenizer would hand it on.
        let passing = (plain && memchr::memchr2(b'\0', b'\r', text).is_none())
            .then(|| passing_at(&html, at))
            .flatten()
            .and_then(|p| Some((p, text_as_read(&html, i, at)?)));
        if let Some((passing, chars)) = passing {
            through(pending, i);
            if chars.len32() > 0 {
                let _ = tokenizer
                    .sink
                    .process_token(Token::CharacterTokens(chars), 0);
            }
            let past = match passing {
                Passing::Token(token, past) => {
                    let _ = tokenizer.sink.process_token(token, 0);
                    past
                }
                // When the tree builder switches the tokenizer to raw
                // text, the element's text and end tag are the next
                // tokens; when it does not (a raw-text element it ignores
                // or empties), the tokenizer would read on in its data
                // state, and so does the feed.
                Passing::Raw(RawElement {
                    start: (tag, past),
                    text,
                    end,
                }) => {
                    let close = end_tag(tag.name.clone());
                    let result = tokenizer.sink.process_token(Token::TagToken(tag), 0);
                    if matches!(result, TokenSinkResult::RawData(_)) {
                        if text.len32() > 0 {
                            let _ = tokenizer
                                .sink
                                .process_token(Token::CharacterTokens(text), 0);
                        }
                        let _ = tokenizer.sink.process_token(Token::TagToken(close), 0);
                        end
                    } else {
                        past
                    }
                }
            };
            (pending, i) = (past, past);
            continue;
        }
        match construct_end(bytes, at) {
            // A `<` of text: what follows it is not plain.
            Some(past) if past == at => (i, plain) = (at + 1, false),
            Some(past) => (i, plain) = (past, true),
            None => break,
        }
    }
    through(pending, bytes.len());
    tokenizer.end();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tag's name, attributes, self-closing flag and end, as read.
    type Read = (String, Vec<(String, String)>, bool, usize);

    fn tag(html: &str) -> Option<Read> {
        let (t, past) = plain_tag(&StrTendril::from_slice(html), 0)?;
        let attrs = t
            .attrs
            .iter()
            .map(|a| (a.name.local.to_string(), a.value.to_string()))
            .collect();
        Some((t.name.to_string(), attrs, t.self_closing, past))
    }

    #[test]
    fn plain_tags_are_read_as_the_tokenizer_reads_them() {
        let pair = |n: &str, v: &str| (n.to_string(), v.to_string());
        assert_eq!(
            tag("<DIV Class=nav ID='main' hidden>x"),
            Some((
                "div".into(),
                vec![pair("class", "nav"), pair("id", "main"), pair("hidden", "")],
                false,
                32
            ))
        );
        assert_eq!(tag("<br/>"), Some(("br".into(), vec![], true, 5)));
        assert_eq!(tag("</P>"), Some(("p".into(), vec![], false, 4)));
    }

    #[test]
    fn common_names_are_the_atoms_of_their_text() {
        for name in [
            "div", "a", "span", "li", "p", "img", "ul", "ol", "button", "strong", "em", "b", "i",
            "br", "svg", "link", "meta", "input", "option", "label", "source", "picture", "h1",
            "h2", "h3", "h4", "section", "article", "nav", "header", "footer", "figure", "td",
            "tr", "sup", "hr", "class", "id", "href", "role", "style", "type", "content", "name",
            "property", "itemprop",
        ] {
            assert!(common_atom(name.as_bytes()).is_some(), "{name}");
            assert_eq!(atom(name.to_uppercase().as_bytes()), LocalName::from(name));
        }
        assert_eq!(common_atom(b"blink"), None);
        assert_eq!(atom(b"BLink"), LocalName::from("blink"));
    }

    #[test]
    fn the_rest_goes_through_the_tokenizer() {
        // Character references, repeated attributes, end tags with more
        // than a name, raw text and foreign elements.
        for html in [
            "<a title='&amp;'>",
            "<a b=1 b=2>",
            "</p >",
            "<title>",
            "<svg>",
            "<p\0>",
        ] {
            assert_eq!(tag(html), None, "{html}");
        }
        let end = |s: &str| construct_end(s.as_bytes(), 0);
        assert_eq!(end("<title><b></title>x"), Some(18));
        assert_eq!(end("<script><!--<script></script>--></script>x"), Some(41));
        assert_eq!(end("<svg a=1></svg>x"), Some(15));
        assert_eq!(end("<svg><g/></svg>"), None);
        assert_eq!(end("< b"), Some(0));
    }
}

//! Where markup ends, read the way the HTML tokenizer reads it: tags with
//! their attributes (quoted values may hold `>`), comments (`<!-->`,
//! `<!--->`, `--!>`), the raw text of `<script>` (with its escaped states),
//! `<style>`, `<title>`... up to their end tag, and SVG or MathML content
//! as long as nothing in it takes the parser back to HTML.
//!
//! The pre-filter rewrites markup only where these say it is markup, so it
//! never changes what the parser reads as text.

use crate::space::is_space;

/// One attribute of a tag, as byte positions in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AttrSpan {
    /// Where the white space or `/` in front of the attribute starts.
    pub(crate) sep_start: usize,
    /// Its name.
    pub(crate) name: (usize, usize),
    /// Its value, between the quotes when quoted.
    pub(crate) value: Option<(usize, usize)>,
    /// Whether the value is quoted.
    pub(crate) quoted: bool,
    /// Just past the attribute (past the closing quote when quoted).
    pub(crate) end: usize,
}

/// What follows in a tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// An attribute.
    Attr(AttrSpan),
    /// The end of the tag: the index past its `>`, and whether it is
    /// written self-closing (`/>` where `/` is no part of a value).
    Close { past: usize, self_closing: bool },
}

/// Does `b` end a tag name?
fn ends_name(b: u8) -> bool {
    is_space(b) || b == b'/' || b == b'>'
}

/// The end of the tag name starting at `from` (after `<` or `</`).
#[inline]
pub(crate) fn name_end(bytes: &[u8], from: usize) -> usize {
    let mut j = from;
    while bytes.get(j).is_some_and(|&b| !ends_name(b)) {
        j += 1;
    }
    j
}

/// The next attribute or the end of the tag, reading from `j` (past the
/// tag name or the previous attribute). `None` when the input ends first.
#[inline]
pub(crate) fn next_attr(bytes: &[u8], mut j: usize) -> Option<Step> {
    let at = |k: usize| bytes.get(k).copied();
    let sep_start = j;
    while at(j).is_some_and(|b| is_space(b) || b == b'/') {
        j += 1;
    }
    if at(j)? == b'>' {
        let self_closing = j > sep_start && at(j - 1) == Some(b'/');
        return Some(Step::Close {
            past: j + 1,
            self_closing,
        });
    }
    let name_start = j;
    // The first character is part of the name whatever it is (`=` too).
    j += 1;
    while at(j).is_some_and(|b| !(ends_name(b) || b == b'=')) {
        j += 1;
    }
    let name = (name_start, j);
    let mut k = j;
    while at(k).is_some_and(is_space) {
        k += 1;
    }
    let mut span = AttrSpan {
        sep_start,
        name,
        value: None,
        quoted: false,
        end: j,
    };
    if at(k) != Some(b'=') {
        return Some(Step::Attr(span));
    }
    k += 1;
    while at(k).is_some_and(is_space) {
        k += 1;
    }
    match at(k)? {
        q @ (b'"' | b'\'') => {
            let n = memchr::memchr(q, bytes.get(k + 1..)?)?;
            span.value = Some((k + 1, k + 1 + n));
            span.quoted = true;
            span.end = k + 1 + n + 1;
        }
        // `a=>`: an empty value, the tag ends.
        b'>' => span.end = k,
        _ => {
            let from = k;
            while at(k).is_some_and(|b| !(is_space(b) || b == b'>')) {
                k += 1;
            }
            span.value = Some((from, k));
            span.end = k;
        }
    }
    Some(Step::Attr(span))
}

/// Past the `>` of the tag whose attributes start at `j`, and whether it
/// is self-closing.
pub(crate) fn tag_close(bytes: &[u8], mut j: usize) -> Option<(usize, bool)> {
    loop {
        match next_attr(bytes, j)? {
            Step::Attr(a) => j = a.end,
            Step::Close { past, self_closing } => return Some((past, self_closing)),
        }
    }
}

/// Past the end of the comment whose `<!--` is at `at`: `<!-->` and
/// `<!--->` end at once, else the first `-->` or `--!>`.
pub(crate) fn comment_end(bytes: &[u8], at: usize) -> Option<usize> {
    let from = at + 4;
    match bytes.get(from..) {
        Some([b'>', ..]) => return Some(from + 1),
        Some([b'-', b'>', ..]) => return Some(from + 2),
        _ => {}
    }
    let mut i = from;
    loop {
        let d = i + memchr::memmem::find(bytes.get(i..)?, b"--")?;
        match bytes.get(d + 2..) {
            Some([b'>', ..]) => return Some(d + 3),
            Some([b'!', b'>', ..]) => return Some(d + 4),
            _ => i = d + 1,
        }
    }
}

/// Past the first `>` from `from`: the end of a bogus comment (`<!x>`,
/// `<?x>`, `</ x>`) or a DOCTYPE.
pub(crate) fn bogus_end(bytes: &[u8], from: usize) -> Option<usize> {
    Some(from + memchr::memchr(b'>', bytes.get(from..)?)? + 1)
}

/// What a `<` starts in HTML content, as the tokenizer reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Markup {
    /// A start tag.
    StartTag,
    /// Text: the `<` is a character.
    Text,
    /// A comment, DOCTYPE, bogus comment or end tag, ending before this.
    Whole(usize),
    /// One of those, running to the end of the input.
    Open,
}

/// What the `<` at `at` starts.
#[inline]
pub(crate) fn markup_at(bytes: &[u8], at: usize) -> Markup {
    let past = match bytes.get(at + 1).copied() {
        Some(b'!') if bytes.get(at + 2..at + 4) == Some(b"--") => comment_end(bytes, at),
        // `<![CDATA[` too: in HTML content it is a bogus comment.
        Some(b'!' | b'?') => bogus_end(bytes, at),
        Some(b'/') => match bytes.get(at + 2) {
            Some(c) if c.is_ascii_alphabetic() => {
                tag_close(bytes, name_end(bytes, at + 2)).map(|t| t.0)
            }
            // `</>` and bogus comments end at the first `>`.
            Some(_) => bogus_end(bytes, at),
            None => return Markup::Text,
        },
        Some(c) if c.is_ascii_alphabetic() => return Markup::StartTag,
        _ => return Markup::Text,
    };
    past.map_or(Markup::Open, Markup::Whole)
}

/// Is `</name` at `p`, followed by what ends a tag name (an end tag the
/// tokenizer takes as closing raw text)?
pub(crate) fn is_end_tag(bytes: &[u8], p: usize, name: &[u8]) -> bool {
    bytes.get(p..p + 2) == Some(b"</") && is_named(bytes, p + 2, name)
}

/// Is `name` (ASCII case-insensitive) at `from`, followed by white space,
/// `/` or `>`?
fn is_named(bytes: &[u8], from: usize, name: &[u8]) -> bool {
    let n = name.len();
    bytes
        .get(from..from + n)
        .is_some_and(|w| w.eq_ignore_ascii_case(name))
        && bytes.get(from + n).copied().is_some_and(ends_name)
}

/// The `<` of the end tag that closes RAWTEXT or RCDATA content (`<style>`,
/// `<title>`...) of element `name` starting at `from`.
pub(crate) fn raw_end(bytes: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut i = from;
    loop {
        let p = i + memchr::memchr(b'<', bytes.get(i..)?)?;
        if is_end_tag(bytes, p, name) {
            return Some(p);
        }
        i = p + 1;
    }
}

/// What the tokenizer reads after a start tag, in HTML content (HTML content; `<noscript>` is markup, scripting being off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Content {
    /// Script data, left out unless JSON-LD.
    Script,
    /// RAWTEXT that is left out.
    Style,
    /// RAWTEXT or RCDATA passed on as written: `<title>`, `<textarea>`,
    /// `<xmp>`, `<iframe>`, `<noembed>`, `<noframes>`.
    Raw,
    /// Everything up to the end of the input is text.
    Plaintext,
    /// Foreign content, left out when it can be (see [`crate::foreign`]).
    Svg,
    /// Foreign content, passed on as written.
    Math,
    /// Markup.
    Markup,
}

/// What follows the start tag named `name` (as written).
pub(crate) fn content(name: &[u8]) -> Content {
    let mut buf = [0u8; 9];
    let Some(low) = buf.get_mut(..name.len()) else {
        return Content::Markup;
    };
    for (d, s) in low.iter_mut().zip(name) {
        *d = s.to_ascii_lowercase();
    }
    match &*low {
        b"script" => Content::Script,
        b"style" => Content::Style,
        b"title" | b"textarea" | b"xmp" | b"iframe" | b"noembed" | b"noframes" => Content::Raw,
        b"plaintext" => Content::Plaintext,
        b"svg" => Content::Svg,
        b"math" => Content::Math,
        _ => Content::Markup,
    }
}

/// States of script data that decide where it ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Data,
    /// After `<!--`: `</script>` still ends it, `<script>` escapes again.
    Escaped,
    /// After `<!-- <script>`: `</script>` goes back to [`Script::Escaped`].
    DoubleEscaped,
}

/// The `<` of the `</script` that ends script data starting at `from`.
pub(crate) fn script_end(bytes: &[u8], from: usize) -> Option<usize> {
    const NAME: &[u8] = b"script";
    let mut state = Script::Data;
    let mut i = from;
    loop {
        let rest = bytes.get(i..)?;
        let p = i + match state {
            Script::Data => memchr::memchr(b'<', rest)?,
            _ => memchr::memchr2(b'<', b'-', rest)?,
        };
        i = p + 1;
        if bytes.get(p) == Some(&b'-') {
            // `-->` ends either escaped state.
            if bytes.get(p..p + 3) == Some(b"-->") {
                state = Script::Data;
                i = p + 3;
            }
            continue;
        }
        match state {
            Script::Data if is_end_tag(bytes, p, NAME) => return Some(p),
            Script::Data if bytes.get(p..p + 4) == Some(b"<!--") => {
                state = Script::Escaped;
                // The dashes of `<!--` count towards `-->` (`<!-->`).
                i = p + 2;
            }
            Script::Escaped if is_end_tag(bytes, p, NAME) => return Some(p),
            Script::Escaped if is_named(bytes, p + 1, NAME) => state = Script::DoubleEscaped,
            Script::DoubleEscaped if is_end_tag(bytes, p, NAME) => state = Script::Escaped,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_end_as_the_tokenizer_ends_them() {
        let end = |s: &str| comment_end(s.as_bytes(), 0);
        assert_eq!(end("<!-->x"), Some(5));
        assert_eq!(end("<!--->x"), Some(6));
        assert_eq!(end("<!---->x"), Some(7));
        assert_eq!(end("<!-- a --!>x"), Some(11));
        assert_eq!(end("<!-- a --->x"), Some(11));
        assert_eq!(end("<!---!> -- > -!> -->x"), Some(20));
        assert_eq!(end("<!-- <!-- -->x"), Some(13));
        assert_eq!(end("<!-- open"), None);
    }

    #[test]
    fn tags_end_past_quoted_values() {
        let close = |s: &str| tag_close(s.as_bytes(), name_end(s.as_bytes(), 1));
        assert_eq!(close("<a title='x>y' b>z"), Some((17, false)));
        assert_eq!(close("<br/>"), Some((5, true)));
        assert_eq!(close("<svg a=\"b\"/>"), Some((12, true)));
        // The `/` of an unquoted value, or one before a space, is no `/>`.
        assert_eq!(close("<svg a=b/>"), Some((10, false)));
        assert_eq!(close("<svg / >"), Some((8, false)));
        assert_eq!(close("<p a=>"), Some((6, false)));
        assert_eq!(close("<p title='open>"), None);
    }

    #[test]
    fn what_a_lt_starts() {
        let at = |s: &str| markup_at(s.as_bytes(), 0);
        assert_eq!(at("<p>"), Markup::StartTag);
        assert_eq!(at("< p"), Markup::Text);
        assert_eq!(at("</"), Markup::Text);
        assert_eq!(at("</>x"), Markup::Whole(3));
        assert_eq!(at("<!DOCTYPE html>x"), Markup::Whole(15));
        assert_eq!(at("<![CDATA[a>b]]>"), Markup::Whole(11));
        assert_eq!(at("</a b='>'>x"), Markup::Whole(10));
        assert_eq!(at("<!-- open"), Markup::Open);
    }

    #[test]
    fn raw_text_ends_at_its_own_end_tag() {
        let end = |s: &str, name: &[u8]| raw_end(s.as_bytes(), 0, name);
        assert_eq!(end("a</titles></title>", b"title"), Some(10));
        assert_eq!(end("a</TITLE\n>", b"title"), Some(1));
        assert_eq!(end("<p>a</title", b"title"), None);
        assert_eq!(end("</style/>", b"style"), Some(0));
    }

    #[test]
    fn script_data_escapes() {
        let end = |s: &str| script_end(s.as_bytes(), 0);
        assert_eq!(end("if (a<b) {}</script>"), Some(11));
        // In an escaped `<script>`, `</script>` ends the inner one only.
        let double = "<!-- <script>x</script> --></script>";
        assert_eq!(end(double), Some(double.len() - 9));
        let escaped = "<!-- x </script> -->";
        assert_eq!(end(escaped), Some(7));
        // `-->` ends the escape, after which `<script>` means nothing.
        let closed = "<!-- --> <script> </script>";
        assert_eq!(end(closed), Some(18));
        let empty = "<!--><script></script>";
        assert_eq!(end(empty), Some(13));
        assert_eq!(end("<!--<script></script></scripts>"), None);
    }
}

//! Input pre-filter: drop the bodies of `<script>`, `<style>` and `<svg>`
//! elements, and attributes the extractor does not need (see
//! [`crate::attrs`]), before tokenizing.
//!
//! None of it ever becomes text, yet on modern pages it is well over half of
//! the bytes, and html5ever tokenizes it character by character and interns
//! every attribute. JSON-LD scripts are kept: they are evidence for the
//! scorer. Comments are skipped over so that markup inside them is not
//! mistaken for an element. Tags are scanned the way the HTML tokenizer
//! scans them (quoted values may contain `>`).

use html5ever::tendril::StrTendril;

use crate::attrs::{attr, element, Attr, Attrs, Element, Fate};
use crate::space::{collapse_space, is_space};

/// Elements whose content is removed.
const STRIPPED: &[&str] = &["script", "style", "svg"];

/// Position of the next ASCII-case-insensitive `needle` in `hay[from..]`.
/// `needle` must start with an ASCII byte that has no other case (like
/// `<` or `-`), so that the search can use the fast `str::find`.
fn find_ci(hay: &str, from: usize, needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let bytes = hay.as_bytes();
    let mut i = from;
    while let Some(rest) = bytes.get(i..) {
        let at = i + memchr::memchr(first, rest)?;
        if bytes
            .get(at..at + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
        {
            return Some(at);
        }
        // `first` is ASCII, so the next byte starts a character.
        i = at + 1;
    }
    None
}

/// If `at` starts one of the stripped elements' start tags, its name.
fn stripped_name(bytes: &[u8], at: usize) -> Option<&'static str> {
    STRIPPED.iter().copied().find(|name| {
        let n = name.len();
        bytes
            .get(at + 1..at + 1 + n)
            .is_some_and(|w| w.eq_ignore_ascii_case(name.as_bytes()))
            && bytes
                .get(at + 1 + n)
                .is_some_and(|&c| c == b'>' || c == b'/' || c.is_ascii_whitespace())
    })
}

/// A byte range of the input to leave out, and what to write in its place.
type Cut = (usize, usize, &'static str);

/// Scan the start tag at `at` (`<` followed by a letter) the way the HTML
/// tokenizer does. Returns the index just past its `>` and the byte ranges
/// to cut: unneeded attributes (with their leading separators), the values
/// of attributes passed on by name and those replaced by another value.
/// `None` when the tag runs to the end of the input.
fn scan_tag<'h>(
    html: &'h str,
    at: usize,
    drops: &mut Vec<Cut>,
    attrs: &mut Attrs<'h>,
) -> Option<usize> {
    drops.clear();
    let bytes = html.as_bytes();
    let len = bytes.len();
    let at_byte = |k: usize| bytes.get(k).copied();
    let mut j = at + 1;
    while at_byte(j).is_some_and(|b| !(is_space(b) || b == b'/' || b == b'>')) {
        j += 1;
    }
    let tag = element(bytes.get(at + 1..j)?);
    // The tokenizer keeps the first of repeated attributes: once one was
    // seen, a later one must not take its place when the first is dropped.
    let mut seen = [false; 3];
    loop {
        let sep_start = j;
        while at_byte(j).is_some_and(|b| is_space(b) || b == b'/') {
            j += 1;
        }
        if at_byte(j)? == b'>' {
            return Some(j + 1);
        }
        let name_start = j;
        j += 1;
        while at_byte(j).is_some_and(|b| !(is_space(b) || b == b'/' || b == b'>' || b == b'=')) {
            j += 1;
        }
        let name_end = j;
        let name = bytes.get(name_start..name_end)?;
        let mut value = "";
        // What to cut to pass the name alone: the value between its quotes
        // (the closing quote ends the attribute), else `=value`.
        let mut value_cut = (name_end, name_end);
        // The value itself, for a replacement.
        let mut value_span = (name_end, name_end);
        let mut k = j;
        while at_byte(k).is_some_and(is_space) {
            k += 1;
        }
        if at_byte(k) == Some(b'=') {
            k += 1;
            while at_byte(k).is_some_and(is_space) {
                k += 1;
            }
            match at_byte(k)? {
                q @ (b'"' | b'\'') => {
                    let n = memchr::memchr(q, bytes.get(k + 1..)?)?;
                    value = html.get(k + 1..k + 1 + n)?;
                    value_cut = (k + 1, k + 1 + n);
                    value_span = value_cut;
                    j = k + 1 + n + 1;
                }
                b'>' => j = k,
                _ => {
                    let from = k;
                    while at_byte(k).is_some_and(|b| !(is_space(b) || b == b'>')) {
                        k += 1;
                    }
                    value = html.get(from..k)?;
                    value_cut = (name_end, k);
                    value_span = (from, k);
                    j = k;
                }
            }
        }
        if j > len {
            return None;
        }
        let kind = attr(name);
        let once = match kind {
            _ if tag == Element::Compared => None,
            Attr::Style => seen.get_mut(0),
            Attr::Class => seen.get_mut(1),
            Attr::Id => seen.get_mut(2),
            _ => None,
        };
        let f = match once {
            Some(true) => Fate::Drop,
            Some(s) => {
                *s = true;
                attrs.fate(tag, kind, value)
            }
            None => attrs.fate(tag, kind, value),
        };
        match f {
            Fate::Keep => {}
            Fate::NameOnly => drops.push((value_cut.0, value_cut.1, "")),
            // Only a value that was written gets replaced (an empty one
            // says nothing, see `Attrs::fate`).
            Fate::Value(v) => drops.push((value_span.0, value_span.1, v)),
            // An attribute written right after this one (`a=""b=1`) keeps
            // the separator in front of this one, lest its name run into
            // the tag's name or the previous attribute's.
            Fate::Drop if at_byte(j).is_some_and(|b| is_space(b) || b == b'/' || b == b'>') => {
                drops.push((sep_start, j, ""))
            }
            Fate::Drop => drops.push((name_start, j, "")),
        }
    }
}

/// Shrink the input before tokenizing: drop the content of `<script>`
/// (except JSON data), `<style>` and `<svg>` elements and the attributes
/// the extractor never reads. Produces the parser's input buffer.
pub(crate) fn prefilter(html: &str) -> StrTendril {
    let bytes = html.as_bytes();
    let mut out = StrTendril::with_capacity(u32::try_from(html.len()).unwrap_or(u32::MAX));
    let mut drops = Vec::new();
    let mut attrs = Attrs::default();
    let mut copied = 0;
    let mut i = 0;
    loop {
        let Some(at) = bytes
            .get(i..)
            .and_then(|r| memchr::memchr(b'<', r))
            .map(|off| i + off)
        else {
            collapse_space(html, i, html.len(), &mut copied, &mut out);
            break;
        };
        collapse_space(html, i, at, &mut copied, &mut out);
        if bytes.get(at..at + 4) == Some(b"<!--") {
            match find_ci(html, at + 4, b"-->") {
                Some(e) => {
                    i = e + 3;
                    continue;
                }
                None => break,
            }
        }
        if !bytes.get(at + 1).is_some_and(u8::is_ascii_alphabetic) {
            i = at + 1;
            continue;
        }
        let Some(content) = scan_tag(html, at, &mut drops, &mut attrs) else {
            break;
        };
        // Every cut point sits at an ASCII byte, hence a char boundary.
        for &(from, to, with) in &drops {
            out.push_slice(html.get(copied..from).unwrap_or_default());
            out.push_slice(with);
            copied = to;
        }
        i = content;
        let Some(name) = stripped_name(bytes, at) else {
            continue;
        };
        let start_tag = html.get(at..content).unwrap_or_default();
        if start_tag.ends_with("/>") && name == "svg" {
            continue;
        }
        let mut close_pat = Vec::with_capacity(name.len() + 2);
        close_pat.extend_from_slice(b"</");
        close_pat.extend_from_slice(name.as_bytes());
        let Some(close) = find_ci(html, content, &close_pat) else {
            break;
        };
        i = close + 2;
        // Only JSON-LD is read from scripts (`jsonld.rs`), as written: other
        // JSON data (framework state, often the largest part of a page) goes.
        if name == "script" && start_tag.to_ascii_lowercase().contains("ld+json") {
            continue;
        }
        if close > content {
            out.push_slice(html.get(copied..content).unwrap_or_default());
            copied = close;
        }
    }
    out.push_slice(html.get(copied..).unwrap_or_default());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_script_style_svg() {
        let got = prefilter(
            "<p>a</p><SCRIPT type=x>if (a<b) {}</script ><style>p{}</STYLE><svg><path d='1'/></svg><p>b</p>",
        );
        assert_eq!(
            &*got,
            "<p>a</p><SCRIPT type=x></script ><style></STYLE><svg></svg><p>b</p>"
        );
    }

    #[test]
    fn keeps_json_ld_and_comments() {
        let html = "<script type='application/ld+json'>{\"a\":1}</script><!-- <script>x</script> --><p>t</p>";
        assert_eq!(&*prefilter(html), html);
        assert_eq!(&*prefilter("<p>plain</p>"), "<p>plain</p>");
    }

    #[test]
    fn drops_unused_attributes() {
        assert_eq!(
            &*prefilter("<div data-x=\"1\" class='a nav' onclick=go()>t</div><img src=x />"),
            "<div class='nav'>t</div><img />"
        );
        assert_eq!(
            &*prefilter("<a href=/x data-y title=\"a>b\">l</a> 1 < 2 <p id=nav\nlang=en>"),
            "<a href>l</a> 1 < 2 <p id=nav>"
        );
        assert_eq!(
            &*prefilter("<a href=\"/x\"target=_blank class=nav>l</a><a href=/y class=menu>"),
            "<a href=\"\" class=nav>l</a><a href class=nav>"
        );
        assert_eq!(&*prefilter("<p title='open>"), "<p title='open>");
    }

    #[test]
    fn keeps_attributes_only_where_read() {
        assert_eq!(
            &*prefilter("<A HREF='/long/url?a=1'>x</A><link href=/s.css><area href=/m>"),
            "<A HREF=''>x</A><link><area>"
        );
        assert_eq!(
            &*prefilter("<input type=hidden name=q><button type=submit>"),
            "<input type=hidden><button>"
        );
        assert_eq!(
            &*prefilter("<meta property=og:title content='T'><div name=x content=y role=main itemprop=articleBody>"),
            "<meta property=og:title content='T'><div role=main itemprop=articleBody>"
        );
    }

    #[test]
    fn attributes_written_without_separators() {
        assert_eq!(
            &*prefilter("<div style=\"\"class=nav><p data-x='1'id=main title=t>x"),
            "<div class=nav><p id=main>x"
        );
    }

    #[test]
    fn class_and_id_only_with_evidence() {
        assert_eq!(
            &*prefilter("<div class='flex px-4' id=x9><div class=sidebar id=content>"),
            "<div><div class=nav id=main>"
        );
        // Each value with a verdict becomes the shortest one judged the
        // same; negative and positive at once is no verdict.
        assert_eq!(
            &*prefilter("<div class=\"Site-Footer wide\" id = entry-body><p class='post-footer'>"),
            "<div class=\"nav\" id = main><p>"
        );
        assert_eq!(
            &*prefilter("<div class=sidebar&amp;x ID=Story/>"),
            "<div class=sidebar&amp;x ID=main>"
        );
        // A dropped first class never lets a later one take its place.
        assert_eq!(
            &*prefilter("<div class=flex class=nav id=main id=footer>"),
            "<div id=main>"
        );
    }

    #[test]
    fn formatting_elements_keep_what_they_had() {
        assert_eq!(
            &*prefilter("<font style='font-size:14px' color=red>a</font><B href=x data-y=1>b</B>"),
            "<font style='font-size:14px'>a</font><B href=x>b</B>"
        );
        assert_eq!(
            &*prefilter("<body style='color:red' onload=f()><body style='display:none'>"),
            "<body style='color:red'><body style='display:none'>"
        );
    }

    #[test]
    fn keeps_styles_that_hide() {
        assert_eq!(
            &*prefilter("<p style='color:red'>a</p><p style='display: NONE'>b</p><p style=\"x:&#110;one\">c</p>"),
            "<p>a</p><p style='display:none'>b</p><p style=\"x:&#110;one\">c</p>"
        );
        assert_eq!(
            &*prefilter("<p style='border:none'>a</p><p style=visibility:hidden>b</p>"),
            "<p>a</p><p style=display:none>b</p>"
        );
        // The tokenizer keeps the first style: a later one never replaces it.
        assert_eq!(
            &*prefilter("<p style='color:red' style='display:none'>a</p>"),
            "<p>a</p>"
        );
        assert_eq!(
            &*prefilter("<p style='visibility:hidden' style='color:red'>a</p>"),
            "<p style='display:none'>a</p>"
        );
    }

    #[test]
    fn strips_json_data_but_not_json_ld() {
        let ld = "<script type=\"application/LD+json\">{\"articleBody\": \"x\"}</script>";
        assert_eq!(&*prefilter(ld), ld);
        assert_eq!(
            &*prefilter("<script id=__NEXT_DATA__ type=\"application/json\">{\"props\": 1}</script><p>t</p>"),
            "<script type=\"application/json\"></script><p>t</p>"
        );
    }

    #[test]
    fn white_space_runs_in_text_become_one_space() {
        assert_eq!(
            &*prefilter("<p>\n    a  b\t</p>\r\n<pre>\n x</pre> <p role='nav  menu'\n>\u{a0}\n"),
            "<p> a b </p> <pre> x</pre> <p role='nav  menu'\n>\u{a0} "
        );
        assert_eq!(&*prefilter("a \x0b b"), "a \x0b b");
    }

    #[test]
    fn json_ld_is_passed_on_as_written() {
        let ld = "<script type=application/ld+json>\n{\"articleBody\": \"<p  class=x data-y=1>a</p>\"}</script>";
        assert_eq!(&*prefilter(ld), ld);
        let open = "<script type=application/ld+json>{\"a\":\n <b data-x=1>";
        assert_eq!(&*prefilter(open), open);
    }

    #[test]
    fn quoted_gt_in_start_tag() {
        assert_eq!(
            &*prefilter("<script type=\"a>b\">code</script>"),
            "<script type=\"a>b\"></script>"
        );
    }

    #[test]
    fn unterminated_is_left_alone() {
        assert_eq!(&*prefilter("<script>never closed"), "<script>never closed");
        assert_eq!(&*prefilter("<script"), "<script");
        assert_eq!(&*prefilter("<!-- open"), "<!-- open");
        assert_eq!(&*prefilter("é<style>ü</style>ö"), "é<style></style>ö");
    }
}

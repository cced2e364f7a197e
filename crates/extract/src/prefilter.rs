//! Input pre-filter: drop the bodies of `<script>`, `<style>` and `<svg>`
//! elements, and attributes nobody reads, before tokenizing.
//!
//! None of it ever becomes text, yet on modern pages it is well over half of
//! the bytes, and html5ever tokenizes it character by character and interns
//! every attribute. JSON scripts are kept: JSON-LD is evidence for the
//! scorer. Comments are skipped over so that markup inside them is not
//! mistaken for an element. Tags are scanned the way the HTML tokenizer
//! scans them (quoted values may contain `>`).

use html5ever::tendril::StrTendril;

/// Elements whose content is removed.
const STRIPPED: &[&str] = &["script", "style", "svg"];

/// Position of the next ASCII-case-insensitive `needle` in `hay[from..]`.
/// `needle` must start with an ASCII byte that has no other case (like
/// `<` or `-`), so that the search can use the fast `str::find`.
fn find_ci(hay: &str, from: usize, needle: &[u8]) -> Option<usize> {
    let first = char::from(*needle.first()?);
    let bytes = hay.as_bytes();
    let mut i = from;
    while let Some(rest) = hay.get(i..) {
        let at = i + rest.find(first)?;
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

/// What the prefilter does with one attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    /// Pass it on as written.
    Keep,
    /// Pass on its name only: the extractor asks whether it is there.
    NameOnly,
    /// Remove it with its leading separator.
    Drop,
}

/// Could an inline style hide its element? The extractor looks for
/// `display:none` and `visibility:hidden` only in values holding one of
/// these words (see `analyze::hidden`); a character reference could spell
/// anything, so a value with one is kept too.
fn may_hide(value: &[u8]) -> bool {
    [&b"none"[..], b"hidden", b"NONE", b"HIDDEN", b"&"]
        .iter()
        .any(|w| value.windows(w.len()).any(|x| x == *w))
}

/// Elements, as far as the attributes they keep go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
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
enum Attr {
    /// class, id, role, itemprop: evidence, on every element.
    Evidence,
    Style,
    Href,
    Type,
    /// property, name, content: the title, on meta tags.
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

fn element(tag: &[u8]) -> Element {
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

fn attr(name: &[u8]) -> Attr {
    match lower8(name, &mut [0; 8]) {
        b"class" | b"id" | b"role" | b"itemprop" => Attr::Evidence,
        b"style" => Attr::Style,
        b"href" => Attr::Href,
        b"type" => Attr::Type,
        b"property" | b"name" | b"content" => Attr::MetaField,
        _ => Attr::Other,
    }
}

/// The attributes the extractor reads, and only on the elements it reads
/// them on: class, id, role and itemprop (evidence), `style` when it may
/// hide, `href` of links (its presence), `type` of scripts (JSON-LD) and
/// inputs (the tree builder keeps hidden inputs in tables),
/// `property`/`name`/`content` of meta tags (the title).
fn fate(tag: Element, name: Attr, value: &[u8]) -> Fate {
    let keep_if = |c: bool| if c { Fate::Keep } else { Fate::Drop };
    match (name, tag) {
        (Attr::Other, _) => Fate::Drop,
        (_, Element::Compared) | (Attr::Evidence, _) => Fate::Keep,
        (Attr::Style, _) => keep_if(may_hide(value)),
        (Attr::Href, Element::A) => Fate::NameOnly,
        (Attr::Type, Element::Script | Element::Input) => Fate::Keep,
        (Attr::MetaField, Element::Meta) => Fate::Keep,
        _ => Fate::Drop,
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

/// Scan the start tag at `at` (`<` followed by a letter) the way the HTML
/// tokenizer does. Returns the index just past its `>` and the byte ranges
/// to cut: unneeded attributes (with their leading separators) and the
/// values of attributes passed on by name. `None` when the tag runs to the
/// end of the input.
fn scan_tag(bytes: &[u8], at: usize, drops: &mut Vec<(usize, usize)>) -> Option<usize> {
    drops.clear();
    let len = bytes.len();
    let at_byte = |k: usize| bytes.get(k).copied();
    let mut j = at + 1;
    while at_byte(j).is_some_and(|b| !(is_space(b) || b == b'/' || b == b'>')) {
        j += 1;
    }
    let tag = element(bytes.get(at + 1..j)?);
    let mut seen_style = false;
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
        let mut value = &[][..];
        // What to cut to pass the name alone: the value between its quotes
        // (the closing quote ends the attribute), else `=value`.
        let mut value_cut = (name_end, name_end);
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
                    let rest = bytes.get(k + 1..)?;
                    let n = rest.iter().position(|&b| b == q)?;
                    value = rest.get(..n)?;
                    value_cut = (k + 1, k + 1 + n);
                    j = k + 1 + n + 1;
                }
                b'>' => j = k,
                _ => {
                    let from = k;
                    while at_byte(k).is_some_and(|b| !(is_space(b) || b == b'>')) {
                        k += 1;
                    }
                    value = bytes.get(from..k)?;
                    value_cut = (name_end, k);
                    j = k;
                }
            }
        }
        if j > len {
            return None;
        }
        let kind = attr(name);
        let mut f = fate(tag, kind, value);
        if kind == Attr::Style {
            // The tokenizer keeps the first of repeated attributes: once a
            // style was seen, later ones must not take its place.
            if seen_style {
                f = Fate::Drop;
            }
            seen_style = true;
        }
        match f {
            Fate::Keep => {}
            Fate::NameOnly => drops.push(value_cut),
            // An attribute written right after this one (`a=""b=1`) keeps
            // the separator in front of this one, lest its name run into
            // the tag's name or the previous attribute's.
            Fate::Drop if at_byte(j).is_some_and(|b| is_space(b) || b == b'/' || b == b'>') => {
                drops.push((sep_start, j))
            }
            Fate::Drop => drops.push((name_start, j)),
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
    let mut copied = 0;
    let mut i = 0;
    while let Some(off) = html.get(i..).and_then(|r| r.find('<')) {
        let at = i + off;
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
        let Some(content) = scan_tag(bytes, at, &mut drops) else {
            break;
        };
        // Every cut point sits at an ASCII byte, hence a char boundary.
        for &(from, to) in &drops {
            out.push_slice(html.get(copied..from).unwrap_or_default());
            copied = to;
        }
        i = content;
        let Some(name) = stripped_name(bytes, at) else {
            continue;
        };
        let start_tag = html.get(at..content).unwrap_or_default();
        let self_closed = start_tag.ends_with("/>") && name == "svg";
        // Only JSON-LD is read from scripts (`jsonld.rs`): other JSON data
        // (framework state, often the largest part of a page) goes too.
        let keep = name == "script" && start_tag.to_ascii_lowercase().contains("ld+json");
        if self_closed || keep {
            continue;
        }
        let mut close_pat = Vec::with_capacity(name.len() + 2);
        close_pat.extend_from_slice(b"</");
        close_pat.extend_from_slice(name.as_bytes());
        let Some(close) = find_ci(html, content, &close_pat) else {
            break;
        };
        if close > content {
            out.push_slice(html.get(copied..content).unwrap_or_default());
            copied = close;
        }
        i = close + 2;
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
            &*prefilter("<div data-x=\"1\" class='a b' onclick=go()>t</div><img src=x />"),
            "<div class='a b'>t</div><img />"
        );
        assert_eq!(
            &*prefilter("<a href=/x data-y title=\"a>b\">l</a> 1 < 2 <p id=k\nlang=en>"),
            "<a href>l</a> 1 < 2 <p id=k>"
        );
        assert_eq!(
            &*prefilter("<a href=\"/x\"target=_blank class=k>l</a><a href=/y class=j>"),
            "<a href=\"\" class=k>l</a><a href class=j>"
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
            &*prefilter("<div style=\"\"class=k><p data-x='1'id=a title=t>x"),
            "<div class=k><p id=a>x"
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
    fn keeps_styles_that_may_hide() {
        assert_eq!(
            &*prefilter("<p style='color:red'>a</p><p style='display: NONE'>b</p><p style=\"x:&#110;one\">c</p>"),
            "<p>a</p><p style='display: NONE'>b</p><p style=\"x:&#110;one\">c</p>"
        );
        // The tokenizer keeps the first style: a later one never replaces it.
        assert_eq!(
            &*prefilter("<p style='color:red' style='display:none'>a</p>"),
            "<p>a</p>"
        );
        assert_eq!(
            &*prefilter("<p style='visibility:hidden' style='color:red'>a</p>"),
            "<p style='visibility:hidden'>a</p>"
        );
    }

    #[test]
    fn strips_json_data_but_not_json_ld() {
        let ld = "<script type=\"application/LD+json\">{\"articleBody\": \"x\"}</script>";
        assert_eq!(&*prefilter(ld), ld);
        assert_eq!(
            &*prefilter("<script id=__NEXT_DATA__ type=\"application/json\">{\"props\": 1}</script><p>t</p>"),
            "<script id=__NEXT_DATA__ type=\"application/json\"></script><p>t</p>"
        );
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

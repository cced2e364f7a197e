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

/// Attributes the extractor reads; all others are dropped before parsing.
const KEPT_ATTRS: &[&str] = &[
    "class", "id", "role", "itemprop", "style", "href", "type", "property", "name", "content",
];

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

/// Scan the start tag at `at` (`<` followed by a letter) the way the HTML
/// tokenizer does. Returns the index just past its `>` and the byte ranges of
/// unneeded attributes (with their leading separators), or `None` when the
/// tag runs to the end of the input.
fn scan_tag(bytes: &[u8], at: usize, drops: &mut Vec<(usize, usize)>) -> Option<usize> {
    drops.clear();
    let len = bytes.len();
    let at_byte = |k: usize| bytes.get(k).copied();
    let mut j = at + 1;
    while at_byte(j).is_some_and(|b| !(is_space(b) || b == b'/' || b == b'>')) {
        j += 1;
    }
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
        let name = bytes.get(name_start..j)?;
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
                    j = k + 1 + rest.iter().position(|&b| b == q)? + 1;
                }
                b'>' => j = k,
                _ => {
                    while at_byte(k).is_some_and(|b| !(is_space(b) || b == b'>')) {
                        k += 1;
                    }
                    j = k;
                }
            }
        }
        if j > len {
            return None;
        }
        if !KEPT_ATTRS
            .iter()
            .any(|n| n.as_bytes().eq_ignore_ascii_case(name))
        {
            drops.push((sep_start, j));
        }
    }
}

/// Shrink the input before tokenizing: drop the content of `<script>`
/// (except JSON data), `<style>` and `<svg>` elements and the attributes
/// the extractor never reads. Produces the parser's input buffer.
pub(crate) fn prefilter(html: &str) -> StrTendril {
    let bytes = html.as_bytes();
    let mut out = StrTendril::new();
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
        let keep = name == "script" && start_tag.to_ascii_lowercase().contains("json");
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
            "<a href=/x>l</a> 1 < 2 <p id=k>"
        );
        assert_eq!(&*prefilter("<p title='open>"), "<p title='open>");
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

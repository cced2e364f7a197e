//! Input pre-filter: drop the bodies of `<script>`, `<style>` and `<svg>`
//! elements before tokenizing.
//!
//! Their content never becomes text, yet on modern pages it is about half of
//! the bytes, and html5ever tokenizes it character by character. JSON-LD
//! scripts are kept: they are evidence for the scorer. Comments are skipped
//! over so that markup inside them is not mistaken for an element.

use std::borrow::Cow;

/// Elements whose content is removed.
const STRIPPED: &[&str] = &["script", "style", "svg"];

/// Position of the next ASCII-case-insensitive `needle` in `hay[from..]`.
fn find_ci(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let mut i = from;
    while let Some(rest) = hay.get(i..) {
        let off = rest.iter().position(|&b| b == first)?;
        let at = i + off;
        if hay
            .get(at..at + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
        {
            return Some(at);
        }
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

/// End of the start tag beginning at `at` (index just past `>`), honouring
/// quoted attribute values.
fn tag_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut quote = None;
    for (i, &b) in bytes.get(at..)?.iter().enumerate() {
        match (quote, b) {
            (None, b'"') | (None, b'\'') => quote = Some(b),
            (Some(q), c) if c == q => quote = None,
            (None, b'>') => return Some(at + i + 1),
            _ => {}
        }
    }
    None
}

/// Remove stripped elements' content; borrows when nothing is removed.
pub(crate) fn prefilter(html: &str) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while let Some(off) = bytes.get(i..).and_then(|r| r.iter().position(|&b| b == b'<')) {
        let at = i + off;
        if bytes.get(at..at + 4) == Some(b"<!--") {
            match find_ci(bytes, at + 4, b"-->") {
                Some(e) => {
                    i = e + 3;
                    continue;
                }
                None => break,
            }
        }
        let Some(name) = stripped_name(bytes, at) else {
            i = at + 1;
            continue;
        };
        let Some(content) = tag_end(bytes, at) else {
            break;
        };
        let start_tag = bytes.get(at..content).unwrap_or_default();
        let self_closed = start_tag.ends_with(b"/>") && name == "svg";
        let keep = name == "script" && find_ci(start_tag, 0, b"json").is_some();
        if self_closed || keep {
            i = content;
            continue;
        }
        let mut close_pat = Vec::with_capacity(name.len() + 2);
        close_pat.extend_from_slice(b"</");
        close_pat.extend_from_slice(name.as_bytes());
        let Some(close) = find_ci(bytes, content, &close_pat) else {
            break;
        };
        if close > content {
            // Both cut points are at ASCII bytes, hence char boundaries.
            out.push_str(html.get(copied..content).unwrap_or_default());
            copied = close;
        }
        i = close + 2;
    }
    if copied == 0 {
        return Cow::Borrowed(html);
    }
    out.push_str(html.get(copied..).unwrap_or_default());
    Cow::Owned(out)
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
            got,
            "<p>a</p><SCRIPT type=x></script ><style></STYLE><svg></svg><p>b</p>"
        );
    }

    #[test]
    fn keeps_json_ld_and_comments() {
        let html = "<script type='application/ld+json'>{\"a\":1}</script><!-- <script>x</script> --><p>t</p>";
        assert_eq!(prefilter(html), html);
        assert!(matches!(prefilter("<p>plain</p>"), Cow::Borrowed(_)));
    }

    #[test]
    fn quoted_gt_in_start_tag() {
        assert_eq!(
            prefilter("<script data-x=\"a>b\">code</script>"),
            "<script data-x=\"a>b\"></script>"
        );
    }

    #[test]
    fn unterminated_is_left_alone() {
        assert_eq!(prefilter("<script>never closed"), "<script>never closed");
        assert_eq!(prefilter("<script"), "<script");
        assert_eq!(prefilter("<!-- open"), "<!-- open");
        assert_eq!(prefilter("é<style>ü</style>ö"), "é<style></style>ö");
    }
}

//! A prescan of an HTML document's first bytes for a charset declaration,
//! after the HTML standard's "prescan a byte stream" algorithm: `<meta
//! charset=...>` and `<meta http-equiv="content-type" content="...;
//! charset=...">`, skipping comments, other tags and their attributes.

use encoding_rs::Encoding;

/// How far into the document the prescan looks. The standard says 1024
/// bytes; real pages often put megabytes of scripts first, so a little more.
pub(crate) const PRESCAN_BYTES: usize = 16 * 1024;

/// The encoding declared by a `<meta>` element near the start, if any.
pub(crate) fn meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let b = bytes.get(..PRESCAN_BYTES).unwrap_or(bytes);
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        if b[i..].starts_with(b"<!--") {
            i = find(b, i + 4, b"-->").map_or(b.len(), |e| e + 3);
        } else if starts_with_tag(&b[i..], b"<meta") {
            let (attrs, end) = attributes(b, i + 5);
            if let Some(enc) = charset_from_meta(&attrs) {
                return Some(enc);
            }
            i = end;
        } else if b
            .get(i + 1)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'/')
        {
            let (_, end) = attributes(b, tag_name_end(b, i + 1));
            i = end;
        } else {
            i += 1;
        }
    }
    None
}

fn charset_from_meta(attrs: &[(String, String)]) -> Option<&'static Encoding> {
    let get = |n: &str| attrs.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    if let Some(label) = get("charset") {
        if let Some(e) = Encoding::for_label(label.trim().as_bytes()) {
            return Some(e);
        }
    }
    let equiv = get("http-equiv")?;
    if !equiv.eq_ignore_ascii_case("content-type") {
        return None;
    }
    charset_in_content(get("content")?)
}

/// The standard's "extracting a character encoding from a meta element".
fn charset_in_content(content: &str) -> Option<&'static Encoding> {
    let lower = content.to_ascii_lowercase();
    let at = lower.find("charset")?;
    let rest = lower[at + 7..].trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let value = match rest.chars().next()? {
        q @ ('"' | '\'') => rest[1..].split(q).next()?,
        _ => rest
            .split(|c: char| c == ';' || c.is_ascii_whitespace())
            .next()?,
    };
    Encoding::for_label(value.as_bytes())
}

fn starts_with_tag(b: &[u8], tag: &[u8]) -> bool {
    b.len() > tag.len()
        && b[..tag.len()].eq_ignore_ascii_case(tag)
        && matches!(b[tag.len()], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/')
}

fn tag_name_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && !matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'>') {
        i += 1;
    }
    i
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Parses attributes from `i` up to the closing `>`; returns them (names
/// lower-cased) and the index after the tag.
fn attributes(b: &[u8], mut i: usize) -> (Vec<(String, String)>, usize) {
    let mut out = Vec::new();
    let ws = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/');
    loop {
        while i < b.len() && ws(b[i]) {
            i += 1;
        }
        if i >= b.len() {
            return (out, i);
        }
        if b[i] == b'>' {
            return (out, i + 1);
        }
        let start = i;
        while i < b.len() && !ws(b[i]) && b[i] != b'=' && b[i] != b'>' {
            i += 1;
        }
        let name = String::from_utf8_lossy(&b[start..i]).to_ascii_lowercase();
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
            i += 1;
        }
        let mut value = String::new();
        if i < b.len() && b[i] == b'=' {
            i += 1;
            while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
                i += 1;
            }
            if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                let q = b[i];
                let vstart = i + 1;
                let vend = b[vstart..]
                    .iter()
                    .position(|&c| c == q)
                    .map_or(b.len(), |p| p + vstart);
                value = String::from_utf8_lossy(&b[vstart..vend]).into_owned();
                i = (vend + 1).min(b.len());
            } else {
                let vstart = i;
                while i < b.len() && !matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'>')
                {
                    i += 1;
                }
                value = String::from_utf8_lossy(&b[vstart..i]).into_owned();
            }
        }
        if !name.is_empty() && !out.iter().any(|(n, _)| *n == name) {
            out.push((name, value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(html: &str) -> Option<&'static str> {
        meta_charset(html.as_bytes()).map(|e| e.name())
    }

    #[test]
    fn finds_declarations() {
        let cases = [
            ("<meta charset=utf-8>", Some("UTF-8")),
            ("<META CHARSET='GB2312'>", Some("GBK")),
            (
                "<meta http-equiv=Content-Type content='text/html; charset=big5'>",
                Some("Big5"),
            ),
            (
                "<meta content=\"text/html;charset=Shift_JIS\" http-equiv=\"content-type\">",
                Some("Shift_JIS"),
            ),
            ("<meta name=x content='charset=gbk'>", None),
            (
                "<!-- <meta charset=gbk> --><meta charset=euc-kr>",
                Some("EUC-KR"),
            ),
            (
                "<div title='<meta charset=gbk>'><meta charset=koi8-r>",
                Some("KOI8-R"),
            ),
            ("<metadata charset=gbk>", None),
            ("<meta charset=bogus>", None),
            ("<meta charset=\"windows-1251", Some("windows-1251")),
            ("", None),
            ("<", None),
        ];
        for (html, want) in cases {
            assert_eq!(name(html), want, "{html}");
        }
    }

    #[test]
    fn stops_after_prescan_window() {
        let html = format!("{}<meta charset=gbk>", " ".repeat(PRESCAN_BYTES));
        assert_eq!(name(&html), None);
    }
}

//! The extent of an `<svg>` or `<math>` element, read as the tree builder
//! reads foreign content: there `<style>` or `<title>` hold markup, not raw
//! text, `<![CDATA[` opens text, and some tags take the parser back to
//! HTML (`<p>`, `<div>`, `</p>`, an end tag of an element opened outside,
//! any start tag inside `<foreignObject>`, `<desc>`, `<title>` or a MathML
//! text element). The pre-filter leaves out or passes on the element only
//! when none of that happens in it; otherwise it cannot tell where HTML
//! resumes and passes the rest of the page on as written.

use crate::markup::{bogus_end, comment_end, name_end, tag_close};

/// Start tags that end foreign content (the tree builder's list; `font`
/// does with some attributes only, here always).
const BREAKOUT: &[&[u8]] = &[
    b"b",
    b"big",
    b"blockquote",
    b"body",
    b"br",
    b"center",
    b"code",
    b"dd",
    b"div",
    b"dl",
    b"dt",
    b"em",
    b"embed",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"head",
    b"hr",
    b"i",
    b"img",
    b"li",
    b"listing",
    b"menu",
    b"meta",
    b"nobr",
    b"ol",
    b"p",
    b"pre",
    b"ruby",
    b"s",
    b"small",
    b"span",
    b"strong",
    b"strike",
    b"sub",
    b"sup",
    b"table",
    b"tt",
    b"u",
    b"ul",
    b"var",
    b"font",
];

/// Elements in whose content start tags are HTML (integration points).
const INTEGRATION: &[&[u8]] = &[
    b"foreignobject",
    b"desc",
    b"title",
    b"mi",
    b"mo",
    b"mn",
    b"ms",
    b"mtext",
    b"annotation-xml",
];

fn listed(list: &[&[u8]], name: &[u8]) -> bool {
    list.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// The `<` of the end tag that closes the foreign element `root` whose
/// content starts at `from`, when all of that content stays foreign
/// content (see the module documentation). `None` otherwise, or when the
/// input ends first.
pub(crate) fn foreign_end(bytes: &[u8], from: usize, root: &[u8]) -> Option<usize> {
    let mut open: Vec<&[u8]> = vec![root];
    let mut i = from;
    loop {
        let p = i + memchr::memchr(b'<', bytes.get(i..)?)?;
        let next = bytes.get(p + 1).copied();
        if bytes.get(p..p + 4) == Some(b"<!--") {
            i = comment_end(bytes, p)?;
        } else if bytes.get(p..p + 9) == Some(b"<![CDATA[") {
            i = p + 9 + memchr::memmem::find(bytes.get(p + 9..)?, b"]]>")? + 3;
        } else if matches!(next, Some(b'!' | b'?')) {
            i = bogus_end(bytes, p)?;
        } else if next == Some(b'/') {
            match bytes.get(p + 2).copied()? {
                b'>' => i = p + 3,
                c if c.is_ascii_alphabetic() => {
                    let e = name_end(bytes, p + 2);
                    let name = bytes.get(p + 2..e)?;
                    if name.eq_ignore_ascii_case(b"p") || name.eq_ignore_ascii_case(b"br") {
                        return None;
                    }
                    let k = open.iter().rposition(|n| n.eq_ignore_ascii_case(name))?;
                    if k == 0 {
                        return Some(p);
                    }
                    open.truncate(k);
                    i = tag_close(bytes, e)?.0;
                }
                _ => i = bogus_end(bytes, p)?,
            }
        } else if next.is_some_and(|c| c.is_ascii_alphabetic()) {
            if open.last().is_some_and(|n| listed(INTEGRATION, n)) {
                return None;
            }
            let e = name_end(bytes, p + 1);
            let name = bytes.get(p + 1..e)?;
            if listed(BREAKOUT, name) {
                return None;
            }
            let (past, self_closing) = tag_close(bytes, e)?;
            if !self_closing {
                open.push(name);
            }
            i = past;
        } else {
            i = p + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(html: &str) -> Option<usize> {
        let from = html.find('>').map_or(0, |g| g + 1);
        foreign_end(html.as_bytes(), from, b"svg")
    }

    #[test]
    fn nested_and_self_closing_elements() {
        let html = "<svg><g><path d='a>b'/><svg></svg><rect></rect></g></svg>after";
        assert_eq!(end(html), html.find("</svg>after"));
        // The end tag of an inner element does not end the outer one.
        let nested = "<svg><svg>x</svg>y</SVG>";
        assert_eq!(end(nested), Some(nested.len() - 6));
    }

    #[test]
    fn style_and_cdata_hold_no_raw_text() {
        let html = "<svg><style>a{}</style><text><![CDATA[</svg>]]></text></svg>";
        assert_eq!(end(html), Some(html.len() - 6));
        let comment = "<svg><!-- </svg> --></svg>";
        assert_eq!(end(comment), Some(comment.len() - 6));
    }

    #[test]
    fn breaking_out_is_not_followed() {
        assert_eq!(end("<svg><p>text</p></svg>"), None);
        assert_eq!(end("<svg><g></p></g></svg>"), None);
        assert_eq!(end("<svg><font color=red>x</font></svg>"), None);
        // `</div>` closes an element opened outside: HTML again.
        assert_eq!(end("<svg><g></div>text</svg>"), None);
        // Start tags in integration points are HTML.
        assert_eq!(
            end("<svg><foreignObject><b>x</b></foreignObject></svg>"),
            None
        );
        assert_eq!(end("<svg><title><a>x</a></title></svg>"), None);
        // Their text is not.
        let titled = "<svg><title>Icon</title><path/></svg>";
        assert_eq!(end(titled), Some(titled.len() - 6));
        assert_eq!(end("<svg><g>never closed"), None);
    }
}

//! HTML helpers: escaping, the page skeleton with its inline style, links.

use std::fmt::Write as _;

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A link to a document's original URL: only `http:`/`https:` URLs become
/// links (never `javascript:` or the like); others are shown as text.
pub fn url_link(url: Option<&str>) -> String {
    match url {
        Some(u) if u.starts_with("http://") || u.starts_with("https://") => format!(
            "<a class=\"orig\" rel=\"noreferrer noopener\" href=\"{0}\">{0}</a>",
            escape(u)
        ),
        Some(u) => format!("<span class=\"orig\">{}</span>", escape(u)),
        None => String::new(),
    }
}

/// The style of every page. Tables of class `list` (the dedup report's
/// group list and refused pairs, every table of the spans report) are as
/// wide as the page with a fixed layout: the columns of a `c-*` class have
/// set widths (`c-n` a row number, `c-size` a count or length, `c-sim` a
/// ratio, `c-rule` a short name), the others (ids, URLs, passages) share the
/// rest, and long text breaks only where it must.
const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:90em;padding:0 1em;color:#222}
table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}
table.list{width:100%;table-layout:fixed}.list td,.list th{overflow-wrap:anywhere}
.list .c-n{width:4em}.list .c-size{width:8em}.list .c-sim{width:6em}.list .c-rule{width:8em}
@media (max-width:48em){.list{font-size:.85em}.list td,.list th{padding:.25em .35em}.list .c-n{width:2.5em}.list .c-size{width:7em}.list .c-rule{width:6em}}
.num{text-align:right}.note{color:#555;font-style:italic}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em;margin-bottom:2em}
@media (max-width:48em){.pair{grid-template-columns:1fr}}
h1,h2,h3{overflow-wrap:anywhere}
.text{white-space:pre-wrap;overflow-wrap:anywhere;border:1px solid #ccc;padding:.6em;max-height:40em;overflow:auto;font-size:.9em}
mark{background:#fde68a}.only{background:#fecaca;text-decoration:underline dotted}
.explain{background:#f4f4f5;padding:.6em;white-space:pre-wrap;font-size:.85em}
.orig{overflow-wrap:anywhere;font-size:.85em}";

/// A complete page around `body`.
pub fn page(title: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <title>{}</title>\n<style>\n{STYLE}\n</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n",
        escape(title)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"y\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;y&quot;"
        );
    }

    #[test]
    fn only_web_urls_become_links() {
        assert!(url_link(Some("https://a.example/?q=\"x\""))
            .contains("href=\"https://a.example/?q=&quot;x&quot;\""));
        assert!(!url_link(Some("javascript:alert(1)")).contains("href"));
        assert_eq!(url_link(None), "");
    }
}

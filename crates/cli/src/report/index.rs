//! `index.html`: the summary, the group size histogram (inline SVG), the
//! first page of the groups, largest first, with a filter box over all of
//! them ([`super::list`]), and the refused pairs.

use std::fmt::Write as _;

use super::html::{escape, page, url_link};
use super::list::{page_count, section, ListPage};
use super::Summary;

/// The histogram of group sizes as an inline SVG bar chart (log scale of
/// counts, one bar per size).
fn histogram(h: &std::collections::BTreeMap<u64, u64>) -> String {
    if h.is_empty() {
        return String::new();
    }
    let (bar, gap, height) = (28.0, 6.0, 120.0);
    let max = h.values().copied().max().unwrap_or(1).max(1) as f64;
    let width = h.len() as f64 * (bar + gap) + gap;
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"{width}\" height=\"{}\" \
         aria-label=\"groups by size\"><title>groups by size (log scale)</title>",
        height + 40.0
    );
    for (i, (size, count)) in h.iter().enumerate() {
        let x = gap + i as f64 * (bar + gap);
        let hgt = (height * (1.0 + *count as f64).ln() / (1.0 + max).ln()).max(1.0);
        let y = 15.0 + height - hgt;
        let _ = write!(
            out,
            "<rect x=\"{x}\" y=\"{y:.1}\" width=\"{bar}\" height=\"{hgt:.1}\" fill=\"#60a5fa\">\
             <title>{count} groups of {size}</title></rect>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">{count}</text>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\">{size}</text>",
            x + bar / 2.0,
            y - 3.0,
            x + bar / 2.0,
            height + 30.0
        );
    }
    out.push_str("</svg>");
    out
}

/// Renders the index page.
pub fn render(s: &Summary) -> String {
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>neardup report</h1>\n<table>\n\
         <tr><th>documents</th><td class=\"num\">{}</td></tr>\n\
         <tr><th>groups of near-duplicates (2 or more documents)</th><td class=\"num\">{}</td></tr>\n\
         <tr><th>duplicates (documents not kept)</th><td class=\"num\">{}</td></tr>\n\
         <tr><th>errors</th><td class=\"num\">{}</td></tr>\n\
         <tr><th>empty (no text)</th><td class=\"num\">{}</td></tr>\n\
         <tr><th>pairs refused by a corpus rule</th><td class=\"num\">{}</td></tr>\n\
         </table>\n<p>Method: {}</p>\n",
        s.documents,
        s.groups,
        s.duplicates,
        s.errors,
        s.empty,
        s.refusals.len() + s.refusals_hidden,
        escape(&s.method)
    );
    for n in &s.notes {
        let _ = writeln!(b, "<p class=\"note\">{}</p>", escape(n));
    }
    let _ = write!(
        b,
        "<h2>Group sizes</h2>\n<p>Number of groups by number of documents \
         (single documents included).</p>\n{}\n",
        histogram(&s.histogram)
    );
    b.push_str("<h2>Groups, largest first</h2>\n");
    let first = ListPage {
        number: 1,
        pages: page_count(s.rows.len(), s.page_size),
        size: s.page_size,
    };
    let shown = &s.rows[..s.rows.len().min(s.page_size.max(1))];
    b.push_str(&section(&first, shown, s.rows.len(), s.paged));
    b.push_str("\n<h2>Pairs refused by a corpus rule</h2>\n");
    if s.refusals.is_empty() {
        b.push_str("<p>None.</p>\n");
    } else {
        b.push_str(
            "<p>Verification accepted these pairs (their shingles are similar enough) \
             but a rule over the whole corpus refused them.</p>\n<table id=\"refused\" class=\"list\">\
             <colgroup><col><col><col class=\"c-sim\"><col class=\"c-rule\"><col></colgroup>\
             <thead><tr><th>page</th><th>other page</th><th>Jaccard</th><th>rule</th><th>why</th></tr>\
             </thead><tbody>\n",
        );
        for r in &s.refusals {
            let doc = |(id, url): &(String, Option<String>), page: Option<usize>| {
                let group = page
                    .map(|n| format!(" (<a href=\"groups/{n}.html\">group {n}</a>)"))
                    .unwrap_or_default();
                format!("{}{group}<br>{}", escape(id), url_link(url.as_deref()))
            };
            let _ = writeln!(
                b,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{:.4}</td><td>{}</td><td>{}</td></tr>",
                doc(&r.a, r.pages.0),
                doc(&r.b, r.pages.1),
                r.similarity,
                escape(&r.rule),
                escape(&r.why)
            );
        }
        b.push_str("</tbody></table>\n");
        if s.refusals_hidden > 0 {
            let _ = writeln!(
                b,
                "<p class=\"note\">{} more refused pairs are not listed.</p>",
                s.refusals_hidden
            );
        }
    }
    page("neardup report", &b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{GroupRow, RefusedPair};

    #[test]
    fn rows_and_refusals_are_escaped_and_caps_noted() {
        let s = Summary {
            documents: 3,
            groups: 1,
            rows: vec![GroupRow {
                id: "<i>a</i>".into(),
                url: Some("https://a.example/<x>".into()),
                size: 2,
                page: Some(1),
            }],
            page_size: 1000,
            paged: 1,
            refusals: vec![RefusedPair {
                a: ("<b>p</b>".into(), None),
                b: ("q".into(), Some("javascript:alert(1)".into())),
                similarity: 0.61,
                rule: "composite".into(),
                why: "glued <together>".into(),
                pages: (Some(1), None),
            }],
            histogram: [(1, 1), (2, 1)].into_iter().collect(),
            ..Summary::default()
        };
        let html = render(&s);
        assert!(
            html.contains("<a href=\"groups/1.html\">&lt;i&gt;a&lt;/i&gt;</a>"),
            "{html}"
        );
        assert!(
            html.contains("href=\"https://a.example/&lt;x&gt;\""),
            "{html}"
        );
        assert!(html.contains("&lt;b&gt;p&lt;/b&gt; (<a href=\"groups/1.html\">group 1</a>)"));
        assert!(html.contains("&lt;b&gt;p&lt;/b&gt;") && html.contains("glued &lt;together&gt;"));
        assert!(!html.contains("href=\"javascript"), "{html}");
        assert!(
            html.contains("<td class=\"num\">0.6100</td><td>composite</td>"),
            "{html}"
        );
        assert!(html.contains("<svg") && html.contains("1 groups of 2"));
    }
}

//! `groups/N.html`: a group's kept document and each duplicate side by
//! side, with what they share marked, and the engine's explanation.

use std::fmt::Write as _;

use super::highlight;
use super::html::{escape, page, url_link};
use super::{Doc, Group};

/// Shingle length of the marks (the engine's default `k`).
pub const MARK_K: usize = 3;

fn header(label: &str, d: &Doc) -> String {
    format!(
        "<h3>{label}: {}</h3>\n<p>{}<br>{}</p>\n",
        escape(&d.id),
        escape(&d.title),
        url_link(d.url.as_deref())
    )
}

/// Renders the page of group `g`, one of `pages`.
pub fn render(g: &Group, pages: usize) -> String {
    let mut b = String::new();
    let _ = write!(
        b,
        "<p><a href=\"../index.html\">index</a>{}{}</p>\n\
         <h1>Group {}: {} documents</h1>\n\
         <p>Kept: {} {}</p>\n\
         <p><mark>marked</mark>: words of {MARK_K}-word passages both pages have; \
         <span class=\"only\">underlined</span>: words only this page has.</p>\n",
        if g.number > 1 {
            format!(" · <a href=\"{}.html\">previous</a>", g.number - 1)
        } else {
            String::new()
        },
        if g.number < pages {
            format!(" · <a href=\"{}.html\">next</a>", g.number + 1)
        } else {
            String::new()
        },
        g.number,
        g.duplicates.len() + g.hidden + 1,
        escape(&g.kept.id),
        url_link(g.kept.url.as_deref()),
    );
    for (i, d) in g.duplicates.iter().enumerate() {
        let (left, right) = highlight::pair(&g.kept.text, &d.doc.text, MARK_K);
        let _ = write!(
            b,
            "<h2 id=\"d{}\">Duplicate {}: {}</h2>\n\
             <p>Similarity {}: {}</p>\n<div class=\"explain\">A is the kept page, B the duplicate.\n{}</div>\n\
             <div class=\"pair\"><div>{}<div class=\"text\">{left}</div></div>\
             <div>{}<div class=\"text\">{right}</div></div></div>\n",
            i + 1,
            i + 1,
            escape(&d.doc.id),
            d.similarity.map_or("?".to_string(), |s| format!("{s:.4}")),
            escape(&d.verdict),
            escape(&d.explanation.join("\n")),
            header("kept", &g.kept),
            header("duplicate", &d.doc),
        );
    }
    if g.hidden > 0 {
        let _ = writeln!(
            b,
            "<p class=\"note\">{} more duplicates are not shown.</p>",
            g.hidden
        );
    }
    page(&format!("neardup group {}", g.number), &b)
}

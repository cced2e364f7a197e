//! Title extraction: `og:title`, `<h1>` and `<title>` with the site name
//! trimmed.

use html5ever::local_name;

use crate::analyze::Analysis;
use crate::dom::{Dom, NodeData, NodeId};

/// Separators sites put between a headline and their own name.
const SEPARATORS: &[&str] = &[
    " | ", " - ", " – ", " — ", " :: ", " · ", " » ", "_", "｜", " / ",
];

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text content of a subtree (visible text only), whitespace collapsed.
fn text_of(dom: &Dom, a: &Analysis, id: NodeId, all: bool) -> String {
    let mut s = String::new();
    for n in dom.preorder(id) {
        if let Some(NodeData::Text(t)) = dom.get(n).map(|x| &x.data) {
            if all || !a.invisible.get(n).copied().unwrap_or(true) {
                s.push_str(t);
                s.push(' ');
            }
        }
    }
    collapse(&s)
}

fn meta_content(dom: &Dom, a: &Analysis, key: &str) -> Option<String> {
    a.order.iter().find_map(|&id| {
        if dom.local_name(id)? != &local_name!("meta") {
            return None;
        }
        let prop = dom
            .attr(id, &local_name!("property"))
            .or_else(|| dom.attr(id, &local_name!("name")))?;
        if !prop.trim().eq_ignore_ascii_case(key) {
            return None;
        }
        let c = collapse(dom.attr(id, &local_name!("content"))?);
        (!c.is_empty()).then_some(c)
    })
}

/// Strip a trailing (or leading) site name from a `<title>`: keep the
/// longest separator-delimited segment.
pub(crate) fn trim_site_name(title: &str) -> String {
    for sep in SEPARATORS {
        if title.contains(sep) {
            let best = title
                .split(sep)
                .map(str::trim)
                .max_by_key(|p| p.chars().count())
                .unwrap_or(title);
            if best.chars().count() >= 6 {
                return best.to_string();
            }
        }
    }
    title.trim().to_string()
}

/// Best title of the page.
pub(crate) fn title(dom: &Dom, a: &Analysis) -> String {
    let h1 = a
        .order
        .iter()
        .find(|&&id| {
            dom.local_name(id) == Some(&local_name!("h1"))
                && !a.invisible.get(id).copied().unwrap_or(true)
        })
        .map(|&id| text_of(dom, a, id, false))
        .filter(|t| !t.is_empty());
    let doc_title = a
        .order
        .iter()
        .find(|&&id| dom.local_name(id) == Some(&local_name!("title")) && dom.is_html(id))
        .map(|&id| text_of(dom, a, id, true))
        .filter(|t| !t.is_empty());
    if let Some(og) = meta_content(dom, a, "og:title") {
        return trim_site_name(&og);
    }
    match (h1, doc_title) {
        (Some(h), Some(t)) if t.contains(h.as_str()) => h,
        (_, Some(t)) => trim_site_name(&t),
        (Some(h), None) => h,
        (None, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze;
    use crate::parse::parse;

    fn t(html: &str) -> String {
        let dom = parse(html, 512);
        let a = analyze(&dom);
        title(&dom, &a)
    }

    #[test]
    fn prefers_og_title() {
        assert_eq!(
            t("<meta property='og:title' content='Big News | Site'><title>x</title>"),
            "Big News"
        );
    }

    #[test]
    fn h1_inside_title() {
        assert_eq!(
            t("<title>Rain falls today - Daily Paper</title><h1>Rain falls today</h1>"),
            "Rain falls today"
        );
    }

    #[test]
    fn title_suffix_trimmed() {
        assert_eq!(
            t("<title>A long headline here | Example</title>"),
            "A long headline here"
        );
        assert_eq!(t("<title>中国经济新闻_新浪网</title>"), "中国经济新闻");
        assert_eq!(t("<p>no title</p>"), "");
        assert_eq!(t("<svg><title>Icon</title></svg><p>x</p>"), "");
    }
}

//! Page-type evidence from structure: does the page say it is an article
//! (a dated story), a product, or neither (a service or landing page, a
//! documentation page)?
//!
//! What a page is changes what its head means: an article's headline is
//! its title and the short lines above its first paragraph are notes
//! (bylines, dates); the heading of a product or of a page that is not an
//! article says what the page holds, and the short lines under it (a
//! price, a tagline) are part of it.

use html5ever::local_name;

use crate::analyze::Analysis;
use crate::dom::{Dom, NodeId, NONE};
use crate::jsonld::type_in;
use crate::segment::Block;

/// JSON-LD types of dated stories (`Article` and its kinds, postings).
fn article_type(t: &str) -> bool {
    t.ends_with("Article") || t.ends_with("Posting") || t == "Report"
}

/// JSON-LD types of pages that are not stories: a site's own pages, its
/// offers, its lists.
const PAGE_TYPES: &[&str] = &[
    "WebPage",
    "CollectionPage",
    "ItemList",
    "SearchResultsPage",
    "FAQPage",
    "AboutPage",
    "ContactPage",
    "Service",
    "Organization",
    "Corporation",
    "LocalBusiness",
    "Store",
    "Offer",
    "AggregateOffer",
    "ProductGroup",
    "SoftwareApplication",
];

/// `og:type` values of pages that are not stories.
const PAGE_OG_TYPES: &[&str] = &["website", "product", "product.group", "business.business"];

/// Does the page declare itself a site's page rather than a story: an
/// `og:type` of `website` or `product`, or a JSON-LD web page, list,
/// organisation, service or offer?
pub(crate) fn declares_page(dom: &Dom, a: &Analysis, ld: &[&str]) -> bool {
    if ld.iter().any(|t| type_in(t, |n| PAGE_TYPES.contains(&n))) {
        return true;
    }
    // `og:type` is a property of the document's head.
    a.order
        .iter()
        .take_while(|&&id| dom.local_name(id) != Some(&local_name!("body")))
        .any(|&id| {
            dom.local_name(id) == Some(&local_name!("meta"))
                && meta_key(dom, id).eq_ignore_ascii_case("og:type")
                && PAGE_OG_TYPES.iter().any(|t| {
                    dom.attr(id, &local_name!("content"))
                        .is_some_and(|c| c.trim().eq_ignore_ascii_case(t))
                })
        })
}

/// The `property` (else `name`) of a meta tag.
fn meta_key(dom: &Dom, id: NodeId) -> &str {
    dom.attr(id, &local_name!("property"))
        .or_else(|| dom.attr(id, &local_name!("name")))
        .unwrap_or("")
        .trim()
}

/// Does the page show evidence of being a dated story: a `<time>`
/// element, an `og:type` of `article`, a publication time in its meta
/// tags or microdata, or a JSON-LD article (`ld` are the texts of its
/// JSON-LD scripts)?
pub(crate) fn is_article(dom: &Dom, a: &Analysis, ld: &[&str]) -> bool {
    if ld.iter().any(|t| type_in(t, article_type)) {
        return true;
    }
    a.order.iter().any(|&id| {
        let dated = dom
            .attr(id, &local_name!("itemprop"))
            .is_some_and(|v| v.split_ascii_whitespace().any(|w| w == "datePublished"));
        dated
            || match dom.local_name(id) {
                Some(&local_name!("time")) => true,
                Some(&local_name!("meta")) => meta_says_article(dom, id),
                _ => false,
            }
    })
}

/// `<meta property="og:type" content="article">` or a publication time.
fn meta_says_article(dom: &Dom, id: NodeId) -> bool {
    let key = meta_key(dom, id);
    let content = dom.attr(id, &local_name!("content")).unwrap_or("").trim();
    (key.eq_ignore_ascii_case("og:type")
        && content
            .get(..7)
            .is_some_and(|c| c.eq_ignore_ascii_case("article")))
        || key.eq_ignore_ascii_case("article:published_time")
}

/// Blocks around the main heading looked at for a dateline: this many
/// before it...
const DATELINE_BEFORE: usize = 2;
/// ... and after it...
const DATELINE_AFTER: usize = 4;
/// ... of at most this many tokens.
const DATELINE_MAX_TOKENS: u32 = 40;

const MONTHS: &[&str] = &[
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Is `year` (all digits) a plausible publication year?
fn year(word: &str) -> bool {
    word.len() == 4 && (word.starts_with("19") || word.starts_with("20"))
}

/// Does the text hold a calendar date: `2025-12-17`, `2005年3月11日`,
/// `17/12/2025`, or a month name with a year (`Dec 17, 2025`)?
pub(crate) fn has_date(text: &str) -> bool {
    // Numeric dates: runs of digits split by one separator each.
    let runs: Vec<&str> = text
        .split(|c: char| !c.is_ascii_digit() && !matches!(c, '-' | '/' | '.' | '年' | '月'))
        .filter(|r| !r.is_empty())
        .collect();
    for r in &runs {
        let parts: Vec<&str> = r.split(['-', '/', '.', '年', '月']).collect();
        if parts.len() >= 3 && parts.iter().take(3).all(|p| !p.is_empty()) {
            let (a, b, c) = (parts[0], parts[1], parts[2]);
            let short = |p: &str| p.len() <= 2;
            if (year(a) && short(b) && short(c)) || (short(a) && short(b) && year(c)) {
                return true;
            }
        }
    }
    let mut month = false;
    let mut has_year = false;
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        let lower = w.to_ascii_lowercase();
        month |= MONTHS.contains(&lower.as_str());
        has_year |= w.bytes().all(|b| b.is_ascii_digit()) && year(w);
    }
    month && has_year
}

/// The page's main heading: its first visible `<h1>` with text.
pub(crate) fn main_heading(dom: &Dom, a: &Analysis) -> Option<NodeId> {
    a.order.iter().copied().find(|&id| {
        dom.local_name(id) == Some(&local_name!("h1"))
            && !a.invisible.get(id).copied().unwrap_or(true)
            && a.tokens.get(id).copied().unwrap_or(0) > 0
    })
}

/// Is there a dateline by the main heading `h1` (a short block with a
/// date among the few blocks around it): the page is a dated story.
pub(crate) fn dateline(a: &Analysis, blocks: &[Block], h1: NodeId) -> bool {
    let Some(at) = blocks.iter().position(|b| a.contains(h1, b.owner)) else {
        return false;
    };
    let from = at.saturating_sub(DATELINE_BEFORE);
    blocks
        .get(from..(at + 1 + DATELINE_AFTER).min(blocks.len()))
        .unwrap_or(&[])
        .iter()
        .any(|b| b.tokens <= DATELINE_MAX_TOKENS && !a.contains(h1, b.owner) && has_date(&b.text))
}

/// The element that holds both `container` and the main heading `h1`
/// when the heading is outside the container, unless that is the whole
/// page (`<body>`, `<html>`).
pub(crate) fn with_heading(
    dom: &Dom,
    a: &Analysis,
    container: NodeId,
    h1: NodeId,
) -> Option<NodeId> {
    if a.contains(container, h1) {
        return None;
    }
    let mut up = container;
    while up != NONE && !a.contains(up, h1) {
        up = dom.get(up).map_or(NONE, |n| n.parent);
    }
    match dom.local_name(up) {
        Some(&local_name!("body") | &local_name!("html")) | None => None,
        Some(_) => Some(up),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze;
    use crate::jsonld::ld_texts;
    use crate::parse::parse;

    fn kinds(html: &str) -> (bool, bool) {
        let dom = parse(html, 512);
        let a = analyze(&dom);
        let ld = ld_texts(&dom, &a);
        (declares_page(&dom, &a, &ld), is_article(&dom, &a, &ld))
    }

    #[test]
    fn pages_and_stories_say_what_they_are() {
        let og = |t: &str| format!("<head><meta property='og:type' content='{t}'></head><p>x</p>");
        assert_eq!(kinds(&og("website")), (true, false));
        assert_eq!(kinds(&og("product")), (true, false));
        assert_eq!(kinds(&og("article")), (false, true));
        let ld = |t: &str| {
            format!("<script type='application/ld+json'>{{\"@type\": [\"{t}\"]}}</script><p>x</p>")
        };
        assert_eq!(kinds(&ld("CollectionPage")), (true, false));
        assert_eq!(kinds(&ld("NewsArticle")), (false, true));
        assert_eq!(kinds(&ld("BlogPosting")), (false, true));
        assert_eq!(kinds(&ld("Person")), (false, false));
        assert_eq!(kinds("<p>Posted <time>May 2</time></p>"), (false, true));
        assert_eq!(
            kinds("<span itemprop=datePublished>2024</span>"),
            (false, true)
        );
        assert_eq!(
            kinds("<meta property='article:published_time' content='2024-05-02'>"),
            (false, true)
        );
        assert_eq!(kinds("<p>Nothing declared.</p>"), (false, false));
    }

    #[test]
    fn dates_are_recognised() {
        for t in [
            "2005-04-25 08:24:06 来源: 日报",
            "2005年3月11日12:12 来源",
            "Posted 17/12/2025 by staff",
            "By Logan Jones | Dec 17, 2025",
            "Updated 3 March 2024",
        ] {
            assert!(has_date(t), "{t}");
        }
        for t in [
            "Free delivery and free returns",
            "Call 555-1234 today",
            "12 Inch, 4.7 out of 5 stars",
            "Open March to May",
            "Version 2.10.3",
        ] {
            assert!(!has_date(t), "{t}");
        }
    }
}

//! Class, id and role evidence: does an element look like main content or
//! like page furniture (navigation, comments, sharing, ads...)?

/// Substrings of a class/id that signal boilerplate.
const NEGATIVE_SUBSTR: &[&str] = &[
    "sidebar",
    "footer",
    "breadcrumb",
    "newsletter",
    "cookie",
    "related",
    "sharing",
    "social",
    "navbar",
    "navigation",
    "menu",
    "popup",
    "modal",
    "advert",
    "sponsor",
    "promo",
    "subscribe",
    "signup",
    "masthead",
    "pagination",
    "pager",
    "toolbar",
    "recommend",
    "trending",
    "outbrain",
    "taboola",
    "disqus",
    "consent",
    "gdpr",
    "skip-link",
    "skiplink",
    "sr-only",
    "visually-hidden",
    "screen-reader",
    "dropdown",
    "comment",
    "share",
    "more-stories",
    "read-more",
    "readmore",
    "login",
    "copyright",
    "author-bio",
    "author-details",
    "authorbio",
    "about-author",
    "about-the-author",
];

/// Whole class/id words that signal boilerplate.
const NEGATIVE_WORD: &[&str] = &[
    "nav",
    "ad",
    "ads",
    "adv",
    "aside",
    "foot",
    "header",
    "tags",
    "tag",
    "meta",
    "rss",
    "search",
    "hidden",
    "hide",
    "print",
    "banner",
    "byline",
    "author",
    "date",
    "toc",
    "crumbs",
    "topbar",
    "top-bar",
    "site-header",
    "dateline",
    "caption",
    "credit",
    "credits",
    "bio",
    "teaser",
    "teasers",
    "excerpt",
];

/// Substrings of a class/id that signal main content.
const POSITIVE_SUBSTR: &[&str] = &[
    "article",
    "content",
    "entry",
    "post",
    "main",
    "story",
    "body",
    "text",
    "blog",
    "prose",
    "markdown",
    "rich-text",
    "richtext",
    "detail",
];

/// Verdict on one element's attributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Evidence {
    /// Looks like boilerplate.
    pub(crate) negative: bool,
    /// Looks like a main-content container.
    pub(crate) positive: bool,
}

fn lower_into(buf: &mut String, s: &str) {
    buf.clear();
    buf.extend(s.chars().map(|c| c.to_ascii_lowercase()));
}

/// Judge a `class` or `id` value. `buf` is scratch space.
pub(crate) fn judge(value: &str, buf: &mut String) -> Evidence {
    if value.len() > 512 {
        return Evidence::default();
    }
    lower_into(buf, value);
    let v = buf.as_str();
    let mut ev = Evidence::default();
    let words = || {
        v.split(|c: char| !(c.is_ascii_alphanumeric()))
            .filter(|w| !w.is_empty())
    };
    ev.negative = NEGATIVE_SUBSTR.iter().any(|p| v.contains(p))
        || words().any(|w| NEGATIVE_WORD.contains(&w))
        || v.split_ascii_whitespace()
            .any(|w| NEGATIVE_WORD.contains(&w));
    ev.positive = POSITIVE_SUBSTR.iter().any(|p| v.contains(p));
    ev
}

/// Judge an ARIA role or itemprop value.
pub(crate) fn judge_role(role: &str) -> Evidence {
    let r = role.trim();
    let negative = [
        "navigation",
        "banner",
        "contentinfo",
        "complementary",
        "menu",
        "menubar",
        "search",
        "dialog",
        "alert",
    ]
    .iter()
    .any(|x| r.eq_ignore_ascii_case(x));
    let positive = [
        "main",
        "article",
        "articleBody",
        "text",
        "mainContentOfPage",
        "reviewBody",
    ]
    .iter()
    .any(|x| r.eq_ignore_ascii_case(x));
    Evidence { negative, positive }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(s: &str) -> Evidence {
        judge(s, &mut String::new())
    }

    #[test]
    fn negative_classes() {
        assert!(j("site-footer").negative);
        assert!(j("SideBar widget").negative);
        assert!(j("ad").negative);
        assert!(j("col ad-slot").negative);
        assert!(!j("readable").negative);
        assert!(!j("heading").negative);
        assert!(!j("shadow").negative);
    }

    #[test]
    fn positive_classes() {
        assert!(j("entry-content").positive);
        assert!(j("articleBody").positive);
        assert!(!j("footer").positive);
    }

    #[test]
    fn roles() {
        assert!(judge_role("navigation").negative);
        assert!(judge_role("main").positive);
        assert!(!judge_role("presentation").negative);
    }
}

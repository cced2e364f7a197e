//! Class, id and role evidence: does an element look like main content or
//! like page furniture (navigation, comments, sharing, ads...)?

use std::sync::OnceLock;

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
    "reviews",
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

/// Substrings of a class/id that name furniture even beside a word of
/// content: a forum post's signature (`post-signature`,
/// `postsignature`) is the author's standing footer under each of their
/// posts, not the post.
const FURNITURE_OF_CONTENT: &[&str] = &["signature"];

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
    /// The negative verdict rests on words that say the element is hidden
    /// (`hidden`, `is-hidden`, `panel--hidden`) and on nothing else: they
    /// name a state a script undoes (a collapsed panel opened by its
    /// toggle), not a kind of furniture.
    pub(crate) hiding: bool,
}

impl Evidence {
    /// The verdict on two values together (a class list's words).
    pub(crate) fn join(self, other: Evidence) -> Evidence {
        let furniture = |e: Evidence| e.negative && !e.hiding;
        let negative = self.negative || other.negative;
        Evidence {
            negative,
            positive: self.positive || other.positive,
            hiding: negative && !furniture(self) && !furniture(other),
        }
    }
}

/// A set of substrings searched in one pass over a value: the patterns
/// are grouped by their first byte, and only the positions whose two bytes
/// start some pattern are compared (instead of one substring search per
/// pattern).
struct Patterns {
    by_first: Vec<Vec<&'static [u8]>>,
    /// Bit `256 * a + b` is set when some pattern starts with the bytes
    /// `a b`, or is the single byte `a` (then for every `b`; the byte past
    /// the end of a value counts as 0).
    pairs: Vec<u64>,
}

impl Patterns {
    fn new(patterns: &[&'static str]) -> Patterns {
        let mut by_first = vec![Vec::new(); 256];
        let mut pairs = vec![0u64; 65536 / 64];
        let mut set = |a: u8, b: u8| {
            let bit = usize::from(a) << 8 | usize::from(b);
            pairs[bit / 64] |= 1 << (bit % 64);
        };
        for p in patterns.iter().map(|p| p.as_bytes()) {
            match *p {
                [] => continue,
                [a] => (0..=255).for_each(|b| set(a, b)),
                [a, b, ..] => set(a, b),
            }
            by_first[usize::from(p[0])].push(p);
        }
        Patterns { by_first, pairs }
    }

    fn may_start(&self, a: u8, b: u8) -> bool {
        let bit = usize::from(a) << 8 | usize::from(b);
        self.pairs[bit / 64] & (1 << (bit % 64)) != 0
    }

    /// Whether `v` contains one of the patterns (as `str::contains` does).
    fn found_in(&self, v: impl AsRef<[u8]>) -> bool {
        let b = v.as_ref();
        (0..b.len()).any(|i| {
            self.may_start(b[i], b.get(i + 1).copied().unwrap_or(0))
                && self.by_first[usize::from(b[i])]
                    .iter()
                    .any(|p| b[i..].starts_with(p))
        })
    }
}

/// Is `w` one of [`NEGATIVE_WORD`]?
fn negative_word(w: impl AsRef<[u8]>) -> bool {
    let w = w.as_ref();
    NEGATIVE_WORD
        .iter()
        .any(|n| n.len() == w.len() && n.as_bytes().first() == w.first() && n.as_bytes() == w)
}

/// CSS utility classes that name a word of [`NEGATIVE_WORD`] without
/// hiding anything: `overflow-hidden` clips what overflows a box (utility
/// frameworks put it on page sections, cards and hero banners).
const UTILITY_PREFIXES: &[&[u8]] = &[b"overflow-", b"overflow-x-", b"overflow-y-"];

/// Does a piece of `v` (split at every byte that is not an ASCII letter or
/// digit) name boilerplate? A piece that ends a utility class of
/// [`UTILITY_PREFIXES`] does not, neither does a hiding word of a class
/// that hides on small screens only ([`responsive_hide`]), nor the
/// component type of a generated id ([`generated_id`]). Returns whether
/// some piece names furniture, and whether some piece says hidden
/// ([`HIDING_WORDS`]).
fn negative_piece(v: &[u8]) -> (bool, bool) {
    let mut hiding = false;
    let mut start = 0;
    for w in v.split(|b| !b.is_ascii_alphanumeric()) {
        let at = start;
        let before = &v[..start];
        start += w.len() + 1;
        if !negative_word(w)
            || generated_id(v.get(at + w.len()..).unwrap_or(&[]))
            || UTILITY_PREFIXES.iter().any(|p| utility_end(before, p))
        {
            continue;
        }
        if !HIDING_WORDS.contains(&w) {
            return (true, hiding);
        }
        let class = class_around(v, at);
        if responsive_hide(class) {
            continue;
        }
        // Hidden on some screens or media and shown on the others is
        // a layout's choice, not a state a script undoes.
        if names_media(class) {
            return (true, hiding);
        }
        hiding = true;
    }
    (false, hiding)
}

/// Names of large screens and of print in class names (`hidden-lg`,
/// `hide-on-desktop`, `hidden-print`).
const OTHER_MEDIA: &[&[u8]] = &[
    b"lg",
    b"xl",
    b"xxl",
    b"large",
    b"desktop",
    b"landscape",
    b"print",
];

/// Does the class name a screen size or a medium: a variant (`md:hidden`),
/// a screen's name (`hidden-lg`, `hidden-sm-up`) or width (`hide-900`)?
fn names_media(class: &[u8]) -> bool {
    class.contains(&b':')
        || class.split(|b| !b.is_ascii_alphanumeric()).any(|w| {
            SMALL_SCREENS.contains(&w)
                || OTHER_MEDIA.contains(&w)
                || (!w.is_empty() && w.iter().all(u8::is_ascii_digit))
        })
}

/// Does `rest` (what follows a word) start with `-` and a hash that ends
/// the value's word: a component system's generated id (`teaser-8bd8b65ebf`
/// names the component's type, not furniture)?
fn generated_id(rest: &[u8]) -> bool {
    let Some(after) = rest.strip_prefix(b"-") else {
        return false;
    };
    let hash: &[u8] = after
        .split(|b| !b.is_ascii_alphanumeric())
        .next()
        .unwrap_or(&[]);
    let ends = after
        .get(hash.len())
        .is_none_or(|b| b.is_ascii_whitespace());
    ends && hash.len() >= 8
        && hash.iter().all(|b| b.is_ascii_hexdigit())
        && hash.iter().any(|b| b.is_ascii_digit())
        && hash.iter().any(|b| b.is_ascii_alphabetic())
}

/// The words of [`NEGATIVE_WORD`] that say an element is hidden.
const HIDING_WORDS: &[&[u8]] = &[b"hidden", b"hide"];

/// Names of small screens in responsive class names (`hidden-xs`,
/// `hide-mobile`, `elementor-hidden-tablet`, `hidden-900`): an element
/// hidden there is shown on a desktop screen.
const SMALL_SCREENS: &[&[u8]] = &[
    b"xs",
    b"sm",
    b"md",
    b"small",
    b"medium",
    b"mobile",
    b"tablet",
    b"phone",
    b"portrait",
];

/// Pieces that extend a screen size to every larger one (`hidden-sm-up`).
const AND_UP: &[&[u8]] = &[b"up", b"gte", b"min"];

/// The white-space separated class of `v` around byte `at`.
fn class_around(v: &[u8], at: usize) -> &[u8] {
    let from = v[..at]
        .iter()
        .rposition(u8::is_ascii_whitespace)
        .map_or(0, |i| i + 1);
    let to = v[at..]
        .iter()
        .position(u8::is_ascii_whitespace)
        .map_or(v.len(), |i| at + i);
    &v[from..to]
}

/// Does the class hide its element on small screens only: a screen size
/// among its words (`hidden-xs`, `hide-mobile`, `hidden-900`, not
/// `hidden-sm-up`), or a `max-` variant (`max-md:hidden`)? A responsive
/// layout shows such an element on a desktop screen: that it is hidden on
/// a phone says nothing about whether it is furniture. Mobile-first
/// variants (`md:hidden`) hide on the larger screens and stay evidence.
fn responsive_hide(class: &[u8]) -> bool {
    if let Some(i) = class.iter().position(|&b| b == b':') {
        return class.starts_with(b"max") && !class[..i].contains(&b'[');
    }
    let mut small = false;
    for w in class.split(|b| !b.is_ascii_alphanumeric()) {
        if AND_UP.contains(&w) {
            return false;
        }
        small |= SMALL_SCREENS.contains(&w) || (!w.is_empty() && w.iter().all(u8::is_ascii_digit));
    }
    small
}

/// Does `before` end with the utility prefix `p`, itself at the start of a
/// class (the value's start, white space or a variant's `:`)?
fn utility_end(before: &[u8], p: &[u8]) -> bool {
    before.ends_with(p)
        && before[..before.len() - p.len()]
            .last()
            .is_none_or(|&b| b.is_ascii_whitespace() || b == b':')
}

fn negative_substrings() -> &'static Patterns {
    static SET: OnceLock<Patterns> = OnceLock::new();
    SET.get_or_init(|| Patterns::new(NEGATIVE_SUBSTR))
}

fn positive_substrings() -> &'static Patterns {
    static SET: OnceLock<Patterns> = OnceLock::new();
    SET.get_or_init(|| Patterns::new(POSITIVE_SUBSTR))
}

fn lower_into(buf: &mut String, s: &str) {
    buf.clear();
    buf.push_str(s);
    buf.make_ascii_lowercase();
}

/// Longer class/id values are not judged (no evidence).
pub(crate) const MAX_JUDGED: usize = 512;

/// Judge a `class` or `id` value. `buf` is scratch space.
///
/// No pattern holds ASCII white space, so below [`MAX_JUDGED`] bytes the
/// verdict on a value is that on each of its white-space separated words,
/// joined (`attrs` judges a word once per page).
pub(crate) fn judge(value: &str, buf: &mut String) -> Evidence {
    if value.len() > MAX_JUDGED {
        return Evidence::default();
    }
    lower_into(buf, value);
    // Bytes: every pattern and word is ASCII, and a non-ASCII character
    // splits words as its bytes do. Empty pieces are never a word.
    let v = buf.as_bytes();
    // Values are short: a window scan beats building a searcher per call.
    if FURNITURE_OF_CONTENT
        .iter()
        .any(|p| v.windows(p.len()).any(|w| w == p.as_bytes()))
    {
        return Evidence {
            negative: true,
            ..Evidence::default()
        };
    }
    // A whole class word that names furniture (`top-bar`); `hidden` and
    // `hide` are pieces too.
    let (piece, hiding) = negative_piece(v);
    let furniture = piece
        || negative_substrings().found_in(v)
        || v.split(u8::is_ascii_whitespace)
            .any(|w| negative_word(w) && !HIDING_WORDS.contains(&w));
    Evidence {
        negative: furniture || hiding,
        positive: positive_substrings().found_in(v),
        hiding: hiding && !furniture,
    }
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
    Evidence {
        negative,
        positive,
        ..Evidence::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(s: &str) -> Evidence {
        judge(s, &mut String::new())
    }

    /// `judge` as it reads, on characters and string patterns.
    fn judge_by_chars(value: &str) -> Evidence {
        if value.len() > MAX_JUDGED {
            return Evidence::default();
        }
        let v = value.to_ascii_lowercase();
        if FURNITURE_OF_CONTENT.iter().any(|p| v.contains(p)) {
            return Evidence {
                negative: true,
                ..Evidence::default()
            };
        }
        let word = |w: &str| NEGATIVE_WORD.contains(&w);
        // Each class, each of its `:`-separated parts: a part that opens
        // with a utility prefix says nothing by the piece that follows it.
        let small_only = |class: &str| {
            if let Some(i) = class.find(':') {
                return class.starts_with("max") && !class[..i].contains('[');
            }
            let words: Vec<&str> = class.split(|c: char| !c.is_ascii_alphanumeric()).collect();
            !words.iter().any(|w| ["up", "gte", "min"].contains(w))
                && words.iter().any(|w| {
                    SMALL_SCREENS.contains(&w.as_bytes())
                        || (!w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
                })
        };
        let media = |class: &str| {
            class.contains(':')
                || class.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
                    SMALL_SCREENS.contains(&w.as_bytes())
                        || ["lg", "xl", "xxl", "large", "desktop", "landscape", "print"]
                            .contains(&w)
                        || (!w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
                })
        };
        // The words of a part that name furniture, or say hidden.
        let part_words = |part: &str, class: &str, hiding: bool| {
            let prefix = ["overflow-x-", "overflow-y-", "overflow-"]
                .iter()
                .find(|p| part.starts_with(**p));
            let rest = prefix.map_or(part, |p| &part[p.len()..]);
            rest.split(|c: char| !c.is_ascii_alphanumeric())
                .enumerate()
                .any(|(i, w)| {
                    let hides = ["hidden", "hide"].contains(&w);
                    // A hiding word of a class that names a screen or a
                    // medium (not a small screen alone) names furniture.
                    let media = hides && !small_only(class) && media(class);
                    word(w)
                        && !(i == 0 && prefix.is_some())
                        && (hides && !media) == hiding
                        && !(hides && small_only(class))
                })
        };
        let any_part = |hiding: bool| {
            v.split_ascii_whitespace().any(|class| {
                (word(class) && ["hidden", "hide"].contains(&class) == hiding)
                    || class.split(':').any(|p| part_words(p, class, hiding))
            })
        };
        let furniture = NEGATIVE_SUBSTR.iter().any(|p| v.contains(p)) || any_part(false);
        let hiding = any_part(true);
        let positive = POSITIVE_SUBSTR.iter().any(|p| v.contains(p));
        Evidence {
            negative: furniture || hiding,
            positive,
            hiding: hiding && !furniture,
        }
    }

    proptest::proptest! {
        #[test]
        fn judging_bytes_is_judging_characters(
            parts in proptest::collection::vec(
                "(nav|Top-Bar|site-header|foot|POST|ad|-|_|é|ß|\u{3000}| |\t|\x0c|\n|x|main|menu|overflow|hidden|hide|is|sidebar|md|Mobile|lg|print|900|max|up|\\[|:|y|signat|ure)",
                0..8,
            ),
        ) {
            let value = parts.concat();
            proptest::prop_assert_eq!(j(&value), judge_by_chars(&value));
        }
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
        // A product's list of customer reviews is not the product.
        assert!(j("product-reviews").negative);
        assert!(!j("review-content").negative);
        // A forum post's signature is the author's footer, not the post,
        // even when its name holds a word of content.
        assert!(j("message-signature").negative);
        assert_eq!(
            j("post-signature owner"),
            Evidence {
                negative: true,
                ..Evidence::default()
            }
        );
        assert!(j("postsignature").negative && !j("postsignature").positive);
        assert!(!j("message-body").negative);
    }

    #[test]
    fn words_that_say_hidden_are_told_apart() {
        // Negative by a hiding word alone: a state.
        for v in [
            "hidden",
            "cmp-accordion__panel cmp-accordion__panel--hidden",
            "panel is-hidden",
            "hide",
            "a-hidden",
        ] {
            let e = j(v);
            assert!(e.negative && e.hiding, "{v}");
        }
        // Hidden on large screens, or in print: a layout's furniture.
        for v in [
            "md:hidden",
            "hidden-lg",
            "hide-on-desktop",
            "hidden-print",
            "hidden-sm-up",
            "panel lg:hidden",
        ] {
            let e = j(v);
            assert!(e.negative && !e.hiding, "{v}");
        }
        // Furniture too, or not negative at all.
        for v in [
            "sidebar hidden",
            "nav is-hidden",
            "hidden-xs footer",
            "top-bar hide",
            "hidden-xs",
            "overflow-hidden",
            "panel",
        ] {
            assert!(!j(v).hiding, "{v}");
        }
        // A class list's words joined.
        let (state, nav) = (j("is-hidden"), j("nav"));
        assert_eq!(state.join(j("panel")), state);
        assert_eq!(state.join(nav), nav);
        assert_eq!(nav.join(state), nav);
        assert!(state.join(j("entry")).positive && state.join(j("entry")).hiding);
    }

    #[test]
    fn generated_component_ids_are_not_evidence() {
        // A component system names an element by its component's type and
        // a hash: the type is no verdict on what the element holds.
        for v in [
            "teaser-8bd8b65ebf",
            "x teaser-48a33e5265 y",
            "banner-0a1b2c3d4e",
        ] {
            assert!(!j(v).negative, "{v}");
        }
        for v in [
            "teaser",
            "teaser-list",
            "nav-12345678",
            "ad-deadbeef",
            "teaser-8bd8b65ebf-list",
            "teaser-8bd8",
        ] {
            assert!(j(v).negative, "{v}");
        }
    }

    #[test]
    fn utility_classes_that_hide_nothing_are_not_evidence() {
        for v in [
            "overflow-hidden",
            "relative overflow-x-hidden py-24",
            "md:overflow-y-hidden",
        ] {
            assert!(!j(v).negative, "{v}");
        }
        for v in [
            "hidden",
            "md:hidden",
            "overflow hidden",
            "x-overflow-hidden",
            "overflow-hidden-nav",
        ] {
            assert!(j(v).negative, "{v}");
        }
    }

    #[test]
    fn classes_that_hide_on_small_screens_only_are_not_evidence() {
        for v in [
            "max-md:hidden",
            "hidden-xs",
            "hidden-sm",
            "hide-mobile",
            "elementor-hidden-tablet",
            "wrapper hidden-900",
            "x hidden--md",
        ] {
            assert!(!j(v).negative, "{v}");
        }
        // Hidden everywhere, or on a desktop screen.
        for v in [
            "hidden",
            "is-hidden",
            "hide",
            "md:block hidden",
            "md:hidden",
            "lg:hidden",
            "hidden-lg",
            "hidden-sm-up",
            "elementor-hidden-desktop",
            "elementor-hidden-desktop elementor-hidden-mobile",
            "hidden-nav-900",
        ] {
            assert!(j(v).negative, "{v}");
        }
    }

    #[test]
    fn positive_classes() {
        assert!(j("entry-content").positive);
        assert!(j("articleBody").positive);
        assert!(!j("footer").positive);
    }

    #[test]
    fn pattern_sets_find_what_contains_finds() {
        let values = [
            "",
            "a",
            "site-footer",
            "SideBar widget",
            "entry-content",
            "x-comments-y",
            "mainmenu",
            "post_body",
            "pagerx",
            "foo bar",
            "éfooter",
            "related-posts",
            "ar",
            "articl",
            "s",
            "sharing is caring",
            "gdpr-consent",
            "sr-onl",
            "sr-only",
        ];
        for (set, list) in [
            (negative_substrings(), NEGATIVE_SUBSTR),
            (positive_substrings(), POSITIVE_SUBSTR),
        ] {
            for v in values {
                let v = v.to_ascii_lowercase();
                let want = list.iter().any(|p| v.contains(p));
                assert_eq!(set.found_in(&v), want, "{v:?}");
            }
            // Every pattern is found in itself and inside other text.
            for p in list {
                assert!(set.found_in(p) && set.found_in(format!("x-{p}-y")), "{p}");
            }
        }
    }

    #[test]
    fn single_byte_patterns_and_value_ends() {
        let set = Patterns::new(&["x", "ab", ""]);
        for (v, want) in [
            ("x", true),
            ("yx", true),
            ("xy", true),
            ("a", false),
            ("ab", true),
        ] {
            assert_eq!(set.found_in(v), want, "{v:?}");
        }
        assert!(negative_word("nav") && negative_word("top-bar") && !negative_word("navy"));
    }

    proptest::proptest! {
        #[test]
        fn pattern_sets_equal_one_search_per_pattern(
            parts in proptest::collection::vec(
                "(side|bar|foot|er|comment|share|post|main|-|_| |[a-z]{1,3}|é)", 0..8),
        ) {
            let v = parts.concat();
            for (set, list) in [
                (negative_substrings(), NEGATIVE_SUBSTR),
                (positive_substrings(), POSITIVE_SUBSTR),
            ] {
                let want = list.iter().any(|p| v.contains(p));
                proptest::prop_assert_eq!(set.found_in(&v), want, "{:?}", v);
            }
        }
    }

    #[test]
    fn roles() {
        assert!(judge_role("navigation").negative);
        assert!(judge_role("main").positive);
        assert!(!judge_role("presentation").negative);
    }
}

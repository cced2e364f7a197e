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
        if responsive_hide(class) || hides_a_part(v, at, w) {
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
    class.contains(&b':') || class.split(|b| !b.is_ascii_alphanumeric()).any(media_word)
}

/// Is the class word a screen's or a medium's name (`xs`, `lg`, `print`)
/// or a width (`900`)?
fn media_word(w: &[u8]) -> bool {
    small_screen_word(w) || OTHER_MEDIA.contains(&w)
}

/// Is the class word a small screen's name (`xs`, `mobile`) or a width
/// (`900`)?
fn small_screen_word(w: &[u8]) -> bool {
    SMALL_SCREENS.contains(&w) || (!w.is_empty() && w.iter().all(u8::is_ascii_digit))
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
        small |= small_screen_word(w);
    }
    small
}

/// Does the hiding word `w` at `at` name what it hides after it, in its
/// class: a part of the element or a feature of its theme
/// (`hide-scrollbar`, `hide-entry-author`), not the element? A screen,
/// medium or width after it (`hide-mobile`, `hide-on-desktop`, `hide-900`)
/// names where the element itself is hidden.
fn hides_a_part(v: &[u8], at: usize, w: &[u8]) -> bool {
    if w != b"hide" {
        return false;
    }
    let rest = v.get(at + w.len()..).unwrap_or_default();
    let rest = rest
        .split(u8::is_ascii_whitespace)
        .next()
        .unwrap_or_default();
    // A separator, then the next word of the class.
    if rest.first().is_none_or(u8::is_ascii_alphanumeric) {
        return false;
    }
    rest.split(|b| !b.is_ascii_alphanumeric())
        .find(|p| !p.is_empty())
        .is_some_and(|p| !(media_word(p) || AND_UP.contains(&p) || MEDIA_WORDS.contains(&p)))
}

/// Words that say where or when an element hides, not what: `hide-on-…`,
/// `hide-for-…`, `hide-until-…`, `hide-below-…`.
const MEDIA_WORDS: &[&[u8]] = &[
    b"on",
    b"for",
    b"in",
    b"at",
    b"if",
    b"until",
    b"when",
    b"below",
    b"above",
    b"lt",
    b"gt",
    b"up",
    b"down",
    b"only",
    b"all",
    b"screen",
    b"sr",
    b"visually",
    b"text",
];

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
mod tests;

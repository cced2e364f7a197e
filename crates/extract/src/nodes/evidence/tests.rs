//! Tests of class/id evidence.
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
                    || ["lg", "xl", "xxl", "large", "desktop", "landscape", "print"].contains(&w)
                    || (!w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
            })
    };
    // `hide` followed, in its class, by a word naming a part.
    let part_after = |following: Option<&str>| {
        following.is_some_and(|n| {
            !(SMALL_SCREENS.contains(&n.as_bytes())
                || ["lg", "xl", "xxl", "large", "desktop", "landscape", "print"].contains(&n)
                || ["up", "gte", "min"].contains(&n)
                || n.chars().all(|c| c.is_ascii_digit())
                || MEDIA_WORDS.contains(&n.as_bytes()))
        })
    };
    // The words of the `j`-th part of a class that name furniture, or
    // say hidden.
    let part_words = |j: usize, part: &str, class: &str, hiding: bool| {
        let prefix = ["overflow-x-", "overflow-y-", "overflow-"]
            .iter()
            .find(|p| part.starts_with(**p));
        let rest = prefix.map_or(part, |p| &part[p.len()..]);
        let words: Vec<&str> = rest.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        words.iter().enumerate().any(|(i, &w)| {
            let hides = ["hidden", "hide"].contains(&w);
            // A hiding word of a class that names a screen or a
            // medium (not a small screen alone) names furniture.
            let media = hides && !small_only(class) && media(class);
            let following = words
                .iter()
                .skip(i + 1)
                .copied()
                .chain(
                    class
                        .split(':')
                        .skip(j + 1)
                        .flat_map(|p| p.split(|c: char| !c.is_ascii_alphanumeric())),
                )
                .find(|n| !n.is_empty());
            word(w)
                && !(i == 0 && prefix.is_some())
                && (hides && !media) == hiding
                && !(hides && small_only(class))
                && !(w == "hide" && part_after(following))
        })
    };
    let any_part = |hiding: bool| {
        v.split_ascii_whitespace().any(|class| {
            (word(class) && ["hidden", "hide"].contains(&class) == hiding)
                || class
                    .split(':')
                    .enumerate()
                    .any(|(j, p)| part_words(j, p, class, hiding))
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
    // A part of the element hidden, not the element.
    for v in ["hide-scrollbar", "gallery hide-caret", "x hide_indents"] {
        assert!(!j(v).negative, "{v}");
    }
    for v in [
        "hide-on-desktop",
        "hide-text",
        "hide-sr",
        "hide-if-empty",
        "hide-",
        "hide",
    ] {
        assert!(j(v).negative, "{v}");
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

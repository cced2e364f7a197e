//! Tag classification and cheap text measures.

use html5ever::{local_name, LocalName};

/// How an element takes part in text extraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TagKind {
    /// Never rendered as text (scripts, styles, head, embedded documents...).
    Skip,
    /// Starts and ends a paragraph.
    Block,
    /// Line break.
    Br,
    /// Flows inside the surrounding paragraph.
    Inline,
}

/// Classify an element by local name.
pub(crate) fn kind(name: &LocalName) -> TagKind {
    match *name {
        local_name!("script")
        | local_name!("style")
        | local_name!("template")
        | local_name!("svg")
        | local_name!("math")
        | local_name!("iframe")
        | local_name!("head")
        | local_name!("title")
        | local_name!("object")
        | local_name!("embed")
        | local_name!("canvas")
        | local_name!("video")
        | local_name!("audio")
        | local_name!("select")
        | local_name!("option")
        | local_name!("datalist")
        | local_name!("textarea")
        | local_name!("input")
        | local_name!("button")
        | local_name!("noembed")
        | local_name!("noframes")
        | local_name!("frameset")
        | local_name!("map")
        | local_name!("dialog") => TagKind::Skip,
        local_name!("br") => TagKind::Br,
        local_name!("p")
        | local_name!("div")
        | local_name!("h1")
        | local_name!("h2")
        | local_name!("h3")
        | local_name!("h4")
        | local_name!("h5")
        | local_name!("h6")
        | local_name!("li")
        | local_name!("ul")
        | local_name!("ol")
        | local_name!("dl")
        | local_name!("dt")
        | local_name!("dd")
        | local_name!("blockquote")
        | local_name!("pre")
        | local_name!("table")
        | local_name!("tr")
        | local_name!("td")
        | local_name!("th")
        | local_name!("thead")
        | local_name!("tbody")
        | local_name!("tfoot")
        | local_name!("caption")
        | local_name!("section")
        | local_name!("article")
        | local_name!("main")
        | local_name!("aside")
        | local_name!("nav")
        | local_name!("header")
        | local_name!("footer")
        | local_name!("figure")
        | local_name!("figcaption")
        | local_name!("form")
        | local_name!("fieldset")
        | local_name!("legend")
        | local_name!("address")
        | local_name!("details")
        | local_name!("summary")
        | local_name!("hr")
        | local_name!("center")
        | local_name!("body")
        | local_name!("html")
        | local_name!("menu")
        | local_name!("hgroup")
        | local_name!("label") => TagKind::Block,
        _ => TagKind::Inline,
    }
}

/// Is `c` a CJK ideograph or kana (each one counts as a token)?
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{9fff}' | '\u{f900}'..='\u{faff}' | '\u{3040}'..='\u{30ff}')
}

/// Counts of a piece of text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Measure {
    /// Word tokens: runs of alphanumerics, each CJK character on its own.
    pub(crate) tokens: u32,
    /// Sentence punctuation marks (Latin and CJK).
    pub(crate) punct: u32,
}

/// What an ASCII byte is to [`measure`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ascii {
    /// Letter, digit or `_`.
    Word,
    /// Sentence punctuation.
    Punct,
    /// Anything else.
    Other,
}

/// [`Ascii`] class of each ASCII byte.
const ASCII: [Ascii; 128] = {
    let mut t = [Ascii::Other; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || c == b'_' {
            t[b] = Ascii::Word;
        } else if matches!(c, b'.' | b',' | b';' | b':' | b'!' | b'?') {
            t[b] = Ascii::Punct;
        }
        b += 1;
    }
    t
};

/// Measure `text`.
pub(crate) fn measure(text: &str) -> Measure {
    let mut m = Measure::default();
    let mut in_word = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if let Some(&class) = ASCII.get(usize::from(b)) {
            i += 1;
            match class {
                Ascii::Word => {
                    if !in_word {
                        m.tokens = m.tokens.saturating_add(1);
                        in_word = true;
                    }
                }
                Ascii::Punct => {
                    in_word = false;
                    m.punct = m.punct.saturating_add(1);
                }
                Ascii::Other => in_word = false,
            }
            continue;
        }
        let Some(c) = text.get(i..).and_then(|r| r.chars().next()) else {
            break;
        };
        i += c.len_utf8();
        if is_cjk(c) {
            m.tokens = m.tokens.saturating_add(1);
            in_word = false;
        } else if c.is_alphanumeric() {
            if !in_word {
                m.tokens = m.tokens.saturating_add(1);
                in_word = true;
            }
        } else {
            in_word = false;
            if matches!(
                c,
                '。' | '，' | '；' | '：' | '！' | '？' | '、' | '．' | '…'
            ) {
                m.punct = m.punct.saturating_add(1);
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(kind(&LocalName::from("p")), TagKind::Block);
        assert_eq!(kind(&LocalName::from("span")), TagKind::Inline);
        assert_eq!(kind(&LocalName::from("script")), TagKind::Skip);
        assert_eq!(kind(&LocalName::from("br")), TagKind::Br);
    }

    #[test]
    fn measures_latin_and_cjk() {
        let m = measure("Hello, world. It's 2024!");
        assert_eq!(m.tokens, 5);
        assert_eq!(m.punct, 3);
        let m = measure("中文测试，好。");
        assert_eq!(m.tokens, 5);
        assert_eq!(m.punct, 2);
        assert_eq!(measure("").tokens, 0);
        assert_eq!(measure("café naïve").tokens, 2);
        assert_eq!(
            measure("a_b c-d…x。y"),
            Measure {
                tokens: 5,
                punct: 2
            }
        );
    }

    proptest::proptest! {
        #[test]
        fn measure_counts_as_char_by_char(s in "[a-zA-Z0-9_ .,;:!?'é中文。，…\\-]{0,40}") {
            let mut tokens = 0u32;
            let mut punct = 0u32;
            let mut in_word = false;
            for c in s.chars() {
                if is_cjk(c) {
                    tokens += 1;
                    in_word = false;
                } else if c.is_alphanumeric() || c == '_' {
                    tokens += u32::from(!in_word);
                    in_word = true;
                } else {
                    in_word = false;
                    punct += u32::from(".,;:!?。，；：！？、．…".contains(c));
                }
            }
            proptest::prop_assert_eq!(measure(&s), Measure { tokens, punct });
        }
    }
}

//! Tokenization: words for space-delimited scripts, single characters for CJK.
//!
//! A token is either a maximal run of word characters (letters, digits,
//! marks, `_`; see [`crate::is_word_char`]) or one CJK character (see
//! [`crate::is_cjk`]). Whitespace, punctuation and symbols separate tokens and
//! are never part of one. Mixed text is handled run by run: `"用Rust写"`
//! yields `用`, `Rust`, `写`.
//!
//! Tokens are sub-slices of the input, so tokenizing allocates nothing.
//! Tokenize normalized text (see [`crate::normalize`]) so that case and
//! compatibility forms do not matter.

use crate::script::{is_cjk, is_word_char};

/// Iterator over the tokens of a text; see the module documentation.
///
/// ```
/// use neardup_text::tokens;
/// let t: Vec<&str> = tokens("Hello, 世界! it's 2024.").collect();
/// assert_eq!(t, ["Hello", "世", "界", "it", "s", "2024"]);
/// ```
pub fn tokens(text: &str) -> Tokens<'_> {
    Tokens { text, pos: 0 }
}

/// Iterator returned by [`tokens`].
#[derive(Debug, Clone)]
pub struct Tokens<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Tokens<'a> {
    /// The next token, and whether it is one CJK character.
    #[inline]
    pub(crate) fn next_token(&mut self) -> Option<(&'a str, bool)> {
        let bytes = self.text.as_bytes();
        let mut i = self.pos;
        // Skip separators.
        let start = loop {
            if i >= bytes.len() {
                self.pos = i;
                return None;
            }
            let b = bytes[i];
            if b < 0x80 {
                if b.is_ascii_alphanumeric() || b == b'_' {
                    break i;
                }
                i += 1;
            } else {
                let c = decode(self.text, i);
                if is_cjk(c) {
                    let end = i + c.len_utf8();
                    self.pos = end;
                    return Some((&self.text[i..end], true));
                }
                if is_word_char(c) {
                    break i;
                }
                i += c.len_utf8();
            }
        };
        // Consume word characters; stop before a CJK character or separator.
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                if b.is_ascii_alphanumeric() || b == b'_' {
                    i += 1;
                    continue;
                }
                break;
            }
            let c = decode(self.text, i);
            if !is_word_char(c) {
                break;
            }
            i += c.len_utf8();
        }
        self.pos = i;
        Some((&self.text[start..i], false))
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        self.next_token().map(|(t, _)| t)
    }
}

#[inline]
pub(crate) fn decode(text: &str, at: usize) -> char {
    // `at` is always on a char boundary: we only advance by whole characters.
    let b = text.as_bytes();
    // Three-byte sequences (the BMP above U+07FF: CJK, general
    // punctuation) decoded directly; `text` is valid UTF-8, so the two
    // continuation bytes are there.
    if let (Some(&b0), Some(&b1), Some(&b2)) = (b.get(at), b.get(at + 1), b.get(at + 2)) {
        if b0 & 0xF0 == 0xE0 {
            let u =
                (u32::from(b0 & 0x0F) << 12) | (u32::from(b1 & 0x3F) << 6) | u32::from(b2 & 0x3F);
            return char::from_u32(u).unwrap_or('\u{FFFD}');
        }
    }
    text[at..].chars().next().unwrap_or('\u{FFFD}')
}

/// Number of tokens in `text`: CJK characters plus words. This is the
/// "length" used for sentences (characters for Chinese, words for English).
///
/// ```
/// assert_eq!(neardup_text::token_count("我们 like 中文"), 5);
/// ```
pub fn token_count(text: &str) -> usize {
    tokens(text).count()
}

/// Iterator over the character n-grams of `text` as sub-slices: every run of
/// `n` consecutive characters (whitespace included). A text shorter than `n`
/// characters yields itself once if non-empty; `n == 0` yields nothing.
///
/// ```
/// use neardup_text::char_ngrams;
/// let g: Vec<&str> = char_ngrams("中文字符", 2).collect();
/// assert_eq!(g, ["中文", "文字", "字符"]);
/// assert_eq!(char_ngrams("ab", 3).collect::<Vec<_>>(), ["ab"]);
/// ```
pub fn char_ngrams(text: &str, n: usize) -> CharNgrams<'_> {
    CharNgrams {
        text,
        n,
        start: 0,
        done: n == 0 || text.is_empty(),
    }
}

/// Iterator returned by [`char_ngrams`].
#[derive(Debug, Clone)]
pub struct CharNgrams<'a> {
    text: &'a str,
    n: usize,
    start: usize,
    done: bool,
}

impl<'a> Iterator for CharNgrams<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.done {
            return None;
        }
        let rest = &self.text[self.start..];
        let mut chars = rest.char_indices();
        let first_len = chars.next().map(|(_, c)| c.len_utf8())?;
        let end = match rest.char_indices().nth(self.n) {
            Some((e, _)) => e,
            None => {
                self.done = true;
                if self.start > 0 && rest.chars().count() < self.n {
                    return None;
                }
                rest.len()
            }
        };
        self.start += first_len;
        Some(&rest[..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_scripts_run_by_run() {
        let t: Vec<&str> = tokens("用Rust写代码, café au lait; ひらがなカタカナ한국").collect();
        assert_eq!(
            t,
            [
                "用", "Rust", "写", "代", "码", "café", "au", "lait", "ひ", "ら", "が", "な", "カ",
                "タ", "カ", "ナ", "한", "국"
            ]
        );
    }

    proptest::proptest! {
        #[test]
        fn decode_is_the_next_char(text in proptest::prelude::any::<String>()) {
            for (i, c) in text.char_indices() {
                proptest::prop_assert_eq!(decode(&text, i), c);
            }
        }
    }

    #[test]
    fn separators_only() {
        assert_eq!(tokens(" ,.!。 ").count(), 0);
        assert_eq!(tokens("").count(), 0);
        assert_eq!(tokens("a").collect::<Vec<_>>(), ["a"]);
    }

    #[test]
    fn ngrams_cover_text() {
        let g: Vec<&str> = char_ngrams("abcd", 2).collect();
        assert_eq!(g, ["ab", "bc", "cd"]);
        assert_eq!(char_ngrams("abcd", 4).collect::<Vec<_>>(), ["abcd"]);
        assert_eq!(char_ngrams("", 2).count(), 0);
        assert_eq!(char_ngrams("abc", 0).count(), 0);
    }
}

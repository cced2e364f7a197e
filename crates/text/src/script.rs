//! Character classes: CJK scripts, punctuation and symbols, invisible characters.
//!
//! The tables are deliberately small hand-written range lists rather than the
//! full Unicode property database: they cover what matters for web text
//! (ASCII, Latin-1, general punctuation, CJK punctuation and full-width forms,
//! common symbol blocks and emoji) and are stable across releases, which keeps
//! fingerprints stable.

/// Returns `true` for characters written without spaces between words that
/// neardup tokenizes one character at a time: Han ideographs (including
/// extensions, compatibility ideographs and radicals), Hiragana, Katakana
/// (including half-width forms) and Hangul.
///
/// ```
/// use neardup_text::is_cjk;
/// assert!(is_cjk('中') && is_cjk('の') && is_cjk('カ') && is_cjk('한'));
/// assert!(!is_cjk('a') && !is_cjk('。'));
/// ```
#[inline]
pub fn is_cjk(c: char) -> bool {
    let u = c as u32;
    if u < 0x1100 {
        return false;
    }
    if (0x4E00..=0x9FFF).contains(&u) {
        // Han unified ideographs first: most CJK text.
        return true;
    }
    matches!(u,
        0x1100..=0x11FF          // Hangul Jamo
        | 0x2E80..=0x2FDF        // CJK and Kangxi radicals
        | 0x3005..=0x3007        // 々 〆 〇
        | 0x3021..=0x3029        // Hangzhou numerals
        | 0x3038..=0x303B
        | 0x3040..=0x309F        // Hiragana
        | 0x30A0..=0x30FA        // Katakana (without the middle dot U+30FB)
        | 0x30FC..=0x30FF
        | 0x3130..=0x318F        // Hangul compatibility Jamo
        | 0x31F0..=0x31FF        // Katakana phonetic extensions
        | 0x3400..=0x4DBF        // Han extension A
        | 0x4E00..=0x9FFF        // Han unified ideographs
        | 0xA960..=0xA97F        // Hangul Jamo extended A
        | 0xAC00..=0xD7FF        // Hangul syllables and Jamo extended B
        | 0xF900..=0xFAFF        // CJK compatibility ideographs
        | 0xFF66..=0xFF9F        // half-width Katakana
        | 0xFFA0..=0xFFDC        // half-width Hangul
        | 0x20000..=0x3134F // Han extensions B..G
    )
}

/// Returns `true` for Han characters: the ideographs of [`is_cjk`]
/// (unified, extensions, compatibility ideographs, radicals, `々 〆 〇` and
/// the Hangzhou numerals) without kana and Hangul. Runs of them are what a
/// dictionary segmenter (see [`crate::Segmenter`]) cuts into words.
///
/// ```
/// use neardup_text::is_han;
/// assert!(is_han('中') && is_han('〇') && is_han('\u{20000}'));
/// assert!(!is_han('の') && !is_han('カ') && !is_han('한') && !is_han('a'));
/// ```
#[inline]
pub fn is_han(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x2FDF          // CJK and Kangxi radicals
        | 0x3005..=0x3007        // 々 〆 〇
        | 0x3021..=0x3029        // Hangzhou numerals
        | 0x3038..=0x303B
        | 0x3400..=0x4DBF        // Han extension A
        | 0x4E00..=0x9FFF        // Han unified ideographs
        | 0xF900..=0xFAFF        // CJK compatibility ideographs
        | 0x20000..=0x3134F // Han extensions B..G
    )
}

/// Returns `true` for punctuation and symbols: ASCII punctuation, Latin-1
/// signs, general punctuation, CJK punctuation, full-width punctuation,
/// arrows, mathematical and technical symbols, box drawing, dingbats and
/// emoji. Letters, digits, marks, whitespace and CJK characters are not
/// punctuation.
///
/// ```
/// use neardup_text::is_punctuation;
/// assert!(is_punctuation('.') && is_punctuation('。') && is_punctuation('“'));
/// assert!(!is_punctuation('a') && !is_punctuation('7') && !is_punctuation(' '));
/// ```
#[inline]
pub fn is_punctuation(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return c.is_ascii_punctuation() && c != '_';
    }
    matches!(u,
        0xA1..=0xA9 | 0xAB..=0xB1 | 0xB4 | 0xB6..=0xB8 | 0xBB | 0xBF | 0xD7 | 0xF7
        | 0x2010..=0x2027        // dashes, quotes, bullets, ellipsis
        | 0x2030..=0x205E        // per mille, primes, misc punctuation
        | 0x20A0..=0x20CF        // currency
        | 0x2100..=0x214F        // letterlike symbols
        | 0x2190..=0x2BFF        // arrows, math, technical, boxes, shapes, dingbats
        | 0x2E00..=0x2E7F        // supplemental punctuation
        | 0x3000..=0x3004        // ideographic space handled as whitespace first
        | 0x3008..=0x3020        // CJK brackets, marks
        | 0x3030 | 0x303D
        | 0x30FB                 // katakana middle dot
        | 0xFE10..=0xFE19        // vertical forms
        | 0xFE30..=0xFE6F        // CJK compatibility and small forms
        | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20 | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65
        | 0xFFE0..=0xFFEE        // full-width signs
        | 0x1F000..=0x1FAFF // emoji and pictographs
    )
}

/// Returns `true` for characters that carry no visible content and are
/// removed by normalization: zero-width spaces and joiners, the byte order
/// mark, soft hyphen, and variation selectors.
#[inline]
pub fn is_invisible(c: char) -> bool {
    matches!(c as u32, 0xAD | 0x200B..=0x200F | 0x2060..=0x2064 | 0xFEFF | 0xFE00..=0xFE0F)
}

/// Returns `true` for characters that belong inside a word of a
/// space-delimited script: anything that is not whitespace, control,
/// punctuation, invisible or CJK.
#[inline]
pub fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    !(c.is_whitespace() || c.is_control() || is_punctuation(c) || is_invisible(c) || is_cjk(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_disjoint_on_samples() {
        for c in "aZ9_éßжأ".chars() {
            assert!(is_word_char(c), "{c}");
            assert!(!is_cjk(c) && !is_punctuation(c));
        }
        for c in "中文の片カナ한국〇".chars() {
            assert!(is_cjk(c), "{c}");
            assert!(!is_word_char(c) && !is_punctuation(c));
        }
        for c in ".,;!?()[]“”—…。，、：；！？「」《》・😀→".chars() {
            assert!(is_punctuation(c), "{c}");
            assert!(!is_word_char(c) && !is_cjk(c));
        }
        assert!(is_invisible('\u{200B}') && is_invisible('\u{FEFF}'));
        assert!(!is_word_char(' ') && !is_word_char('\u{3000}'));
    }

    #[test]
    fn han_is_the_ideographs_of_cjk() {
        for u in (0x1100u32..0x3_2000).filter(|u| !(0xD800..=0xDFFF).contains(u)) {
            let c = char::from_u32(u).unwrap();
            if is_han(c) {
                assert!(is_cjk(c), "{u:#x}");
            }
        }
        for c in "中文〇々龍".chars() {
            assert!(is_han(c), "{c}");
        }
        for c in "のカ한ㄱ".chars() {
            assert!(is_cjk(c) && !is_han(c), "{c}");
        }
    }
}

//! Characters of text as the segmenter reads them: white space between
//! words, UTF-8 lengths, and where two elements' texts meet.

/// White space between words (zero-width spaces included).
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{200b}'
}

/// Byte length of the character at `i` of `s` when it is white space
/// ([`is_space`]), else 0. ASCII bytes are looked at alone; the other
/// white space characters all start with one of four bytes.
pub(crate) fn space_len(s: &str, i: usize) -> usize {
    match s.as_bytes().get(i) {
        Some(&b) if b.is_ascii() => usize::from(matches!(b, b'\t'..=b'\r' | b' ')),
        Some(0xc2 | 0xe1 | 0xe2 | 0xe3) => s
            .get(i..)
            .and_then(|r| r.chars().next())
            .filter(|&c| is_space(c))
            .map_or(0, char::len_utf8),
        _ => 0,
    }
}

/// Would `next` glue onto the end of `buf` into one word that reads as
/// two? Two sibling inline elements whose texts meet without white space
/// show as separate items on screen (the layout sets them apart): a year
/// and a running time (`<span>2026</span><span>1h 54m</span>`), a name
/// link and a title in its own element. Only a word that would change
/// case or turn into digits mid-way is split (`...skiFrancis`, `20261h`);
/// a drop cap (`<span>I</span>f`) or a word styled in pieces
/// (`<em>p</em><em>roducts</em>`) stays whole.
pub(crate) fn glued(buf: &str, next: &str) -> bool {
    let (Some(last), Some(first)) = (buf.chars().next_back(), next.chars().next()) else {
        return false;
    };
    (last.is_lowercase() || last.is_ascii_digit())
        && (first.is_uppercase() || first.is_ascii_digit())
}

/// Byte length of the UTF-8 character whose first byte is `b`.
pub(crate) fn char_len(b: u8) -> usize {
    match b {
        0..=0x7f => 1,
        0x80..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_scan_knows_every_character() {
        let mut buf = [0u8; 4];
        for c in (0..=0x10_ffff).filter_map(char::from_u32) {
            let s = c.encode_utf8(&mut buf);
            let want = if is_space(c) { c.len_utf8() } else { 0 };
            assert_eq!(space_len(s, 0), want, "{c:?}");
            assert_eq!(char_len(s.as_bytes()[0]), c.len_utf8(), "{c:?}");
        }
    }

    #[test]
    fn only_words_that_change_case_or_turn_into_digits_are_split() {
        for (a, b) in [
            ("Sejnowski", "Francis"),
            ("2026", "1h"),
            ("54m", "R"),
            ("beds", "2"),
        ] {
            assert!(glued(a, b), "{a} {b}");
        }
        for (a, b) in [
            ("I", "f"),
            ("p", "roducts"),
            ("NA", "SA"),
            ("北京", "上海"),
            ("a.", "B"),
            ("", "A"),
        ] {
            assert!(!glued(a, b), "{a} {b}");
        }
    }
}

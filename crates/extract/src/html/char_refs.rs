//! Character references of text, decoded past the tokenizer.
//!
//! Text with an `&` (`&amp;`, `&nbsp;`, `&#39;`, `Q & A`) is common, and
//! the tokenizer reads every piece of it a character at a time, with the
//! tag after it. The references whose meaning does not depend on what the
//! tokenizer has read so far are decoded here, exactly as the tokenizer
//! decodes them in text (its data state): a name of the table followed by
//! `;`, a decimal or hexadecimal number followed by `;` that stands for
//! itself, and an `&` that opens no reference. Anything else (a name
//! without `;`, which may be a legacy prefix such as `&not`; a number the
//! tokenizer replaces; an unknown name) leaves the text to the tokenizer.

use html5ever::data::NAMED_ENTITIES;

/// The longest name of the table, `;` included (`&CounterClockwiseContourIntegral;`).
const MAX_NAME: usize = 32;

/// At most this many digits are read in a number (the largest code point
/// has 7 decimal digits, 6 hexadecimal ones).
const MAX_DIGITS: usize = 7;

/// `text` with its character references decoded as the tokenizer decodes
/// them in its data state, or `None` when one of them is not of the kinds
/// this module decodes (see the module documentation).
pub(crate) fn decode(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = memchr::memchr(b'&', rest.as_bytes()) {
        out.push_str(rest.get(..amp)?);
        let after = rest.get(amp + 1..)?;
        let (decoded, len) = reference(after)?;
        match decoded {
            Decoded::Amp => out.push('&'),
            Decoded::One(c) => out.push(c),
            Decoded::Two(a, b) => {
                out.push(a);
                out.push(b);
            }
        }
        rest = after.get(len..)?;
    }
    out.push_str(rest);
    Some(out)
}

/// What an `&` and the text after it stand for.
#[derive(Debug, PartialEq, Eq)]
enum Decoded {
    /// The `&` itself: no reference.
    Amp,
    One(char),
    Two(char, char),
}

/// The reference that `after` (the text after an `&`) opens, and how many
/// bytes of it the reference takes; `None` when the tokenizer must read it.
fn reference(after: &str) -> Option<(Decoded, usize)> {
    let bytes = after.as_bytes();
    match bytes.first() {
        Some(b'#') => numeric(bytes),
        Some(c) if c.is_ascii_alphanumeric() => named(bytes),
        // Anything else (white space, `&`, `<`, the end) opens no reference.
        _ => Some((Decoded::Amp, 0)),
    }
}

/// `name;` at the start of `bytes`, when the table has it.
fn named(bytes: &[u8]) -> Option<(Decoded, usize)> {
    let len = bytes
        .iter()
        .take(MAX_NAME)
        .position(|b| !b.is_ascii_alphanumeric())?;
    if bytes.get(len) != Some(&b';') {
        return None;
    }
    let name = std::str::from_utf8(bytes.get(..=len)?).ok()?;
    let &(a, b) = NAMED_ENTITIES.get(name)?;
    let a = char::from_u32(a).filter(|_| a != 0)?;
    let decoded = match b {
        0 => Decoded::One(a),
        b => Decoded::Two(a, char::from_u32(b)?),
    };
    Some((decoded, len + 1))
}

/// `#digits;` or `#xhex;` at the start of `bytes`, when it stands for its
/// own code point.
fn numeric(bytes: &[u8]) -> Option<(Decoded, usize)> {
    let (radix, from) = match bytes.get(1) {
        Some(b'x' | b'X') => (16, 2),
        _ => (10, 1),
    };
    let digits = bytes.get(from..)?;
    let n = digits
        .iter()
        .take(MAX_DIGITS + 1)
        .position(|b| !char::from(*b).is_digit(radix))?;
    if n == 0 || n > MAX_DIGITS || digits.get(n) != Some(&b';') {
        return None;
    }
    let value = u32::from_str_radix(std::str::from_utf8(digits.get(..n)?).ok()?, radix).ok()?;
    // The tokenizer replaces NUL, surrogates, values past Unicode and the
    // C1 controls (as windows-1252 reads them); a carriage return is left
    // to it too.
    if matches!(value, 0 | 0x0D | 0x80..=0x9F) {
        return None;
    }
    let c = char::from_u32(value)?;
    Some((Decoded::One(c), from + n + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_what_stands_for_itself() {
        assert_eq!(decode("Q & A").as_deref(), Some("Q & A"));
        assert_eq!(decode("a&amp;b &lt;p&gt;").as_deref(), Some("a&b <p>"));
        assert_eq!(decode("x&nbsp;y").as_deref(), Some("x\u{a0}y"));
        assert_eq!(decode("&#39;&#x27;&#X1F600;").as_deref(), Some("''😀"));
        assert_eq!(decode("&notin;").as_deref(), Some("∉"));
        // Two code points.
        assert_eq!(
            decode("&NotEqualTilde;").as_deref(),
            Some("\u{2242}\u{338}")
        );
        assert_eq!(decode("a&").as_deref(), Some("a&"));
        assert_eq!(decode("&&amp;").as_deref(), Some("&&"));
        assert_eq!(decode("&#;").as_deref(), None);
    }

    #[test]
    fn leaves_the_rest_to_the_tokenizer() {
        for text in [
            "&amp",
            "&not it",
            "AT&T",
            "&unknown;",
            "&#0;",
            "&#128;",
            "&#x110000;",
            "&#xD800;",
            "&#39",
            "&#00000039;",
            "&#13;",
        ] {
            assert_eq!(decode(text), None, "{text}");
        }
    }

    #[test]
    fn the_longest_name_fits() {
        let longest = NAMED_ENTITIES
            .entries()
            .map(|(k, _)| k.len())
            .max()
            .unwrap_or(0);
        assert_eq!(longest, MAX_NAME);
    }
}

//! Units of a document: paragraphs, lines and sentences as byte ranges of
//! its text, and the key each one is compared by.
//!
//! * A **paragraph** is one of the extractor's paragraphs (HTML input:
//!   the main text is its paragraphs joined by line breaks, and a paragraph
//!   may hold a line break of its own from a `<br>`); in plain text, a line.
//! * A **line** is the text between two line breaks (`\n`; a `\r` before it
//!   is whitespace).
//! * A **sentence** ends at `. ! ? ; …` and their CJK forms (`。！？；`) or
//!   at a line break; a `.` between two digits does not end one (the rule of
//!   [`neardup_text::sentences`]). The sentence's range takes in its
//!   terminators and a closing quote or bracket right after them, so that
//!   removing it leaves no stray mark.
//!
//! Every range is trimmed of whitespace and holds at least one character.
//!
//! Units are compared by their **key**: the 64-bit xxh3 hash of the unit
//! normalized by [`neardup_text::normalize`] with punctuation stripped
//! (Unicode NFKC, lowercase, invisible characters removed, punctuation and
//! symbols as spaces, runs of whitespace as one space, trimmed). A unit
//! whose normalized form has fewer than `min_chars` characters (code points)
//! has no key and is never a span.

use neardup_text::{normalize_into_bytes, NormalizeOptions};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// The unit repeated passages are found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Unit {
    /// Paragraphs (the default): the extractor's paragraphs of an HTML
    /// page, the lines of plain text.
    #[default]
    Paragraph,
    /// Lines of the text.
    Line,
    /// Sentences (CJK sentence ends too).
    Sentence,
    /// Runs of at least `min_tokens` tokens, found with a suffix array
    /// (see [`SpanFinderBuilder::min_tokens`](crate::SpanFinderBuilder::min_tokens)).
    Substring,
}

impl Unit {
    /// The unit's name, as the command line and the output spell it.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Paragraph => "paragraph",
            Unit::Line => "line",
            Unit::Sentence => "sentence",
            Unit::Substring => "substring",
        }
    }

    /// The unit named `name` (`paragraph`, `line`, `sentence`, `substring`).
    pub fn from_name(name: &str) -> Option<Unit> {
        match name {
            "paragraph" => Some(Unit::Paragraph),
            "line" => Some(Unit::Line),
            "sentence" => Some(Unit::Sentence),
            "substring" => Some(Unit::Substring),
            _ => None,
        }
    }
}

/// Seed of unit keys (distinct from the shingle seeds of the engine).
const UNIT_SEED: u64 = 0x7370_616E_756E_6974; // "spanunit"

/// A byte range of a document's text.
pub type Range = (usize, usize);

/// Appends the byte ranges of `text`'s units to `out`. `paragraphs`, when
/// given, are the extractor's paragraphs that `text` joins with line
/// breaks; when they do not lay out `text` that way, lines are used.
pub fn unit_ranges(text: &str, unit: Unit, paragraphs: Option<&[String]>, out: &mut Vec<Range>) {
    match unit {
        Unit::Paragraph => {
            if let Some(paras) = paragraphs {
                let before = out.len();
                if paragraph_ranges(text, paras, out) {
                    return;
                }
                out.truncate(before);
            }
            line_ranges(text, out);
        }
        Unit::Line => line_ranges(text, out),
        Unit::Sentence => sentence_ranges(text, out),
        // Runs of tokens have no ranges of their own: the whole text.
        Unit::Substring => push_trimmed(text, 0, text.len(), out),
    }
}

/// The ranges of `paras` laid out in `text` joined by `\n`; `false` when
/// they are not.
fn paragraph_ranges(text: &str, paras: &[String], out: &mut Vec<Range>) -> bool {
    let mut pos = 0usize;
    for (i, p) in paras.iter().enumerate() {
        if i > 0 {
            if text.as_bytes().get(pos) != Some(&b'\n') {
                return false;
            }
            pos += 1;
        }
        let end = pos + p.len();
        if text.get(pos..end) != Some(p.as_str()) {
            return false;
        }
        push_trimmed(text, pos, end, out);
        pos = end;
    }
    pos == text.len()
}

fn line_ranges(text: &str, out: &mut Vec<Range>) {
    let mut from = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]) {
        push_trimmed(text, from, end, out);
        from = end + 1;
    }
}

/// Closing marks a sentence's range takes in after its terminator.
fn is_closing(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | ')' | ']' | '”' | '’' | '»' | '」' | '』' | '）' | '】' | '》' | '〉'
    )
}

fn sentence_ranges(text: &str, out: &mut Vec<Range>) {
    let base = text.as_ptr() as usize;
    let mut last_end = 0usize;
    for piece in neardup_text::sentences(text) {
        let mut start = piece.as_ptr() as usize - base;
        let mut end = start + piece.len();
        // A closing mark taken in by the previous sentence.
        if start < last_end {
            start = last_end.min(end);
            let rest = &text[start..end];
            start += rest.len() - rest.trim_start().len();
            if start >= end {
                continue;
            }
        }
        // Terminators and closing marks right after the sentence.
        for c in text[end..].chars() {
            if c == '\n' || c == '\r' {
                break;
            }
            if neardup_text::is_sentence_end(c) || is_closing(c) {
                end += c.len_utf8();
            } else {
                break;
            }
        }
        out.push((start, end));
        last_end = end;
    }
}

fn push_trimmed(text: &str, from: usize, end: usize, out: &mut Vec<Range>) {
    let Some(s) = text.get(from..end) else {
        return;
    };
    let lead = s.len() - s.trim_start().len();
    let t = s.trim();
    if !t.is_empty() {
        out.push((from + lead, from + lead + t.len()));
    }
}

/// Bytes of buffer a [`UnitKeyer`] keeps between units.
const KEPT_BUFFER_BYTES: usize = 1 << 20;

/// Computes unit keys with a reusable buffer.
#[derive(Debug, Default)]
pub struct UnitKeyer {
    /// The normalized unit, as UTF-8 bytes (hashed and counted, never
    /// validated again).
    buf: Vec<u8>,
}

impl UnitKeyer {
    /// The key of `unit`, or `None` when its normalized form is shorter
    /// than `min_chars` characters.
    pub fn key(&mut self, unit: &str, min_chars: usize) -> Option<u64> {
        self.buf.clear();
        normalize_into_bytes(unit, NormalizeOptions::STRIP_PUNCTUATION, &mut self.buf);
        // Long enough: counted only as far as the minimum (a byte is at most
        // one character, so a short buffer is short); characters are the
        // bytes that do not continue a UTF-8 sequence.
        let starts = |b: &&u8| (**b as i8) >= -0x40;
        let long = !self.buf.is_empty()
            && (self.buf.len() >= min_chars
                && self.buf.iter().filter(starts).take(min_chars).count() >= min_chars);
        let key = long.then(|| xxh3_64_with_seed(&self.buf, UNIT_SEED));
        if self.buf.capacity() > KEPT_BUFFER_BYTES {
            // A long unit's (a substring span of a whole document's) room is
            // not kept for the rest of the run.
            self.buf = Vec::new();
        }
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_units_buffer_is_not_kept() {
        let mut k = UnitKeyer::default();
        let long = "Word, ".repeat(300_000);
        let key = k.key(&long, 20);
        assert!(key.is_some());
        assert_eq!(k.buf.capacity(), 0);
        assert_eq!(k.key(&long.to_lowercase(), 20), key);
        assert!(k.key("a unit of ordinary length", 20).is_some());
        assert!(k.buf.capacity() > 0);
    }

    fn texts(text: &str, unit: Unit, paras: Option<&[String]>) -> Vec<String> {
        let mut r = Vec::new();
        unit_ranges(text, unit, paras, &mut r);
        r.iter().map(|&(a, b)| text[a..b].to_string()).collect()
    }

    #[test]
    fn lines_are_trimmed_and_non_empty() {
        let t = "  one \r\n\n two\n\t\nthree";
        assert_eq!(texts(t, Unit::Line, None), ["one", "two", "three"]);
        assert_eq!(texts(t, Unit::Paragraph, None), ["one", "two", "three"]);
        assert!(texts("", Unit::Line, None).is_empty());
        assert!(texts("\n\n \n", Unit::Line, None).is_empty());
    }

    #[test]
    fn paragraphs_of_the_extractor_hold_their_line_breaks() {
        let paras = vec!["first line\nsecond line".to_string(), "next".to_string()];
        let text = paras.join("\n");
        assert_eq!(
            texts(&text, Unit::Paragraph, Some(&paras)),
            ["first line\nsecond line", "next"]
        );
        assert_eq!(
            texts(&text, Unit::Line, Some(&paras)),
            ["first line", "second line", "next"]
        );
        // Paragraphs that do not lay out the text: lines.
        let wrong = vec!["other".to_string()];
        assert_eq!(texts(&text, Unit::Paragraph, Some(&wrong)).len(), 3);
    }

    #[test]
    fn sentences_take_their_terminators() {
        let t = "He said “stop.” Then left! Pi is 3.14 today.\n第一句。第二句！";
        assert_eq!(
            texts(t, Unit::Sentence, None),
            [
                "He said “stop.”",
                "Then left!",
                "Pi is 3.14 today.",
                "第一句。",
                "第二句！"
            ]
        );
    }

    #[test]
    fn keys_ignore_case_punctuation_width_and_spacing() {
        let mut k = UnitKeyer::default();
        let a = k.key("Subscribe to our newsletter!", 10);
        let b = k.key("  SUBSCRIBE to  our, newsletter ", 10);
        let c = k.key("Ｓｕｂｓｃｒｉｂｅ to our newsletter", 10);
        assert!(a.is_some());
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_ne!(a, k.key("Subscribe to your newsletter", 10));
        assert_eq!(k.key("short", 10), None);
        assert_eq!(k.key("!!! ...", 0), None);
        // CJK characters count one each.
        assert!(k.key("版权所有，转载请注明出处", 10).is_some());
        assert!(k.key("版权所有", 10).is_none());
    }
}

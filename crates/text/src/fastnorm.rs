//! The fast path of [`crate::normalize`] for text that is not pure ASCII.
//!
//! The rules are those of the module [`crate::normalize`] (NFKC, then per
//! character: CJK kept, whitespace and controls collapsed, invisible
//! characters removed, punctuation kept or stripped, lowercasing); this
//! path only avoids work that does not change the result:
//!
//! * **NFKC quick check per character.** A character whose NFKC quick-check
//!   property is `Yes` and whose canonical combining class is 0 is left as
//!   it is by NFKC and starts a normalization boundary: nothing before it
//!   combines with it or reorders across it. Text is copied through such
//!   characters; only a segment around a character that may change (a
//!   combining mark, a compatibility character such as `ﬁ`, full-width
//!   `Ａ` or the no-break space) is normalized, from the last boundary
//!   before it to the next one after it, with `unicode-normalization`.
//!   What was already written for that segment is taken back first.
//! * **One table lookup per character** of the Basic Multilingual Plane
//!   ([`CharTable`]): the character's class and its lowercase form, built
//!   once per process from the same predicates the rules name (see
//!   [`crate::chartable`]); characters beyond the BMP (emoji, rare Han)
//!   are classified on the fly.
//! * **Runs, not characters**: ASCII runs are mapped by byte tables eight
//!   bytes at a time ([`crate::asciirun`]) straight into the output bytes;
//!   a kept non-ASCII character whose lowercase is itself is appended as
//!   the slice of the input it is (no UTF-8 encoding).
//! * **Bytes out**: the output is written as UTF-8 bytes
//!   ([`normalize_non_ascii_bytes`]); the shingler validates them once
//!   (SIMD) instead of every ASCII run being checked on its way into a
//!   `String`.
//!
//! The per-character rules it replaces are kept as the reference
//! (`reference.rs`, compiled for tests); a property test checks that both
//! give the same string, byte for byte, on arbitrary Unicode text.

use unicode_normalization::UnicodeNormalization;

use crate::asciirun::write_ascii_run;
use crate::chartable::{
    CharTable, CHAR_BITS, CLASS_SHIFT, INVISIBLE, KEEP, MULTI, PUNCTUATION, REPLACED, SEPARATOR,
    STABLE,
};
use crate::normalize::{NormalizeOptions, Punctuation, IS_SEPARATOR_KEEP, IS_SEPARATOR_STRIP};

/// The output being written (UTF-8) and the state of whitespace
/// collapsing.
struct Writer<'a> {
    out: &'a mut Vec<u8>,
    /// Where this call's output starts (no leading space before it).
    start: usize,
    pending_space: bool,
    options: NormalizeOptions,
    table: &'a CharTable,
}

impl Writer<'_> {
    #[inline]
    fn flush_space(&mut self) {
        if self.pending_space {
            if self.out.len() > self.start {
                self.out.push(b' ');
            }
            self.pending_space = false;
        }
    }

    #[inline]
    fn separators(&self) -> &'static [bool; 256] {
        if self.options.punctuation == Punctuation::Strip {
            &IS_SEPARATOR_STRIP
        } else {
            &IS_SEPARATOR_KEEP
        }
    }

    /// Writes a run of ASCII bytes (see [`crate::asciirun`]).
    fn ascii_run(&mut self, run: &[u8]) {
        if run.len() < 16 {
            // A few digits or spaces between CJK characters: byte by byte.
            for &b in run {
                self.ascii(b);
            }
            return;
        }
        write_ascii_run(
            self.out,
            self.start,
            &mut self.pending_space,
            self.options,
            run,
        );
    }

    #[inline]
    fn ascii(&mut self, b: u8) {
        if self.separators()[b as usize] {
            self.pending_space = true;
        } else {
            self.flush_space();
            self.out.push(if self.options.lowercase {
                b.to_ascii_lowercase()
            } else {
                b
            });
        }
    }

    /// Writes the non-ASCII character `c` (`raw` as a string) of NFKC text
    /// by its table entry `e`.
    #[inline]
    fn char(&mut self, c: char, raw: &str, e: u32) {
        match e >> CLASS_SHIFT {
            SEPARATOR => {
                self.pending_space = true;
                return;
            }
            INVISIBLE => return,
            PUNCTUATION if self.options.punctuation == Punctuation::Strip => {
                self.pending_space = true;
                return;
            }
            _ => {}
        }
        self.flush_space();
        let lower = e & CHAR_BITS;
        if !self.options.lowercase || lower == c as u32 {
            if e & MULTI != 0 && self.options.lowercase {
                for l in c.to_lowercase() {
                    self.push_char(l);
                }
            } else {
                self.out.extend_from_slice(raw.as_bytes());
            }
        } else {
            self.push_char(char::from_u32(lower).unwrap_or(c));
        }
    }

    #[inline]
    fn push_char(&mut self, c: char) {
        self.out
            .extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes());
    }

    /// Writes any character of NFKC text.
    fn any(&mut self, c: char) {
        if c.is_ascii() {
            self.ascii(c as u8);
        } else {
            let mut tmp = [0u8; 4];
            let raw = c.encode_utf8(&mut tmp);
            let e = self.table.lookup(c);
            self.char(c, raw, e);
        }
    }
}

/// The character at byte `i` of `text` (a character boundary) and its length.
#[inline]
fn decode(text: &str, i: usize) -> (char, usize) {
    let c = crate::tokens::decode(text, i);
    (c, c.len_utf8())
}

/// Where the first byte of 0x80 or more at or after `from` is (the length
/// of `bytes` when there is none), looked for eight bytes at a time.
#[inline]
fn next_non_ascii(bytes: &[u8], from: usize) -> usize {
    let rest = &bytes[from.min(bytes.len())..];
    let mut words = rest.chunks_exact(8);
    for (n, w) in (&mut words).enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let high = u64::from_le_bytes(b) & 0x8080_8080_8080_8080;
        if high != 0 {
            return from + n * 8 + (high.trailing_zeros() / 8) as usize;
        }
    }
    let tail = words.remainder();
    let at = tail.iter().position(|&b| b >= 0x80).unwrap_or(tail.len());
    from + rest.len() - tail.len() + at
}

/// Whether a normalization boundary precedes byte `i` of `text` (a
/// character boundary): at the end, before ASCII, before a [`STABLE`] or a
/// [`REPLACED`] character.
#[inline]
fn is_boundary(text: &str, i: usize, table: &CharTable) -> bool {
    match text.as_bytes().get(i) {
        None => true,
        Some(&b) if b < 0x80 => true,
        Some(_) => table.lookup(decode(text, i).0) & (STABLE | REPLACED) != 0,
    }
}

/// Normalizes `text` (not pure ASCII), appending to `out`; same result as
/// the per-character rules (see the module documentation).
pub(crate) fn normalize_non_ascii(text: &str, options: NormalizeOptions, out: &mut String) {
    let mut bytes = std::mem::take(out).into_bytes();
    normalize_non_ascii_bytes(text, options, &mut bytes);
    // Only whole characters were written: this cannot fail.
    *out = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
}

/// [`normalize_non_ascii`] appending UTF-8 to bytes (`out` holds UTF-8
/// before the call and after it).
pub(crate) fn normalize_non_ascii_bytes(text: &str, options: NormalizeOptions, out: &mut Vec<u8>) {
    let start = out.len();
    out.reserve(text.len());
    let mut w = Writer {
        out,
        start,
        pending_space: false,
        options,
        table: CharTable::get(),
    };
    let bytes = text.as_bytes();
    // Characters written as they are (stable, kept, their own lowercase)
    // are not appended one by one: `copy` is where the current run of them
    // starts in `text`, appended when something else comes.
    let copy_keeps_punctuation = options.punctuation == Punctuation::Keep;
    let mut copy: Option<usize> = None;
    let flush = |w: &mut Writer<'_>, copy: &mut Option<usize>, i: usize| {
        if let Some(from) = copy.take() {
            w.out.extend_from_slice(&bytes[from..i]);
        }
    };
    // The last normalization boundary: input position, and the output
    // length and pending space before the character there was written.
    let mut mark = (0usize, w.out.len(), false);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            flush(&mut w, &mut copy, i);
            // A run of ASCII: every byte is a boundary; only the last one
            // is remembered.
            let end = next_non_ascii(bytes, i);
            w.ascii_run(&bytes[i..end - 1]);
            mark = (end - 1, w.out.len(), w.pending_space);
            w.ascii(bytes[end - 1]);
            i = end;
            continue;
        }
        let (c, len) = decode(text, i);
        let e = w.table.lookup(c);
        if e & STABLE != 0 {
            let class = e >> CLASS_SHIFT;
            let as_is = (class == KEEP || (class == PUNCTUATION && copy_keeps_punctuation))
                && (!options.lowercase || e & (CHAR_BITS | MULTI) == c as u32);
            if as_is && !w.pending_space {
                let from = *copy.get_or_insert(i);
                mark = (i, w.out.len() + (i - from), false);
                i += len;
                continue;
            }
            flush(&mut w, &mut copy, i);
            mark = (i, w.out.len(), w.pending_space);
            w.char(c, &text[i..i + len], e);
            i += len;
            continue;
        }
        flush(&mut w, &mut copy, i);
        if e & REPLACED != 0 && is_boundary(text, i + len, w.table) {
            // Nothing before it or after it combines with it: its NFKC
            // form stands alone.
            mark = (i, w.out.len(), w.pending_space);
            let table = w.table;
            for d in table.replacements[(e & CHAR_BITS) as usize].chars() {
                w.any(d);
            }
            i += len;
            continue;
        }
        // A character NFKC may change: normalize from the last boundary
        // to the next one, taking back what was written since the first.
        let mut end = i + len;
        while end < bytes.len() {
            if bytes[end] < 0x80 {
                break;
            }
            let (c, len) = decode(text, end);
            if w.table.lookup(c) & (STABLE | REPLACED) != 0 {
                break;
            }
            end += len;
        }
        let (from, written, pending) = mark;
        w.out.truncate(written);
        w.pending_space = pending;
        for c in text[from..end].nfkc() {
            w.any(c);
        }
        i = end;
    }
    flush(&mut w, &mut copy, bytes.len());
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::reference::normalize_reference;

    const ALL_OPTIONS: [NormalizeOptions; 4] = NormalizeOptions::ALL;

    fn check(text: &str) {
        for o in ALL_OPTIONS {
            let mut fast = String::from("x");
            normalize_non_ascii(text, o, &mut fast);
            let mut slow = String::from("x");
            normalize_reference(text, o, &mut slow);
            assert_eq!(fast, slow, "{text:?} {o:?}");
        }
    }

    #[test]
    fn next_non_ascii_finds_the_first_high_byte() {
        let text = "abcdefghijklmnopqrstuvwxyz é";
        let b = text.as_bytes();
        for from in 0..=b.len() {
            let want = b[from..]
                .iter()
                .position(|&x| x >= 0x80)
                .map_or(b.len(), |p| from + p);
            assert_eq!(next_non_ascii(b, from), want, "{from}");
        }
        assert_eq!(next_non_ascii(b"", 0), 0);
        assert_eq!(next_non_ascii("é".as_bytes(), 0), 0);
        assert_eq!(next_non_ascii(&[b'a'; 17], 3), 17);
    }

    #[test]
    fn segments_around_changing_characters() {
        for s in [
            "e\u{301}",
            "Cafe\u{301} \u{301}x",
            "\u{301}start",
            "ﬁne ﬂow",
            "a\u{A0}b",
            "Ａ\u{3000}Ｂ",
            "İstanbul ΣΑΣ",
            "\u{1100}\u{1161}\u{11A8} 한",
            "a\u{5B0}\u{591}b",
            "x\u{200B}\u{FE0F}y 😀 \u{1D400}",
            "“Quotes” — dashes… and accents: naïve café",
            "中文，ｶﾀｶﾅ。e\u{301}中e\u{301}",
            "①②③ ㍻ ℃",
            "Ａ\u{301}，\u{301}ＡＢ…\u{3131}\u{1161}",
            "中文，测试。ＡＢＣ！\u{A0}",
        ] {
            check(s);
        }
    }

    /// Text that exercises the boundaries: ASCII, Latin-1 and Latin
    /// Extended letters, combining marks, compatibility characters,
    /// punctuation, CJK, Hangul jamo, invisible and supplementary
    /// characters, in arbitrary order.
    fn mixed_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                "[a-zA-Z ,.]{1,6}",
                "[\u{80}-\u{24F}]{1,4}",
                "[\u{300}-\u{36F}\u{591}-\u{5C7}]{1,3}",
                "[\u{2000}-\u{206F}\u{3000}-\u{303F}]{1,3}",
                "[\u{1100}-\u{11FF}\u{AC00}-\u{AC20}\u{3130}-\u{318F}]{1,3}",
                "[\u{F900}-\u{FAFF}\u{FB00}-\u{FB4F}\u{FF00}-\u{FFEF}]{1,3}",
                "[\u{4E00}-\u{4E40}]{1,3}",
                "[\u{1D400}-\u{1D420}\u{1F600}-\u{1F610}\u{2F800}-\u{2F810}]{1,2}",
            ],
            0..24,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn fast_path_equals_reference_on_arbitrary_unicode(text in any::<String>()) {
            check(&text);
        }

        #[test]
        fn fast_path_equals_reference_on_mixed_scripts(text in mixed_text()) {
            check(&text);
        }
    }
}

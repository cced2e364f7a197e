//! The reference implementation of normalization for text that is not pure
//! ASCII: the per-character rules of [`crate::normalize`] as they were
//! written first (NFKC run by run between Han ideographs, then one
//! character at a time into a `String`). Compiled for tests only: the fast
//! path ([`crate::fastnorm`]) must give the same string byte for byte.

use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

use crate::normalize::NormalizeOptions;
use crate::normalize::Punctuation;
use crate::script::{is_cjk, is_invisible, is_punctuation};

/// Normalizes `text` one character at a time, appending to `out`.
pub(crate) fn normalize_reference(text: &str, options: NormalizeOptions, out: &mut String) {
    let start = out.len();
    let mut sink = Sink {
        out,
        pending_space: false,
        start,
        options,
    };
    // NFKC is costly per character. Han ideographs of the unified blocks
    // are stable under NFKC and never combine with their neighbours, so
    // normalization can restart at each of them.
    let mut run = 0;
    for (i, c) in text.char_indices() {
        if is_stable_han(c) {
            sink.run(&text[run..i]);
            sink.push(c);
            run = i + c.len_utf8();
        }
    }
    sink.run(&text[run..]);
}

/// Han ideographs that are NFKC-stable boundaries (unified ideographs and
/// extension A; compatibility ideographs are excluded: NFKC maps them).
#[inline]
fn is_stable_han(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF)
}

struct Sink<'a> {
    out: &'a mut String,
    pending_space: bool,
    start: usize,
    options: NormalizeOptions,
}

impl Sink<'_> {
    #[inline]
    fn push(&mut self, c: char) {
        if is_cjk(c) {
            // Fast path: CJK characters have no case and are not separators.
            self.flush_space();
            self.out.push(c);
            return;
        }
        if c.is_whitespace() || c.is_control() {
            self.pending_space = true;
            return;
        }
        if !c.is_ascii() && is_invisible(c) {
            return;
        }
        if self.options.punctuation == Punctuation::Strip && is_punctuation(c) {
            self.pending_space = true;
            return;
        }
        self.flush_space();
        if !self.options.lowercase {
            self.out.push(c);
        } else if c.is_ascii() {
            self.out.push(c.to_ascii_lowercase());
        } else {
            self.out.extend(c.to_lowercase());
        }
    }

    /// Normalizes a run of text that starts and ends at NFKC boundaries.
    fn run(&mut self, run: &str) {
        if run.is_empty() {
            return;
        }
        if run.is_ascii() || is_nfkc_quick(run.chars()) == IsNormalized::Yes {
            for c in run.chars() {
                self.push(c);
            }
        } else {
            for c in run.nfkc() {
                self.push(c);
            }
        }
    }

    #[inline]
    fn flush_space(&mut self) {
        if self.pending_space {
            if self.out.len() > self.start {
                self.out.push(' ');
            }
            self.pending_space = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_between_han_match_whole_text_nfkc() {
        let o = NormalizeOptions {
            punctuation: Punctuation::Keep,
            lowercase: false,
        };
        for s in [
            "中文，ｶﾀｶﾅ。e\u{301}中e\u{301}",
            "ﬁ中\u{F900}文①",
            "한국어 中 ＡＢ",
        ] {
            let whole: String = s.nfkc().collect();
            let mut reference = String::new();
            let mut sink = Sink {
                out: &mut reference,
                pending_space: false,
                start: 0,
                options: o,
            };
            for c in whole.chars() {
                sink.push(c);
            }
            assert_eq!(crate::normalize(s, o), reference, "{s:?}");
        }
    }
}

//! Text normalization: Unicode NFKC, lowercasing, whitespace collapsing and
//! optional punctuation stripping.
//!
//! The pipeline, applied character by character after NFKC:
//!
//! 1. NFKC folds compatibility forms: full-width Latin letters and digits
//!    become ASCII (`ＡＢＣ１` → `ABC1`), half-width Katakana become regular
//!    Katakana, ligatures are split (`ﬁ` → `fi`), the ideographic space
//!    becomes a space. ASCII-only input skips this step (it is already NFKC).
//! 2. Case: when [`NormalizeOptions::lowercase`] is set, every character is
//!    mapped with Rust's [`char::to_lowercase`] (Unicode default lowercase
//!    mapping). This is *lowercasing*, not full case folding: `ß` stays `ß`
//!    and `ẞ` becomes `ß`. That is enough for duplicate detection, where the
//!    same mapping is applied to both sides.
//! 3. Invisible characters (zero-width spaces/joiners, BOM, soft hyphen,
//!    variation selectors) are removed.
//! 4. Punctuation and symbols (see [`crate::is_punctuation`]) are kept or,
//!    with [`Punctuation::Strip`], replaced by a space so that words on both
//!    sides of the mark stay separate.
//! 5. Runs of whitespace and control characters collapse to one ASCII space;
//!    the result is trimmed at both ends.

/// What normalization does with punctuation and symbols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Punctuation {
    /// Keep punctuation (needed by sentence splitting and feature codes).
    #[default]
    Keep,
    /// Replace each punctuation or symbol character by a space.
    Strip,
}

/// Options for [`normalize`]. The default keeps punctuation and lowercases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NormalizeOptions {
    /// What to do with punctuation and symbols.
    pub punctuation: Punctuation,
    /// Whether to lowercase (see the module documentation).
    pub lowercase: bool,
}

impl Default for NormalizeOptions {
    fn default() -> Self {
        NormalizeOptions {
            punctuation: Punctuation::Keep,
            lowercase: true,
        }
    }
}

impl NormalizeOptions {
    /// Options that keep punctuation and lowercase (the default).
    pub const KEEP_PUNCTUATION: NormalizeOptions = NormalizeOptions {
        punctuation: Punctuation::Keep,
        lowercase: true,
    };
    /// Options that strip punctuation and lowercase.
    pub const STRIP_PUNCTUATION: NormalizeOptions = NormalizeOptions {
        punctuation: Punctuation::Strip,
        lowercase: true,
    };

    /// Every combination of the options, for the tests of each fast path.
    #[cfg(test)]
    pub(crate) const ALL: [NormalizeOptions; 4] = [
        NormalizeOptions::KEEP_PUNCTUATION,
        NormalizeOptions::STRIP_PUNCTUATION,
        NormalizeOptions {
            punctuation: Punctuation::Keep,
            lowercase: false,
        },
        NormalizeOptions {
            punctuation: Punctuation::Strip,
            lowercase: false,
        },
    ];
}

/// Normalizes `text` into a new string.
///
/// ```
/// use neardup_text::{normalize, NormalizeOptions};
/// let s = normalize("  Ｈｅｌｌｏ,\u{3000}ＷＯＲＬＤ！\n\tok ", NormalizeOptions::default());
/// assert_eq!(s, "hello, world! ok");
/// let s = normalize("Hello, World!", NormalizeOptions::STRIP_PUNCTUATION);
/// assert_eq!(s, "hello world");
/// ```
pub fn normalize(text: &str, options: NormalizeOptions) -> String {
    let mut out = String::with_capacity(text.len());
    normalize_into(text, options, &mut out);
    out
}

/// Normalizes `text`, appending the result to `out` (which is not cleared),
/// so a caller can reuse one buffer across documents.
pub fn normalize_into(text: &str, options: NormalizeOptions, out: &mut String) {
    if text.is_ascii() {
        normalize_ascii(text.as_bytes(), options, out);
        return;
    }
    crate::fastnorm::normalize_non_ascii(text, options, out);
}

/// [`normalize_into`] appending the UTF-8 bytes of the result to `out`
/// (which holds UTF-8 before and after): no validation of the output on
/// its way into a `String`, for callers that hash or count it.
///
/// ```
/// use neardup_text::{normalize_into_bytes, NormalizeOptions};
/// let mut out = Vec::new();
/// normalize_into_bytes("Hello,  World!", NormalizeOptions::STRIP_PUNCTUATION, &mut out);
/// assert_eq!(out, b"hello world");
/// ```
pub fn normalize_into_bytes(text: &str, options: NormalizeOptions, out: &mut Vec<u8>) {
    if text.is_ascii() {
        normalize_ascii_bytes(text.as_bytes(), options, out);
        return;
    }
    crate::fastnorm::normalize_non_ascii_bytes(text, options, out);
}

/// Normalizes each paragraph independently. The result has one entry per
/// input paragraph (possibly empty), so indices stay aligned with the input.
///
/// ```
/// use neardup_text::{normalize_paragraphs, NormalizeOptions};
/// let paras = vec!["First  Para.".to_string(), "  ".to_string()];
/// let out = normalize_paragraphs(&paras, NormalizeOptions::default());
/// assert_eq!(out, vec!["first para.".to_string(), String::new()]);
/// ```
pub fn normalize_paragraphs(paragraphs: &[String], options: NormalizeOptions) -> Vec<String> {
    paragraphs.iter().map(|p| normalize(p, options)).collect()
}

/// Byte-level fast path for ASCII input (already NFKC, no invisible
/// characters); same rules as the per-character path, without a data-dependent
/// branch per byte: each byte is written unconditionally and the write index
/// advances only when the byte (or a pending separator space) is kept.
fn normalize_ascii(bytes: &[u8], options: NormalizeOptions, out: &mut String) {
    let mut buf = Vec::new();
    normalize_ascii_bytes(bytes, options, &mut buf);
    // Only ASCII bytes were written, so this cannot fail.
    out.push_str(std::str::from_utf8(&buf).unwrap_or_default());
}

/// [`normalize_ascii`] appending to bytes: the text is one ASCII run, its
/// output starting here with no space pending (a space pending at its end
/// is never written).
fn normalize_ascii_bytes(bytes: &[u8], options: NormalizeOptions, out: &mut Vec<u8>) {
    let start = out.len();
    crate::asciirun::write_ascii_run(out, start, &mut false, options, bytes);
}

/// ASCII separators: whitespace and control characters.
pub(crate) const IS_SEPARATOR_KEEP: [bool; 256] = ascii_table(false);
/// ASCII separators when stripping punctuation (`_` is a word character).
pub(crate) const IS_SEPARATOR_STRIP: [bool; 256] = ascii_table(true);
pub(crate) const LOWER: [u8; 256] = byte_map(true);
pub(crate) const IDENTITY: [u8; 256] = byte_map(false);

const fn ascii_table(strip: bool) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = c <= b' ' || c == 0x7F || (strip && c.is_ascii_punctuation() && c != b'_');
        b += 1;
    }
    t
}

const fn byte_map(lower: bool) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = if lower {
            (b as u8).to_ascii_lowercase()
        } else {
            b as u8
        };
        b += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_width_and_half_width_fold() {
        let o = NormalizeOptions::default();
        assert_eq!(normalize("ＡＢＣ１２３", o), "abc123");
        assert_eq!(normalize("ｶﾀｶﾅ", o), "カタカナ");
        assert_eq!(normalize("ﬁne", o), "fine");
    }

    #[test]
    fn case_and_whitespace() {
        let o = NormalizeOptions::default();
        assert_eq!(normalize("\t Привет   МИР \r\n", o), "привет мир");
        let keep_case = NormalizeOptions {
            lowercase: false,
            ..o
        };
        assert_eq!(normalize("A  B", keep_case), "A B");
        assert_eq!(normalize("", o), "");
        assert_eq!(normalize("   ", o), "");
    }

    #[test]
    fn punctuation_modes() {
        let strip = NormalizeOptions::STRIP_PUNCTUATION;
        assert_eq!(
            normalize("你好，世界！Hello—world...", strip),
            "你好 世界 hello world"
        );
        assert_eq!(normalize("a.b", strip), "a b");
        let keep = NormalizeOptions::default();
        assert_eq!(normalize("你好，世界！", keep), "你好,世界!");
    }

    #[test]
    fn invisible_removed_and_into_appends() {
        let o = NormalizeOptions::default();
        assert_eq!(normalize("zero\u{200B}width\u{FEFF}", o), "zerowidth");
        let mut buf = String::from("x|");
        normalize_into("  A  B ", o, &mut buf);
        assert_eq!(buf, "x|a b");
    }

    #[test]
    fn ascii_fast_path_matches_general_path() {
        // The general path is taken when any non-ASCII character is present;
        // compare by appending a removed invisible character.
        for o in [
            NormalizeOptions::default(),
            NormalizeOptions::STRIP_PUNCTUATION,
        ] {
            for s in [
                "  Hello,\tWORLD!\x01 a_b  ",
                "x.y;z\x7f",
                "",
                "   ",
                "A-B'C",
            ] {
                let slow = normalize(&format!("{s}\u{200B}"), o);
                assert_eq!(normalize(s, o), slow, "{s:?}");
            }
        }
    }

    #[test]
    fn idempotent_on_samples() {
        for o in [
            NormalizeOptions::default(),
            NormalizeOptions::STRIP_PUNCTUATION,
        ] {
            for s in [
                "Ｈｅｌｌｏ,\u{3000}ＷＯＲＬＤ！",
                "中文 テキスト 한국어",
                "a  b\n\nc…",
            ] {
                let once = normalize(s, o);
                assert_eq!(normalize(&once, o), once);
            }
        }
    }

    /// The fast paths (pure ASCII text as one block-wise run, other text
    /// through `fastnorm`), as `String` and as bytes, against the
    /// per-character rules.
    fn same_as_reference(text: &str) {
        for o in NormalizeOptions::ALL {
            let mut slow = String::from("x");
            crate::reference::normalize_reference(text, o, &mut slow);
            let mut fast = String::from("x");
            normalize_into(text, o, &mut fast);
            assert_eq!(fast, slow, "{text:?} {o:?}");
            let mut bytes = b"x".to_vec();
            normalize_into_bytes(text, o, &mut bytes);
            assert_eq!(bytes, slow.as_bytes(), "{text:?} {o:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]

        #[test]
        fn ascii_fast_path_equals_reference(
            text in "[ -~\t\n\r\x0b\x0c\x01\x7f]{0,200}|([A-Za-z0-9_]{1,9}[ ,.;:!?'\"()/_-]{1,3}){0,30}"
        ) {
            same_as_reference(&text);
        }

        #[test]
        fn unicode_and_ascii_equal_reference(
            parts in proptest::collection::vec(
                proptest::prop_oneof!["[ -~]{1,40}", "\\PC{1,6}", "[\u{80}-\u{24F}\u{300}-\u{36F}\u{FF00}-\u{FFEF}\u{4E00}-\u{4E20}]{1,4}"],
                0..12,
            )
        ) {
            same_as_reference(&parts.concat());
        }
    }
}

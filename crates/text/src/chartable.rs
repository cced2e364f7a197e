//! The character table of the normalization fast path
//! ([`crate::fastnorm`]): one `u32` per character of the Basic
//! Multilingual Plane, built once per process, holding what the
//! per-character rules of [`crate::normalize`] need: the class (kept,
//! separator, invisible, punctuation), the lowercase form, whether NFKC
//! leaves the character as it is at a normalization boundary
//! ([`STABLE`]: quick check `Yes` and canonical combining class 0), and
//! whether its NFKC form is made of such characters ([`REPLACED`]).

use std::sync::OnceLock;

use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

use crate::script::{is_cjk, is_invisible, is_punctuation};

/// Bits 0..21 of an entry: the lowercase form (the character itself when
/// lowercasing gives several characters, see [`MULTI`]).
pub(crate) const CHAR_BITS: u32 = 0x1F_FFFF;
/// NFKC leaves the character as is and a normalization boundary precedes it.
pub(crate) const STABLE: u32 = 1 << 21;
/// Lowercasing gives more than one character (`İ`).
pub(crate) const MULTI: u32 = 1 << 22;
/// NFKC replaces the character by characters that are all [`STABLE`]
/// (full-width `，`, `Ａ`, the no-break space, `…`, `ﬁ`), and a
/// normalization boundary precedes it: bits 0..21 are then the index of
/// the replacement in [`CharTable::replacements`].
pub(crate) const REPLACED: u32 = 1 << 23;
/// The class, in bits 24..26.
pub(crate) const CLASS_SHIFT: u32 = 24;
pub(crate) const KEEP: u32 = 0;
pub(crate) const SEPARATOR: u32 = 1;
pub(crate) const INVISIBLE: u32 = 2;
pub(crate) const PUNCTUATION: u32 = 3;

/// The entry of one character: class, NFKC stability and lowercase form.
pub(crate) fn entry(c: char) -> u32 {
    let class = if is_cjk(c) {
        KEEP
    } else if c.is_whitespace() || c.is_control() {
        SEPARATOR
    } else if !c.is_ascii() && is_invisible(c) {
        INVISIBLE
    } else if is_punctuation(c) {
        PUNCTUATION
    } else {
        KEEP
    };
    let stable =
        canonical_combining_class(c) == 0 && is_nfkc_quick(std::iter::once(c)) == IsNormalized::Yes;
    let mut lower = c.to_lowercase();
    let (low, multi) = match (lower.next(), lower.next()) {
        _ if is_cjk(c) => (c, false),
        (Some(l), None) => (l, false),
        _ => (c, true),
    };
    (low as u32) | (stable as u32 * STABLE) | (multi as u32 * MULTI) | (class << CLASS_SHIFT)
}

/// The entries of the Basic Multilingual Plane, built on first use.
pub(crate) struct CharTable {
    entries: Box<[u32]>,
    /// The NFKC form of each [`REPLACED`] character.
    pub(crate) replacements: Vec<Box<str>>,
}

impl CharTable {
    pub(crate) fn get() -> &'static CharTable {
        static TABLE: OnceLock<CharTable> = OnceLock::new();
        TABLE.get_or_init(CharTable::build)
    }

    fn build() -> CharTable {
        let is_stable = |d: char| entry(d) & STABLE != 0;
        let mut replacements = Vec::new();
        let entries = (0..0x1_0000u32)
            .map(|u| {
                let Some(c) = char::from_u32(u) else {
                    return 0;
                };
                let e = entry(c);
                if e & STABLE != 0 || canonical_combining_class(c) != 0 {
                    return e;
                }
                let nfkc: String = std::iter::once(c).nfkc().collect();
                if nfkc.is_empty() || !nfkc.chars().all(is_stable) {
                    return e;
                }
                replacements.push(nfkc.into_boxed_str());
                (e & !CHAR_BITS) | REPLACED | (replacements.len() as u32 - 1)
            })
            .collect();
        CharTable {
            entries,
            replacements,
        }
    }

    #[inline]
    pub(crate) fn lookup(&self, c: char) -> u32 {
        match self.entries.get(c as usize) {
            Some(&e) => e,
            None => entry(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_entries() {
        let t = CharTable::get();
        for c in ['a', 'É', '’', '中', '\u{301}', 'İ', '\u{FEFF}', '😀'] {
            assert_eq!(t.lookup(c), entry(c), "{c:?}");
        }
        let flags = !(CHAR_BITS | REPLACED);
        assert_eq!(t.lookup('\u{A0}') & flags, entry('\u{A0}') & flags);
        assert_eq!(entry('\u{301}') & STABLE, 0);
        assert_ne!(entry('é') & STABLE, 0);
        assert_eq!(entry('\u{A0}') & STABLE, 0);
        let replaced = |c: char| {
            let e = t.lookup(c);
            (e & REPLACED != 0).then(|| &*t.replacements[(e & CHAR_BITS) as usize])
        };
        assert_eq!(replaced('，'), Some(","));
        assert_eq!(replaced('\u{A0}'), Some(" "));
        assert_eq!(replaced('…'), Some("..."));
        assert_eq!(replaced('Ａ'), Some("A"));
        assert_eq!(replaced('a'), None);
        assert_eq!(replaced('\u{301}'), None);
    }
}

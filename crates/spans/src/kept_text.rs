//! A document waiting on disk with the text of some units only: those
//! whose keys may have been met before ([`crate::seen_filter`]), which are
//! the only ones `--keep first` can mark. Read back, the document's text
//! is its kept units at their byte offsets and spaces elsewhere: what the
//! spans' offsets and the run's statistics read, in about a fifth of the
//! disk of the whole text (on real text where one document in four has
//! repeated paragraphs). Used when the run's sink does not need whole
//! texts ([`crate::SpanFinderBuilder::whole_text`]).

use std::io::{Read, Write};

use crate::analysis::Analysis;
use crate::deferred::{read_ranges, read_u32s, write_ranges, write_u32s};
use crate::error::Error;
use crate::spill::u64_at;

/// Tag of such a record (0 and 1 are a whole text and an error).
pub(crate) const KEPT_TEXT: u8 = 2;

/// Writes document `text`, analysed as `a`, keeping the text of the units
/// flagged in `kept`.
pub(crate) fn write_kept(
    w: &mut impl Write,
    text: &str,
    a: &Analysis,
    kept: &[bool],
) -> Result<(), Error> {
    debug_assert_eq!(kept.len(), a.units.len());
    w.write_all(&[KEPT_TEXT])?;
    w.write_all(&(text.len() as u64).to_le_bytes())?;
    w.write_all(&(a.chars as u64).to_le_bytes())?;
    write_ranges(w, &a.units)?;
    write_ranges(w, &a.unit_chars)?;
    write_u32s(w, a.key_unit.iter().copied())?;
    let flagged = (0..a.units.len() as u32).filter(|&u| kept[u as usize]);
    write_u32s(w, flagged.clone())?;
    for u in flagged {
        let (s, e) = a.units[u as usize];
        w.write_all(&text.as_bytes()[s..e])?;
    }
    Ok(())
}

/// Reads a record of [`write_kept`] (after its tag): the text with the
/// kept units in place and spaces elsewhere, its analysis (without keys),
/// and which units were kept.
pub(crate) fn read_kept(
    r: &mut impl Read,
    index: u32,
) -> Result<(String, Analysis, Vec<bool>), Error> {
    let bad = |what: &str| Error::corrupt(format!("document {index}: {what}"));
    let mut b = [0u8; 16];
    r.read_exact(&mut b)?;
    let (len, chars) = (u64_at(&b, 0), u64_at(&b, 8));
    if len > u32::MAX as u64 || chars > len {
        return Err(bad("a length is out of range"));
    }
    let units = read_ranges(r)?;
    let unit_chars = read_ranges(r)?;
    let key_unit = read_u32s(r)?;
    let flagged = read_u32s(r)?;
    let len = len as usize;
    let in_range = |&(s, e): &(usize, usize), n: usize| s <= e && e <= n;
    if unit_chars.len() != units.len()
        || !units.iter().all(|u| in_range(u, len))
        || !unit_chars.iter().all(|u| in_range(u, chars as usize))
        || key_unit.iter().any(|&u| u as usize >= units.len())
        || flagged.iter().any(|&u| u as usize >= units.len())
    {
        return Err(bad("a range is out of range"));
    }
    let mut text = vec![b' '; len];
    let mut kept = vec![false; units.len()];
    for u in flagged {
        let (s, e) = units[u as usize];
        r.read_exact(&mut text[s..e])?;
        kept[u as usize] = true;
    }
    let text = String::from_utf8(text).map_err(|_| bad("a unit's text is not UTF-8"))?;
    let a = Analysis {
        units,
        unit_chars,
        keys: vec![0; key_unit.len()],
        key_unit,
        chars: chars as usize,
        ..Default::default()
    };
    Ok((text, a, kept))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::SpanFinder;
    use crate::units::Unit;

    /// `text` analysed into paragraphs of any length.
    fn paragraphs(text: &str) -> Analysis {
        let finder = SpanFinder::builder()
            .unit(Unit::Paragraph)
            .min_chars(1)
            .build()
            .unwrap();
        finder.analyze(text, None)
    }

    fn record_bytes(text: &str, a: &Analysis, kept: &[bool]) -> Vec<u8> {
        let mut v = Vec::new();
        write_kept(&mut v, text, a, kept).unwrap();
        v
    }

    #[test]
    fn kept_units_read_back_in_place_with_spaces_elsewhere() {
        let text = "Première ligne, café.\n\nSecond paragraph here.\n\n第三段中文。\n\nFourth one.";
        let a = paragraphs(text);
        assert_eq!(a.units.len(), 4);
        let kept = [true, false, true, false];
        let bytes = record_bytes(text, &a, &kept);
        let mut r = &bytes[1..];
        let (sparse, b, got) = read_kept(&mut r, 3).unwrap();
        assert!(r.is_empty());
        assert_eq!(got, kept);
        assert_eq!(sparse.len(), text.len());
        assert_eq!(
            (b.chars, &b.units, &b.unit_chars),
            (a.chars, &a.units, &a.unit_chars)
        );
        assert_eq!(b.key_unit, a.key_unit);
        for (u, &(s, e)) in a.units.iter().enumerate() {
            if kept[u] {
                assert_eq!(&sparse[s..e], &text[s..e]);
            } else {
                assert!(sparse[s..e].bytes().all(|c| c == b' '));
            }
        }
    }

    #[test]
    fn a_damaged_record_is_an_error_naming_the_document() {
        let text = "One paragraph here.\n\nAnother paragraph there.";
        let a = paragraphs(text);
        let bytes = record_bytes(text, &a, &[true, true]);
        for cut in [3, 17, 30, bytes.len() - 1] {
            let mut r = &bytes[1..cut];
            assert!(read_kept(&mut r, 5).is_err(), "cut at {cut}");
        }
        // A unit's range past the text.
        let mut bad = bytes.clone();
        bad[1..9].copy_from_slice(&4u64.to_le_bytes());
        bad[9..17].copy_from_slice(&4u64.to_le_bytes());
        let e = read_kept(&mut &bad[1..], 5).unwrap_err().to_string();
        assert!(e.contains("document 5"), "{e}");
    }
}

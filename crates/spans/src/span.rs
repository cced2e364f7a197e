//! Spans: stretches of a document that repeat an earlier passage or a
//! reference item, and the rules that make them well formed (no overlap,
//! code point offsets).

use crate::analysis::RefMatch;
use crate::units::{Range, Unit};

/// What a span is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SpanKind {
    /// A repeated paragraph (exact or fuzzy).
    Paragraph,
    /// A repeated line.
    Line,
    /// A repeated sentence.
    Sentence,
    /// A stretch shared with a reference item.
    Reference,
    /// A repeated run of tokens.
    Substring,
}

impl SpanKind {
    /// The kind's name in the output (`paragraph`, `line`, `sentence`,
    /// `reference`).
    pub fn name(self) -> &'static str {
        match self {
            SpanKind::Paragraph => "paragraph",
            SpanKind::Line => "line",
            SpanKind::Sentence => "sentence",
            SpanKind::Reference => "reference",
            SpanKind::Substring => "substring",
        }
    }

    /// The kind of a repeated unit.
    pub fn of_unit(unit: Unit) -> SpanKind {
        match unit {
            Unit::Paragraph => SpanKind::Paragraph,
            Unit::Line => SpanKind::Line,
            Unit::Sentence => SpanKind::Sentence,
            Unit::Substring => SpanKind::Substring,
        }
    }
}

/// Where a span's passage was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// The document (its index in input order) that holds the first
    /// occurrence of the passage.
    First(u32),
    /// The reference item (its index in the reference set) it matched.
    Reference(u32),
}

/// One span of a document: byte offsets into its text and code point
/// offsets (as Python indexes a `str`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    /// Start, in bytes.
    pub start: usize,
    /// End (exclusive), in bytes.
    pub end: usize,
    /// Start and end, in code points.
    pub chars: (usize, usize),
    /// What it is.
    pub kind: SpanKind,
    /// Where it was seen.
    pub source: Source,
    /// The key of the repeated unit (exact units; 0 for fuzzy paragraphs,
    /// reference matches, pieces of units and spans read back from a
    /// partitioned run): what the statistics count copies by.
    pub key: u64,
}

/// Joins the repeated units of a document with its reference matches:
/// reference matches are kept whole and unit spans are cut around them
/// (pieces without a word character are dropped), so that no two spans
/// overlap. Both inputs are sorted and free of overlaps.
pub(crate) fn join(text: &str, units: Vec<Span>, refs: &[RefMatch]) -> Vec<Span> {
    if refs.is_empty() {
        return units;
    }
    let mut out: Vec<Span> = refs
        .iter()
        .map(|m| Span {
            start: m.range.0,
            end: m.range.1,
            chars: m.chars,
            kind: SpanKind::Reference,
            source: Source::Reference(m.reference),
            key: 0,
        })
        .collect();
    for u in units {
        let mut from = u.start;
        for r in refs.iter().map(|m| m.range) {
            if r.1 <= from || r.0 >= u.end {
                continue;
            }
            push_piece(text, &u, (from, r.0.max(from)), &mut out);
            from = r.1.min(u.end);
        }
        push_piece(text, &u, (from, u.end), &mut out);
    }
    out.sort_by_key(|s| s.start);
    out
}

fn push_piece(text: &str, unit: &Span, (s, e): Range, out: &mut Vec<Span>) {
    if s >= e {
        return;
    }
    let piece = &text[s..e];
    // A piece of a substring span keeps its shape: from a token's start to
    // a token's end (the other units' pieces are trimmed of whitespace).
    let t = if unit.kind == SpanKind::Substring {
        piece.trim_matches(|c| !(neardup_text::is_word_char(c) || neardup_text::is_cjk(c)))
    } else {
        piece.trim()
    };
    // `t` is a slice of `piece`: its offset is what was trimmed at the start.
    let lead = t.as_ptr() as usize - piece.as_ptr() as usize;
    if !t.chars().any(neardup_text::is_word_char) && !t.chars().any(neardup_text::is_cjk) {
        return;
    }
    let (start, end) = (s + lead, s + lead + t.len());
    let whole = (start, end) == (unit.start, unit.end);
    let c0 = unit.chars.0 + char_len(&text[unit.start..start]);
    out.push(Span {
        start,
        end,
        chars: (c0, c0 + char_len(t)),
        key: if whole { unit.key } else { 0 },
        ..*unit
    });
}

/// Converts sorted byte offsets of `text` to code point offsets (as Python
/// indexes a `str`), in one pass.
pub fn char_offsets(text: &str, byte_offsets: &[usize]) -> Vec<usize> {
    let bytes = text.as_bytes();
    if text.is_ascii() {
        return byte_offsets.to_vec();
    }
    let mut out = Vec::with_capacity(byte_offsets.len());
    let (mut pos, mut chars) = (0usize, 0usize);
    for &b in byte_offsets {
        let b = b.min(bytes.len());
        if b >= pos {
            chars += bytes[pos..b].iter().filter(|&&x| x & 0xC0 != 0x80).count();
            pos = b;
        } else {
            chars = bytes[..b].iter().filter(|&&x| x & 0xC0 != 0x80).count();
            pos = b;
        }
        out.push(chars);
    }
    out
}

/// Number of code points of `text`.
pub fn char_len(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.as_bytes()
            .iter()
            .filter(|&&x| x & 0xC0 != 0x80)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(start: usize, end: usize) -> Span {
        Span {
            start,
            end,
            chars: (start, end),
            kind: SpanKind::Paragraph,
            source: Source::First(0),
            key: 0,
        }
    }

    #[test]
    fn unit_spans_are_cut_around_reference_matches() {
        let text = "alpha beta gamma delta epsilon zeta";
        let refs = [RefMatch {
            range: (11, 22),
            chars: (11, 22),
            reference: 3,
        }];
        let got = join(text, vec![unit(0, text.len())], &refs);
        let shown: Vec<(&str, SpanKind)> = got
            .iter()
            .map(|s| (&text[s.start..s.end], s.kind))
            .collect();
        assert_eq!(
            shown,
            [
                ("alpha beta", SpanKind::Paragraph),
                ("gamma delta", SpanKind::Reference),
                ("epsilon zeta", SpanKind::Paragraph)
            ]
        );
        // A unit inside a match disappears; punctuation pieces are dropped.
        let text2 = "gamma delta, !";
        let refs2 = [RefMatch {
            range: (0, 11),
            chars: (0, 11),
            reference: 0,
        }];
        assert_eq!(join(text2, vec![unit(0, text2.len())], &refs2).len(), 1);
    }

    #[test]
    fn code_point_offsets() {
        let t = "aé世b😀c";
        let offs: Vec<usize> = t.char_indices().map(|(i, _)| i).chain([t.len()]).collect();
        assert_eq!(char_offsets(t, &offs), (0..=6).collect::<Vec<_>>());
        assert_eq!(char_len(t), 6);
        assert_eq!(char_offsets("abc", &[0, 2]), [0, 2]);
    }
}

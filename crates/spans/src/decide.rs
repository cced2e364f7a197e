//! The one rule that turns what the index says about a document's keys into
//! its repeated units. Both indexes (the streaming one and the partitioned
//! one) answer per key; this decides per unit, so every path gives the same
//! spans.
//!
//! * Exact units have one key: the unit is a span when its key was seen in
//!   an earlier unit (`--keep first`) or in any other unit (`--keep none`).
//! * Fuzzy paragraphs have one key per word n-gram: the paragraph is a span
//!   when at least `overlap` of its n-grams were (dolma's rule); the whole
//!   paragraph is the span.
//!
//! A span names the document of the first occurrence: for a fuzzy
//! paragraph, the document most of its matched n-grams were first seen in
//! (the earliest on a tie).

use crate::analysis::Analysis;
use crate::span::{Source, Span, SpanKind};

/// What the index says of one key: the document of its first occurrence,
/// when the key counts as seen (see the module documentation).
pub(crate) type KeyMatch = Option<u32>;

/// The repeated units of a document analysed as `a`, given one
/// [`KeyMatch`] per key.
pub(crate) fn unit_spans(
    a: &Analysis,
    matches: &[KeyMatch],
    kind: SpanKind,
    overlap: f64,
) -> Vec<Span> {
    debug_assert_eq!(matches.len(), a.keys.len());
    let mut out = Vec::new();
    let mut lo = 0usize;
    let mut votes: Vec<u32> = Vec::new();
    while lo < a.key_unit.len() {
        let unit = a.key_unit[lo];
        let mut hi = lo;
        while hi < a.key_unit.len() && a.key_unit[hi] == unit {
            hi += 1;
        }
        votes.clear();
        votes.extend(matches[lo..hi].iter().flatten());
        let total = hi - lo;
        if is_repeat(votes.len(), total, overlap) {
            let (start, end) = a.units[unit as usize];
            out.push(Span {
                start,
                end,
                chars: a
                    .unit_chars
                    .get(unit as usize)
                    .copied()
                    .unwrap_or((start, end)),
                kind,
                source: Source::First(majority(&mut votes)),
                key: if total == 1 { a.keys[lo] } else { 0 },
            });
        }
        lo = hi;
    }
    out
}

/// Whether `matched` of `total` keys make the unit a repeat.
fn is_repeat(matched: usize, total: usize, overlap: f64) -> bool {
    if total == 1 {
        return matched == 1;
    }
    matched > 0 && matched as f64 >= overlap * total as f64 - 1e-9
}

/// The most frequent document, the earliest on a tie.
fn majority(votes: &mut [u32]) -> u32 {
    votes.sort_unstable();
    let (mut best, mut best_n) = (votes[0], 0usize);
    let mut i = 0;
    while i < votes.len() {
        let mut j = i;
        while j < votes.len() && votes[j] == votes[i] {
            j += 1;
        }
        if j - i > best_n {
            best = votes[i];
            best_n = j - i;
        }
        i = j;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analysis(units: usize, keys_per_unit: usize) -> Analysis {
        let mut a = Analysis::default();
        for u in 0..units {
            a.units.push((u * 10, u * 10 + 9));
            for k in 0..keys_per_unit {
                a.keys.push((u * 100 + k) as u64);
                a.key_unit.push(u as u32);
            }
        }
        a
    }

    #[test]
    fn exact_units_are_spans_when_their_key_was_seen() {
        let a = analysis(3, 1);
        let s = unit_spans(&a, &[None, Some(4), None], SpanKind::Line, 0.8);
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].start, s[0].source), (10, Source::First(4)));
    }

    #[test]
    fn fuzzy_paragraphs_need_the_overlap() {
        let a = analysis(2, 5);
        let mut m = vec![None; 10];
        // Paragraph 0: 4 of 5 seen (0.8), in documents 7, 7, 2, 2 → 2.
        m[0] = Some(7);
        m[1] = Some(7);
        m[2] = Some(2);
        m[3] = Some(2);
        // Paragraph 1: 3 of 5 (0.6).
        m[5] = Some(1);
        m[6] = Some(1);
        m[7] = Some(1);
        let s = unit_spans(&a, &m, SpanKind::Paragraph, 0.8);
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].start, s[0].source), (0, Source::First(2)));
        assert_eq!(unit_spans(&a, &m, SpanKind::Paragraph, 0.6).len(), 2);
    }
}

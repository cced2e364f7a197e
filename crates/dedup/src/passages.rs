//! Shared passages of two texts, for showing a pair side by side: the
//! words of the `k`-word shingles both texts have, and the words of a text
//! that are in no shared shingle. Words are runs of letters and digits,
//! compared lowercased; a CJK character is a word of its own (as the
//! engine's shingles of characters). The report (`neardup report`) and
//! the service's `/v1/explain` mark texts with these.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::ops::Range;

/// What a piece of a text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Words of shingles the other text has too.
    Shared,
    /// Words in no shingle of the other text.
    Only,
    /// What lies between words (spaces, punctuation).
    Other,
}

/// A piece of a text: its byte range and what it is. The segments of a
/// text cover it whole, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Byte range in the text.
    pub range: Range<usize>,
    /// What it is.
    pub mark: Mark,
}

/// A word: its byte range in the text and its normalized hash.
struct Word {
    start: usize,
    end: usize,
    hash: u64,
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

fn hash_word(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    for c in s.chars().flat_map(char::to_lowercase) {
        c.hash(&mut h);
    }
    h.finish()
}

fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let close = |start: &mut Option<usize>, end: usize, out: &mut Vec<Word>| {
        if let Some(s) = start.take() {
            out.push(Word {
                start: s,
                end,
                hash: hash_word(&text[s..end]),
            });
        }
    };
    for (i, c) in text.char_indices() {
        if is_cjk(c) {
            close(&mut start, i, &mut out);
            let end = i + c.len_utf8();
            out.push(Word {
                start: i,
                end,
                hash: hash_word(&text[i..end]),
            });
        } else if c.is_alphanumeric() {
            start.get_or_insert(i);
        } else {
            close(&mut start, i, &mut out);
        }
    }
    close(&mut start, text.len(), &mut out);
    out
}

fn shingle(ws: &[Word]) -> u64 {
    let mut h = DefaultHasher::new();
    for w in ws {
        w.hash.hash(&mut h);
    }
    h.finish()
}

fn shingles(ws: &[Word], k: usize) -> HashSet<u64> {
    if ws.len() < k {
        return std::iter::once(shingle(ws)).collect();
    }
    ws.windows(k).map(shingle).collect()
}

/// The segments of `a` and of `b`, with what each shares with the other
/// marked ([`Mark::Shared`]) at shingles of `k` words (at least 1).
///
/// ```
/// use neardup_dedup::{shared_passages, Mark};
///
/// let a = "The library reopens on Monday after repairs.";
/// let (sa, _) = shared_passages(a, "the LIBRARY reopens on monday, says the mayor", 3);
/// assert_eq!(&a[sa[0].range.clone()], "The library reopens on Monday");
/// assert_eq!(sa[0].mark, Mark::Shared);
/// ```
pub fn shared_passages(a: &str, b: &str, k: usize) -> (Vec<Segment>, Vec<Segment>) {
    let k = k.max(1);
    let (wa, wb) = (words(a), words(b));
    let (sa, sb) = (shingles(&wa, k), shingles(&wb, k));
    (segments(a, &wa, &sb, k), segments(b, &wb, &sa, k))
}

/// `text` cut into segments, the words of shingles in `other` shared.
fn segments(text: &str, ws: &[Word], other: &HashSet<u64>, k: usize) -> Vec<Segment> {
    let mut shared = vec![false; ws.len()];
    if ws.len() < k {
        if !ws.is_empty() && other.contains(&shingle(ws)) {
            shared.iter_mut().for_each(|s| *s = true);
        }
    } else {
        for (i, w) in ws.windows(k).enumerate() {
            if other.contains(&shingle(w)) {
                shared[i..i + k].iter_mut().for_each(|s| *s = true);
            }
        }
    }
    let mut out = Vec::new();
    let mut push = |range: Range<usize>, mark: Mark| {
        if !range.is_empty() {
            out.push(Segment { range, mark });
        }
    };
    let mut pos = 0;
    let mut i = 0;
    while i < ws.len() {
        let state = shared[i];
        let mut j = i;
        while j + 1 < ws.len() && shared[j + 1] == state {
            j += 1;
        }
        push(pos..ws[i].start, Mark::Other);
        let mark = if state { Mark::Shared } else { Mark::Only };
        push(ws[i].start..ws[j].end, mark);
        pos = ws[j].end;
        i = j + 1;
    }
    push(pos..text.len(), Mark::Other);
    out
}

/// `text` cut after `max_chars` characters, and whether it was cut.
pub fn cut_chars(text: &str, max_chars: usize) -> (&str, bool) {
    match text.char_indices().nth(max_chars) {
        Some((i, _)) => (&text[..i], true),
        None => (text, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(text: &str, segs: &[Segment]) -> Vec<(String, Mark)> {
        segs.iter()
            .map(|s| (text[s.range.clone()].to_string(), s.mark))
            .collect()
    }

    #[test]
    fn segments_cover_the_text_and_mark_shared_runs() {
        let a = "The library reopens on Monday after repairs.";
        let b = "the LIBRARY reopens on monday, says <b>the mayor</b>";
        let (sa, sb) = shared_passages(a, b, 3);
        assert_eq!(
            marked(a, &sa),
            vec![
                ("The library reopens on Monday".into(), Mark::Shared),
                (" ".into(), Mark::Other),
                ("after repairs".into(), Mark::Only),
                (".".into(), Mark::Other),
            ]
        );
        for (text, segs) in [(a, &sa), (b, &sb)] {
            let joined: String = segs.iter().map(|s| &text[s.range.clone()]).collect();
            assert_eq!(joined, text);
        }
        assert_eq!(sb[0].mark, Mark::Shared);
        assert!(sb.iter().any(|s| s.mark == Mark::Only));
    }

    #[test]
    fn cjk_characters_are_words_and_short_texts_are_one_shingle() {
        let (a, _) = shared_passages("图书馆周一重新开放", "图书馆周一重新开放了", 3);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].mark, Mark::Shared);
        let (a, _) = shared_passages("two words", "two words", 5);
        assert_eq!(a[0].mark, Mark::Shared);
        let (a, _) = shared_passages("two words", "other words", 5);
        assert!(a.iter().all(|s| s.mark != Mark::Shared));
        assert!(shared_passages("", "x", 3).0.is_empty());
    }

    #[test]
    fn cut_counts_characters() {
        assert_eq!(cut_chars("héllo", 2), ("hé", true));
        assert_eq!(cut_chars("héllo", 5), ("héllo", false));
    }
}

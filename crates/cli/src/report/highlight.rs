//! Marking what two texts share: words of the `k`-word shingles both texts
//! have get `<mark>`, words of a text that are in no shared shingle get
//! `<span class="only">`. Words are runs of letters and digits, lowercased;
//! a CJK character is a word of its own (as the engine's shingles of
//! characters). Everything else is copied, escaped.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use super::html::escape;

/// Characters of a text shown at most; the rest is cut with a note.
pub const MAX_CHARS: usize = 100_000;

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

/// The text cut to [`MAX_CHARS`] characters, and whether it was cut.
fn shown(text: &str) -> (&str, bool) {
    match text.char_indices().nth(MAX_CHARS) {
        Some((i, _)) => (&text[..i], true),
        None => (text, false),
    }
}

/// `a` and `b` as HTML, each with what it shares with the other marked,
/// and the share of words of each in shared shingles.
pub fn pair(a: &str, b: &str, k: usize) -> (String, String) {
    let k = k.max(1);
    let (a, cut_a) = shown(a);
    let (b, cut_b) = shown(b);
    let (wa, wb) = (words(a), words(b));
    let (sa, sb) = (shingles(&wa, k), shingles(&wb, k));
    (render(a, &wa, &sb, k, cut_a), render(b, &wb, &sa, k, cut_b))
}

/// `text` with the words of shingles in `other` marked.
fn render(text: &str, ws: &[Word], other: &HashSet<u64>, k: usize, cut: bool) -> String {
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
    let mut out = String::with_capacity(text.len() * 5 / 4);
    let mut pos = 0;
    let mut i = 0;
    while i < ws.len() {
        let state = shared[i];
        let mut j = i;
        while j + 1 < ws.len() && shared[j + 1] == state {
            j += 1;
        }
        out.push_str(&escape(&text[pos..ws[i].start]));
        let (open, close) = if state {
            ("<mark>", "</mark>")
        } else {
            ("<span class=\"only\">", "</span>")
        };
        out.push_str(open);
        out.push_str(&escape(&text[ws[i].start..ws[j].end]));
        out.push_str(close);
        pos = ws[j].end;
        i = j + 1;
    }
    out.push_str(&escape(&text[pos..]));
    if cut {
        out.push_str(&format!(
            "\n<span class=\"note\">[cut after {MAX_CHARS} characters]</span>"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_runs_are_marked_and_the_rest_is_not() {
        let (a, b) = pair(
            "The library reopens on Monday after repairs.",
            "the LIBRARY reopens on monday, says <b>the mayor</b>",
            3,
        );
        assert!(
            a.starts_with("<mark>The library reopens on Monday</mark>"),
            "{a}"
        );
        assert!(
            a.contains("<span class=\"only\">after repairs</span>."),
            "{a}"
        );
        assert!(b.contains("&lt;b&gt;"), "{b}");
        assert!(!b.contains("<b>"), "{b}");
    }

    #[test]
    fn cjk_characters_are_words() {
        let (a, _) = pair("图书馆周一重新开放", "图书馆周一重新开放了", 3);
        assert_eq!(a, "<mark>图书馆周一重新开放</mark>");
    }
}

//! The substring unit against the rule of docs/spans.md written out, on random
//! small corpora over a tiny alphabet (so that windows repeat a lot), with
//! documents that fail to read, empty documents and documents of
//! punctuation only in the middle: in memory, and past a tiny memory
//! budget (the stream moved to disk part way, decided in several rounds),
//! with documents tokenized by their analysis or, past a random
//! `long_document_bytes`, by the run, and by windows keyed by fingerprint
//! (the distributed path), byte for byte the same.

use std::collections::HashMap;

mod common;

use common::{run, substring_finder, Row};
use neardup_spans::{Keep, Source, SpanFinder};
use neardup_text::{normalize, NormalizeOptions};
use proptest::prelude::*;

/// Words of the alphabet: case, width and NFKC variants of a few tokens
/// (`ﬁ` is `fi`, `Ａ` is `a`), a CJK character (a token of its own, even
/// next to another) and a two-byte letter.
const WORDS: &[&str] = &["a", "A", "Ａ", "b", "fi", "ﬁ", "é", "É", "世界", "ab"];
const GLUE: &[&str] = &[" ", ", ", " — ", "\n", "!? ", "'"];

/// A document: `None` fails to read; otherwise words (indices into
/// `WORDS`, or a filler of unique words) and glue.
#[derive(Debug, Clone)]
enum Doc {
    Failed,
    Text(Vec<(usize, usize)>, usize),
    Punctuation(usize),
    Filler(usize),
    /// One word repeated (with the glue after each).
    Repeated(usize, usize, usize),
}

fn doc() -> impl Strategy<Value = Doc> {
    prop_oneof![
        1 => Just(Doc::Failed),
        1 => (0usize..3).prop_map(Doc::Punctuation),
        1 => (0..WORDS.len(), 0..GLUE.len(), 1usize..40).prop_map(|(w, g, n)| Doc::Repeated(w, g, n)),
        8 => (
            prop::collection::vec((0..WORDS.len(), 0..GLUE.len()), 0..24),
            0..GLUE.len()
        )
            .prop_map(|(w, g)| Doc::Text(w, g)),
    ]
}

fn text_of(d: &Doc) -> Option<String> {
    match d {
        Doc::Failed => None,
        Doc::Punctuation(k) => Some(["", "...", " ,; — !"][*k].to_string()),
        Doc::Text(words, lead) => {
            let mut t = GLUE[*lead].to_string();
            for &(w, g) in words {
                t.push_str(WORDS[w]);
                t.push_str(GLUE[g]);
            }
            Some(t)
        }
        Doc::Repeated(w, g, n) => Some(format!("{}{}", WORDS[*w], GLUE[*g]).repeat(*n)),
        Doc::Filler(n) => Some(
            (0..*n)
                .map(|i| format!("filler{i}"))
                .collect::<Vec<_>>()
                .join(" "),
        ),
    }
}

/// The same rows by the distributed path (`neardup.spark.spans`): each
/// document's windows keyed by fingerprint and length, the earliest
/// occurrence of each key in (document, position) order and its count,
/// then each document's spans from its copied windows.
fn by_windows(f: &SpanFinder, docs: &[Option<String>], keep: Keep) -> Vec<Row> {
    let analysed: Vec<Option<(String, neardup_spans::Analysis)>> = docs
        .iter()
        .map(|t| t.as_ref().map(|t| (t.clone(), f.analyze(t, None))))
        .collect();
    let windows: Vec<Vec<neardup_spans::SubstringWindow>> = analysed
        .iter()
        .map(|a| {
            a.as_ref()
                .map_or(Vec::new(), |(_, a)| f.substring_windows(a))
        })
        .collect();
    // Per window key (fingerprint, length): earliest (document, position)
    // and count.
    type Key = ((u64, u64), u32);
    let mut first: HashMap<Key, ((u32, u32), usize)> = HashMap::new();
    for (d, ws) in windows.iter().enumerate() {
        for w in ws {
            let e = first
                .entry((w.fingerprint, w.length))
                .or_insert(((d as u32, w.position), 0));
            e.1 += 1;
        }
    }
    let mut rows = Vec::new();
    for (d, a) in analysed.iter().enumerate() {
        let Some((text, a)) = a else {
            let msg = format!("document {d} could not be read");
            rows.push((d as u32, format!("d{d}"), Some(msg), Vec::new()));
            continue;
        };
        let copies: Vec<(u32, u32, u32)> = windows[d]
            .iter()
            .filter_map(|w| {
                let &(at, n) = &first[&(w.fingerprint, w.length)];
                let copied = match keep {
                    Keep::First => at != (d as u32, w.position),
                    Keep::None => n > 1,
                };
                copied.then_some((w.position, w.length, at.0))
            })
            .collect();
        let spans = f.substring_spans(text, a, &copies).unwrap();
        let spans = spans
            .iter()
            .map(|s| {
                let Source::First(src) = s.source else {
                    panic!("a substring span names a reference")
                };
                (s.start, s.end, s.chars.0, s.chars.1, format!("d{src}"))
            })
            .collect();
        rows.push((d as u32, format!("d{d}"), None, spans));
    }
    rows
}

/// A token: its byte range and normalized text.
struct Tok {
    range: (usize, usize),
    norm: String,
}

/// Checks `rows` against the rule: the covered tokens are those of the
/// windows occurring earlier (elsewhere), spans run from a token's start
/// to a token's end, code points count right, `first` names the document
/// of the earliest occurrence of the window a span starts with, and a span
/// continuing the one before names another document.
fn check(docs: &[Option<String>], rows: &[Row], min_tokens: usize, min_bytes: usize, keep: Keep) {
    let mut toks: Vec<Vec<Tok>> = Vec::new();
    for text in docs {
        let Some(text) = text else {
            toks.push(Vec::new());
            continue;
        };
        let base = text.as_ptr() as usize;
        toks.push(
            neardup_text::tokens(text)
                .map(|t| {
                    let s = t.as_ptr() as usize - base;
                    Tok {
                        range: (s, s + t.len()),
                        norm: normalize(t, NormalizeOptions::KEEP_PUNCTUATION),
                    }
                })
                .collect(),
        );
    }
    // The window at each token: the shortest run from it with enough
    // tokens and bytes (joined by single spaces), inside its document.
    let window = |d: usize, i: usize| -> Option<usize> {
        let t = &toks[d];
        let mut bytes = 0;
        for k in 1..=t.len() - i {
            bytes += t[i + k - 1].norm.len() + usize::from(k > 1);
            if k >= min_tokens && bytes >= min_bytes {
                return Some(k);
            }
        }
        None
    };
    let mut occ: HashMap<Vec<&str>, Vec<(usize, usize)>> = HashMap::new();
    let mut win = vec![Vec::new(); docs.len()];
    for d in 0..docs.len() {
        for i in 0..toks[d].len() {
            let w = window(d, i);
            win[d].push(w);
            if let Some(w) = w {
                let key = toks[d][i..i + w].iter().map(|t| t.norm.as_str()).collect();
                occ.entry(key).or_default().push((d, i));
            }
        }
    }
    let key = |d: usize, i: usize, w: usize| -> Vec<&str> {
        toks[d][i..i + w].iter().map(|t| t.norm.as_str()).collect()
    };
    // Per token: the earliest documents of the copied windows covering it.
    let mut cover: Vec<Vec<Vec<usize>>> = toks.iter().map(|t| vec![Vec::new(); t.len()]).collect();
    let mut copied_at: Vec<Vec<Option<usize>>> = toks.iter().map(|t| vec![None; t.len()]).collect();
    for d in 0..docs.len() {
        for i in 0..toks[d].len() {
            let Some(w) = win[d][i] else { continue };
            let o = &occ[&key(d, i, w)];
            let copy = match keep {
                Keep::First => o[0] != (d, i),
                Keep::None => o.len() > 1,
            };
            if copy {
                copied_at[d][i] = Some(o[0].0);
                for c in &mut cover[d][i..i + w] {
                    c.push(o[0].0);
                }
            }
        }
    }
    assert_eq!(rows.len(), docs.len());
    for (d, row) in rows.iter().enumerate() {
        assert_eq!(row.0 as usize, d);
        assert_eq!(row.1, format!("d{d}"));
        assert_eq!(row.2.is_some(), docs[d].is_none(), "doc {d}: error");
        let text = docs[d].as_deref().unwrap_or("");
        let t = &toks[d];
        let mut got = vec![false; t.len()];
        let mut prev: Option<(usize, String)> = None;
        for (a, b, ca, cb, first) in &row.3 {
            let from = t.iter().position(|x| x.range.0 == *a);
            let to = t.iter().position(|x| x.range.1 == *b);
            let (Some(from), Some(to)) = (from, to) else {
                panic!("doc {d}: span {a}..{b} is not on token boundaries in {text:?}");
            };
            assert!(from <= to);
            assert_eq!(*ca, text[..*a].chars().count(), "doc {d}: code points");
            assert_eq!(*cb, text[..*b].chars().count(), "doc {d}: code points");
            for g in &mut got[from..=to] {
                assert!(!*g, "doc {d}: overlapping spans");
                *g = true;
            }
            let named: usize = first[1..].parse().unwrap();
            assert!(
                cover[d][from].contains(&named),
                "doc {d}: span {a}..{b} names d{named}, not the first of a window over it"
            );
            match &prev {
                Some((end, f)) if *end == from => {
                    assert_ne!(f, first, "doc {d}: adjacent spans naming the same document")
                }
                _ => assert_eq!(
                    copied_at[d][from],
                    Some(named),
                    "doc {d}: span {a}..{b} does not name the earliest copy of its window"
                ),
            }
            prev = Some((to + 1, first.clone()));
        }
        let want: Vec<bool> = cover[d].iter().map(|c| !c.is_empty()).collect();
        assert_eq!(got, want, "doc {d}: covered tokens of {text:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn substring_spans_follow_the_rule_in_memory_and_on_disk(
        mut docs in prop::collection::vec(doc(), 1..12),
        // (Some runs' windows are longer than every document.)
        min_tokens in prop_oneof![4 => 1usize..5, 1 => 30usize..45],
        min_bytes in prop_oneof![Just(0u64), 1u64..16],
        keep_none in any::<bool>(),
        filler in (0usize..12, 1800usize..5000),
        // Documents from this many bytes are tokenized by the run.
        long in prop_oneof![Just(usize::MAX), 0usize..80],
    ) {
        let keep = if keep_none { Keep::None } else { Keep::First };
        // A document of unique words past the 64 KiB budget: the stream
        // goes to disk there (what came before it moves along), in rounds.
        let at = filler.0.min(docs.len());
        docs.insert(at, Doc::Filler(filler.1));
        let texts: Vec<Option<String>> = docs.iter().map(text_of).collect();
        let dir = neardup_testkit::TempDir::new("substring-props");
        let (mem, from) = run(&substring_finder(min_tokens, min_bytes, keep, 1 << 30, long, &dir), &texts, false);
        prop_assert_eq!(from, None);
        check(&texts, &mem, min_tokens, min_bytes as usize, keep);
        let (disk, from) = run(&substring_finder(min_tokens, min_bytes, keep, 64 << 10, long, &dir), &texts, false);
        prop_assert_eq!(from, Some(at as u32));
        prop_assert_eq!(&mem, &disk);
        // The windows of every document, its tokens kept by `analyze`.
        let f = substring_finder(min_tokens, min_bytes, keep, 1 << 30, usize::MAX, &dir);
        prop_assert_eq!(&mem, &by_windows(&f, &texts, keep));
    }
}

/// A document's own new tokens count against the budget before it is
/// taken in: one document of 3000 distinct words needs 16 bytes a token
/// for the suffix array pass and at least 36 a distinct token for the ids
/// (over 150 KB), past a 64 KiB budget, so the run decides it on disk.
#[test]
fn one_document_of_distinct_words_goes_to_disk_under_a_small_budget() {
    let dir = neardup_testkit::TempDir::new("substring-one-doc");
    let texts = vec![Some(text_of(&Doc::Filler(3000)).unwrap())];
    let (rows, from) = run(
        &substring_finder(1, 0, Keep::First, 64 << 10, 0, &dir),
        &texts,
        false,
    );
    assert_eq!(from, Some(0));
    assert!(rows[0].3.is_empty());
}

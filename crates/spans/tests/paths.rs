//! Every path of a run (streaming, partitioned from the start, switched to
//! partitions part way) against a brute-force reference, for each unit and
//! keep policy.

use std::collections::{HashMap, HashSet};

use neardup_spans::{Emitted, Keep, SpanFinder, Unit};
use neardup_text::{normalize, NormalizeOptions};

const LINES: &[&str] = &[
    "The council approved the new cycle lanes on the high street.",
    "Subscribe to our newsletter for the latest updates.",
    "© 2024 Example Media Group. All rights reserved.",
    "Work will start in the spring and should last four months.",
    "“Quoted words,” she said, ‘are not the same’ — or are they?",
    "Die Bürgermeisterin eröffnete die Bibliothek am Montag.",
    "图书馆周一重新开放，市民可以免费借阅图书。",
    "本网站所有内容均受版权保护，未经许可不得转载。",
    "Share this article on social media with your friends.",
    "A short one.",
    "SUBSCRIBE to our newsletter, for the latest updates!",
    "The museum will stay closed until the roof is repaired.",
];

/// A deterministic corpus: documents of lines and sentences from `LINES`
/// plus unique lines.
fn corpus(n: usize, seed: u64) -> Vec<(String, String)> {
    let mut s = seed;
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) as usize
    };
    (0..n)
        .map(|d| {
            let lines = 1 + next() % 6;
            let mut text = String::new();
            for l in 0..lines {
                if l > 0 {
                    text.push_str(if next() % 5 == 0 { "\n\n" } else { "\n" });
                }
                match next() % 3 {
                    0 => text.push_str(&format!(
                        "Unique line {d}-{l} with its own words, number {}.",
                        next()
                    )),
                    1 => {
                        text.push_str(LINES[next() % LINES.len()]);
                        text.push(' ');
                        text.push_str(LINES[next() % LINES.len()]);
                    }
                    _ => text.push_str(LINES[next() % LINES.len()]),
                }
            }
            (format!("d{d}"), text)
        })
        .collect()
}

/// Spans: document, byte range, document named, text.
type Found = Vec<(String, usize, usize, String, String)>;

fn run_with_stats(finder: &SpanFinder, docs: &[(String, String)]) -> (Found, Option<u32>) {
    run_counting_sparse(finder, docs).0
}

/// As [`run_with_stats`], and the documents given without their whole
/// text (the same length, spaces for some of it).
fn run_counting_sparse(
    finder: &SpanFinder,
    docs: &[(String, String)],
) -> ((Found, Option<u32>), usize) {
    let mut found = Found::new();
    let mut sparse = 0;
    let mut sink = |e: &Emitted<'_>| {
        let whole = &docs[e.index as usize].1;
        assert_eq!(e.text.len(), whole.len(), "{}", e.id);
        sparse += usize::from(e.text != whole);
        for s in e.spans {
            let text = e.text[s.start..s.end].to_string();
            assert_eq!(text, whole[s.start..s.end], "{}", e.id);
            found.push((
                e.id.to_string(),
                s.start,
                s.end,
                e.source_id(s).to_string(),
                text,
            ));
        }
        Ok(())
    };
    let mut r = finder.run().unwrap();
    for (id, text) in docs {
        let a = finder.analyze(text, None);
        r.push(id, Ok((text.clone(), a)), &mut sink).unwrap();
    }
    let stats = r.finish(&mut sink).unwrap();
    ((found, stats.partitioned_from), sparse)
}

/// Units written out: trimmed non-empty lines, or sentences.
fn units(text: &str, unit: Unit) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let base = text.as_ptr() as usize;
    match unit {
        Unit::Sentence => {
            let f = SpanFinder::builder()
                .unit(Unit::Sentence)
                .min_chars(0)
                .build()
                .unwrap();
            // Sentence ranges come from the library; the reference checks
            // what is decided about them.
            let a = f.analyze(text, None);
            return (0..a.units()).map(|i| unit_range(&a, i)).collect();
        }
        _ => {
            for line in text.split('\n') {
                let t = line.trim();
                if !t.is_empty() {
                    let s = t.as_ptr() as usize - base;
                    out.push((s, s + t.len()));
                }
            }
        }
    }
    out
}

fn unit_range(a: &neardup_spans::Analysis, i: usize) -> (usize, usize) {
    a.unit_range(i)
}

/// The rule written out: a unit is a span when its normalized text (20+
/// characters) is in an earlier unit (keep first) or in another unit
/// (keep none); it names the first document holding it.
fn brute_force(docs: &[(String, String)], unit: Unit, keep: Keep) -> Found {
    let key = |t: &str| {
        let n = normalize(t, NormalizeOptions::STRIP_PUNCTUATION);
        (n.chars().count() >= 20).then_some(n)
    };
    let mut first: HashMap<String, (usize, usize)> = HashMap::new();
    let mut count: HashMap<String, HashSet<(usize, usize)>> = HashMap::new();
    for (d, (_, text)) in docs.iter().enumerate() {
        for (u, (s, e)) in units(text, unit).into_iter().enumerate() {
            if let Some(k) = key(&text[s..e]) {
                first.entry(k.clone()).or_insert((d, u));
                count.entry(k).or_default().insert((d, u));
            }
        }
    }
    let mut out = Found::new();
    for (d, (id, text)) in docs.iter().enumerate() {
        for (u, (s, e)) in units(text, unit).into_iter().enumerate() {
            let Some(k) = key(&text[s..e]) else { continue };
            let f = first[&k];
            let span = match keep {
                Keep::First => f != (d, u),
                Keep::None => count[&k].len() > 1,
            };
            if span {
                out.push((id.clone(), s, e, docs[f.0].0.clone(), text[s..e].into()));
            }
        }
    }
    out
}

#[test]
fn every_path_gives_the_brute_force_spans() {
    let docs = corpus(3000, 7);
    let dir = neardup_testkit::TempDir::new("spans-paths");
    for unit in [Unit::Line, Unit::Paragraph, Unit::Sentence] {
        for keep in [Keep::First, Keep::None] {
            let want = brute_force(&docs, unit, keep);
            assert!(want.len() > 1000, "{unit:?} {keep:?}: {} spans", want.len());
            for (memory, whole) in [
                (1u64 << 30, true),
                (64 << 10, true),
                (200 << 10, true),
                (1 << 30, false),
                (64 << 10, false),
            ] {
                let f = SpanFinder::builder()
                    .unit(unit)
                    .keep(keep)
                    .memory(memory)
                    .spill_dir(&*dir)
                    .whole_text(whole)
                    .build()
                    .unwrap();
                let ((got, from), sparse) = run_counting_sparse(&f, &docs);
                assert_eq!(got, want, "{unit:?} {keep:?} memory {memory} {whole}");
                if keep == Keep::First && memory == 64 << 10 {
                    // The streaming index outgrew the budget part way.
                    assert!(from.is_some_and(|d| d > 100), "{unit:?}: {from:?}");
                }
                // Partitioned `--keep first` documents keep the text of the
                // units that may repeat only; other paths keep it whole.
                let left_out = !whole && keep == Keep::First && memory == 64 << 10;
                assert_eq!(
                    sparse > 100,
                    left_out,
                    "{unit:?} {keep:?} {memory} {sparse}"
                );
                if !left_out {
                    assert_eq!(sparse, 0);
                }
            }
        }
    }
    // Nothing is left in the spill directory.
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0);
}

#[test]
fn fuzzy_paths_agree() {
    let docs = corpus(2000, 11);
    let dir = neardup_testkit::TempDir::new("spans-fuzzy-paths");
    for keep in [Keep::First, Keep::None] {
        let mut results = Vec::new();
        for (memory, whole) in [
            (1u64 << 30, true),
            (64 << 10, true),
            (300 << 10, true),
            (64 << 10, false),
        ] {
            let f = SpanFinder::builder()
                .fuzzy(true)
                .ngram(4)
                .keep(keep)
                .memory(memory)
                .spill_dir(&*dir)
                .whole_text(whole)
                .build()
                .unwrap();
            let (found, from) = run_with_stats(&f, &docs);
            if keep == Keep::First && memory == 64 << 10 {
                assert!(from.is_some_and(|d| d > 10), "{from:?}");
            }
            results.push(found);
        }
        assert!(results[0].len() > 500);
        for r in &results[1..] {
            assert_eq!(&results[0], r, "{keep:?}");
        }
    }
}

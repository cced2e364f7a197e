//! The substring unit against a brute-force reading of the rule, on real
//! paragraphs with planted copied runs (`neardup-bench substrcorpus`):
//! the tokens inside spans are exactly the tokens of the windows of
//! `min_tokens` tokens that occur earlier (`--keep first`) or elsewhere
//! (`--keep none`), spans start and end on tokens, and each span names the
//! document of its run's earliest occurrence. Skips, saying so, when
//! `../shared/eval` is absent.

mod common;

use std::collections::HashMap;

use neardup::spans::{Emitted, Keep, SpanFinder, Unit};
use neardup::text::{normalize, NormalizeOptions};
use neardup_bench::substrcorpus::{generate, SubstrCorpusConfig};

fn corpus(docs: usize, seed: u64) -> Option<Vec<(String, String)>> {
    let pools = common::shared_pools()?;
    let cfg = SubstrCorpusConfig {
        docs,
        seed,
        ..Default::default()
    };
    Some(generate(&pools, &cfg))
}

/// Every token of the corpus: (document, byte range, id of its normalized
/// text), documents in order; and each document's first token.
struct Stream {
    doc: Vec<usize>,
    range: Vec<(usize, usize)>,
    id: Vec<u32>,
    start: Vec<usize>,
}

fn stream(docs: &[(String, String)]) -> Stream {
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut s = Stream {
        doc: Vec::new(),
        range: Vec::new(),
        id: Vec::new(),
        start: Vec::new(),
    };
    for (d, (_, text)) in docs.iter().enumerate() {
        s.start.push(s.id.len());
        let base = text.as_ptr() as usize;
        for t in neardup::text::tokens(text) {
            let norm = normalize(t, NormalizeOptions::KEEP_PUNCTUATION);
            let next = ids.len() as u32;
            s.id.push(*ids.entry(norm).or_insert(next));
            let b = t.as_ptr() as usize - base;
            s.doc.push(d);
            s.range.push((b, b + t.len()));
        }
    }
    s.start.push(s.id.len());
    s
}

/// Length of the common run of tokens at `a` and `b`, within documents.
fn common(s: &Stream, a: usize, b: usize) -> usize {
    let mut n = 0;
    while a + n < s.id.len()
        && b + n < s.id.len()
        && s.doc[a + n] == s.doc[a]
        && s.doc[b + n] == s.doc[b]
        && s.id[a + n] == s.id[b + n]
    {
        n += 1;
    }
    n
}

/// The covered tokens by the rule written out: windows of `m` tokens seen
/// before (keep first) or more than once (keep none).
fn covered(s: &Stream, m: usize, keep: Keep) -> Vec<bool> {
    let mut windows: HashMap<&[u32], Vec<usize>> = HashMap::new();
    for p in 0..s.id.len() {
        let end = s.start[s.doc[p] + 1];
        if p + m <= end {
            windows.entry(&s.id[p..p + m]).or_default().push(p);
        }
    }
    let mut cov = vec![false; s.id.len()];
    for occ in windows.values() {
        if occ.len() < 2 {
            continue;
        }
        let skip = usize::from(keep == Keep::First);
        for &p in &occ[skip..] {
            cov[p..p + m].iter_mut().for_each(|c| *c = true);
        }
    }
    cov
}

/// Spans per document: (start, end, first document index).
fn run(f: &SpanFinder, docs: &[(String, String)]) -> Vec<Vec<(usize, usize, usize)>> {
    let mut found = vec![Vec::new(); docs.len()];
    let mut sink = |e: &Emitted<'_>| {
        found[e.index as usize] = e
            .spans
            .iter()
            .map(|s| {
                let first = e.source_id(s);
                let d = first[1..].parse::<usize>().unwrap();
                (s.start, s.end, d)
            })
            .collect();
        Ok(())
    };
    let mut r = f.run().unwrap();
    for (id, text) in docs {
        r.push(id, Ok((text.clone(), f.analyze(text, None))), &mut sink)
            .unwrap();
    }
    r.finish(&mut sink).unwrap();
    found
}

fn check(docs: &[(String, String)], m: usize, keep: Keep) {
    let s = stream(docs);
    let want = covered(&s, m, keep);
    let builder = SpanFinder::builder()
        .unit(Unit::Substring)
        .min_tokens(m)
        .keep(keep);
    let found = run(&builder.clone().build().unwrap(), docs);
    // Past the memory budget (the stream on disk, rounds of fingerprints):
    // the same spans.
    let on_disk = run(&builder.memory(256 << 10).build().unwrap(), docs);
    assert_eq!(found, on_disk, "m {m} {keep:?}: in memory and on disk");
    let mut got = vec![false; s.id.len()];
    let mut checked_first = 0;
    for (d, spans) in found.iter().enumerate() {
        let toks = s.start[d]..s.start[d + 1];
        let mut prev_end: Option<usize> = None;
        for &(a, b, first) in spans {
            let from = toks.clone().find(|&t| s.range[t].0 == a);
            let to = toks.clone().find(|&t| s.range[t].1 == b);
            let (Some(from), Some(to)) = (from, to) else {
                panic!("doc {d}: span {a}..{b} does not start and end on tokens");
            };
            got[from..=to].iter_mut().for_each(|c| *c = true);
            // A span that continues the one before is a run cut where its
            // first document changes; the others start a run.
            if prev_end != Some(from) {
                let earliest = (0..=from).find(|&j| common(&s, from, j) >= m).unwrap();
                assert_eq!(first, s.doc[earliest], "doc {d}: first of span {a}..{b}");
                checked_first += 1;
            }
            prev_end = Some(to + 1);
        }
    }
    let diff: Vec<usize> = (0..s.id.len()).filter(|&t| got[t] != want[t]).collect();
    assert!(
        diff.is_empty(),
        "m {m} {keep:?}: {} tokens differ, first at doc {} token {:?}",
        diff.len(),
        s.doc[diff[0]],
        s.range[diff[0]]
    );
    assert!(want.iter().any(|&c| c), "the corpus has repeats");
    assert!(checked_first > 0);
}

#[test]
fn substring_spans_equal_the_rule_written_out() {
    let Some(docs) = corpus(250, 11) else { return };
    for keep in [Keep::First, Keep::None] {
        for m in [50, 30] {
            check(&docs, m, keep);
        }
    }
}

#[test]
fn another_corpus_with_short_runs() {
    let Some(docs) = corpus(200, 5) else { return };
    check(&docs, 8, Keep::First);
    check(&docs, 8, Keep::None);
}

//! The span stage on a corpus of real paragraphs with planted repeats
//! (`neardup-bench spancorpus`): in every mode, character-level precision
//! and recall of at least 0.99, every span naming the right first
//! document. Skips, saying so, when `../shared/eval` is absent.

mod common;

use std::collections::HashMap;

use neardup::spans::{Emitted, Keep, ReferenceIndex, SpanFinder, Unit};
use neardup::text::{normalize, NormalizeOptions};
use neardup_bench::spancorpus::{generate, SpanCorpus, SpanCorpusConfig};

fn corpus() -> Option<SpanCorpus> {
    let pools = common::shared_pools()?;
    Some(generate(
        &pools,
        &SpanCorpusConfig {
            docs: 3000,
            cjk_share: 0.15,
            reference_items: 200,
            seed: 7,
        },
    ))
}

/// Spans per document: (start, end, source id), byte offsets.
type Found = Vec<Vec<(usize, usize, String)>>;

fn run(f: &SpanFinder, c: &SpanCorpus) -> Found {
    let mut found: Found = vec![Vec::new(); c.docs.len()];
    let mut sink = |e: &Emitted<'_>| {
        found[e.index as usize] = e
            .spans
            .iter()
            .map(|s| (s.start, s.end, e.source_id(s).to_string()))
            .collect();
        Ok(())
    };
    let mut r = f.run().unwrap();
    for (id, text) in &c.docs {
        r.push(id, Ok((text.clone(), f.analyze(text, None))), &mut sink)
            .unwrap();
    }
    r.finish(&mut sink).unwrap();
    found
}

/// Normalized units of every document (the rule written out), for telling
/// a natural repeat from a false one.
fn unit_texts(c: &SpanCorpus, unit: Unit) -> HashMap<String, Vec<(usize, usize)>> {
    let f = SpanFinder::builder()
        .unit(unit)
        .min_chars(1)
        .build()
        .unwrap();
    let mut m: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
    for (d, (_, text)) in c.docs.iter().enumerate() {
        let a = f.analyze(text, None);
        for u in 0..a.units() {
            let (s, e) = a.unit_range(u);
            m.entry(normalize(&text[s..e], NormalizeOptions::STRIP_PUNCTUATION))
                .or_default()
                .push((d, s));
        }
    }
    m
}

/// Word n-grams of a text (13 words, or the whole text when shorter),
/// lowercased: fuzzy matching written out.
fn ngrams(text: &str) -> Vec<String> {
    let words: Vec<String> = neardup::text::tokens(text)
        .map(|t| normalize(t, NormalizeOptions::KEEP_PUNCTUATION))
        .collect();
    if words.len() < 13 {
        return vec![words.join(" ")];
    }
    words.windows(13).map(|w| w.join(" ")).collect()
}

/// For every n-gram of every paragraph, its first paragraph and whether
/// another paragraph has it.
fn ngram_index(c: &SpanCorpus) -> HashMap<String, ((usize, usize), bool)> {
    let f = SpanFinder::builder().fuzzy(true).build().unwrap();
    let mut m: HashMap<String, ((usize, usize), bool)> = HashMap::new();
    for (d, (_, text)) in c.docs.iter().enumerate() {
        let a = f.analyze(text, None);
        for u in 0..a.units() {
            let (s, e) = a.unit_range(u);
            for g in ngrams(&text[s..e]) {
                let entry = m.entry(g).or_insert(((d, s), false));
                if entry.0 != (d, s) {
                    entry.1 = true;
                }
            }
        }
    }
    m
}

/// Whether a paragraph is a fuzzy repeat by the rule written out.
fn fuzzy_repeat(
    index: &HashMap<String, ((usize, usize), bool)>,
    keep: Keep,
    at: (usize, usize),
    text: &str,
) -> bool {
    let grams = ngrams(text);
    let seen = grams
        .iter()
        .filter(|g| {
            index.get(*g).is_some_and(|&(first, shared)| match keep {
                Keep::First => first < at,
                Keep::None => shared,
            })
        })
        .count();
    seen as f64 >= 0.8 * grams.len() as f64
}

struct Mode {
    name: &'static str,
    finder: SpanFinder,
    kinds: &'static [&'static str],
    unit: Option<Unit>,
}

fn overlap(a: (usize, usize), b: (usize, usize)) -> usize {
    a.1.min(b.1).saturating_sub(a.0.max(b.0))
}

fn score(c: &SpanCorpus, m: &Mode, found: &Found) -> (f64, f64) {
    let units = m.unit.map(|u| unit_texts(c, u));
    let grams = m.finder.fuzzy().then(|| ngram_index(c));
    let keep = m.finder.keep();
    let (mut reported, mut correct) = (0usize, 0usize);
    let (mut want, mut got) = (0usize, 0usize);
    let probe = m
        .unit
        .map(|u| SpanFinder::builder().unit(u).build().unwrap());
    for (d, ((id, text), truth)) in c.docs.iter().zip(&c.truth).enumerate() {
        let planted: Vec<_> = truth.iter().filter(|p| m.kinds.contains(&p.kind)).collect();
        for (s, e, first) in &found[d] {
            let chars = text[*s..*e].chars().count();
            reported += chars;
            let in_planted = planted.iter().any(|p| {
                let first_ok = match (keep, p.kind) {
                    (Keep::None, "origin" | "origin-near") => first == id,
                    _ => first == &p.first,
                };
                overlap((p.start, p.end), (*s, *e)) == e - s && first_ok
            });
            let natural = units.as_ref().is_some_and(|u| {
                let n = normalize(&text[*s..*e], NormalizeOptions::STRIP_PUNCTUATION);
                u.get(&n).is_some_and(|occ| match keep {
                    Keep::First => occ[0] < (d, *s),
                    Keep::None => occ.len() > 1,
                })
            });
            let natural = natural
                || grams
                    .as_ref()
                    .is_some_and(|g| fuzzy_repeat(g, keep, (d, *s), &text[*s..*e]));
            if in_planted || natural {
                correct += chars;
            } else {
                let near: Vec<_> = planted
                    .iter()
                    .filter(|p| overlap((p.start, p.end), (*s, *e)) > 0)
                    .map(|p| (p.kind, p.first.as_str(), p.start, p.end))
                    .collect();
                eprintln!(
                    "{}: false span in {id} {s}..{e} first {first}: {:?} planted {near:?}",
                    m.name,
                    &text[*s..*e]
                );
            }
        }
        // Recall over the units inside planted passages (the passage
        // itself for reference matches).
        let regions: Vec<(usize, usize)> = match &probe {
            Some(f) => {
                let a = f.analyze(text, None);
                (0..a.units())
                    .map(|u| a.unit_range(u))
                    .filter(|&u| {
                        planted
                            .iter()
                            .any(|p| overlap((p.start, p.end), u) == u.1 - u.0)
                    })
                    .collect()
            }
            None => planted.iter().map(|p| (p.start, p.end)).collect(),
        };
        for r in regions {
            let n = text[r.0..r.1].chars().count();
            want += n;
            let mut covered = 0;
            for &(s, e, _) in &found[d] {
                let (a, b) = (s.max(r.0), e.min(r.1));
                if a < b {
                    covered += text[a..b].chars().count();
                }
            }
            if covered < n {
                eprintln!("{}: missed in {id}: {:?}", m.name, &text[r.0..r.1]);
            }
            got += covered;
        }
    }
    let p = correct as f64 / reported.max(1) as f64;
    let r = got as f64 / want.max(1) as f64;
    eprintln!(
        "{}: precision {p:.4} recall {r:.4} ({reported} characters reported, {want} planted)",
        m.name
    );
    assert!(want > 1000, "{}: only {want} planted characters", m.name);
    (p, r)
}

fn mode(name: &'static str, finder: SpanFinder, kinds: &'static [&'static str]) -> Mode {
    let unit = (!finder.fuzzy() && finder.reference().is_none()).then(|| finder.unit());
    Mode {
        name,
        finder,
        kinds,
        unit,
    }
}

#[test]
fn planted_repeats_are_found_in_every_mode() {
    let Some(c) = corpus() else { return };
    let mut refs = ReferenceIndex::new(13);
    for (id, t) in &c.reference {
        refs.add(id.clone(), t);
    }
    let b = SpanFinder::builder;
    let exact: &[&str] = &["boilerplate", "pasted"];
    let exact_all: &[&str] = &["boilerplate", "pasted", "origin"];
    let fuzzy: &[&str] = &["boilerplate", "pasted", "near"];
    let fuzzy_all: &[&str] = &["boilerplate", "pasted", "near", "origin", "origin-near"];
    let modes = [
        mode("paragraph", b().build().unwrap(), exact),
        mode("line", b().unit(Unit::Line).build().unwrap(), exact),
        mode("sentence", b().unit(Unit::Sentence).build().unwrap(), exact),
        mode(
            "paragraph, keep none",
            b().keep(Keep::None).build().unwrap(),
            exact_all,
        ),
        mode("fuzzy", b().fuzzy(true).build().unwrap(), fuzzy),
        mode(
            "fuzzy, keep none",
            b().fuzzy(true).keep(Keep::None).build().unwrap(),
            fuzzy_all,
        ),
        mode(
            "reference",
            b().units(false).reference(refs).build().unwrap(),
            &["leak"],
        ),
    ];
    let mut failed = Vec::new();
    for m in &modes {
        let found = run(&m.finder, &c);
        let (p, r) = score(&c, m, &found);
        if p < 0.99 || r < 0.99 {
            failed.push(format!("{}: precision {p:.4}, recall {r:.4}", m.name));
        }
    }
    assert!(failed.is_empty(), "{failed:?}");
}

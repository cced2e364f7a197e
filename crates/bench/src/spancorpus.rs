//! `neardup-bench spancorpus`: a corpus of real paragraphs with planted
//! repeated passages, and the truth of where they are, for the span stage.
//!
//! Every document is made of fresh paragraphs: pieces of the ground truth
//! of the shared extraction datasets (spaced scripts, or CJK for a share of
//! the documents) with a share of their words (characters) replaced by
//! random real ones, so that no two fresh paragraphs are alike. Planted
//! into them, each recorded with the document that holds its first
//! occurrence:
//!
//! * `boilerplate`: lines from a small set (a cookie notice, a byline, a
//!   "related stories" line of a real text) at the head or tail of many
//!   documents;
//! * `pasted`: a fresh paragraph of an earlier document pasted as it is,
//!   or with only case, quotes and spacing changed (the same after
//!   normalization);
//! * `near`: a fresh paragraph of an earlier document with one word
//!   (character) near its end replaced, which fuzzy matching finds and
//!   exact matching must not;
//! * `leak`: an item of the reference set, as its own paragraph or inside
//!   a fresh one.
//!
//! The first occurrence of each planted passage is recorded too (`origin`),
//! for `--keep none`, which counts every copy.

use std::collections::HashSet;

use neardup::text::{normalize, NormalizeOptions};

use crate::mix::Vocab;
use crate::paragraphs::Pools;
use crate::rng::Rng;

/// What to generate.
#[derive(Debug, Clone)]
pub struct SpanCorpusConfig {
    /// Documents.
    pub docs: usize,
    /// Share of CJK documents.
    pub cjk_share: f64,
    /// Reference items (half of them leaked somewhere).
    pub reference_items: usize,
    /// Seed.
    pub seed: u64,
}

/// A planted passage: byte range of its document's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planted {
    /// Start (bytes).
    pub start: usize,
    /// End (bytes).
    pub end: usize,
    /// `boilerplate`, `pasted`, `near`, `leak`, `origin` or `origin-near`.
    pub kind: &'static str,
    /// The document of the first occurrence (or the reference item).
    pub first: String,
}

/// A generated corpus.
#[derive(Debug, Default)]
pub struct SpanCorpus {
    /// `(id, text)` in input order.
    pub docs: Vec<(String, String)>,
    /// Planted passages per document.
    pub truth: Vec<Vec<Planted>>,
    /// `(id, text)` of the reference set.
    pub reference: Vec<(String, String)>,
}

struct Fresh {
    doc: usize,
    range: (usize, usize),
    cjk: bool,
}

/// Generates a corpus from `pools`.
pub fn generate(pools: &Pools, cfg: &SpanCorpusConfig) -> SpanCorpus {
    let vocab = Vocab::new(pools);
    let mut rng = Rng::new(cfg.seed);
    let mut seen: HashSet<String> = HashSet::new();
    let mut fresh_para = |rng: &mut Rng, cjk: bool| -> String {
        loop {
            let pool = if cjk { &pools.cjk } else { &pools.spaced };
            let piece = &pool[rng.below(pool.len() as u64) as usize];
            let p = if cjk {
                vocab.mix_chars(piece, 0.3, rng)
            } else {
                vocab.mix_words(piece, 0.3, rng)
            };
            let p = p.replace('\n', " ");
            if seen.insert(normalize(&p, NormalizeOptions::STRIP_PUNCTUATION)) {
                return p;
            }
        }
    };
    let mut corpus = SpanCorpus::default();
    // Reference items and boilerplate lines: fresh texts of their own.
    for i in 0..cfg.reference_items {
        let cjk = i % 4 == 3;
        // Items of at least 13 words (characters): what 13-gram
        // decontamination is for.
        let t = loop {
            let mut t = fresh_para(&mut rng, cjk);
            if !cjk {
                t = first_words(&t, 14 + (i % 20));
            }
            if neardup::text::tokens(&t).count() >= 13 {
                break t;
            }
        };
        corpus.reference.push((format!("ref-{i:04}"), t));
    }
    let boiler: Vec<(String, bool)> = (0..40)
        .map(|i| {
            let cjk = i % 5 == 4;
            let t = fresh_para(&mut rng, cjk);
            (
                if cjk {
                    first_chars(&t, 24)
                } else {
                    first_words(&t, 6 + i % 8)
                },
                cjk,
            )
        })
        .collect();
    let mut boiler_first: Vec<Option<String>> = vec![None; boiler.len()];
    let mut fresh: Vec<Fresh> = Vec::new();
    for d in 0..cfg.docs {
        let id = format!("doc-{d:06}");
        let cjk = rng.chance(cfg.cjk_share);
        let mut text = String::new();
        let mut truth: Vec<Planted> = Vec::new();
        let mut origins: Vec<(usize, (usize, usize), &str)> = Vec::new();
        let paras = 3 + rng.below(5) as usize;
        let push = |text: &mut String, p: &str| -> (usize, usize) {
            if !text.is_empty() {
                text.push('\n');
            }
            let s = text.len();
            text.push_str(p);
            (s, text.len())
        };
        let mut boiler_here = |rng: &mut Rng, text: &mut String, truth: &mut Vec<Planted>| {
            let b = rng.below(boiler.len() as u64) as usize;
            if boiler[b].1 != cjk {
                return;
            }
            let r = push(text, &boiler[b].0);
            match &boiler_first[b] {
                Some(first) => truth.push(planted(r, "boilerplate", first)),
                None => {
                    boiler_first[b] = Some(id.clone());
                    truth.push(planted(r, "origin", &id));
                }
            }
        };
        if rng.chance(0.4) {
            boiler_here(&mut rng, &mut text, &mut truth);
        }
        for k in 0..paras {
            // A pasted or near copy of an earlier fresh paragraph.
            if k > 0 && !fresh.is_empty() && rng.chance(0.15) {
                let src = &fresh[rng.below(fresh.len() as u64) as usize];
                if src.cjk == cjk && src.doc != d {
                    let src_text = corpus.docs[src.doc].1[src.range.0..src.range.1].to_string();
                    let near = rng.chance(0.35);
                    let copy = if near {
                        near_copy(&src_text, cjk, &vocab, &mut rng)
                    } else {
                        restyle(&src_text, &mut rng)
                    };
                    if let Some(copy) = copy {
                        let r = push(&mut text, &copy);
                        let src_id = corpus.docs[src.doc].0.clone();
                        truth.push(planted(r, if near { "near" } else { "pasted" }, &src_id));
                        origins.push((
                            src.doc,
                            src.range,
                            if near { "origin-near" } else { "origin" },
                        ));
                        continue;
                    }
                }
            }
            // A leaked reference item.
            if !corpus.reference.is_empty() && rng.chance(0.03) {
                let i = rng.below(corpus.reference.len() as u64 / 2) as usize * 2;
                let i = if cjk { i | 3 } else { i & !1 };
                if let Some((rid, item)) = corpus.reference.get(i).cloned() {
                    if rng.chance(0.5) {
                        let r = push(&mut text, &item);
                        truth.push(planted(trim_to_words(&text, r), "leak", &rid));
                    } else {
                        let host = fresh_para(&mut rng, cjk);
                        let cut = sentence_cut(&host);
                        let s0 = text.len() + usize::from(!text.is_empty());
                        let joined = format!("{} {item} {}", &host[..cut], &host[cut..]);
                        let start = s0 + cut + 1;
                        push(&mut text, &joined);
                        let r = (start, start + item.len());
                        truth.push(planted(trim_to_words(&text, r), "leak", &rid));
                    }
                    continue;
                }
            }
            let p = fresh_para(&mut rng, cjk);
            let r = push(&mut text, &p);
            fresh.push(Fresh {
                doc: d,
                range: r,
                cjk,
            });
        }
        if rng.chance(0.4) {
            boiler_here(&mut rng, &mut text, &mut truth);
        }
        corpus.docs.push((id, text));
        corpus.truth.push(truth);
        for (doc, range, kind) in origins {
            let first = corpus.docs[doc].0.clone();
            let t = &mut corpus.truth[doc];
            match t.iter_mut().find(|p| (p.start, p.end) == range) {
                // A paragraph both pasted and near-copied: an origin of both.
                Some(p) if kind == "origin" => p.kind = "origin",
                Some(_) => {}
                None => t.push(planted(range, kind, &first)),
            }
        }
    }
    corpus
}

/// Writes `dir/corpus.jsonl` (`{"id", "text"}`), `dir/reference.jsonl`
/// and `dir/truth.jsonl` (`{"id", "planted": [[start, end, kind, first]]}`
/// with code point offsets).
pub fn write(corpus: &SpanCorpus, dir: &std::path::Path) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    let jsonl = |name: &str, rows: &mut dyn Iterator<Item = serde_json::Value>| {
        let mut w = std::io::BufWriter::new(std::fs::File::create(dir.join(name))?);
        for r in rows {
            serde_json::to_writer(&mut w, &r)?;
            w.write_all(b"\n")?;
        }
        w.flush()
    };
    jsonl(
        "corpus.jsonl",
        &mut corpus
            .docs
            .iter()
            .map(|(id, t)| serde_json::json!({"id": id, "text": t})),
    )?;
    jsonl(
        "reference.jsonl",
        &mut corpus
            .reference
            .iter()
            .map(|(id, t)| serde_json::json!({"id": id, "text": t})),
    )?;
    jsonl(
        "truth.jsonl",
        &mut corpus
            .docs
            .iter()
            .zip(&corpus.truth)
            .map(|((id, text), t)| {
                let planted: Vec<serde_json::Value> = t
                    .iter()
                    .map(|p| {
                        let s = text[..p.start].chars().count();
                        let e = s + text[p.start..p.end].chars().count();
                        serde_json::json!([s, e, p.kind, p.first])
                    })
                    .collect();
                serde_json::json!({"id": id, "planted": planted})
            }),
    )
}

fn planted((start, end): (usize, usize), kind: &'static str, first: &str) -> Planted {
    Planted {
        start,
        end,
        kind,
        first: first.to_string(),
    }
}

fn first_words(t: &str, n: usize) -> String {
    t.split_whitespace().take(n).collect::<Vec<_>>().join(" ")
}

fn first_chars(t: &str, n: usize) -> String {
    t.chars().take(n).collect()
}

/// The same paragraph after normalization: case, quotes or spacing changed.
fn restyle(p: &str, rng: &mut Rng) -> Option<String> {
    Some(match rng.below(3) {
        0 => p.to_string(),
        1 => p.to_uppercase(),
        _ => p.replace(' ', "  ").replace(['“', '”'], "\""),
    })
}

/// One word (CJK character) among the last three replaced; `None` for a
/// paragraph too short to keep 80% of its 13-grams.
fn near_copy(p: &str, cjk: bool, vocab: &Vocab<'_>, rng: &mut Rng) -> Option<String> {
    let tokens: Vec<&str> = neardup::text::tokens(p).collect();
    if tokens.len() < 40 {
        return None;
    }
    let t = tokens[tokens.len() - 1 - rng.below(3) as usize];
    let at = t.as_ptr() as usize - p.as_ptr() as usize;
    let replacement = if cjk {
        let mut c = vocab.han(rng, '文');
        if c.to_string() == t {
            c = if c == '文' { '字' } else { '文' };
        }
        c.to_string()
    } else {
        let w: String = vocab
            .word(rng, "replaced")
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect();
        if w.is_empty() || w.eq_ignore_ascii_case(t) {
            "replacement".to_string()
        } else {
            w
        }
    };
    Some(format!("{}{replacement}{}", &p[..at], &p[at + t.len()..]))
}

/// A byte position after a sentence end in the first half of `p` (or 0).
fn sentence_cut(p: &str) -> usize {
    p.char_indices()
        .take_while(|&(i, _)| i < p.len() / 2)
        .filter(|&(_, c)| matches!(c, '.' | '!' | '?' | '。' | '！' | '？'))
        .map(|(i, c)| i + c.len_utf8())
        .last()
        .unwrap_or(0)
}

/// `range` of `text` shrunk to its first and last word.
fn trim_to_words(text: &str, (s, e): (usize, usize)) -> (usize, usize) {
    let piece = &text[s..e];
    let mut toks = neardup::text::tokens(piece);
    let Some(first) = toks.next() else {
        return (s, s);
    };
    let last = toks.last().unwrap_or(first);
    let base = piece.as_ptr() as usize;
    (
        s + (first.as_ptr() as usize - base),
        s + (last.as_ptr() as usize - base) + last.len(),
    )
}

//! `neardup-bench realtext`: a corpus of documents made of real paragraphs
//! (see [`crate::paragraphs`]), with planted near-duplicates, for the speed
//! figures of batch deduplication on text as the web writes it: curly
//! quotes, dashes, accented letters, and a share of CJK documents.
//!
//! An original document is a random sequence of paragraph pieces of one
//! pool (CJK with probability `cjk_share`, else spaced), separated by blank
//! lines, between `min_bytes` and `max_bytes` long, with a share
//! `mix_rate` of its words (of its CJK characters) replaced by random real
//! words (characters; see [`crate::mix`]). The pool is fixed (about
//! 100,000 pieces), so unrelated documents often hold the same piece; the
//! mixing leaves them only a few shingles of it in common, as unrelated
//! web pages share little text, and the unrelated pairs that look alike
//! grow with the corpus, not with its square. A near-duplicate reprints an
//! earlier original the way reprint sites do (as in the shared
//! near-duplicate evaluation set):
//!
//! * a share `edit_rate` of its words (of its CJK characters in CJK text)
//!   replaced by words (characters) of the real paragraphs;
//! * half of them with their punctuation restyled: typographic quotes,
//!   dashes and ellipses made ASCII, full-width CJK punctuation half-width;
//! * a third of them reflowed: paragraphs joined on one line;
//! * half of them with a short real piece (an editor's note) at the head,
//!   half with one (a credit line) at the tail.
//!
//! Every line is `{"id", "text", "cluster"}` where `cluster` is the id of
//! the original (labels for pairwise precision and recall).

use std::io::Write;

use neardup::text::is_cjk;

use crate::mix::Vocab;
use crate::paragraphs::Pools;
use crate::rng::Rng;

/// Parameters of the corpus.
#[derive(Debug, Clone)]
pub struct RealConfig {
    /// Number of documents.
    pub docs: u64,
    /// Share of documents that are near-duplicates of an earlier one.
    pub dup_rate: f64,
    /// Share of words (CJK characters) replaced in a near-duplicate.
    pub edit_rate: f64,
    /// Share of originals made of CJK paragraphs.
    pub cjk_share: f64,
    /// Share of words (CJK characters) of an original replaced by random
    /// real ones, so that unrelated documents share few shingles.
    pub mix_rate: f64,
    /// Smallest document size in bytes (about).
    pub min_bytes: usize,
    /// Largest size in bytes of an original.
    pub max_bytes: usize,
    /// Seed.
    pub seed: u64,
}

/// What was written, for a summary line.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Documents written.
    pub docs: u64,
    /// Near-duplicates among them.
    pub duplicates: u64,
    /// Documents holding a non-ASCII character.
    pub non_ascii: u64,
    /// Documents holding a CJK character.
    pub cjk: u64,
    /// Bytes of text.
    pub bytes: u64,
}

/// Near-duplicate sources kept: a bounded pool, so memory stays flat.
const SOURCES: usize = 4096;
/// Longest head note or tail credit line, in bytes.
const NOTE_MAX: usize = 120;

/// Writes the corpus as JSON Lines, and each document's `{"id",
/// "cluster"}` to `labels` when given (what `bench/label_score.py` reads,
/// for a corpus streamed into a run and not kept).
pub fn write_corpus(
    cfg: &RealConfig,
    pools: &Pools,
    out: &mut dyn Write,
    mut labels: Option<&mut dyn Write>,
) -> std::io::Result<Summary> {
    let mut rng = Rng::new(cfg.seed);
    let vocab = Vocab::new(pools);
    let mut sources: Vec<(String, String, bool)> = Vec::new();
    let mut sum = Summary::default();
    for i in 0..cfg.docs {
        let id = format!("r{i:08}");
        let (text, cluster) = if !sources.is_empty() && rng.chance(cfg.dup_rate) {
            let (src_id, src, cjk) = &sources[rng.below(sources.len() as u64) as usize];
            let pool = if *cjk { &pools.cjk } else { &pools.spaced };
            sum.duplicates += 1;
            (
                reprint(src, *cjk, pool, &vocab, cfg.edit_rate, &mut rng),
                src_id.clone(),
            )
        } else {
            let cjk = rng.chance(cfg.cjk_share);
            let pool = if cjk { &pools.cjk } else { &pools.spaced };
            let span = (cfg.max_bytes.saturating_sub(cfg.min_bytes)).max(1) as u64;
            let target = cfg.min_bytes + rng.below(span) as usize;
            let text = original(pool, target, cfg.max_bytes, &mut rng);
            let text = if cjk {
                vocab.mix_chars(&text, cfg.mix_rate, &mut rng)
            } else {
                vocab.mix_words(&text, cfg.mix_rate, &mut rng)
            };
            let entry = (id.clone(), text.clone(), cjk);
            if sources.len() < SOURCES {
                sources.push(entry);
            } else {
                sources[rng.below(SOURCES as u64) as usize] = entry;
            }
            (text, id.clone())
        };
        sum.docs += 1;
        sum.non_ascii += !text.is_ascii() as u64;
        sum.cjk += text.chars().any(is_cjk) as u64;
        sum.bytes += text.len() as u64;
        serde_json::to_writer(
            &mut *out,
            &serde_json::json!({"id": id, "text": text, "cluster": cluster}),
        )?;
        out.write_all(b"\n")?;
        if let Some(l) = labels.as_deref_mut() {
            writeln!(l, "{{\"id\":\"{id}\",\"cluster\":\"{cluster}\"}}")?;
        }
    }
    Ok(sum)
}

fn pick<'a>(pool: &'a [String], rng: &mut Rng) -> &'a str {
    &pool[rng.below(pool.len() as u64) as usize]
}

/// The longest prefix of `s` of at most `max` bytes.
fn prefix(s: &str, max: usize) -> &str {
    let mut end = max.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Random pieces of `pool`, blank-line separated, until `target` bytes;
/// cut to `max` bytes.
fn original(pool: &[String], target: usize, max: usize, rng: &mut Rng) -> String {
    let mut text = String::new();
    while text.len() < target {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(pick(pool, rng));
    }
    prefix(&text, max).trim_end().to_string()
}

/// A near-duplicate of `src` (see the module documentation).
fn reprint(
    src: &str,
    cjk: bool,
    pool: &[String],
    vocab: &Vocab<'_>,
    edit_rate: f64,
    rng: &mut Rng,
) -> String {
    let mut text = if cjk {
        vocab.mix_chars(src, edit_rate, rng)
    } else {
        vocab.mix_words(src, edit_rate, rng)
    };
    if rng.chance(0.5) {
        text = restyle_punctuation(&text);
    }
    if rng.chance(1.0 / 3.0) {
        text = text.replace("\n\n", if cjk { "" } else { " " });
    }
    if rng.chance(0.5) {
        text = format!("{}\n\n{text}", prefix(pick(pool, rng), NOTE_MAX).trim_end());
    }
    if rng.chance(0.5) {
        text = format!("{text}\n\n{}", prefix(pick(pool, rng), NOTE_MAX).trim_end());
    }
    text
}

/// Typographic punctuation made ASCII, full-width CJK punctuation
/// half-width, as a site that re-encodes a reprint does.
fn restyle_punctuation(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '‘' | '’' => out.push('\''),
            '“' | '”' | '「' | '」' => out.push('"'),
            '–' => out.push('-'),
            '—' => out.push_str("--"),
            '…' => out.push_str("..."),
            '，' => out.push(','),
            '！' => out.push('!'),
            '？' => out.push('?'),
            '：' => out.push(':'),
            '；' => out.push(';'),
            '（' => out.push('('),
            '）' => out.push(')'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn pools() -> Pools {
        let mut p = Pools::default();
        for i in 0..40 {
            p.add_article(&format!(
                "Paragraph {i} says “something” — about café number {i}, at length enough.\n\n\
                 第{i}段中文文字，内容是关于咖啡馆的一些描述，长度足够用来测试。"
            ));
        }
        p
    }

    fn cfg(docs: u64) -> RealConfig {
        RealConfig {
            docs,
            dup_rate: 0.3,
            edit_rate: 0.02,
            cjk_share: 0.2,
            mix_rate: 0.2,
            min_bytes: 1000,
            max_bytes: 2000,
            seed: 3,
        }
    }

    #[test]
    fn corpus_is_deterministic_labelled_and_sized() {
        let pools = pools();
        let (mut a, mut b, mut labels) = (Vec::new(), Vec::new(), Vec::new());
        let sum = write_corpus(&cfg(300), &pools, &mut a, None).unwrap();
        let again = write_corpus(&cfg(300), &pools, &mut b, Some(&mut labels)).unwrap();
        assert_eq!(again, sum);
        assert_eq!(a, b);
        let lines: Vec<serde_json::Value> = String::from_utf8(a)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 300);
        // The labels are the corpus's ids and clusters, line for line.
        let labelled: Vec<serde_json::Value> = String::from_utf8(labels)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(labelled.len(), 300);
        for (l, d) in labelled.iter().zip(&lines) {
            assert_eq!((&l["id"], &l["cluster"]), (&d["id"], &d["cluster"]));
        }
        let dups = lines.iter().filter(|l| l["cluster"] != l["id"]).count() as u64;
        assert_eq!(dups, sum.duplicates);
        assert!((50..130).contains(&dups), "{dups}");
        assert_eq!(sum.non_ascii, 300);
        assert!((30..120).contains(&sum.cjk), "{}", sum.cjk);
        for l in &lines {
            let n = l["text"].as_str().unwrap().len();
            assert!((900..2500).contains(&n), "{n}");
        }
    }

    #[test]
    fn edits_keep_most_of_the_text() {
        let pools = pools();
        let vocab = Vocab::new(&pools);
        let mut rng = Rng::new(1);
        let src = original(&pools.spaced, 1500, 2000, &mut rng);
        let dup = vocab.mix_words(&src, 0.05, &mut rng);
        let same = src
            .split(' ')
            .zip(dup.split(' '))
            .filter(|(a, b)| a == b)
            .count();
        assert!(same * 10 >= src.split(' ').count() * 9);
        assert_eq!(restyle_punctuation("“a” — b…，"), "\"a\" -- b...,");
        let han = original(&pools.cjk, 1200, 2000, &mut rng);
        assert_eq!(vocab.mix_chars(&han, 0.0, &mut rng), han);
        assert_eq!(prefix("中文", 4), "中");
    }

    /// Mean word 5-gram Jaccard similarity of the first 40 spaced originals
    /// of a corpus, pair by pair.
    fn unrelated_similarity(corpus: &[u8]) -> f64 {
        let grams: Vec<HashSet<Vec<String>>> = String::from_utf8(corpus.to_vec())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|l| l["cluster"] == l["id"])
            .map(|l| l["text"].as_str().unwrap().to_string())
            .filter(|t| !t.chars().any(is_cjk))
            .take(40)
            .map(|t| {
                let w: Vec<String> = t.split_whitespace().map(str::to_string).collect();
                w.windows(5).map(<[String]>::to_vec).collect()
            })
            .collect();
        let (mut sum, mut n) = (0.0, 0);
        for (i, a) in grams.iter().enumerate() {
            for b in &grams[i + 1..] {
                sum += a.intersection(b).count() as f64 / a.union(b).count() as f64;
                n += 1;
            }
        }
        sum / n as f64
    }

    #[test]
    fn mixing_keeps_unrelated_documents_apart() {
        let pools = pools();
        let (mut plain, mut mixed) = (Vec::new(), Vec::new());
        let mut c = cfg(200);
        c.mix_rate = 0.0;
        write_corpus(&c, &pools, &mut plain, None).unwrap();
        c.mix_rate = 0.2;
        write_corpus(&c, &pools, &mut mixed, None).unwrap();
        let (p, m) = (unrelated_similarity(&plain), unrelated_similarity(&mixed));
        assert!(m * 3.0 < p, "plain {p}, mixed {m}");
    }
}

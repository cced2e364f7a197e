//! A corpus of real paragraphs with planted copied runs, for the substring
//! unit of the span stage (`neardup-bench substrcorpus`).
//!
//! Documents are paragraphs of `../shared/eval` (mixed word by word with
//! the pools' vocabulary so that no two are the same), some in CJK, some
//! mixing scripts. About half the documents receive one to three runs of
//! 30 to 500 tokens copied from an earlier document: at the document's
//! start, at its end or inside a paragraph, sometimes upper-cased or with
//! its punctuation changed (the same tokens), sometimes overlapping a run
//! that was itself copied. The ground truth is the rule, not the plan: the
//! tests compare against a brute-force reading of the corpus, so the plan
//! only has to make the corpus hard.

use crate::mix::Vocab;
use crate::paragraphs::Pools;
use crate::rng::Rng;

/// What to generate.
#[derive(Debug, Clone, Copy)]
pub struct SubstrCorpusConfig {
    /// Number of documents.
    pub docs: usize,
    /// Share of paragraphs in Chinese or Japanese.
    pub cjk_share: f64,
    /// Seed.
    pub seed: u64,
    /// Shortest and longest planted run, in tokens.
    pub runs: (usize, usize),
}

impl Default for SubstrCorpusConfig {
    fn default() -> Self {
        SubstrCorpusConfig {
            docs: 1000,
            cjk_share: 0.15,
            seed: 11,
            runs: (30, 500),
        }
    }
}

/// Token byte ranges of `text`.
fn token_ranges(text: &str) -> Vec<(usize, usize)> {
    let base = text.as_ptr() as usize;
    neardup::text::tokens(text)
        .map(|t| {
            let s = t.as_ptr() as usize - base;
            (s, s + t.len())
        })
        .collect()
}

/// Generates `(id, text)` documents.
pub fn generate(pools: &Pools, cfg: &SubstrCorpusConfig) -> Vec<(String, String)> {
    let vocab = Vocab::new(pools);
    let mut rng = Rng::new(cfg.seed);
    let mut docs: Vec<(String, String)> = Vec::with_capacity(cfg.docs);
    for d in 0..cfg.docs {
        let paras = 1 + rng.below(5) as usize;
        let mut parts: Vec<String> = Vec::new();
        for _ in 0..paras {
            let cjk = rng.chance(cfg.cjk_share);
            let pool = if cjk { &pools.cjk } else { &pools.spaced };
            let piece = &pool[rng.below(pool.len() as u64) as usize];
            let p = if cjk {
                vocab.mix_chars(piece, 0.3, &mut rng)
            } else {
                vocab.mix_words(piece, 0.3, &mut rng)
            };
            parts.push(p.replace('\n', " "));
        }
        let mut text = parts.join("\n\n");
        if d > 0 && rng.chance(0.5) {
            for _ in 0..1 + rng.below(3) {
                let src = &docs[rng.below(d as u64) as usize].1;
                let Some(run) = copied_run(src, cfg.runs, &mut rng) else {
                    continue;
                };
                let run = restyle(&run, &mut rng);
                text = plant(&text, &run, &mut rng);
            }
        }
        docs.push((format!("s{d:06}"), text));
    }
    docs
}

/// A run of tokens of `src`, from a token's start to a token's end.
fn copied_run(src: &str, (lo, hi): (usize, usize), rng: &mut Rng) -> Option<String> {
    let toks = token_ranges(src);
    if toks.len() < lo {
        return None;
    }
    let hi = hi.min(toks.len());
    let len = lo + rng.below((hi - lo + 1) as u64) as usize;
    let from = rng.below((toks.len() - len + 1) as u64) as usize;
    Some(src[toks[from].0..toks[from + len - 1].1].to_string())
}

/// The same tokens in another dress: upper case, or other punctuation.
fn restyle(run: &str, rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => run.to_uppercase(),
        1 => run.replace(", ", " - ").replace(". ", "; "),
        _ => run.to_string(),
    }
}

/// `text` with `run` at its start, its end or inside it (between two
/// tokens).
fn plant(text: &str, run: &str, rng: &mut Rng) -> String {
    let toks = token_ranges(text);
    match rng.below(3) {
        0 => format!("{run} {text}"),
        1 => format!("{text} {run}"),
        _ if toks.len() > 2 => {
            let at = toks[1 + rng.below(toks.len() as u64 - 2) as usize].0;
            format!("{} {run} {}", &text[..at], &text[at..])
        }
        _ => format!("{text}\n{run}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_whole_tokens() {
        let mut rng = Rng::new(3);
        let src = "Alpha beta, gamma delta epsilon zeta eta theta iota kappa.";
        for _ in 0..50 {
            let r = copied_run(src, (3, 6), &mut rng).unwrap();
            let n = neardup::text::tokens(&r).count();
            assert!((3..=6).contains(&n), "{r:?}");
            assert!(src.contains(&r));
        }
        assert!(copied_run("one two", (3, 6), &mut rng).is_none());
    }
}

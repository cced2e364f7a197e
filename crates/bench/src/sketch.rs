//! `neardup-bench sketch`: signatures per second of one method on the texts
//! of a JSONL corpus, one thread, for the side-by-side comparison with
//! datasketch, rensa and simhash (`bench/sketch_compare.py`).

use std::io::BufRead;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use neardup::sketch::{DocText, Method, MinHash, Sketcher};
use neardup::text::token_hash;

/// Texts of the first `limit` lines of a JSONL corpus (field `text`).
pub fn load_texts(path: &Path, limit: usize) -> Result<Vec<String>> {
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut out = Vec::new();
    for line in std::io::BufReader::new(f).lines().take(limit) {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        out.push(v["text"].as_str().unwrap_or_default().to_string());
    }
    Ok(out)
}

/// Sketches every text `rounds` times with `method`; returns the best
/// signatures per second over the rounds.
pub fn signatures_per_second(method: &Method, texts: &[String], rounds: usize) -> f64 {
    best_rate(texts, rounds, |t| {
        method.sketch(&DocText::from_text(t)).to_bytes().len()
    })
}

/// Word `k`-grams of the lower-cased text, joined by single spaces: the
/// shingles `bench/sketch_compare.py` gives the Python tools (a text of
/// fewer than `k` words is one shingle).
pub fn python_shingles(text: &str, k: usize) -> Vec<String> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    (0..words.len().saturating_sub(k) + 1)
        .map(|i| words[i..(i + k).min(words.len())].join(" "))
        .collect()
}

/// Classic MinHash (neardup's defaults: 128 permutations) of precomputed
/// shingles, best of `rounds`: returns the signatures per second from the
/// shingle strings (hashing each string, then the permutations, as rensa's
/// `RMinHash.update` does) and from their 64-bit hashes (the permutations
/// alone).
pub fn minhash_of_shingles_per_second(shingles: &[Vec<String>], rounds: usize) -> (f64, f64) {
    let mh = MinHash::new();
    let hashes: Vec<Vec<u64>> = shingles
        .iter()
        .map(|s| s.iter().map(|x| token_hash(x)).collect())
        .collect();
    let from_strings = best_rate(shingles, rounds, |s| {
        let h: Vec<u64> = s.iter().map(|x| token_hash(x)).collect();
        mh.signature_of_shingles(&h).values()[0] as usize
    });
    let from_hashes = best_rate(&hashes, rounds, |h| {
        mh.signature_of_shingles(h).values()[0] as usize
    });
    (from_strings, from_hashes)
}

fn best_rate<T>(items: &[T], rounds: usize, f: impl Fn(&T) -> usize) -> f64 {
    let mut best = 0.0f64;
    for _ in 0..rounds.max(1) {
        let start = Instant::now();
        let mut sink = 0usize;
        for x in items {
            sink = sink.wrapping_add(f(std::hint::black_box(x)));
        }
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        std::hint::black_box(sink);
        best = best.max(items.len() as f64 / secs);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_something_positive() {
        let texts: Vec<String> = (0..20)
            .map(|i| format!("document number {i} with a few words in it"))
            .collect();
        let m: Method = "minhash".parse().unwrap();
        assert!(signatures_per_second(&m, &texts, 1) > 0.0);
        let sh: Vec<Vec<String>> = texts.iter().map(|t| python_shingles(t, 5)).collect();
        let (strings, hashes) = minhash_of_shingles_per_second(&sh, 1);
        assert!(strings > 0.0 && hashes > 0.0);
    }

    #[test]
    fn shingles_like_the_python_script() {
        assert_eq!(
            python_shingles("A b  c D e f", 5),
            vec!["a b c d e", "b c d e f"]
        );
        assert_eq!(python_shingles("One two", 5), vec!["one two"]);
        assert_eq!(python_shingles("", 5), vec![""]);
    }
}

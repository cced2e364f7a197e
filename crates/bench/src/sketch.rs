//! `neardup-bench sketch`: signatures per second of one method on the texts
//! of a JSONL corpus, one thread, for the side-by-side comparison with
//! datasketch, rensa and simhash (`bench/sketch_compare.py`).

use std::io::BufRead;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use neardup::sketch::{DocText, Method, Sketcher};

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
    let mut best = 0.0f64;
    for _ in 0..rounds.max(1) {
        let start = Instant::now();
        let mut sink = 0usize;
        for t in texts {
            let sig = method.sketch(&DocText::from_text(t));
            sink = sink.wrapping_add(sig.to_bytes().len());
        }
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        std::hint::black_box(sink);
        best = best.max(texts.len() as f64 / secs);
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
    }
}

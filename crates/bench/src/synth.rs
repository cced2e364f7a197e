//! `neardup-bench synth`: a corpus of text documents with known
//! near-duplicates, for speed and scale measurements.
//!
//! Words come from a Zipf-like distribution over a synthetic vocabulary, so
//! that shingle statistics look like natural text. A share of the documents
//! are near-duplicates of an earlier one: a few words replaced, a sentence
//! added at the head or the tail. Every document is one JSON line
//! `{"id", "text", "cluster"}`, where `cluster` is the id of the source
//! document (labels for scoring).

use std::io::Write;

use crate::rng::Rng;

/// Parameters of the corpus.
#[derive(Debug, Clone)]
pub struct SynthConfig {
    /// Number of documents.
    pub docs: u64,
    /// Share of documents that are near-duplicates of an earlier one.
    pub dup_rate: f64,
    /// Share of words replaced in a near-duplicate.
    pub edit_rate: f64,
    /// Smallest and largest document size in bytes (about).
    pub min_bytes: usize,
    /// Largest document size in bytes (about).
    pub max_bytes: usize,
    /// Vocabulary size.
    pub vocabulary: usize,
    /// Seed.
    pub seed: u64,
}

/// Builds the vocabulary: pronounceable words of 2 to 4 syllables.
fn vocabulary(n: usize, rng: &mut Rng) -> Vec<String> {
    const ONSETS: [&str; 16] = [
        "b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "br", "st",
    ];
    const VOWELS: [&str; 6] = ["a", "e", "i", "o", "u", "ea"];
    (0..n)
        .map(|_| {
            let syllables = 1 + rng.below(3) as usize;
            let mut w = String::new();
            for _ in 0..syllables {
                w.push_str(ONSETS[rng.below(16) as usize]);
                w.push_str(VOWELS[rng.below(6) as usize]);
            }
            w
        })
        .collect()
}

/// Zipf sampling by inversion of the cumulative weights 1/(r+1).
struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    fn new(n: usize) -> Zipf {
        let mut acc = 0.0;
        let cumulative = (0..n)
            .map(|r| {
                acc += 1.0 / (r as f64 + 1.0);
                acc
            })
            .collect();
        Zipf { cumulative }
    }

    fn sample(&self, rng: &mut Rng) -> usize {
        let total = self.cumulative.last().copied().unwrap_or(1.0);
        let x = rng.unit() * total;
        self.cumulative
            .partition_point(|&c| c < x)
            .min(self.cumulative.len() - 1)
    }
}

fn sentence(words: &[String], zipf: &Zipf, rng: &mut Rng) -> String {
    let len = 8 + rng.below(14) as usize;
    let mut s = String::new();
    for i in 0..len {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&words[zipf.sample(rng)]);
    }
    s.push('.');
    s
}

/// Writes the corpus as JSON Lines.
pub fn write_corpus(cfg: &SynthConfig, out: &mut dyn Write) -> std::io::Result<()> {
    let mut rng = Rng::new(cfg.seed);
    let words = vocabulary(cfg.vocabulary.max(1), &mut rng);
    let zipf = Zipf::new(words.len());
    // Sources kept for duplication: a bounded pool, so memory stays flat.
    let mut pool: Vec<(String, String)> = Vec::new();
    const POOL: usize = 4096;
    for i in 0..cfg.docs {
        let id = format!("d{i:08}");
        let (text, cluster) = if !pool.is_empty() && rng.chance(cfg.dup_rate) {
            let (src_id, src) = &pool[rng.below(pool.len() as u64) as usize];
            let mut text: Vec<String> = src
                .split(' ')
                .map(|w| {
                    if rng.chance(cfg.edit_rate) {
                        words[zipf.sample(&mut rng)].clone()
                    } else {
                        w.to_string()
                    }
                })
                .collect();
            if rng.chance(0.5) {
                text.insert(0, sentence(&words, &zipf, &mut rng));
            } else {
                text.push(sentence(&words, &zipf, &mut rng));
            }
            (text.join(" "), src_id.clone())
        } else {
            let target =
                cfg.min_bytes + rng.below((cfg.max_bytes - cfg.min_bytes).max(1) as u64) as usize;
            let mut text = String::new();
            while text.len() < target {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&sentence(&words, &zipf, &mut rng));
            }
            if pool.len() < POOL {
                pool.push((id.clone(), text.clone()));
            } else {
                let k = rng.below(POOL as u64) as usize;
                pool[k] = (id.clone(), text.clone());
            }
            (text, id.clone())
        };
        serde_json::to_writer(
            &mut *out,
            &serde_json::json!({"id": id, "text": text, "cluster": cluster}),
        )?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(docs: u64) -> SynthConfig {
        SynthConfig {
            docs,
            dup_rate: 0.3,
            edit_rate: 0.03,
            min_bytes: 1000,
            max_bytes: 2000,
            vocabulary: 5000,
            seed: 1,
        }
    }

    #[test]
    fn corpus_is_deterministic_and_sized() {
        let mut a = Vec::new();
        let mut b = Vec::new();
        write_corpus(&cfg(200), &mut a).unwrap();
        write_corpus(&cfg(200), &mut b).unwrap();
        assert_eq!(a, b);
        let lines: Vec<serde_json::Value> = String::from_utf8(a)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 200);
        let dups = lines.iter().filter(|l| l["cluster"] != l["id"]).count();
        assert!((30..90).contains(&dups), "{dups}");
        for l in &lines {
            let n = l["text"].as_str().unwrap().len();
            assert!((900..2300).contains(&n), "{n}");
        }
    }
}

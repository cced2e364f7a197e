//! Speed of tokenizing Chinese text on one thread, single characters,
//! character bigrams and jieba words, and the time to load jieba's
//! dictionary.
//!
//! ```sh
//! cargo run --release -p neardup-text --features jieba --example cjk_tokens -- TEXTS.txt
//! ```
//!
//! `TEXTS.txt` holds one document per line (for instance the main texts of
//! `neardup extract`, line breaks replaced by spaces). Documents are
//! normalized first, outside the timings; each timing is the best of five
//! passes over all documents.

use std::hint::black_box;
use std::time::Instant;

use neardup_text::{
    normalize, CjkSegmentation, NormalizeOptions, Segmenter, ShingleUnit, Shingler,
};

/// Passes per timing; the fastest is reported.
const PASSES: usize = 5;

/// The fastest of [`PASSES`] runs of `f`, in seconds, and its last result.
fn best_of<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut out = None;
    for _ in 0..PASSES {
        let start = Instant::now();
        let r = black_box(f());
        best = best.min(start.elapsed().as_secs_f64());
        out = Some(r);
    }
    (best, out.expect("at least one pass"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: cjk_tokens TEXTS.txt (one document per line)")?;
    let docs: Vec<String> = std::fs::read_to_string(&path)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| normalize(l, NormalizeOptions::default()))
        .collect();
    let bytes: usize = docs.iter().map(String::len).sum();
    let chars: usize = docs.iter().map(|d| d.chars().count()).sum();
    println!(
        "{} documents, {:.2} MB of normalized text, {chars} characters",
        docs.len(),
        bytes as f64 / 1e6
    );

    let mut loads: Vec<f64> = (0..PASSES)
        .map(|_| {
            let start = Instant::now();
            let s = Segmenter::new(CjkSegmentation::Jieba).map(black_box);
            let secs = start.elapsed().as_secs_f64();
            s.map(|_| secs)
        })
        .collect::<Result<_, _>>()?;
    loads.sort_by(f64::total_cmp);
    println!(
        "jieba dictionary load: median {:.0} ms (fastest {:.0}, slowest {:.0}) of {PASSES}",
        loads[PASSES / 2] * 1e3,
        loads[0] * 1e3,
        loads[PASSES - 1] * 1e3
    );

    println!();
    println!(
        "| segmentation | tokens | tokens/s | MB/s | docs/s | token 3-gram shingling, docs/s |"
    );
    println!("|---|---|---|---|---|---|");
    for mode in CjkSegmentation::ALL {
        let segmenter = Segmenter::new(mode)?;
        let (secs, tokens) = best_of(|| {
            let mut n = 0usize;
            for d in &docs {
                segmenter.for_each_token(d, |t| n += black_box(t).len().min(1));
            }
            n
        });
        let mut shingler = Shingler::with_segmenter(ShingleUnit::Token, 3, segmenter.clone());
        let (shingle_secs, _) = best_of(|| {
            let mut acc = 0u64;
            for d in &docs {
                shingler.for_each(d, |h| acc ^= h);
            }
            acc
        });
        println!(
            "| {mode} | {tokens} | {:.2} M | {:.1} | {:.0} | {:.0} |",
            tokens as f64 / secs / 1e6,
            bytes as f64 / secs / 1e6,
            docs.len() as f64 / secs,
            docs.len() as f64 / shingle_secs
        );
    }
    Ok(())
}

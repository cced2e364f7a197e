//! `neardup-load index`: the service's in-RAM index alone at scale, without
//! HTTP or the store: documents' signatures go into an `OnlineCore` (the
//! service's engine, with its postings on disk) as originals and
//! duplicates; it reports the resident memory per document, the insert
//! rate, and the time to write and to load the index snapshot (the
//! restart). Texts are short (about 60 words) so that sketching 10^7 of
//! them takes a minute; band keys are as distinct as a crawl's.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use neardup::dedup::{default_method, signature_key, CompositeCheck, Judgement, OnlineCore};
use neardup::sketch::{DocText, Sketcher};
use neardup::Verifier;
use neardup_server::{DiskPostings, POSTINGS_DIR};
use serde_json::json;

use crate::Res;

fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse::<u64>().ok())
        .map_or(0, |p| p * 4096)
}

/// About 60 words of a 50,000-word vocabulary, distinct for every seed.
fn words(seed: u64) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut s = String::with_capacity(480);
    for _ in 0..60 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.push_str(&format!("w{} ", x % 50_000));
    }
    s
}

fn engine(dir: &Path) -> Res<OnlineCore> {
    let postings = DiskPostings::open(&dir.join(POSTINGS_DIR))?;
    Ok(OnlineCore::with_postings(
        default_method(),
        Some(Verifier::default()),
        Some(CompositeCheck::default()),
        Box::new(postings),
    )?)
}

/// Fills an index with `n` documents (every `1/dup_share`-th a duplicate
/// of the one before) in `dir`, then saves and reloads its snapshot.
pub fn run(n: usize, dup_share: f64, dir: &Path, every: usize) -> Res<()> {
    std::fs::create_dir_all(dir)?;
    let method = default_method();
    let verifier = Verifier::default();
    let mut core = engine(dir)?;
    let base = rss();
    let period = if dup_share > 0.0 {
        (1.0 / dup_share).round() as usize
    } else {
        0
    };
    let start = Instant::now();
    let mut last = 0u32;
    for i in 0..n {
        let text = words(i as u64);
        let sig = method.sketch(&DocText::from_text(&text));
        let key = signature_key(&sig.to_bytes());
        let d = u32::try_from(i)?;
        let duplicate = period > 0 && i > 0 && i % period == 0;
        if duplicate {
            let j = Judgement {
                duplicate_of: Some((last, 0.9)),
            };
            core.add(d, Some((&sig, key).into()), None, j)?;
        } else {
            let seq = verifier.shingles(&text, &method);
            core.add(
                d,
                Some((&sig, key).into()),
                Some(&seq),
                Judgement { duplicate_of: None },
            )?;
            last = d;
        }
        if (i + 1) % every == 0 || i + 1 == n {
            let docs = i as u64 + 1;
            println!(
                "{}",
                json!({
                    "documents": docs,
                    "rss_bytes_per_doc": (rss().saturating_sub(base)) / docs,
                    "index_bytes_per_doc": core.memory_bytes() as u64 / docs,
                    "seconds": (start.elapsed().as_secs_f64() * 10.0).round() / 10.0,
                })
            );
        }
    }
    let t = Instant::now();
    let path = dir.join("index.snap");
    let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
    core.write_snapshot(b"", &mut w)?;
    w.flush()?;
    w.into_inner()?.sync_all()?;
    let saved = t.elapsed().as_secs_f64();
    let size = std::fs::metadata(&path)?.len();
    let peak = rss();
    drop(core);
    let t = Instant::now();
    let mut back = engine(dir)?;
    back.restore_from(&mut BufReader::with_capacity(1 << 20, File::open(&path)?))
        .map_err(|e| format!("restore: {e}"))?;
    let loaded = t.elapsed().as_secs_f64();
    println!(
        "{}",
        json!({
            "documents": n,
            "originals": back.originals(),
            "snapshot_bytes_per_doc": size / n.max(1) as u64,
            "snapshot_write_s": (saved * 100.0).round() / 100.0,
            "snapshot_load_s": (loaded * 100.0).round() / 100.0,
            "peak_rss_mib": peak >> 20,
        })
    );
    Ok(())
}

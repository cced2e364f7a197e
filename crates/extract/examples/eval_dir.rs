//! Extract every page of an evaluation dataset directory, single-threaded.
//!
//! ```text
//! cargo run --release -p neardup-extract --example eval_dir -- DATASET_DIR [--all-text] > preds.jsonl
//! ```
//!
//! Reads `DATASET_DIR/html/*.html[.gz]`, decodes each page's charset with
//! `neardup_io::decode_html`, and prints one JSON line per page,
//! `{"id": FILE_NAME, "text": MAIN_TEXT}`. Timing of the extraction alone
//! (pages/s, MB/s of decoded HTML) goes to stderr.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use neardup_extract::{Extractor, Mode};

fn json_escape(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// CPU time this thread has run, from Linux schedstat (None elsewhere):
/// unlike wall time, it does not count time spent waiting for a busy CPU.
fn cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

fn read_page(path: &PathBuf) -> std::io::Result<Vec<u8>> {
    let raw = std::fs::read(path)?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out)?;
        Ok(out)
    } else {
        Ok(raw)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all_text = args.iter().any(|a| a == "--all-text");
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .ok_or("usage: eval_dir DATASET_DIR [--all-text]")?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(PathBuf::from(dir).join("html"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let mode = if all_text { Mode::AllText } else { Mode::Main };
    let ex = Extractor::builder().mode(mode).build();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (mut busy, mut bytes, mut pages, mut errors) = (Duration::ZERO, 0usize, 0usize, 0usize);
    let mut cpu = Some(Duration::ZERO);
    let mut line = String::new();
    for path in &files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let decoded = neardup_io::decode_html(&read_page(path)?, None);
        let cpu_start = cpu_time();
        let start = Instant::now();
        let result = ex.extract(&decoded.text);
        busy += start.elapsed();
        cpu = match (cpu, cpu_start, cpu_time()) {
            (Some(total), Some(a), Some(b)) => Some(total + b.saturating_sub(a)),
            _ => None,
        };
        bytes += decoded.text.len();
        pages += 1;
        let text = match result {
            Ok(doc) => doc.text,
            Err(e) => {
                errors += 1;
                eprintln!("{name}: {e}");
                String::new()
            }
        };
        line.clear();
        line.push_str("{\"id\": ");
        json_escape(&name, &mut line);
        line.push_str(", \"text\": ");
        json_escape(&text, &mut line);
        line.push('}');
        writeln!(out, "{line}")?;
    }
    let mb = bytes as f64 / 1e6;
    let secs = busy.as_secs_f64().max(1e-9);
    eprintln!(
        "{pages} pages ({errors} errors), {mb:.1} MB; wall {secs:.3} s: {:.0} pages/s, {:.1} MB/s",
        pages as f64 / secs,
        mb / secs
    );
    if let Some(cpu) = cpu {
        let c = cpu.as_secs_f64().max(1e-9);
        eprintln!(
            "  on-CPU {c:.3} s: {:.0} pages/s, {:.1} MB/s",
            pages as f64 / c,
            mb / c
        );
    }
    Ok(())
}

//! Helpers shared by the CLI integration tests.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `neardup` binary with `args`.
pub fn neardup(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(args)
        .output()
        .expect("run neardup")
}

pub mod serve;

pub use neardup_testkit::TempDir;

/// A fresh temporary directory for one test, removed when dropped.
pub fn temp_dir(name: &str) -> TempDir {
    TempDir::new(&format!("cli-{name}"))
}

/// The workspace's `examples/pages` directory.
pub fn example_pages() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/pages")
}

/// Parses JSON Lines output.
pub fn json_lines(out: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Gzips `data`.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// One WARC response record holding `html` for `uri`.
pub fn warc_record(uri: &str, html: &str) -> Vec<u8> {
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{html}");
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    r.extend_from_slice(http.as_bytes());
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// A paragraph of article-like text, different for each `seed`.
pub fn article(seed: usize) -> String {
    let words = [
        "river", "council", "library", "bridge", "garden", "market", "school", "museum", "harbour",
        "station",
    ];
    let mut out = String::from("<html><body><article>");
    for p in 0..5 {
        out.push_str("<p>");
        for i in 0..40 {
            out.push_str(words[(seed * 7 + p * 3 + i * (seed + 1)) % words.len()]);
            out.push(' ');
        }
        out.push_str("end of the paragraph.</p>");
    }
    out.push_str("</article></body></html>");
    out
}

//! Smoke test over the shared evaluation pages, when they are present.
//!
//! Looks for `../shared/eval/extraction` relative to the workspace root and
//! skips (with a message) when it is absent. Quality is scored by the
//! `eval_dir` example, not here: this only checks that real pages extract
//! without error and give text.

use std::io::Read;
use std::path::{Path, PathBuf};

use neardup_extract::Extractor;

fn dataset(name: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root
        .join("../shared/eval/extraction")
        .join(name)
        .join("html");
    dir.is_dir().then_some(dir)
}

fn read(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).expect("readable page");
    if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .expect("valid gzip");
        out
    } else {
        raw
    }
}

#[test]
fn real_pages_extract() {
    let Some(dir) = dataset("zyte") else {
        println!("skipping: ../shared/eval/extraction/zyte not found");
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("listable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let ex = Extractor::new();
    let mut with_text = 0;
    for path in files.iter().take(20) {
        let decoded = neardup_io::decode_html(&read(path), None);
        let doc = ex.extract(&decoded.text).expect("real page extracts");
        assert_eq!(doc.text, doc.paragraphs.join("\n"));
        if doc.text.split_whitespace().count() >= 50 {
            with_text += 1;
        }
    }
    assert!(with_text >= 18, "only {with_text} of 20 pages gave text");
}

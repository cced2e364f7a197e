//! Arbitrary bytes, decoded lossily as UTF-8, must never make extraction
//! panic, and a successful result must be self-consistent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup_extract::{Extractor, Mode};

fuzz_target!(|data: &[u8]| {
    let html = String::from_utf8_lossy(data);
    let main = Extractor::builder().max_depth(64).build();
    if let Ok(doc) = main.extract(&html) {
        assert_eq!(doc.text, doc.paragraphs.join("\n"));
        assert!(doc.paragraphs.iter().all(|p| !p.is_empty()));
    }
    let all = Extractor::builder().mode(Mode::AllText).build();
    let _ = all.extract(&html);
});

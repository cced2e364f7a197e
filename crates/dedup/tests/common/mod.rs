//! Helpers shared by the integration tests of the corpus-level rules.
#![allow(dead_code)]

use neardup_dedup::{shingles_of, Dedup, Fingerprinted, Groups};

/// `n` distinct pseudo-words of text `seed`.
pub fn words(n: usize, seed: usize) -> String {
    (0..n)
        .map(|i| format!("w{}x{}", seed, (i * 7919) % 100_003))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Document `id` (also its URL) with `text`, fingerprinted by `dedup`.
pub fn doc(dedup: &Dedup, id: &str, text: &str) -> Fingerprinted {
    Fingerprinted {
        id: id.to_string(),
        url: Some(id.to_string()),
        text_len: text.len(),
        signature: dedup.fingerprint(text, &[]),
        shingles: dedup.shingles(text),
        error: None,
    }
}

/// The groups of `docs` with exact verification.
pub fn cluster(dedup: &Dedup, docs: &[Fingerprinted]) -> Groups {
    let views: Vec<_> = docs.iter().map(Fingerprinted::as_doc).collect();
    dedup.cluster_exact(&views, &shingles_of(docs)).unwrap()
}

/// The groups of `texts` (documents `d0`, `d1`, ...), and whom each
/// document duplicates.
pub fn duplicate_of(dedup: &Dedup, texts: &[String]) -> (Vec<Option<u32>>, Groups) {
    let docs: Vec<Fingerprinted> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| doc(dedup, &format!("d{i}"), t))
        .collect();
    let groups = cluster(dedup, &docs);
    let dups = groups.assignments.iter().map(|a| a.duplicate_of).collect();
    (dups, groups)
}

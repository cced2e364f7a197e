//! Texts for the unit tests of the corpus-level rules.

use crate::verify::ShingleSeq;

/// `n` distinct pseudo-words of text `seed`.
pub(crate) fn words(n: usize, seed: usize) -> String {
    (0..n)
        .map(|i| format!("w{seed}x{}", (i * 7919) % 100_003))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The word 3-gram shingles of `text`.
pub(crate) fn seq(text: &str) -> ShingleSeq {
    ShingleSeq::new(text, 3)
}

//! The composite page check, online: the sampled postings of the stored
//! originals.
//!
//! A page glued together from part of article A and all of article B
//! passes verification against B when A's part is short; the batch engine
//! ([`crate::CompositeCheck`]) refuses the pair when a third document, a
//! copy of A, makes up the foreign run. The online engine does the same with the
//! originals stored so far as third documents: a composite page posted
//! after a copy of A is not a duplicate of B. (Posted before any copy of A,
//! it is, as nothing yet shows where its extra text comes from.)
//!
//! Third documents are found through the sampled shingles of every stored
//! original: a sorted table, and the recent postings in a hash map that is
//! merged into the table when it reaches an eighth of its size (at least
//! [`MERGE_AT`] postings), so that a merge costs a constant amount of work
//! per posting over time. Postings of deleted originals are dropped at
//! merges and skipped before.

use std::collections::HashMap;

use crate::composite::CompositeCheck;
use crate::verify::ShingleSeq;

/// Recent postings kept out of the sorted table at least.
pub(crate) const MERGE_AT: usize = 1 << 16;

/// Sampled shingle hashes to the originals holding them.
#[derive(Debug)]
pub(crate) struct SampledPostings {
    check: CompositeCheck,
    /// `(hash, original)`, sorted.
    table: Vec<(u32, u32)>,
    /// Postings added since the last merge, originals ascending per hash.
    recent: HashMap<u32, Vec<u32>>,
    recent_len: usize,
}

impl SampledPostings {
    /// Empty postings for `check`.
    pub(crate) fn new(check: CompositeCheck) -> SampledPostings {
        SampledPostings {
            check,
            table: Vec::new(),
            recent: HashMap::new(),
            recent_len: 0,
        }
    }

    /// The check's settings.
    pub(crate) fn check(&self) -> &CompositeCheck {
        &self.check
    }

    /// Adds original `d` (greater than every original added before) with
    /// its shingles; `alive` says which originals are still stored, for
    /// the merges.
    pub(crate) fn insert(&mut self, d: u32, seq: &ShingleSeq, alive: impl Fn(u32) -> bool) {
        let mut hashes: Vec<u32> = seq
            .hashes()
            .iter()
            .copied()
            .filter(|&h| self.check.is_sampled(h))
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        self.recent_len += hashes.len();
        for h in hashes {
            self.recent.entry(h).or_default().push(d);
        }
        if self.recent_len >= MERGE_AT.max(self.table.len() / 8) {
            self.merge(alive);
        }
    }

    /// Moves the recent postings into the sorted table, without those of
    /// originals no longer stored.
    fn merge(&mut self, alive: impl Fn(u32) -> bool) {
        let mut recent: Vec<(u32, u32)> = self
            .recent
            .drain()
            .flat_map(|(h, ds)| ds.into_iter().map(move |d| (h, d)))
            .filter(|&(_, d)| alive(d))
            .collect();
        recent.sort_unstable();
        let old = std::mem::take(&mut self.table);
        let mut merged = Vec::with_capacity(old.len() + recent.len());
        let (mut a, mut b) = (
            old.into_iter().filter(|&(_, d)| alive(d)).peekable(),
            recent.into_iter().peekable(),
        );
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x <= y => a.next(),
                (Some(_), Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, Some(_)) => b.next(),
                (None, None) => break,
            };
            merged.extend(next);
        }
        self.table = merged;
        self.recent_len = 0;
    }

    /// The originals holding sampled hash `h`, earliest first, without
    /// `exclude`.
    pub(crate) fn docs_with(&self, h: u32, exclude: u32) -> Vec<u32> {
        let from = self.table.partition_point(|&(g, _)| g < h);
        let mut docs: Vec<u32> = self.table[from..]
            .iter()
            .take_while(|&&(g, _)| g == h)
            .map(|&(_, d)| d)
            .filter(|&d| d != exclude)
            .take(CompositeCheck::POSTINGS_READ)
            .collect();
        if let Some(recent) = self.recent.get(&h) {
            docs.extend(recent.iter().copied().filter(|&d| d != exclude));
        }
        docs
    }

    /// Approximate heap bytes.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.table.capacity() * 8 + self.recent_len * 4 + self.recent.capacity() * 32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(words: std::ops::Range<usize>) -> ShingleSeq {
        let text: Vec<String> = words.map(|i| format!("w{i}")).collect();
        ShingleSeq::new(&text.join(" "), 3)
    }

    #[test]
    fn postings_are_found_before_and_after_merges() {
        let mut p = SampledPostings::new(CompositeCheck::default());
        let docs: Vec<ShingleSeq> = (0..3).map(|i| seq(i * 50..i * 50 + 400)).collect();
        for (d, s) in docs.iter().enumerate() {
            p.insert(d as u32, s, |_| true);
        }
        let h = *docs[2]
            .hashes()
            .iter()
            .find(|&&h| p.check().is_sampled(h) && docs[0].hashes().contains(&h))
            .expect("a sampled shingle the three share");
        assert_eq!(p.docs_with(h, u32::MAX), vec![0, 1, 2]);
        assert_eq!(p.docs_with(h, 1), vec![0, 2]);
        p.merge(|d| d != 1);
        assert_eq!(
            p.docs_with(h, u32::MAX),
            vec![0, 2],
            "the deleted one is gone"
        );
        p.insert(3, &docs[0], |_| true);
        assert_eq!(p.docs_with(h, u32::MAX), vec![0, 2, 3]);
        assert!(p.memory_bytes() > 0);
    }
}

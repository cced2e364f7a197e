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
//! original, kept in a [`PostingsStore`]: in memory
//! ([`MemoryPostings`]) or on disk (the service's). Postings of deleted
//! originals are dropped at merges and skipped before.

use crate::error::Error;
use crate::online::postings_store::{MemoryPostings, PostingsStore};
use crate::rules::composite::CompositeCheck;
use crate::verify::ShingleSeq;

/// Sampled shingle hashes to the originals holding them.
#[derive(Debug)]
pub(crate) struct SampledPostings {
    check: CompositeCheck,
    store: Box<dyn PostingsStore>,
}

impl SampledPostings {
    /// Empty postings for `check`, in memory.
    pub(crate) fn new(check: CompositeCheck) -> SampledPostings {
        SampledPostings::with_store(check, Box::<MemoryPostings>::default())
    }

    /// Postings for `check` in `store`.
    pub(crate) fn with_store(
        check: CompositeCheck,
        store: Box<dyn PostingsStore>,
    ) -> SampledPostings {
        SampledPostings { check, store }
    }

    /// The check's settings.
    pub(crate) fn check(&self) -> &CompositeCheck {
        &self.check
    }

    /// The store.
    pub(crate) fn store(&self) -> &dyn PostingsStore {
        self.store.as_ref()
    }

    /// The store, to change.
    pub(crate) fn store_mut(&mut self) -> &mut dyn PostingsStore {
        self.store.as_mut()
    }

    /// Adds original `d` (greater than every original added before) with
    /// its shingles; `alive` says which originals are still stored, for
    /// the merges.
    pub(crate) fn insert(
        &mut self,
        d: u32,
        seq: &ShingleSeq,
        alive: &dyn Fn(u32) -> bool,
    ) -> Result<(), Error> {
        let mut hashes: Vec<u32> = seq
            .hashes()
            .iter()
            .copied()
            .filter(|&h| self.check.is_sampled(h))
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        self.store.insert(d, &hashes, alive)
    }

    /// The originals holding sampled hash `h`, earliest first, without
    /// `exclude`, at most [`CompositeCheck::POSTINGS_READ`] of them, among
    /// those `keep` accepts.
    pub(crate) fn docs_with(
        &self,
        h: u32,
        exclude: u32,
        keep: impl Fn(u32) -> bool,
    ) -> Result<Vec<u32>, Error> {
        self.store.docs_with(
            h,
            &|d| d != exclude && keep(d),
            CompositeCheck::POSTINGS_READ,
        )
    }

    /// Approximate heap bytes.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.store.memory_bytes()
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
            p.insert(d as u32, s, &|_| true).unwrap();
        }
        let h = *docs[2]
            .hashes()
            .iter()
            .find(|&&h| p.check().is_sampled(h) && docs[0].hashes().contains(&h))
            .expect("a sampled shingle the three share");
        let all = |_| true;
        assert_eq!(p.docs_with(h, u32::MAX, all).unwrap(), vec![0, 1, 2]);
        assert_eq!(p.docs_with(h, 1, all).unwrap(), vec![0, 2]);
        assert_eq!(
            p.docs_with(h, u32::MAX, |d| d != 1).unwrap(),
            vec![0, 2],
            "the deleted one is skipped"
        );
        p.insert(3, &docs[0], &|_| true).unwrap();
        assert_eq!(p.docs_with(h, u32::MAX, all).unwrap(), vec![0, 1, 2, 3]);
        assert!(p.memory_bytes() > 0);
    }
}

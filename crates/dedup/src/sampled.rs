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
//! original, kept in a [`CompactPostings`] (six bytes a posting, merged in
//! levels; postings of deleted originals are dropped at merges and skipped
//! before).

use neardup_index::CompactPostings;

use crate::composite::CompositeCheck;
use crate::error::Error;
use crate::verify::ShingleSeq;

/// Sampled shingle hashes to the originals holding them.
#[derive(Debug)]
pub(crate) struct SampledPostings {
    check: CompositeCheck,
    postings: CompactPostings,
}

impl SampledPostings {
    /// Empty postings for `check`.
    pub(crate) fn new(check: CompositeCheck) -> SampledPostings {
        SampledPostings {
            check,
            postings: CompactPostings::new(),
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
        for h in hashes {
            self.postings.insert(h, d, &alive);
        }
    }

    /// The originals holding sampled hash `h`, earliest first, without
    /// `exclude`, at most [`CompositeCheck::POSTINGS_READ`] of them.
    pub(crate) fn docs_with(&self, h: u32, exclude: u32) -> Vec<u32> {
        let mut docs = Vec::new();
        self.postings.get(h, &mut docs);
        docs.sort_unstable();
        docs.dedup();
        docs.retain(|&d| d != exclude);
        docs.truncate(CompositeCheck::POSTINGS_READ);
        docs
    }

    /// Drops the postings of originals no longer stored.
    #[cfg(test)]
    fn merge(&mut self, alive: impl Fn(u32) -> bool) {
        self.postings.compact(alive);
    }

    /// Writes the postings for a snapshot.
    pub(crate) fn write_to(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        self.postings.write_to(w)
    }

    /// Reads what [`SampledPostings::write_to`] wrote.
    pub(crate) fn read_from(&mut self, r: &mut impl std::io::Read) -> Result<(), Error> {
        self.postings = CompactPostings::read_from(r)?;
        Ok(())
    }

    /// Approximate heap bytes.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.postings.memory_bytes()
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

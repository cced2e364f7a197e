//! Partial copies: a page that reprints only part of an article.
//!
//! A truncated reprint (the first half of an article, say) can keep a
//! Jaccard similarity above the threshold with the full article, and the
//! run limits of [`crate::Verifier`] do not see it when the missing part is
//! spread over several runs. What shows it is partial is the corpus again:
//! the text it lacks is the article's own, so the article's *other*
//! near-duplicates have it too. A page's furniture or an editor's addition
//! is the other way round: no other copy of the article carries it.
//!
//! So a verified pair (X, Y) is refused when one side, say Y, has at least
//! [`PartialCopyCheck::missing_share`] of its distinct shingles that X
//! lacks, and another document verified as a near-duplicate of Y has at
//! least [`PartialCopyCheck::corroboration`] of that missing part. Only
//! pairs with that much missing are looked at, and at most
//! [`PartialCopyCheck::NEIGHBOURS_READ`] of Y's other near-duplicates
//! (the earliest), so the check costs little and does not depend on the
//! number of threads.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::verify::{Comparison, ShingleSeq};

/// Settings of the partial copy check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartialCopyCheck {
    /// Least share of a page's distinct shingles the other page must lack.
    pub missing_share: f64,
    /// Least share of that missing part another near-duplicate of the page
    /// must have.
    pub corroboration: f64,
}

impl Default for PartialCopyCheck {
    fn default() -> PartialCopyCheck {
        PartialCopyCheck {
            missing_share: 0.35,
            corroboration: 0.8,
        }
    }
}

impl PartialCopyCheck {
    /// Other near-duplicates of a page read to corroborate its missing
    /// part, earliest first.
    pub const NEIGHBOURS_READ: usize = 16;

    /// Whether a verified pair, by its comparison, has one side missing
    /// enough of the other to look at.
    pub fn applies_to(&self, c: &Comparison) -> bool {
        c.missing_a.max(c.missing_b) >= self.missing_share
    }

    /// The distinct shingles of `full` that `part` lacks (sorted), when
    /// they are at least [`PartialCopyCheck::missing_share`] of `full`'s.
    pub fn missing_part(&self, full: &ShingleSeq, part: &ShingleSeq) -> Option<Vec<u32>> {
        let full = full.sorted_set();
        let part = part.sorted_set();
        let missing: Vec<u32> = full
            .iter()
            .copied()
            .filter(|h| part.binary_search(h).is_err())
            .collect();
        let enough =
            !missing.is_empty() && missing.len() as f64 >= self.missing_share * full.len() as f64;
        enough.then_some(missing)
    }

    /// Whether `other`, another near-duplicate of the full page, has enough
    /// of its `missing` part (from [`PartialCopyCheck::missing_part`]).
    pub fn corroborates(&self, missing: &[u32], other: &ShingleSeq) -> bool {
        let other = other.sorted_set();
        let found = missing
            .iter()
            .filter(|h| other.binary_search(h).is_ok())
            .count();
        found as f64 >= self.corroboration * missing.len() as f64
    }
}

/// The pairs among `suspects` (verified pairs `(a, b)` in which one side
/// lacks [`PartialCopyCheck::missing_share`] of the other's shingles) that
/// are a partial copy and its full page, by the near-duplicates of the
/// full page among `verified`; sorted.
pub(crate) fn partial_pairs(
    cfg: &PartialCopyCheck,
    seqs: &[Option<&ShingleSeq>],
    suspects: &[(u32, u32)],
    verified: &[(u32, u32, f64)],
) -> Vec<(u32, u32)> {
    if suspects.is_empty() {
        return Vec::new();
    }
    let mut neighbours: HashMap<u32, Vec<u32>> = HashMap::new();
    for &(a, b, _) in verified {
        neighbours.entry(a).or_default().push(b);
        neighbours.entry(b).or_default().push(a);
    }
    for list in neighbours.values_mut() {
        list.sort_unstable();
    }
    let is_partial = |full: u32, part: u32| -> bool {
        let (Some(f), Some(p)) = (seqs[full as usize], seqs[part as usize]) else {
            return false;
        };
        let Some(missing) = cfg.missing_part(f, p) else {
            return false;
        };
        neighbours
            .get(&full)
            .into_iter()
            .flatten()
            .filter(|&&z| z != part)
            .take(PartialCopyCheck::NEIGHBOURS_READ)
            .any(|&z| seqs[z as usize].is_some_and(|other| cfg.corroborates(&missing, other)))
    };
    let mut refused: Vec<(u32, u32)> = suspects
        .par_iter()
        .copied()
        .filter(|&(a, b)| is_partial(a, b) || is_partial(b, a))
        .collect();
    refused.sort_unstable();
    refused.dedup();
    refused
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_text::{seq, words};

    fn first(text: &str, n: usize) -> String {
        text.split(' ').take(n).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn a_truncated_copy_is_shown_by_the_full_page_s_other_copy() {
        let article = words(300, 1);
        let full = seq(&article);
        let copy = seq(&format!("{article} {}", words(5, 2)));
        let truncated = seq(&first(&article, 180));
        let docs = [Some(&full), Some(&truncated), Some(&copy)];
        let verified = [(0, 1, 0.6), (0, 2, 0.98), (1, 2, 0.59)];
        let refused = partial_pairs(
            &PartialCopyCheck::default(),
            &docs,
            &[(0, 1), (1, 2)],
            &verified,
        );
        assert_eq!(refused, vec![(0, 1), (1, 2)]);
        // Alone with the full page, nothing corroborates the missing part.
        let alone = partial_pairs(
            &PartialCopyCheck::default(),
            &docs,
            &[(0, 1)],
            &verified[..1],
        );
        assert!(alone.is_empty());
    }

    #[test]
    fn furniture_only_one_page_has_is_not_corroborated() {
        let article = words(300, 1);
        // The same article under a 150-word feed, and a clean reprint.
        let with_feed = seq(&format!("{article} {}", words(150, 3)));
        let clean = seq(&article);
        let reprint = seq(&format!("{} {}", words(4, 4), article));
        let docs = [Some(&with_feed), Some(&clean), Some(&reprint)];
        let verified = [(0, 1, 0.66), (0, 2, 0.65), (1, 2, 0.98)];
        let check = PartialCopyCheck {
            missing_share: 0.3,
            ..PartialCopyCheck::default()
        };
        assert!(check.missing_part(&with_feed, &clean).is_some());
        assert!(partial_pairs(&check, &docs, &[(0, 1), (0, 2)], &verified).is_empty());
    }

    #[test]
    fn shares_are_measured_on_distinct_shingles() {
        let check = PartialCopyCheck::default();
        let full = seq(&words(100, 1));
        let part = seq(&first(&words(100, 1), 60));
        let missing = check.missing_part(&full, &part).unwrap();
        assert!((38..=42).contains(&missing.len()), "{}", missing.len());
        assert!(check.missing_part(&part, &full).is_none());
        assert!(check.corroborates(&missing, &full));
        assert!(!check.corroborates(&missing, &part));
    }
}

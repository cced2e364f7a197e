//! [`Dedup::run`]: the whole batch decision over a fingerprinted corpus,
//! the one entry point of every batch frontend (the CLI's `dedup` and
//! `eval`, Python's `dedup_files`, the report).

use std::collections::{BTreeMap, HashMap};

use crate::batch::fingerprinted::{shingles_of, Fingerprinted};
use crate::dedup::{Dedup, Groups};
use crate::error::Error;
use crate::rules::templates::TemplateStats;

/// What [`Dedup::run`] decided about a corpus.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Groups, per-pair figures and the pairs refused by corpus-level
    /// rules.
    pub groups: Groups,
    /// What the site template pass removed.
    pub templates: TemplateStats,
    /// Per document, the container it is a partial reprint of with the
    /// containment (with [`crate::DedupBuilder::containment`]): the most
    /// containing one, ties to the earlier document.
    pub contained_in: HashMap<u32, (u32, f64)>,
}

impl Outcome {
    /// Documents that duplicate a kept one.
    pub fn duplicates(&self) -> usize {
        self.groups
            .assignments
            .iter()
            .filter(|a| a.duplicate_of.is_some())
            .count()
    }

    /// Group sizes: size -> number of groups of that size (every document
    /// is in one group; a kept document with no copies is a group of 1).
    pub fn group_sizes(&self) -> BTreeMap<u64, u64> {
        // Representatives are document indices: a count per document.
        let mut sizes = vec![0u32; self.groups.assignments.len()];
        for a in &self.groups.assignments {
            let r = a.representative as usize;
            if r >= sizes.len() {
                sizes.resize(r + 1, 0);
            }
            sizes[r] += 1;
        }
        let mut histogram = BTreeMap::new();
        for &n in sizes.iter().filter(|&&n| n > 0) {
            *histogram.entry(u64::from(n)).or_default() += 1;
        }
        histogram
    }

    /// The number of groups.
    pub fn group_count(&self) -> usize {
        self.groups
            .assignments
            .iter()
            .filter(|a| a.duplicate_of.is_none())
            .count()
    }
}

impl Dedup {
    /// Runs the batch decision over `docs` (in input order, from
    /// [`Dedup::fingerprint_doc`] or the facade's `fingerprint_item`): the
    /// site template pass (which changes the documents' signatures and
    /// shingles in place), candidate search, verification, the corpus-level
    /// rules and groups without chaining. Deterministic whatever the number
    /// of threads of the calling rayon pool.
    ///
    /// # Errors
    /// When the index refuses the input (more than `u32::MAX` documents,
    /// unusable signatures).
    pub fn run(&self, docs: &mut [Fingerprinted]) -> Result<Outcome, Error> {
        let templates = self.strip_site_templates(docs);
        let views: Vec<_> = docs.iter().map(Fingerprinted::as_doc).collect();
        let groups = self.cluster_exact(&views, &shingles_of(docs))?;
        Ok(Outcome::new(groups, templates))
    }
}

impl Outcome {
    /// The outcome of these groups: each partial reprint's most containing
    /// container.
    pub(crate) fn new(groups: Groups, templates: TemplateStats) -> Outcome {
        let mut contained_in: HashMap<u32, (u32, f64)> = HashMap::new();
        for c in &groups.contained {
            let e = contained_in
                .entry(c.contained)
                .or_insert((c.container, c.containment));
            if c.containment > e.1 || (c.containment == e.1 && c.container < e.0) {
                *e = (c.container, c.containment);
            }
        }
        Outcome {
            groups,
            templates,
            contained_in,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_text::words;

    #[test]
    fn run_groups_counts_and_sizes() {
        let dedup = Dedup::new();
        let a = words(200, 1);
        let texts = [a.clone(), format!("{a} an editor's note"), words(150, 2)];
        let mut docs: Vec<Fingerprinted> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| dedup.fingerprint_doc(format!("d{i}"), None, t, &[]))
            .collect();
        docs.push(Fingerprinted::failed(
            "bad".into(),
            None,
            "unreadable".into(),
        ));
        let out = dedup.run(&mut docs).unwrap();
        assert_eq!(out.groups.assignments[1].duplicate_of, Some(0));
        assert_eq!((out.duplicates(), out.group_count()), (1, 3));
        assert_eq!(out.group_sizes(), BTreeMap::from([(1, 2), (2, 1)]));
        assert!(out.contained_in.is_empty() && out.groups.refusals.is_empty());
    }
}

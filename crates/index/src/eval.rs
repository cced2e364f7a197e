//! Quality metrics for a clustering against ground truth, with the
//! semantics of the project's benchmark scorer (`score_neardup.py`):
//!
//! * pairwise precision, recall and F1 over same-cluster pairs. Predicted
//!   clusters of `big_cluster_limit` (default 2000) or more items contribute
//!   no predicted pair (the scorer skips them and warns); their items are
//!   counted in [`PairScores::uncounted_items`]. Precision is 1 when no pair
//!   is predicted, recall 1 when no pair is true, F1 0 when both are 0;
//! * the adjusted Rand index over all items (1 when the expected index equals
//!   its maximum);
//! * false pairs by kind, through a caller-given classifier (the only metric
//!   that enumerates pairs, within counted predicted clusters);
//! * recall per kind of reprint: for every item of a variant kind whose truth
//!   cluster has an original, whether it is predicted together with that
//!   original (with several originals in a cluster, the last one counts).
//!
//! Everything is computed from contingency counts (`O(n)` time and memory),
//! never by enumerating pairs. An item missing from the predictions should
//! be given a label of its own by the caller, as the scorer does.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

use crate::error::{Error, ErrorKind, Result};

/// Role of an item for [`Evaluator::recall_by_kind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role<K> {
    /// The original page of its truth cluster.
    Original,
    /// Not counted (in the benchmark: `truncated` and `merged` pages).
    Excluded,
    /// A reprint of the given kind (`template`, `edited`, ...).
    Variant(K),
}

/// Pairwise scores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairScores {
    /// Correct predicted pairs / predicted pairs.
    pub precision: f64,
    /// Correct predicted pairs / true pairs.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
    /// Same-cluster pairs in the truth.
    pub true_pairs: u64,
    /// Same-cluster pairs predicted (big clusters excluded).
    pub predicted_pairs: u64,
    /// Predicted pairs that are true pairs.
    pub correct_pairs: u64,
    /// Items in predicted clusters too big to count.
    pub uncounted_items: usize,
}

/// Hits and totals of one reprint kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KindRecall {
    /// Variants predicted with their original.
    pub hits: usize,
    /// Variants counted.
    pub total: usize,
}

impl KindRecall {
    /// `hits / total` (1 when `total` is 0).
    pub fn recall(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.hits as f64 / self.total as f64
        }
    }
}

/// Computes the metrics; holds the scorer settings.
#[derive(Debug, Clone)]
pub struct Evaluator {
    cfg: Config,
}

#[derive(Debug, Clone)]
struct Config {
    big_cluster_limit: Option<usize>,
}

impl Default for Evaluator {
    fn default() -> Self {
        Self::new()
    }
}

fn comb2(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

fn same_len(a: usize, b: usize) -> Result<()> {
    if a == b {
        Ok(())
    } else {
        Err(Error::new(ErrorKind::LengthMismatch {
            expected: a,
            got: b,
        }))
    }
}

/// Sum of `comb2` over the counts, as `f64`.
fn pair_sum<L>(m: &HashMap<L, u64>) -> f64 {
    m.values().map(|&n| comb2(n)).sum::<u64>() as f64
}

fn counts<L: Hash + Eq>(labels: impl Iterator<Item = L>) -> HashMap<L, u64> {
    let mut m = HashMap::new();
    for l in labels {
        *m.entry(l).or_insert(0) += 1;
    }
    m
}

impl Evaluator {
    /// The scorer's settings: predicted clusters of 2000+ items are not
    /// counted in the pairwise scores.
    pub fn new() -> Self {
        Self {
            cfg: Config {
                big_cluster_limit: Some(2000),
            },
        }
    }

    /// Sets the predicted-cluster size from which pairs are not counted;
    /// `None` counts every pair.
    pub fn set_big_cluster_limit(&mut self, limit: Option<usize>) -> &mut Self {
        self.cfg.big_cluster_limit = limit;
        self
    }

    /// Pairwise precision, recall and F1; `truth[i]` and `pred[i]` label
    /// item `i`.
    pub fn pair_scores<T, P>(&self, truth: &[T], pred: &[P]) -> Result<PairScores>
    where
        T: Hash + Eq,
        P: Hash + Eq,
    {
        same_len(truth.len(), pred.len())?;
        let limit = self.cfg.big_cluster_limit.unwrap_or(usize::MAX) as u64;
        let t_sizes = counts(truth.iter());
        let p_sizes = counts(pred.iter());
        let cells = counts(truth.iter().zip(pred));
        let true_pairs = t_sizes.values().map(|&n| comb2(n)).sum();
        let predicted_pairs = p_sizes
            .values()
            .filter(|&&n| n < limit)
            .map(|&n| comb2(n))
            .sum();
        let uncounted_items = p_sizes.values().filter(|&&n| n >= limit).sum::<u64>() as usize;
        let correct_pairs = cells
            .iter()
            .filter(|((_, p), _)| p_sizes.get(p).is_some_and(|&n| n < limit))
            .map(|(_, &n)| comb2(n))
            .sum();
        let precision = if predicted_pairs > 0 {
            correct_pairs as f64 / predicted_pairs as f64
        } else {
            1.0
        };
        let recall = if true_pairs > 0 {
            correct_pairs as f64 / true_pairs as f64
        } else {
            1.0
        };
        let f1 = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        Ok(PairScores {
            precision,
            recall,
            f1,
            true_pairs,
            predicted_pairs,
            correct_pairs,
            uncounted_items,
        })
    }

    /// Adjusted Rand index of the two labelings (over all items; the big
    /// cluster limit does not apply).
    pub fn adjusted_rand_index<T, P>(&self, truth: &[T], pred: &[P]) -> Result<f64>
    where
        T: Hash + Eq,
        P: Hash + Eq,
    {
        same_len(truth.len(), pred.len())?;
        let index = pair_sum(&counts(truth.iter().zip(pred)));
        let sa = pair_sum(&counts(truth.iter()));
        let sb = pair_sum(&counts(pred.iter()));
        let total = comb2(truth.len() as u64) as f64;
        let expected = if total > 0.0 { sa * sb / total } else { 0.0 };
        let max = (sa + sb) / 2.0;
        Ok(if max != expected {
            (index - expected) / (max - expected)
        } else {
            1.0
        })
    }

    /// Where false pairs come from: every predicted pair `(i, j)`, `i < j`,
    /// of a counted predicted cluster (below the big-cluster limit) whose
    /// items differ in truth is passed to `classify`, and the results are
    /// counted. Enumerates those pairs, like the scorer does.
    pub fn false_pairs_by_kind<T, P, K, F>(
        &self,
        truth: &[T],
        pred: &[P],
        mut classify: F,
    ) -> Result<BTreeMap<K, u64>>
    where
        T: Eq,
        P: Hash + Eq,
        K: Ord,
        F: FnMut(usize, usize) -> K,
    {
        same_len(truth.len(), pred.len())?;
        let limit = self.cfg.big_cluster_limit.unwrap_or(usize::MAX);
        let mut members: HashMap<&P, Vec<usize>> = HashMap::new();
        for (i, p) in pred.iter().enumerate() {
            members.entry(p).or_default().push(i);
        }
        let mut groups: Vec<Vec<usize>> =
            members.into_values().filter(|g| g.len() < limit).collect();
        groups.sort_unstable();
        let mut out = BTreeMap::new();
        for g in &groups {
            for (x, &i) in g.iter().enumerate() {
                for &j in &g[x + 1..] {
                    if truth[i] != truth[j] {
                        *out.entry(classify(i, j)).or_insert(0) += 1;
                    }
                }
            }
        }
        Ok(out)
    }

    /// Recall per reprint kind: a variant is a hit when predicted with the
    /// original of its truth cluster. Variants of clusters without an
    /// original are not counted.
    pub fn recall_by_kind<T, P, K>(
        &self,
        truth: &[T],
        pred: &[P],
        roles: &[Role<K>],
    ) -> Result<BTreeMap<K, KindRecall>>
    where
        T: Hash + Eq,
        P: Eq,
        K: Ord + Clone,
    {
        same_len(truth.len(), pred.len())?;
        same_len(truth.len(), roles.len())?;
        let mut original: HashMap<&T, usize> = HashMap::new();
        for (i, r) in roles.iter().enumerate() {
            if matches!(r, Role::Original) {
                original.insert(&truth[i], i);
            }
        }
        let mut out: BTreeMap<K, KindRecall> = BTreeMap::new();
        for (i, r) in roles.iter().enumerate() {
            if let Role::Variant(kind) = r {
                if let Some(&o) = original.get(&truth[i]) {
                    let e = out.entry(kind.clone()).or_default();
                    e.total += 1;
                    e.hits += usize::from(pred[i] == pred[o]);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Ten pages: cluster c0 = original, template, edited, reflowed; a
    // truncated and a merged page of their own; c1 = original, template,
    // edited; c2 = a lone original. The benchmark scorer prints for this
    // prediction: pairs true 9, predicted 9, correct 4, P = R = F1 = 4/9,
    // ARI 0.3056 (11/36), recall edited 1/2, reflowed 0/1, template 2/2.
    const TRUTH: [&str; 10] = ["c0", "c0", "c0", "c0", "c0t", "c0m", "c1", "c1", "c1", "c2"];
    const PRED: [u32; 10] = [1, 1, 1, 2, 3, 1, 3, 3, 4, 5];

    fn roles() -> Vec<Role<&'static str>> {
        use Role::*;
        vec![
            Original,
            Variant("template"),
            Variant("edited"),
            Variant("reflowed"),
            Excluded,
            Excluded,
            Original,
            Variant("template"),
            Variant("edited"),
            Original,
        ]
    }

    #[test]
    fn matches_the_benchmark_scorer() {
        let e = Evaluator::new();
        let s = e.pair_scores(&TRUTH, &PRED).unwrap();
        assert_eq!(
            (s.true_pairs, s.predicted_pairs, s.correct_pairs),
            (9, 9, 4)
        );
        assert!((s.precision - 4.0 / 9.0).abs() < 1e-12);
        assert!((s.recall - 4.0 / 9.0).abs() < 1e-12);
        assert!((s.f1 - 4.0 / 9.0).abs() < 1e-12);
        assert_eq!(s.uncounted_items, 0);
        let ari = e.adjusted_rand_index(&TRUTH, &PRED).unwrap();
        assert!((ari - 11.0 / 36.0).abs() < 1e-12);
        let k = e.recall_by_kind(&TRUTH, &PRED, &roles()).unwrap();
        let got: Vec<(&str, usize, usize)> = k.iter().map(|(k, v)| (*k, v.hits, v.total)).collect();
        assert_eq!(
            got,
            vec![("edited", 1, 2), ("reflowed", 0, 1), ("template", 2, 2)]
        );
        assert_eq!(k["edited"].recall(), 0.5);
        // False pairs: cluster 1 holds c0 x3 + the merged page (3 pairs);
        // cluster 3 holds the truncated page + c1 x2 (2 pairs).
        let kind = |i: usize, j: usize| match (roles()[i].clone(), roles()[j].clone()) {
            (Role::Excluded, _) | (_, Role::Excluded) => "relation",
            _ => "other",
        };
        let f = e.false_pairs_by_kind(&TRUTH, &PRED, kind).unwrap();
        assert_eq!(f.into_iter().collect::<Vec<_>>(), vec![("relation", 5)]);
    }

    #[test]
    fn hand_computed_small_case() {
        // truth a a a b b c / pred 1 1 2 2 2 3: true 4, predicted 4,
        // correct 2; ARI = (2 - 16/15) / (4 - 16/15) = 7/22.
        let t = ['a', 'a', 'a', 'b', 'b', 'c'];
        let p = [1, 1, 2, 2, 2, 3];
        let mut e = Evaluator::new();
        let s = e.pair_scores(&t, &p).unwrap();
        assert_eq!((s.precision, s.recall, s.f1), (0.5, 0.5, 0.5));
        assert!((e.adjusted_rand_index(&t, &p).unwrap() - 7.0 / 22.0).abs() < 1e-12);
        // Clusters of 3+ items uncounted: only pair (0, 1) remains.
        e.set_big_cluster_limit(Some(3));
        let s = e.pair_scores(&t, &p).unwrap();
        assert_eq!(
            (s.predicted_pairs, s.correct_pairs, s.uncounted_items),
            (1, 1, 3)
        );
        assert_eq!(s.precision, 1.0);
        assert!((s.f1 - 0.4).abs() < 1e-12);
    }

    #[test]
    fn degenerate_inputs() {
        let e = Evaluator::new();
        let none: [u8; 0] = [];
        let s = e.pair_scores(&none, &none).unwrap();
        assert_eq!((s.precision, s.recall, s.f1), (1.0, 1.0, 1.0));
        assert_eq!(e.adjusted_rand_index(&none, &none).unwrap(), 1.0);
        // All singletons predicted, truth has pairs: precision 1, recall 0.
        let s = e.pair_scores(&[1, 1], &[1, 2]).unwrap();
        assert_eq!((s.precision, s.recall), (1.0, 0.0));
        // Everything merged, truth all singletons: P = R = 0 -> F1 0.
        let s = e.pair_scores(&[1, 2], &[1, 1]).unwrap();
        assert_eq!((s.precision, s.recall, s.f1), (0.0, 1.0, 0.0));
        assert!(e.pair_scores(&[1], &[1, 2]).is_err());
        assert!(e.recall_by_kind::<_, _, u8>(&[1], &[1], &[]).is_err());
        // Identical labelings: ARI 1.
        assert_eq!(e.adjusted_rand_index(&[1, 1, 2], &[7, 7, 9]).unwrap(), 1.0);
    }

    #[test]
    fn scales_to_a_million_items() {
        let n = 1_000_000u32;
        let truth: Vec<u32> = (0..n).map(|i| i / 4).collect();
        let pred: Vec<u32> = (0..n).map(|i| i / 2).collect();
        let s = Evaluator::new().pair_scores(&truth, &pred).unwrap();
        assert_eq!(s.true_pairs, 6 * 250_000);
        assert_eq!(s.correct_pairs, 500_000);
        assert_eq!(s.precision, 1.0);
    }
}

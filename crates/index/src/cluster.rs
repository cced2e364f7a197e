//! Clustering of verified pairs without transitive chaining.
//!
//! Documents are visited in priority order (input order by default; a keep
//! policy such as "longest text first" or "preferred URL pattern first" is
//! expressed as an order, see [`priority_order`]). A visited document joins
//! the cluster of the most similar *kept* document (its representative) when
//! that similarity reaches the threshold, and is kept itself otherwise. A
//! duplicate never attracts others, so "half of A + all of B" cannot bridge
//! the clusters of A and B: every member is similar to its representative.
//!
//! Ties on similarity go to the representative earlier in the order (the
//! lower index under input order). The outcome depends only on the set of
//! pairs, not on their order or on the thread count used to verify them.
//!
//! [`Clusterer::connected_components`] is the union-find variant (chaining),
//! kept for comparison. A side channel reports pairs whose containment is
//! high while their resemblance stays below the threshold (partial reprints,
//! merged pages): they are never clustered, only listed.

use std::cmp::Ordering;
use std::collections::HashMap;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::graph::{check_id, ranks, visit_order, Adjacency};
use crate::table::check_doc_count;

/// Where a document ended up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Assignment {
    /// The kept document of its cluster (itself when kept).
    pub representative: u32,
    /// The kept document it duplicates; `None` when kept.
    pub duplicate_of: Option<u32>,
    /// Similarity to `duplicate_of`; 1.0 when kept. In union-find mode, the
    /// strongest similarity among the document's own edges.
    pub similarity: f64,
}

/// A pair with high containment but resemblance below the threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Containment {
    /// The document contained (for example a partial reprint).
    pub contained: u32,
    /// The document containing it.
    pub container: u32,
    /// Containment of `contained` in `container`.
    pub containment: f64,
    /// Resemblance of the pair, if it was among the verified pairs.
    pub resemblance: Option<f64>,
}

/// Result of a clustering.
#[derive(Debug, Clone, PartialEq)]
pub struct Clustering {
    pub(crate) assignments: Vec<Assignment>,
    pub(crate) contained: Vec<Containment>,
}

impl Clustering {
    /// One assignment per document, by index.
    pub fn assignments(&self) -> &[Assignment] {
        &self.assignments
    }

    /// The representative of every document (usable as a cluster label).
    pub fn labels(&self) -> Vec<u32> {
        self.assignments.iter().map(|a| a.representative).collect()
    }

    /// Number of clusters (kept documents).
    pub fn num_clusters(&self) -> usize {
        self.assignments
            .iter()
            .filter(|a| a.duplicate_of.is_none())
            .count()
    }

    /// Containment side channel, sorted by `(contained, container)`.
    pub fn contained(&self) -> &[Containment] {
        &self.contained
    }
}

/// A priority order: indices `0..n` sorted by `key` (smaller first), ties by
/// index. For "longest text first", use `Reverse(len)` as the key.
pub fn priority_order<K: Ord>(n: usize, key: impl Fn(u32) -> K) -> Result<Vec<u32>> {
    check_doc_count(n)?;
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&i| (key(i), i));
    Ok(order)
}

/// Settings and entry points of the clustering.
#[derive(Debug, Clone)]
pub struct Clusterer {
    pub(crate) cfg: Config,
}

#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) threshold: f64,
    containment_threshold: f64,
}

impl Default for Clusterer {
    fn default() -> Self {
        Self::new()
    }
}

/// Similarities as a total order: greater similarity, then earlier rank.
fn better(s: f64, rank: u32, best: Option<(f64, u32)>) -> bool {
    match best {
        None => true,
        Some((bs, br)) => match s.partial_cmp(&bs) {
            Some(Ordering::Greater) => true,
            Some(Ordering::Equal) => rank < br,
            _ => false,
        },
    }
}

impl Clusterer {
    /// Threshold 0.7, containment threshold 0.8.
    pub fn new() -> Self {
        Self {
            cfg: Config {
                threshold: 0.7,
                containment_threshold: 0.8,
            },
        }
    }

    /// Sets the similarity a document needs to join a representative.
    pub fn set_threshold(&mut self, t: f64) -> Result<&mut Self> {
        if !t.is_finite() {
            return Err(Error::invalid("threshold must be finite"));
        }
        self.cfg.threshold = t;
        Ok(self)
    }

    /// Sets the containment from which a low-resemblance pair is reported.
    pub fn set_containment_threshold(&mut self, t: f64) -> Result<&mut Self> {
        if !t.is_finite() {
            return Err(Error::invalid("containment threshold must be finite"));
        }
        self.cfg.containment_threshold = t;
        Ok(self)
    }

    /// The similarity threshold.
    pub fn threshold(&self) -> f64 {
        self.cfg.threshold
    }

    /// Verifies candidate pairs in parallel with `similarity`, which returns
    /// `None` to drop a pair. Output keeps the input order; non-finite
    /// similarities are dropped.
    pub fn verify<F>(&self, candidates: &[(u32, u32)], similarity: F) -> Vec<(u32, u32, f64)>
    where
        F: Fn(u32, u32) -> Option<f64> + Sync + Send,
    {
        candidates
            .par_iter()
            .filter_map(|&(a, b)| {
                similarity(a, b)
                    .filter(|s| s.is_finite())
                    .map(|s| (a, b, s))
            })
            .collect()
    }

    /// Greedy non-chaining clustering of `n` documents in priority `order`
    /// (`None`: input order) from verified `(i, j, similarity)` pairs in any
    /// order; optionally with directed `(contained, container, containment)`
    /// pairs for the side channel.
    pub fn cluster(
        &self,
        n: usize,
        order: Option<&[u32]>,
        pairs: &[(u32, u32, f64)],
        containment: Option<&[(u32, u32, f64)]>,
    ) -> Result<Clustering> {
        let rank = ranks(n, order)?;
        let adj = Adjacency::new(n, pairs, self.cfg.threshold)?;
        // Every document is visited once; `UNSET` until it is (no
        // `Option` around each: 24 bytes a document, not 32).
        const UNSET: u32 = u32::MAX;
        let mut out: Vec<Assignment> = vec![
            Assignment {
                representative: UNSET,
                duplicate_of: None,
                similarity: 1.0,
            };
            n
        ];
        for d in visit_order(&rank) {
            let mut best: Option<(f64, u32)> = None;
            let mut best_doc = d;
            for &(e, s) in adj.neighbours(d) {
                let a = out[e as usize];
                let kept = a.representative != UNSET && a.duplicate_of.is_none();
                if kept && better(s, rank[e as usize], best) {
                    best = Some((s, rank[e as usize]));
                    best_doc = e;
                }
            }
            out[d as usize] = match best {
                Some((s, _)) => Assignment {
                    representative: best_doc,
                    duplicate_of: Some(best_doc),
                    similarity: s,
                },
                None => Assignment {
                    representative: d,
                    duplicate_of: None,
                    similarity: 1.0,
                },
            };
        }
        drop(adj);
        let assignments = out;
        let contained = self.side_channel(n, pairs, containment.unwrap_or(&[]))?;
        Ok(Clustering {
            assignments,
            contained,
        })
    }

    fn side_channel(
        &self,
        n: usize,
        pairs: &[(u32, u32, f64)],
        containment: &[(u32, u32, f64)],
    ) -> Result<Vec<Containment>> {
        let ct = self.cfg.containment_threshold;
        let mut wanted: HashMap<(u32, u32), Option<f64>> = HashMap::new();
        for &(c, k, v) in containment {
            check_id(c, n)?;
            check_id(k, n)?;
            if c != k && v.is_finite() && v >= ct {
                wanted.insert((c.min(k), c.max(k)), None);
            }
        }
        for &(a, b, s) in pairs {
            if let Some(r) = wanted.get_mut(&(a.min(b), a.max(b))) {
                if s.is_finite() && r.is_none_or(|x| s > x) {
                    *r = Some(s);
                }
            }
        }
        let mut out: Vec<Containment> = containment
            .iter()
            .filter(|&&(c, k, v)| c != k && v.is_finite() && v >= ct)
            .filter_map(|&(c, k, v)| {
                let r = wanted.get(&(c.min(k), c.max(k))).copied().flatten();
                let low = r.is_none_or(|r| r < self.cfg.threshold);
                low.then_some(Containment {
                    contained: c,
                    container: k,
                    containment: v,
                    resemblance: r,
                })
            })
            .collect();
        // Deterministic: sort by pair, keep the highest containment per pair.
        out.sort_by(|x, y| {
            (x.contained, x.container)
                .cmp(&(y.contained, y.container))
                .then(y.containment.total_cmp(&x.containment))
        });
        out.dedup_by_key(|c| (c.contained, c.container));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use std::cmp::Reverse;

    fn clusterer(t: f64) -> Clusterer {
        let mut c = Clusterer::new();
        c.set_threshold(t).unwrap();
        c
    }

    #[test]
    fn merged_page_does_not_bridge_two_articles() {
        // 0 = article A, 1 = half of A + all of B, 2 = article B.
        let pairs = [(0, 1, 0.55), (1, 2, 0.6)];
        let c = clusterer(0.5);
        let g = c.cluster(3, None, &pairs, None).unwrap();
        assert_eq!(g.labels(), vec![0, 0, 2]);
        assert_eq!(g.num_clusters(), 2);
        assert_eq!(
            g.assignments()[1],
            Assignment {
                representative: 0,
                duplicate_of: Some(0),
                similarity: 0.55
            }
        );
        // Union-find chains all three together.
        let u = c.connected_components(3, None, &pairs).unwrap();
        assert_eq!(u.labels(), vec![0, 0, 0]);
        assert_eq!(u.assignments()[2].similarity, 0.6);
    }

    #[test]
    fn joins_most_similar_kept_with_rank_tie_break() {
        // 0 and 1 are kept (not similar); 2 is similar to both.
        let pairs = [(0, 2, 0.8), (1, 2, 0.9), (3, 0, 0.75), (3, 1, 0.75)];
        let g = clusterer(0.7).cluster(4, None, &pairs, None).unwrap();
        assert_eq!(g.labels(), vec![0, 1, 1, 0]);
        // Priority order 1, 0, ... : the tie of doc 3 goes to doc 1.
        let g = clusterer(0.7)
            .cluster(4, Some(&[1, 0, 2, 3]), &pairs, None)
            .unwrap();
        assert_eq!(g.labels(), vec![0, 1, 1, 1]);
        // Below threshold: nobody joins.
        let g = clusterer(0.95).cluster(4, None, &pairs, None).unwrap();
        assert_eq!(g.num_clusters(), 4);
    }

    #[test]
    fn priority_order_by_length() {
        let lens = [10usize, 50, 20, 50];
        let order = priority_order(4, |i| Reverse(lens[i as usize])).unwrap();
        assert_eq!(order, vec![1, 3, 2, 0]);
        let pairs = [(0, 1, 0.9)];
        let g = clusterer(0.7)
            .cluster(4, Some(&order), &pairs, None)
            .unwrap();
        assert_eq!(g.assignments()[0].duplicate_of, Some(1));
    }

    #[test]
    fn containment_side_channel() {
        // 1 is a partial reprint of 0 (contained, low resemblance); 2 is a
        // duplicate of 0 whose containment is also high (not reported).
        let pairs = [(0, 1, 0.35), (0, 2, 0.9)];
        let cont = [(1, 0, 0.97), (2, 0, 0.95), (3, 0, 0.5), (1, 0, 0.9)];
        let g = clusterer(0.7)
            .cluster(4, None, &pairs, Some(&cont))
            .unwrap();
        assert_eq!(g.labels(), vec![0, 1, 0, 3]);
        assert_eq!(
            g.contained(),
            &[Containment {
                contained: 1,
                container: 0,
                containment: 0.97,
                resemblance: Some(0.35)
            }]
        );
    }

    #[test]
    fn bad_inputs_are_errors_not_panics() {
        let c = Clusterer::new();
        assert!(matches!(
            c.cluster(2, None, &[(0, 5, 0.9)], None).unwrap_err().kind(),
            ErrorKind::IdOutOfRange(5)
        ));
        assert!(matches!(
            c.cluster(2, Some(&[0, 0]), &[], None).unwrap_err().kind(),
            ErrorKind::NotAPermutation
        ));
        assert!(c.cluster(2, Some(&[0]), &[], None).is_err());
        assert!(c.cluster(2, None, &[], Some(&[(0, 9, 1.0)])).is_err());
        assert!(Clusterer::new().set_threshold(f64::NAN).is_err());
        // NaN and self pairs are ignored.
        let g = c
            .cluster(2, None, &[(0, 1, f64::NAN), (1, 1, 1.0)], None)
            .unwrap();
        assert_eq!(g.num_clusters(), 2);
    }

    #[test]
    fn verify_keeps_order_and_drops_none() {
        let c = Clusterer::new();
        let cands: Vec<(u32, u32)> = (0..1000).map(|i| (i, i + 1)).collect();
        let v = c.verify(&cands, |a, _| (a % 3 != 0).then_some(f64::from(a)));
        assert_eq!(v.len(), 666);
        assert!(v.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(v[0], (1, 2, 1.0));
    }
}

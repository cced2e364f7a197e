//! The engine's keep-first decision, one connected component at a time.
//!
//! [`Dedup::cluster_exact`] visits documents in keep order and makes each
//! one a duplicate of its most similar earlier *kept* neighbour (no
//! chaining). A document's fate depends only on its verified neighbours,
//! and theirs on their own: on nothing outside its connected component of
//! the verified graph. So a corpus whose verified pairs are already split
//! by component (by a distributed connected-components pass, as
//! `neardup.spark` does) gets exactly the engine's groups by deciding each
//! component on its own, with the same rule: [`keep_first_by_component`].

use neardup_index::Clusterer;

use crate::error::Error;

/// The clustering every batch decision uses: any verified pair may join
/// (verification and the corpus rules have already said which pairs are
/// near-duplicates), ties to the earlier document.
pub(crate) fn decision_clusterer() -> Result<Clusterer, Error> {
    let mut clusterer = Clusterer::new();
    clusterer.set_threshold(0.0)?;
    Ok(clusterer)
}

/// A verified pair of documents in one connected component: documents are
/// named by their position in keep order (any `u64`, smaller first).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ComponentEdge {
    /// The component (any key shared by all its pairs).
    pub component: u64,
    /// One document of the pair.
    pub a: u64,
    /// The other document of the pair.
    pub b: u64,
    /// Their verified similarity.
    pub similarity: f64,
}

/// A document the decision made a duplicate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DuplicateOf {
    /// The duplicate.
    pub doc: u64,
    /// The kept document it duplicates (earlier in keep order).
    pub kept: u64,
    /// Their similarity.
    pub similarity: f64,
}

/// The engine's keep-first decision over `edges` grouped by component:
/// every document that becomes a duplicate, with the kept document it
/// duplicates, sorted by document. Documents of the edges not listed are
/// kept. The edges may come in any order; every pair of one component must
/// carry the same `component`, and a document must not be in two
/// components (an error says which).
pub fn keep_first_by_component(mut edges: Vec<ComponentEdge>) -> Result<Vec<DuplicateOf>, Error> {
    edges.sort_unstable_by_key(|e| (e.component, e.a.min(e.b), e.a.max(e.b)));
    let clusterer = decision_clusterer()?;
    let mut out = Vec::new();
    let mut seen_in: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    let mut nodes: Vec<u64> = Vec::new();
    let mut pairs: Vec<(u32, u32, f64)> = Vec::new();
    for group in edges.chunk_by(|x, y| x.component == y.component) {
        let component = group[0].component;
        nodes.clear();
        nodes.extend(group.iter().flat_map(|e| [e.a, e.b]));
        nodes.sort_unstable();
        nodes.dedup();
        for &d in &nodes {
            if let Some(other) = seen_in.insert(d, component) {
                if other != component {
                    return Err(Error::components(format!(
                        "document {d} is in components {other} and {component}"
                    )));
                }
            }
        }
        let local = |d: u64| nodes.binary_search(&d).unwrap_or(0) as u32;
        pairs.clear();
        pairs.extend(
            group
                .iter()
                .filter(|e| e.a != e.b)
                .map(|e| (local(e.a), local(e.b), e.similarity)),
        );
        // Local indices follow keep order, so input order is keep order.
        let clustering = clusterer.cluster(nodes.len(), None, &pairs, None)?;
        for (i, a) in clustering.assignments().iter().enumerate() {
            if let Some(k) = a.duplicate_of {
                out.push(DuplicateOf {
                    doc: nodes[i],
                    kept: nodes[k as usize],
                    similarity: a.similarity,
                });
            }
        }
    }
    out.sort_unstable_by_key(|d| d.doc);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(component: u64, a: u64, b: u64, similarity: f64) -> ComponentEdge {
        ComponentEdge {
            component,
            a,
            b,
            similarity,
        }
    }

    #[test]
    fn a_chain_does_not_chain() {
        // 10 - 20 - 30: 30 is like 20, which duplicates 10; 30 is kept.
        let out =
            keep_first_by_component(vec![edge(10, 20, 30, 0.9), edge(10, 10, 20, 0.8)]).unwrap();
        assert_eq!(
            out,
            vec![DuplicateOf {
                doc: 20,
                kept: 10,
                similarity: 0.8
            }]
        );
    }

    #[test]
    fn the_most_similar_earlier_kept_document_wins_ties_to_the_earlier() {
        let out = keep_first_by_component(vec![
            edge(1, 1, 9, 0.8),
            edge(1, 5, 9, 0.8),
            edge(1, 3, 9, 0.7),
        ])
        .unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].doc, out[0].kept), (9, 1));
        let out = keep_first_by_component(vec![edge(1, 1, 9, 0.8), edge(1, 5, 9, 0.85)]).unwrap();
        assert_eq!((out[0].doc, out[0].kept), (9, 5));
    }

    #[test]
    fn components_are_decided_apart_and_equal_the_whole_decision() {
        let edges = vec![
            edge(1, 1, 2, 0.9),
            edge(1, 2, 4, 0.95),
            edge(3, 3, 5, 0.75),
            edge(3, 5, 6, 0.8),
            edge(3, 3, 6, 0.9),
        ];
        let apart = keep_first_by_component(edges.clone()).unwrap();
        let whole = keep_first_by_component(
            edges
                .iter()
                .map(|e| ComponentEdge { component: 0, ..*e })
                .collect(),
        )
        .unwrap();
        assert_eq!(apart, whole);
        let got: Vec<(u64, u64)> = apart.iter().map(|d| (d.doc, d.kept)).collect();
        assert_eq!(got, vec![(2, 1), (5, 3), (6, 3)]);
    }

    #[test]
    fn a_document_in_two_components_is_an_error() {
        let err =
            keep_first_by_component(vec![edge(1, 1, 2, 0.9), edge(7, 2, 3, 0.9)]).unwrap_err();
        assert!(err.to_string().contains("document 2"), "{err}");
    }
}

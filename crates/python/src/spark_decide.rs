//! The decision kernel of `neardup.spark.dedup`: verified pairs, each
//! tagged with its connected component (computed by Spark), decided one
//! component at a time by the engine's keep-first rule
//! ([`neardup::keep_first_by_component`]), so the groups are the CLI's.

use neardup::ComponentEdge;
use pyo3::prelude::*;

use crate::errors::err;

/// Documents made duplicates: `(docs, kept, similarities)`.
type Decided = (Vec<i64>, Vec<i64>, Vec<f64>);

/// Decides the verified pairs `(u, v, similarity)` of whole components
/// (`components[i]` the component of pair `i`; documents named by their
/// input order, smaller first): every document that becomes a duplicate,
/// the earlier kept document it duplicates and their similarity, sorted by
/// document. The other documents of the pairs are kept. All the pairs of a
/// component must be in one call.
#[pyfunction]
pub fn keep_first_batch(
    py: Python<'_>,
    components: Vec<i64>,
    u: Vec<i64>,
    v: Vec<i64>,
    similarities: Vec<f64>,
) -> PyResult<Decided> {
    let n = components.len();
    if u.len() != n || v.len() != n || similarities.len() != n {
        return Err(err("components, u, v and similarities differ in length"));
    }
    let edges: Vec<ComponentEdge> = (0..n)
        .map(|i| ComponentEdge {
            component: components[i] as u64,
            a: u[i] as u64,
            b: v[i] as u64,
            similarity: similarities[i],
        })
        .collect();
    let decided = py
        .allow_threads(|| neardup::keep_first_by_component(edges))
        .map_err(|e| err(e.to_string()))?;
    let mut out = (
        Vec::with_capacity(decided.len()),
        Vec::with_capacity(decided.len()),
        Vec::with_capacity(decided.len()),
    );
    for d in decided {
        out.0.push(d.doc as i64);
        out.1.push(d.kept as i64);
        out.2.push(d.similarity);
    }
    Ok(out)
}

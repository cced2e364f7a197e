//! The decision kernels of `neardup.spark.dedup`: verified pairs, each
//! tagged with its connected component (computed by Spark) or all in one
//! call, decided by the engine's keep-first rule
//! ([`neardup::keep_first_by_component`]), so the groups are the CLI's.

use neardup::ComponentEdge;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::err;
use crate::packed::{f64_bytes, f64s, i64_bytes, i64s};

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
    py.allow_threads(|| decide(&u, &v, &similarities, |i| components[i] as u64))
        .map_err(err)
}

/// Decides all the verified pairs `(u, v, similarity)` of a corpus in one
/// call, whatever their components (packed little-endian columns of
/// 64-bit integers and floats): the documents that become duplicates,
/// the kept documents they duplicate and their similarities, packed the
/// same way and sorted by document. One decision over the whole graph is
/// the engine's own (components decided apart give the same groups), so
/// no component labels are needed.
#[pyfunction]
pub fn keep_first_packed_batch<'py>(
    py: Python<'py>,
    u: &[u8],
    v: &[u8],
    similarities: &[u8],
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    let (u, v) = (i64s(u, "u").map_err(err)?, i64s(v, "v").map_err(err)?);
    let sims = f64s(similarities, "similarities").map_err(err)?;
    if v.len() != u.len() || sims.len() != u.len() {
        return Err(err("u, v and similarities differ in length"));
    }
    let (docs, kept, sims) = py
        .allow_threads(|| {
            let (docs, kept, sims) = decide(&u, &v, &sims, |_| 0)?;
            Ok::<_, String>((i64_bytes(&docs), i64_bytes(&kept), f64_bytes(&sims)))
        })
        .map_err(err)?;
    Ok((
        PyBytes::new(py, &docs),
        PyBytes::new(py, &kept),
        PyBytes::new(py, &sims),
    ))
}

/// The engine's decision on pairs `i` of `u`, `v` and `sims` (of one
/// length), pair `i` in `component(i)`.
fn decide(
    u: &[i64],
    v: &[i64],
    sims: &[f64],
    component: impl Fn(usize) -> u64,
) -> Result<Decided, String> {
    let edges = (0..u.len())
        .map(|i| ComponentEdge {
            component: component(i),
            a: u[i] as u64,
            b: v[i] as u64,
            similarity: sims[i],
        })
        .collect();
    let decided = neardup::keep_first_by_component(edges).map_err(|e| e.to_string())?;
    Ok((
        decided.iter().map(|d| d.doc as i64).collect(),
        decided.iter().map(|d| d.kept as i64).collect(),
        decided.iter().map(|d| d.similarity).collect(),
    ))
}

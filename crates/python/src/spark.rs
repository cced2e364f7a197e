//! Batch kernels for `neardup.spark`: what Spark executors run on each
//! Arrow batch. Each takes the method by name and tuning (plain values,
//! so that the Python closures that call them pickle), works on whole
//! columns with the GIL released, and names the document in every error.

use neardup::io::Content;
use neardup::sketch::{Method, Signature as Sig};
use neardup::{CompositeCheck, PartialCopyCheck, ShingleSeq, Verifier};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;

use crate::batch::fingerprint_content;
use crate::document::{content_of, HtmlArg, TextArg};
use crate::errors::err;
use crate::keys::{candidate_keys, rule, verify};
use crate::method::MethodSpec;
use crate::packed::{i64_bytes, u32_bytes};
use crate::spark_passes::encode_runs;

pub(crate) fn spec_of(
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
) -> MethodSpec {
    MethodSpec {
        name: method.to_string(),
        threshold,
        max_distance,
        ..MethodSpec::default()
    }
}

fn method_of(method: &str, threshold: Option<f64>, max_distance: Option<u32>) -> PyResult<Method> {
    spec_of(method, threshold, max_distance).build()
}

/// Signature bytes, errors, main-text lengths, shingle sequences (when the
/// method verifies exactly) and hosts.
type Fingerprints<'py> = (
    Vec<Option<Bound<'py, PyBytes>>>,
    Vec<Option<String>>,
    Vec<u64>,
    Vec<Option<Bound<'py, PyBytes>>>,
    Vec<Option<String>>,
);

/// Extracts and fingerprints a column of documents (`htmls`: bytes or str,
/// or `texts`: plain text, or both: the HTML where it is not `None`; `None`
/// entries are empty documents). Returns the
/// signatures' bytes (`None` for a document without text or that failed),
/// the error of each failed document, the main-text lengths, for the
/// `default` method (exact verification) the shingle sequences
/// (`ShingleSeq::to_bytes`) of documents with a signature, and each
/// document's host when its id is a URL (for the site template pass).
#[pyfunction]
#[pyo3(signature = (method, threshold, max_distance, ids, htmls=None, texts=None, all_text=false))]
#[allow(clippy::too_many_arguments)]
pub fn fingerprint_batch<'py>(
    py: Python<'py>,
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    ids: Vec<String>,
    htmls: Option<Vec<Option<HtmlArg>>>,
    texts: Option<Vec<Option<TextArg>>>,
    all_text: bool,
) -> PyResult<Fingerprints<'py>> {
    let spec = spec_of(method, threshold, max_distance);
    let dedup = neardup::Dedup::builder()
        .method(spec.build()?)
        .verifier(spec.verifier())
        .build();
    let contents: Vec<Option<Content>> = match (htmls, texts) {
        (Some(h), None) => h.into_iter().map(|h| content_of(h, None)).collect(),
        (None, Some(t)) => t.into_iter().map(|t| content_of(None, t)).collect(),
        (Some(h), Some(t)) if h.len() == t.len() => h
            .into_iter()
            .zip(t)
            .map(|(h, t)| content_of(h, t))
            .collect(),
        _ => return Err(err("give htmls= or texts= (or both, of one length)")),
    };
    if contents.len() != ids.len() {
        return Err(err("ids and documents differ in length"));
    }
    type Done = Result<(Option<Sig>, usize, Option<Vec<u8>>), String>;
    let results: Vec<Done> = py.allow_threads(|| {
        ids.iter()
            .zip(contents)
            .map(|(id, c)| {
                let (sig, seq, len) = match c {
                    None => (None, None, 0),
                    Some(c) => fingerprint_content(id, c, &dedup, all_text)?,
                };
                Ok((sig, len, seq.map(|s| s.to_bytes())))
            })
            .collect()
    });
    let hosts = ids.iter().map(|id| neardup::host_of(id)).collect();
    let mut sigs = Vec::with_capacity(results.len());
    let mut errors = Vec::with_capacity(results.len());
    let mut lens = Vec::with_capacity(results.len());
    let mut seqs = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Ok((s, len, seq)) => {
                lens.push(len as u64);
                seqs.push(seq.map(|b| PyBytes::new(py, &b)));
                sigs.push(s.map(|s| PyBytes::new(py, &s.to_bytes())));
                errors.push(None);
            }
            Err(e) => {
                sigs.push(None);
                errors.push(Some(e));
                lens.push(0);
                seqs.push(None);
            }
        }
    }
    Ok((sigs, errors, lens, seqs, hosts))
}

pub(crate) fn decode(bytes: &[u8], what: &str, i: usize) -> Result<Sig, String> {
    Sig::from_bytes(bytes).map_err(|e| format!("{what} {i}: cannot decode signature: {e}"))
}

/// The candidate keys of a column of signatures, flattened: for each key,
/// the row it belongs to (u32), its table (u32) and its value (as a signed
/// 64-bit integer, Spark's `long`), each column as packed little-endian
/// bytes ([`crate::packed`]).
#[pyfunction]
pub fn candidate_keys_batch<'py>(
    py: Python<'py>,
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    sigs: Vec<PyBackedBytes>,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    let m = method_of(method, threshold, max_distance)?;
    let (rows, tables, keys) = py
        .allow_threads(|| -> Result<_, String> {
            let (mut rows, mut tables, mut keys) = (Vec::new(), Vec::new(), Vec::new());
            for (i, b) in sigs.iter().enumerate() {
                let sig = decode(b, "row", i)?;
                for (t, k) in candidate_keys(&m, &sig).map_err(|e| format!("row {i}: {e}"))? {
                    rows.push(i as u32);
                    tables.push(t);
                    keys.push(k as i64);
                }
            }
            Ok((u32_bytes(&rows), u32_bytes(&tables), i64_bytes(&keys)))
        })
        .map_err(err)?;
    Ok((
        PyBytes::new(py, &rows),
        PyBytes::new(py, &tables),
        PyBytes::new(py, &keys),
    ))
}

/// Similarities of confirmed pairs (`None` for the others), the foreign
/// runs of each confirmed pair that the composite page check must look up
/// (`None` when there are none; see [`crate::spark_passes::encode_runs`]),
/// and whether the partial copy check must look at the pair.
type Verified = (Vec<Option<f64>>, Vec<Option<Vec<u8>>>, Vec<bool>);

/// Verifies candidate pairs `(a[i], b[i])`, `a` the senior document: the
/// similarity of a confirmed pair, `None` otherwise. `a` and `b` are
/// signatures; they may be `None` when every pair has both shingle
/// sequences (exact verification reads only those). With the `default`
/// method and both shingle sequences (`shingles_a`, `shingles_b`, from
/// [`fingerprint_batch`]), the pair is verified exactly, as the CLI does;
/// with `composite=True`, a confirmed pair with a long foreign run also
/// gets its runs, for the composite page check, and with `partial=True`
/// a flag when one side lacks enough of the other for the partial copy
/// check.
#[pyfunction]
#[pyo3(signature = (method, threshold, max_distance, a, b, shingles_a=None, shingles_b=None, composite=false, partial=false))]
#[allow(clippy::too_many_arguments)]
pub fn verify_batch(
    py: Python<'_>,
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    a: Option<Vec<PyBackedBytes>>,
    b: Option<Vec<PyBackedBytes>>,
    shingles_a: Option<Vec<Option<PyBackedBytes>>>,
    shingles_b: Option<Vec<Option<PyBackedBytes>>>,
    composite: bool,
    partial: bool,
) -> PyResult<Verified> {
    let spec = spec_of(method, threshold, max_distance);
    let m = spec.build()?;
    let verifier = spec.verifier();
    let check = composite.then(CompositeCheck::default);
    let partial = partial.then(PartialCopyCheck::default);
    let (sa, sb) = (
        shingles_a.unwrap_or_default(),
        shingles_b.unwrap_or_default(),
    );
    let n = match (&a, &b) {
        (Some(a), Some(b)) if a.len() == b.len() => a.len(),
        (None, None) if sa.len() == sb.len() => sa.len(),
        _ => return Err(err("a and b (or their shingles) differ in length")),
    };
    py.allow_threads(|| {
        (0..n)
            .map(|i| {
                let seqs = (
                    sa.get(i).and_then(Option::as_ref),
                    sb.get(i).and_then(Option::as_ref),
                );
                if let (Some(v), (Some(p), Some(q))) = (&verifier, seqs) {
                    let p = seq_of(p, v.k, "pair", i)?;
                    let q = seq_of(q, v.k, "pair", i)?;
                    return Ok(verify_exactly(v, check.as_ref(), partial.as_ref(), &p, &q));
                }
                let (Some(x), Some(y)) = (
                    a.as_ref().and_then(|a| a.get(i)),
                    b.as_ref().and_then(|b| b.get(i)),
                ) else {
                    return Err(format!("pair {i}: no shingles and no signatures"));
                };
                let (x, y) = (decode(x, "pair", i)?, decode(y, "pair", i)?);
                let sim = verify(&m, &x, &y).map_err(|e| format!("pair {i}: {e}"))?;
                Ok((sim, None, false))
            })
            .collect::<Result<Vec<_>, String>>()
            .map(|v| {
                let mut out = (Vec::new(), Vec::new(), Vec::new());
                for (s, r, p) in v {
                    out.0.push(s);
                    out.1.push(r);
                    out.2.push(p);
                }
                out
            })
    })
    .map_err(err)
}

/// A shingle sequence from its bytes.
pub(crate) fn seq_of(bytes: &[u8], k: usize, what: &str, i: usize) -> Result<ShingleSeq, String> {
    ShingleSeq::from_bytes(bytes, k).ok_or_else(|| {
        format!(
            "{what} {i}: shingle bytes of length {} are not a sequence",
            bytes.len()
        )
    })
}

/// The engine's exact verification of one pair, the runs the composite
/// check looks up when the pair passes with a long foreign run, and whether
/// the partial copy check must look at it.
fn verify_exactly(
    v: &Verifier,
    check: Option<&CompositeCheck>,
    partial: Option<&PartialCopyCheck>,
    p: &ShingleSeq,
    q: &ShingleSeq,
) -> (Option<f64>, Option<Vec<u8>>, bool) {
    let Some(c) = v.check(p, q) else {
        return (None, None, false);
    };
    let suspect = partial.is_some_and(|pc| pc.applies_to(&c));
    let runs = check
        .filter(|ch| ch.applies_to(&c))
        .map(|ch| (ch.foreign_runs(p, q, v.k), ch.foreign_runs(q, p, v.k)))
        .filter(|(x, y)| !x.is_empty() || !y.is_empty())
        .map(|(x, y)| encode_runs(&x, &y));
    (Some(c.jaccard), runs, suspect)
}

/// How a method forms candidates from shared keys: `(min_shared,
/// max_posting_len)`; a key held by more than `max_posting_len` documents
/// (when not `None`) makes no candidates.
#[pyfunction]
#[pyo3(signature = (method, threshold=None, max_distance=None))]
pub fn candidate_rule(
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
) -> PyResult<(u32, Option<usize>)> {
    let r = rule(&method_of(method, threshold, max_distance)?);
    Ok((r.min_shared, r.max_posting_len))
}

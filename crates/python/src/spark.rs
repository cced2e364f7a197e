//! Batch kernels for `neardup.spark`: what Spark executors run on each
//! Arrow batch. Each takes the method by name and tuning (plain values,
//! so that the Python closures that call them pickle), works on whole
//! columns with the GIL released, and names the document in every error.

use neardup::io::Content;
use neardup::sketch::{Method, Signature as Sig};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::batch::fingerprint_content;
use crate::document::HtmlArg;
use crate::errors::err;
use crate::keys::{candidate_keys, rule, verify};
use crate::method::MethodSpec;

fn method_of(method: &str, threshold: Option<f64>, max_distance: Option<u32>) -> PyResult<Method> {
    MethodSpec {
        name: method.to_string(),
        threshold,
        max_distance,
        ..MethodSpec::default()
    }
    .build()
}

/// Signature bytes, errors and main-text lengths.
type Fingerprints<'py> = (
    Vec<Option<Bound<'py, PyBytes>>>,
    Vec<Option<String>>,
    Vec<u64>,
);

/// Extracts and fingerprints a column of documents (`htmls`: bytes or str,
/// or `texts`: plain text, or both: the HTML where it is not `None`; `None`
/// entries are empty documents). Returns the
/// signatures' bytes (`None` for a document without text or that failed),
/// the error of each failed document, and the main-text lengths.
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
    texts: Option<Vec<Option<String>>>,
    all_text: bool,
) -> PyResult<Fingerprints<'py>> {
    let m = method_of(method, threshold, max_distance)?;
    let contents: Vec<Option<Content>> = match (htmls, texts) {
        (Some(h), None) => h
            .into_iter()
            .map(|x| x.map(|x| x.into_content(None)))
            .collect(),
        (None, Some(t)) => t.into_iter().map(|x| x.map(Content::Text)).collect(),
        // Both: the HTML where there is some, else the text.
        (Some(h), Some(t)) if h.len() == t.len() => h
            .into_iter()
            .zip(t)
            .map(|(h, t)| match h {
                Some(h) => Some(h.into_content(None)),
                None => t.map(Content::Text),
            })
            .collect(),
        _ => return Err(err("give htmls= or texts= (or both, of one length)")),
    };
    if contents.len() != ids.len() {
        return Err(err("ids and documents differ in length"));
    }
    let results: Vec<Result<(Option<Sig>, usize), String>> = py.allow_threads(|| {
        ids.iter()
            .zip(contents)
            .map(|(id, c)| match c {
                None => Ok((None, 0)),
                Some(c) => fingerprint_content(id, c, &m, all_text),
            })
            .collect()
    });
    let mut sigs = Vec::with_capacity(results.len());
    let mut errors = Vec::with_capacity(results.len());
    let mut lens = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Ok((s, len)) => {
                sigs.push(s.map(|s| PyBytes::new(py, &s.to_bytes())));
                errors.push(None);
                lens.push(len as u64);
            }
            Err(e) => {
                sigs.push(None);
                errors.push(Some(e));
                lens.push(0);
            }
        }
    }
    Ok((sigs, errors, lens))
}

fn decode(bytes: &[u8], what: &str, i: usize) -> Result<Sig, String> {
    Sig::from_bytes(bytes).map_err(|e| format!("{what} {i}: cannot decode signature: {e}"))
}

/// The candidate keys of a column of signatures, flattened: for each key,
/// the row it belongs to, its table and its value (as a signed 64-bit
/// integer, Spark's `long`).
#[pyfunction]
pub fn candidate_keys_batch(
    py: Python<'_>,
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    sigs: Vec<Vec<u8>>,
) -> PyResult<(Vec<u32>, Vec<u32>, Vec<i64>)> {
    let m = method_of(method, threshold, max_distance)?;
    py.allow_threads(|| -> Result<_, String> {
        let (mut rows, mut tables, mut keys) = (Vec::new(), Vec::new(), Vec::new());
        for (i, b) in sigs.iter().enumerate() {
            let sig = decode(b, "row", i)?;
            for (t, k) in candidate_keys(&m, &sig).map_err(|e| format!("row {i}: {e}"))? {
                rows.push(i as u32);
                tables.push(t);
                keys.push(k as i64);
            }
        }
        Ok((rows, tables, keys))
    })
    .map_err(err)
}

/// Verifies candidate pairs `(a[i], b[i])`, `a` the senior document: the
/// similarity of a confirmed pair, `None` otherwise.
#[pyfunction]
pub fn verify_batch(
    py: Python<'_>,
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    a: Vec<Vec<u8>>,
    b: Vec<Vec<u8>>,
) -> PyResult<Vec<Option<f64>>> {
    let m = method_of(method, threshold, max_distance)?;
    if a.len() != b.len() {
        return Err(err("a and b differ in length"));
    }
    py.allow_threads(|| {
        a.iter()
            .zip(&b)
            .enumerate()
            .map(|(i, (x, y))| {
                let (x, y) = (decode(x, "pair", i)?, decode(y, "pair", i)?);
                verify(&m, &x, &y).map_err(|e| format!("pair {i}: {e}"))
            })
            .collect::<Result<Vec<_>, String>>()
    })
    .map_err(err)
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

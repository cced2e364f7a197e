//! Batch kernels for `neardup.spark`: what Spark executors run on each
//! Arrow batch. Each takes the method by name and tuning (plain values,
//! so that the Python closures that call them pickle), works on whole
//! columns with the GIL released, and names the document in every error.

use neardup::io::Content;
use neardup::sketch::{Method, Signature as Sig};
use neardup::ShingleSeq;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::batch::fingerprint_content;
use crate::document::HtmlArg;
use crate::errors::err;
use crate::keys::{candidate_keys, rule, verify};
use crate::method::MethodSpec;

fn spec_of(method: &str, threshold: Option<f64>, max_distance: Option<u32>) -> MethodSpec {
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

/// Signature bytes, errors, main-text lengths, and main texts (when the
/// method verifies exactly).
type Fingerprints<'py> = (
    Vec<Option<Bound<'py, PyBytes>>>,
    Vec<Option<String>>,
    Vec<u64>,
    Vec<Option<String>>,
);

/// Extracts and fingerprints a column of documents (`htmls`: bytes or str,
/// or `texts`: plain text, or both: the HTML where it is not `None`; `None`
/// entries are empty documents). Returns the
/// signatures' bytes (`None` for a document without text or that failed),
/// the error of each failed document, the main-text lengths, and, for the
/// `default` method (exact verification), the main texts of documents with
/// a signature.
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
    let spec = spec_of(method, threshold, max_distance);
    let m = spec.build()?;
    let keep_text = spec.verifier().is_some();
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
    let results: Vec<Result<(Option<Sig>, String), String>> = py.allow_threads(|| {
        ids.iter()
            .zip(contents)
            .map(|(id, c)| match c {
                None => Ok((None, String::new())),
                Some(c) => fingerprint_content(id, c, &m, all_text),
            })
            .collect()
    });
    let mut sigs = Vec::with_capacity(results.len());
    let mut errors = Vec::with_capacity(results.len());
    let mut lens = Vec::with_capacity(results.len());
    let mut texts = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Ok((s, text)) => {
                lens.push(text.len() as u64);
                texts.push((keep_text && s.is_some()).then_some(text));
                sigs.push(s.map(|s| PyBytes::new(py, &s.to_bytes())));
                errors.push(None);
            }
            Err(e) => {
                sigs.push(None);
                errors.push(Some(e));
                lens.push(0);
                texts.push(None);
            }
        }
    }
    Ok((sigs, errors, lens, texts))
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
/// similarity of a confirmed pair, `None` otherwise. With the `default`
/// method and both main texts (`text_a`, `text_b`), the pair is verified
/// exactly on the texts' shingles, as the CLI does.
#[pyfunction]
#[pyo3(signature = (method, threshold, max_distance, a, b, text_a=None, text_b=None))]
#[allow(clippy::too_many_arguments)]
pub fn verify_batch(
    py: Python<'_>,
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    a: Vec<Vec<u8>>,
    b: Vec<Vec<u8>>,
    text_a: Option<Vec<Option<String>>>,
    text_b: Option<Vec<Option<String>>>,
) -> PyResult<Vec<Option<f64>>> {
    let spec = spec_of(method, threshold, max_distance);
    let m = spec.build()?;
    let verifier = spec.verifier();
    if a.len() != b.len() {
        return Err(err("a and b differ in length"));
    }
    let (ta, tb) = (text_a.unwrap_or_default(), text_b.unwrap_or_default());
    py.allow_threads(|| {
        a.iter()
            .zip(&b)
            .enumerate()
            .map(|(i, (x, y))| {
                let texts = (
                    ta.get(i).and_then(Option::as_ref),
                    tb.get(i).and_then(Option::as_ref),
                );
                if let (Some(v), (Some(p), Some(q))) = (&verifier, texts) {
                    return Ok(v.verify(&ShingleSeq::new(p, v.k), &ShingleSeq::new(q, v.k)));
                }
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

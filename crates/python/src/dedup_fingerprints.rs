//! `dedup_fingerprints`: the batch engine of `neardup dedup` over documents
//! fingerprinted elsewhere (by `fingerprint_batch`, in other processes or on
//! other machines), for pipelines that fingerprint in parallel tasks and
//! cluster in one (`neardup.datatrove`'s cross-rank stages).
//!
//! The documents come in the engine's order of seniority (input order for
//! `keep="first"`); the groups are those `dedup_files` gives for the same
//! documents in the same order: same site template pass, verification,
//! composite and partial checks, and no chaining.

use neardup::sketch::Signature as Sig;
use neardup::Fingerprinted;
use pyo3::prelude::*;

use crate::batch::batch_engine;
use crate::errors::err;
use crate::spark::{decode, seq_of};

/// For each document: the index of its group's kept document, the index
/// of the kept document it duplicates (`None` when kept), and the
/// similarity to it (rounded to 4 decimals like the CLI; `None` when kept).
type Groups = (Vec<u32>, Vec<Option<u32>>, Vec<Option<f64>>);

/// Groups documents fingerprinted by `fingerprint_batch` with the batch
/// engine of `neardup dedup` (`method`, `threshold` and the options are
/// those given to `fingerprint_batch`, and `dedup_files`'s). Each list has
/// one entry per document, in order of seniority: `ids`, `urls` (the host
/// for the site template pass; the id when `None`), `text_lens`,
/// `signatures` (`None`: no text, or failed), `shingles` (`None` without
/// exact verification) and `errors` (a failed document is a group of its
/// own). Returns `(representative, duplicate_of, similarity)`, each a list
/// of one entry per document (indices into the input).
#[pyfunction]
#[pyo3(signature = (ids, urls, text_lens, signatures, shingles, errors, method="default", threshold=None, *, max_distance=None, keep="first", threads=0, site_templates=true, composite_check=true, partial_check=true))]
#[allow(clippy::too_many_arguments)]
pub fn dedup_fingerprints(
    py: Python<'_>,
    ids: Vec<String>,
    urls: Vec<Option<String>>,
    text_lens: Vec<u64>,
    signatures: Vec<Option<Vec<u8>>>,
    shingles: Vec<Option<Vec<u8>>>,
    errors: Vec<Option<String>>,
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    keep: &str,
    threads: usize,
    site_templates: bool,
    composite_check: bool,
    partial_check: bool,
) -> PyResult<Groups> {
    let n = ids.len();
    if [
        urls.len(),
        text_lens.len(),
        signatures.len(),
        shingles.len(),
        errors.len(),
    ]
    .iter()
    .any(|&l| l != n)
    {
        return Err(err(
            "ids, urls, text_lens, signatures, shingles and errors differ in length",
        ));
    }
    let dedup = batch_engine(
        method,
        threshold,
        max_distance,
        keep,
        site_templates,
        composite_check,
        partial_check,
    )?;
    let k = dedup.verifier().map(|v| v.k);
    let mut docs = Vec::with_capacity(n);
    let rows = ids
        .into_iter()
        .zip(urls)
        .zip(text_lens)
        .zip(signatures)
        .zip(shingles)
        .zip(errors);
    for (i, (((((id, url), len), sig), seq), error)) in rows.enumerate() {
        let signature: Option<Sig> = sig
            .map(|b| decode(&b, "document", i))
            .transpose()
            .map_err(err)?;
        let shingles = match (seq, k) {
            (Some(b), Some(k)) => Some(seq_of(&b, k, "document", i).map_err(err)?),
            _ => None,
        };
        docs.push(Fingerprinted {
            id,
            url,
            text_len: len as usize,
            signature,
            shingles,
            error,
        });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| err(format!("thread pool: {e}")))?;
    let outcome = py
        .allow_threads(|| pool.install(|| dedup.run(&mut docs)))
        .map_err(|e| err(e.to_string()))?;
    let a = &outcome.groups.assignments;
    Ok((
        a.iter().map(|x| x.representative).collect(),
        a.iter().map(|x| x.duplicate_of).collect(),
        a.iter()
            .map(|x| x.duplicate_of.map(|_| (x.similarity * 1e4).round() / 1e4))
            .collect(),
    ))
}

//! `FingerprintGroups`: the batch engine of `neardup dedup` over documents
//! fingerprinted elsewhere (by `fingerprint_batch`, in other processes or on
//! other machines), for pipelines that fingerprint in parallel tasks and
//! cluster in one (`neardup.datatrove`'s cross-rank stage).
//!
//! The documents come in batches, in the engine's order of seniority
//! (input order for `keep="first"`), into a [`BatchCorpus`] within a memory
//! budget (moved to disk past it, as `neardup dedup --memory` does); the
//! groups are those `dedup_files` gives for the same documents in the same
//! order: same site template pass, verification, composite and partial
//! checks, and no chaining. Only the duplicates are handed back, a range
//! of documents at a time, so that neither side holds a list per document.

use std::path::PathBuf;

use neardup::sketch::Signature as Sig;
use neardup::{BatchCorpus, Dedup, Fingerprinted, Groups};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;

use crate::batch::{batch_engine, Holding};
use crate::errors::err;
use crate::spark::{decode, seq_of};

/// A duplicate: its position, the id of the kept document it duplicates,
/// and the similarity (rounded to 4 decimals like the CLI).
type Duplicate = (u64, String, f64);

/// Documents fingerprinted by `fingerprint_batch`, grouped with the batch
/// engine of `neardup dedup` once all are added.
#[pyclass(module = "neardup")]
pub struct FingerprintGroups {
    dedup: Dedup,
    docs: BatchCorpus,
    groups: Option<Groups>,
}

#[pymethods]
impl FingerprintGroups {
    /// A new grouping with the engine options given to `fingerprint_batch`
    /// and `dedup_files`. `memory` (bytes; default: half of the machine's)
    /// and `spill_dir` are `neardup dedup`'s `--memory` and `--spill-dir`,
    /// `verify_sketch` its `--verify-sketch` (the shingles added are kept
    /// as their sketch).
    #[new]
    #[pyo3(signature = (method="default", threshold=None, *, max_distance=None, keep="first", site_templates=true, composite_check=true, partial_check=true, memory=None, spill_dir=None, verify_sketch=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        method: &str,
        threshold: Option<f64>,
        max_distance: Option<u32>,
        keep: &str,
        site_templates: bool,
        composite_check: bool,
        partial_check: bool,
        memory: Option<u64>,
        spill_dir: Option<PathBuf>,
        verify_sketch: bool,
    ) -> PyResult<FingerprintGroups> {
        let dedup = batch_engine(
            method,
            threshold,
            max_distance,
            keep,
            site_templates,
            composite_check,
            partial_check,
            verify_sketch,
        )?;
        let holding = Holding { memory, spill_dir };
        holding.check()?;
        let docs = holding.corpus(&dedup).map_err(err)?;
        Ok(FingerprintGroups {
            dedup,
            docs,
            groups: None,
        })
    }

    /// Adds the next documents. Each list has one entry per document:
    /// `ids`, `urls` (the host for the site template pass; the id when
    /// `None`), `text_lens`, `signatures` (`None`: no text, or failed),
    /// `shingles` (`None` without exact verification) and `errors` (a
    /// failed document is a group of its own).
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        py: Python<'_>,
        ids: Vec<String>,
        urls: Vec<Option<String>>,
        text_lens: Vec<u64>,
        signatures: Vec<Option<PyBackedBytes>>,
        shingles: Vec<Option<PyBackedBytes>>,
        errors: Vec<Option<String>>,
    ) -> PyResult<()> {
        if self.groups.is_some() {
            return Err(err("documents cannot be added after run()"));
        }
        let n = ids.len();
        let lens = [
            urls.len(),
            text_lens.len(),
            signatures.len(),
            shingles.len(),
            errors.len(),
        ];
        if lens.iter().any(|&l| l != n) {
            return Err(err(
                "ids, urls, text_lens, signatures, shingles and errors differ in length",
            ));
        }
        let verifier = self.dedup.verifier();
        let first = self.docs.len();
        let rows = ids
            .into_iter()
            .zip(urls)
            .zip(text_lens)
            .zip(signatures)
            .zip(shingles)
            .zip(errors);
        let docs = &mut self.docs;
        py.allow_threads(|| {
            for (i, (((((id, url), len), sig), seq), error)) in rows.enumerate() {
                let at = first + i;
                let signature: Option<Sig> = sig.map(|b| decode(&b, "document", at)).transpose()?;
                // Kept as the verifier keeps them: whole, or their sketch.
                let shingles = match (seq, verifier) {
                    (Some(b), Some(v)) => Some(v.sample(seq_of(&b, v.k, "document", at)?)),
                    _ => None,
                };
                docs.push(Fingerprinted {
                    id,
                    url,
                    text_len: len as usize,
                    signature,
                    shingles,
                    error,
                })
                .map_err(|e| e.to_string())?;
            }
            Ok::<(), String>(())
        })
        .map_err(err)
    }

    /// Groups the documents added (once), on `threads` threads (0: every
    /// core). Fails when an id occurs more than once.
    #[pyo3(signature = (threads=0))]
    fn run(&mut self, py: Python<'_>, threads: usize) -> PyResult<()> {
        if self.groups.is_some() {
            return Err(err("run() is called once"));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| err(format!("thread pool: {e}")))?;
        let (dedup, docs) = (&self.dedup, &mut self.docs);
        let outcome = py
            .allow_threads(|| {
                docs.check_unique_ids()?;
                pool.install(|| docs.run(dedup))
            })
            .map_err(|e| err(e.to_string()))?;
        self.groups = Some(outcome.groups);
        Ok(())
    }

    /// The duplicates among documents `lo..hi` (positions in the order
    /// added), after `run()`: `(position, id of the kept document it
    /// duplicates, similarity)`, in order.
    fn duplicates(&self, lo: usize, hi: usize) -> PyResult<Vec<Duplicate>> {
        let groups = self
            .groups
            .as_ref()
            .ok_or_else(|| err("duplicates() needs run() first"))?;
        let a = &groups.assignments;
        let hi = hi.min(a.len());
        Ok((lo.min(hi)..hi)
            .filter_map(|i| {
                a[i].duplicate_of.map(|d| {
                    let sim = (a[i].similarity * 1e4).round() / 1e4;
                    (i as u64, self.docs.id(d as usize).to_string(), sim)
                })
            })
            .collect())
    }

    /// The ids of documents `lo..hi` (positions in the order added): the
    /// engine holds them, so that the caller need not keep its own list.
    fn ids(&self, lo: usize, hi: usize) -> Vec<String> {
        let hi = hi.min(self.docs.len());
        (lo.min(hi)..hi)
            .map(|d| self.docs.id(d).to_string())
            .collect()
    }

    /// Documents added.
    fn __len__(&self) -> usize {
        self.docs.len()
    }

    /// Whether the documents went to disk (past the memory budget).
    #[getter]
    fn spilled(&self) -> bool {
        self.docs.is_spilled()
    }
}

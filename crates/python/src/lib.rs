//! Python bindings of neardup: the `neardup._neardup` extension module.
//!
//! The Python package `neardup` (in `python/neardup`) re-exports this
//! module's classes and functions and adds the pure-Python parts
//! (`MinHash`, `SimHash`, `neardup.spark`). Every call that does real work
//! (decoding, extraction, fingerprinting, verification, clustering, reading
//! files) releases the GIL. No error crosses the boundary as a panic: each is
//! a Python exception naming the document or argument at fault.

#![deny(missing_docs)]
// PyO3's macros expand to `unsafe` blocks; this crate writes none itself.
#![allow(unsafe_code)]

mod batch;
mod dedup;
mod dedup_file;
mod dedup_fingerprints;
mod dedup_input;
mod document;
mod errors;
mod keys;
mod lean;
mod lsh;
mod method;
mod minhash;
mod minhash_core;
mod packed;
mod read_parts;
mod signature;
mod spans;
mod spark;
mod spark_decide;
mod spark_pairs;
mod spark_passes;
mod spark_postings;
mod spark_spans;
mod spark_substring;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _neardup(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("NeardupError", py.get_type::<errors::NeardupError>())?;
    m.add_class::<document::Document>()?;
    m.add_class::<minhash::MinHash>()?;
    m.add_class::<lean::LeanMinHash>()?;
    m.add_function(wrap_pyfunction!(minhash::xxh3_hash64, m)?)?;
    m.add_function(wrap_pyfunction!(lsh::_optimal_param, m)?)?;
    m.add_class::<signature::Signature>()?;
    m.add_class::<dedup::Verdict>()?;
    m.add_class::<dedup::Deduplicator>()?;
    m.add_class::<batch::Record>()?;
    m.add_class::<batch::RecordIter>()?;
    m.add_function(wrap_pyfunction!(document::extract, m)?)?;
    m.add_function(wrap_pyfunction!(signature::sketch, m)?)?;
    m.add_function(wrap_pyfunction!(method::methods, m)?)?;
    m.add_function(wrap_pyfunction!(batch::read_documents, m)?)?;
    m.add_function(wrap_pyfunction!(read_parts::input_sources, m)?)?;
    m.add_function(wrap_pyfunction!(read_parts::read_part, m)?)?;
    m.add_function(wrap_pyfunction!(batch::dedup_files, m)?)?;
    m.add_class::<dedup_fingerprints::FingerprintGroups>()?;
    m.add_class::<spans::SpanFinder>()?;
    m.add_function(wrap_pyfunction!(spans::spans, m)?)?;
    m.add_function(wrap_pyfunction!(spans::clean_spans, m)?)?;
    m.add_function(wrap_pyfunction!(spark_spans::span_keys_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_spans::span_rows_batch, m)?)?;
    m.add_function(wrap_pyfunction!(
        spark_substring::substring_windows_batch,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(spark_substring::substring_rows_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark::fingerprint_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark::candidate_keys_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark::verify_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark::candidate_rule, m)?)?;
    m.add_function(wrap_pyfunction!(spark_decide::keep_first_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_decide::keep_first_packed_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_pairs::bucket_pairs_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_postings::pack_postings_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_postings::mix_keys_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_passes::strip_templates_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_passes::split_runs_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_passes::sampled_hashes_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_passes::composite_check_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_passes::composite_thirds_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_passes::composite_rule, m)?)?;
    m.add_function(wrap_pyfunction!(spark_passes::earliest_per_hash_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_passes::partial_check_batch, m)?)?;
    m.add_function(wrap_pyfunction!(spark_passes::partial_rule, m)?)?;
    Ok(())
}

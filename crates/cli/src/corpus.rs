//! Reading a corpus into fingerprinted documents, shared by `dedup` and
//! `eval --sweep`.

use std::collections::BTreeMap;

use anyhow::Result;
use neardup::extract::Extractor;
use neardup::io::{Inputs, Item, Source};
use neardup::{BatchCorpus, Dedup, Fingerprinted};

use crate::pipeline;
use crate::progress::Progress;

/// A fingerprinted corpus in memory.
pub struct Corpus {
    /// Documents in input order.
    pub entries: Vec<Fingerprinted>,
}

/// A corpus read for a batch run: its documents in memory or spilled.
pub struct ReadCorpus {
    /// Documents in input order.
    pub docs: BatchCorpus,
    /// Records that are not documents (counted, not output).
    pub skipped: u64,
    /// The skipped records by kind of reason (`HTTP status 404`,
    /// `not HTML`, `revisit record`, ...).
    pub skipped_by_reason: BTreeMap<String, u64>,
}

/// The kind of a skip reason: the reason without its parenthesized detail.
fn reason_kind(reason: &str) -> String {
    reason.split(" (").next().unwrap_or(reason).to_string()
}

/// Reads, extracts and fingerprints every document of `sources` in parallel;
/// per-document errors are reported on standard error and kept as entries.
pub fn fingerprint_corpus(
    inputs: &Inputs,
    sources: &[Source],
    extractor: &Extractor,
    dedup: &Dedup,
    pool: &rayon::ThreadPool,
    progress: &Progress,
) -> Result<Corpus> {
    let mut read = fingerprint_into(
        inputs,
        sources,
        extractor,
        dedup,
        pool,
        progress,
        BatchCorpus::in_memory(),
    )?;
    Ok(Corpus {
        entries: read.docs.take_memory_docs().unwrap_or_default(),
    })
}

/// As [`fingerprint_corpus`], into `docs` (in memory, or spilled as it
/// grows), for [`BatchCorpus::run`].
pub fn fingerprint_into(
    inputs: &Inputs,
    sources: &[Source],
    extractor: &Extractor,
    dedup: &Dedup,
    pool: &rayon::ThreadPool,
    progress: &Progress,
    docs: BatchCorpus,
) -> Result<ReadCorpus> {
    let mut corpus = ReadCorpus {
        docs,
        skipped: 0,
        skipped_by_reason: BTreeMap::new(),
    };
    let fingerprint = |item: Item| {
        let reason = match &item {
            Item::Skipped { reason, .. } => Some(reason_kind(reason)),
            _ => None,
        };
        (reason, neardup::fingerprint_item(dedup, item, extractor))
    };
    pipeline::map_ordered(inputs, sources, pool, fingerprint, |(reason, e)| {
        if let Some(r) = reason {
            *corpus.skipped_by_reason.entry(r).or_default() += 1;
        }
        match e {
            Some(e) => {
                progress.add(1);
                if let Some(msg) = &e.error {
                    eprintln!("neardup: {}: {msg}", e.id);
                } else if inputs.truncated_ids().is_some_and(|t| t.contains(&e.id)) {
                    eprintln!(
                        "neardup: {}: warning: record cut short (damaged archive); \
                         kept what it holds, flagged \"truncated\"",
                        e.id
                    );
                }
                corpus.docs.push(e)?;
            }
            None => corpus.skipped += 1,
        }
        Ok(())
    })?;
    corpus.docs.check_unique_ids()?;
    Ok(corpus)
}

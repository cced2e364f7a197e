//! Reading a corpus into fingerprinted documents, shared by `dedup` and
//! `eval --sweep`.

use std::collections::BTreeMap;

use anyhow::{bail, Result};
use neardup::extract::Extractor;
use neardup::io::{Inputs, Item, Source};
use neardup::{Dedup, Fingerprinted, SeqSpill, SigSpill};

use crate::pipeline;
use crate::progress::Progress;

/// A fingerprinted corpus.
pub struct Corpus {
    /// Documents in input order.
    pub entries: Vec<Fingerprinted>,
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
    fingerprint_into(inputs, sources, extractor, dedup, pool, progress, None)
}

/// As [`fingerprint_corpus`]; with `spill`, each document's shingle
/// sequence and signature are moved into it as the document arrives (its
/// `shingles` and `signature` are then `None`), for [`Dedup::run_spilled`].
pub fn fingerprint_into(
    inputs: &Inputs,
    sources: &[Source],
    extractor: &Extractor,
    dedup: &Dedup,
    pool: &rayon::ThreadPool,
    progress: &Progress,
    mut spill: Option<(&mut SeqSpill, &mut SigSpill)>,
) -> Result<Corpus> {
    let mut corpus = Corpus {
        entries: Vec::new(),
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
            Some(mut e) => {
                progress.add(1);
                if let Some((seqs, sigs)) = spill.as_mut() {
                    seqs.push(e.shingles.take().as_ref())?;
                    sigs.push(e.signature.take().as_ref())?;
                }
                if let Some(msg) = &e.error {
                    eprintln!("neardup: {}: {msg}", e.id);
                } else if inputs.truncated_ids().is_some_and(|t| t.contains(&e.id)) {
                    eprintln!(
                        "neardup: {}: warning: record cut short (damaged archive); \
                         kept what it holds, flagged \"truncated\"",
                        e.id
                    );
                }
                corpus.entries.push(e);
            }
            None => corpus.skipped += 1,
        }
        Ok(())
    })?;
    check_unique_ids(&corpus.entries)?;
    Ok(corpus)
}

/// Ids must be unique: the output names documents by id.
fn check_unique_ids(entries: &[Fingerprinted]) -> Result<()> {
    let mut seen: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(entries.len());
    let mut dups: Vec<&str> = Vec::new();
    for e in entries {
        let n = seen.entry(&e.id).or_default();
        *n += 1;
        if *n == 2 {
            dups.push(&e.id);
        }
    }
    if dups.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = dups.iter().take(10).map(|d| format!("{d:?}")).collect();
    bail!(
        "document ids must be unique; {} ids occur more than once: {}{}",
        dups.len(),
        shown.join(", "),
        if dups.len() > 10 { ", ..." } else { "" }
    )
}

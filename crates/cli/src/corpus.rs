//! Reading a corpus into fingerprinted documents, shared by `dedup` and
//! `eval --sweep`.

use std::collections::BTreeMap;

use anyhow::{bail, Result};
use neardup::extract::Extractor;
use neardup::io::{Inputs, Item, Source};
use neardup::{Dedup, DocTable, Fingerprinted, SeqSpill, SigSpill};

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

/// Where a spilled run puts what it reads: each document's shingle
/// sequence and signature on disk, the rest in a compact table.
pub struct SpillTo<'a> {
    /// The shingle sequences.
    pub seqs: &'a mut SeqSpill,
    /// The signatures.
    pub sigs: &'a mut SigSpill,
    /// The documents' ids, URLs, lengths and errors.
    pub table: &'a mut DocTable,
}

/// What the output needs of a corpus's documents, in memory
/// ([`Fingerprinted`]) or in a spilled run's [`DocTable`].
pub trait Docs: Sync {
    /// Documents held.
    fn count(&self) -> usize;
    /// Document `i`'s id.
    fn id(&self, i: usize) -> &str;
    /// Why document `i` failed, if it did.
    fn error(&self, i: usize) -> Option<&str>;
    /// Whether document `i` has a signature (else: no text, or it failed).
    fn has_signature(&self, i: usize) -> bool;
}

impl Docs for Vec<Fingerprinted> {
    fn count(&self) -> usize {
        self.len()
    }
    fn id(&self, i: usize) -> &str {
        &self[i].id
    }
    fn error(&self, i: usize) -> Option<&str> {
        self[i].error.as_deref()
    }
    fn has_signature(&self, i: usize) -> bool {
        self[i].signature.is_some()
    }
}

impl Docs for DocTable {
    fn count(&self) -> usize {
        self.len()
    }
    fn id(&self, i: usize) -> &str {
        DocTable::id(self, i)
    }
    fn error(&self, i: usize) -> Option<&str> {
        DocTable::error(self, i)
    }
    fn has_signature(&self, i: usize) -> bool {
        DocTable::has_signature(self, i)
    }
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
/// sequence and signature go to disk and the rest into its table as the
/// document arrives (`entries` then stays empty), for
/// [`Dedup::run_spilled`].
pub fn fingerprint_into(
    inputs: &Inputs,
    sources: &[Source],
    extractor: &Extractor,
    dedup: &Dedup,
    pool: &rayon::ThreadPool,
    progress: &Progress,
    mut spill: Option<SpillTo<'_>>,
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
            Some(e) => {
                progress.add(1);
                if let Some(to) = spill.as_mut() {
                    to.seqs.push(e.shingles.as_ref())?;
                    to.sigs.push(e.signature.as_ref())?;
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
                match spill.as_mut() {
                    Some(to) => to.table.push(&e),
                    None => corpus.entries.push(e),
                }
            }
            None => corpus.skipped += 1,
        }
        Ok(())
    })?;
    match &spill {
        Some(to) => check_unique_ids(&*to.table)?,
        None => check_unique_ids(&corpus.entries)?,
    }
    Ok(corpus)
}

/// Ids must be unique: the output names documents by id.
fn check_unique_ids(docs: &(impl Docs + ?Sized)) -> Result<()> {
    let mut seen: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(docs.count());
    let mut dups: Vec<&str> = Vec::new();
    for i in 0..docs.count() {
        let id = docs.id(i);
        let n = seen.entry(id).or_default();
        *n += 1;
        if *n == 2 {
            dups.push(id);
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

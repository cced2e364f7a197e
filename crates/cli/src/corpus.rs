//! Reading a corpus into fingerprinted entries, shared by `dedup` and
//! `eval --sweep`.

use anyhow::{bail, Result};
use neardup::extract::Extractor;
use neardup::io::{Inputs, Item, Source};
use neardup::sketch::Signature;
use neardup::{Dedup, DocFingerprint, Page, ShingleSeq};

use crate::pipeline;
use crate::progress::Progress;

/// One input document after extraction and fingerprinting.
pub struct Entry {
    /// Its id.
    pub id: String,
    /// Its URL, when the input says.
    pub url: Option<String>,
    /// Main text length in bytes.
    pub text_len: usize,
    /// Its signature; `None` when the text is empty or it failed.
    pub signature: Option<Signature>,
    /// Its shingles, when exact verification is on.
    pub shingles: Option<ShingleSeq>,
    /// Why it failed, if it did.
    pub error: Option<String>,
}

impl Entry {
    /// The engine's view of the entry.
    pub fn as_doc(&self) -> DocFingerprint<'_> {
        DocFingerprint {
            signature: self.signature.as_ref(),
            url: self.url.as_deref().unwrap_or(&self.id),
            text_len: self.text_len,
        }
    }
}

/// The shingles of every entry, for [`Dedup::cluster_exact`].
pub fn shingles_of(entries: &[Entry]) -> Vec<Option<&ShingleSeq>> {
    entries.iter().map(|e| e.shingles.as_ref()).collect()
}

/// A fingerprinted corpus.
pub struct Corpus {
    /// Documents in input order.
    pub entries: Vec<Entry>,
    /// Records that are not documents (counted, not output).
    pub skipped: u64,
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
    let mut corpus = Corpus {
        entries: Vec::new(),
        skipped: 0,
    };
    let fingerprint = |item: Item| -> Option<Entry> {
        match item {
            Item::Document(raw) => {
                let id = raw.id.clone();
                let url = raw.url.clone();
                Some(match Page::from_raw(raw, extractor) {
                    Ok(page) => {
                        let signature = dedup.fingerprint(&page.text, &page.paragraphs);
                        let shingles = signature.as_ref().and_then(|_| dedup.shingles(&page.text));
                        Entry {
                            signature,
                            shingles,
                            text_len: page.text.len(),
                            id,
                            url,
                            error: None,
                        }
                    }
                    Err(e) => Entry {
                        id,
                        url,
                        text_len: 0,
                        signature: None,
                        shingles: None,
                        error: Some(e.to_string()),
                    },
                })
            }
            Item::Error(e) => Some(Entry {
                error: Some(e.kind.to_string()),
                id: e.id,
                url: None,
                text_len: 0,
                signature: None,
                shingles: None,
            }),
            Item::Skipped { .. } => None,
        }
    };
    pipeline::map_ordered(inputs, sources, pool, fingerprint, |e| {
        match e {
            Some(e) => {
                progress.add(1);
                if let Some(msg) = &e.error {
                    eprintln!("neardup: {}: {msg}", e.id);
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
fn check_unique_ids(entries: &[Entry]) -> Result<()> {
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

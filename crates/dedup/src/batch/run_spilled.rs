//! [`Dedup::run_spilled`]: the batch decision with the shingle sequences on
//! disk ([`SeqSpill`]) instead of in memory, for corpora whose sequences do
//! not fit. The decision is the same as [`Dedup::run`]'s; each step reads
//! back only the sequences it needs:
//!
//! * the site template pass, one host with enough pages at a time;
//! * verification, one block of candidate pairs at a time (the sequences
//!   of the documents of those pairs);
//! * the corpus-level rules, the pages of the pairs they look at, their
//!   near-duplicates, and every page that holds a sampled shingle of theirs
//!   (the third documents the composite check may look up), found by one
//!   pass over the file.

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use crate::batch::doc_table::DocTable;
use crate::batch::progress::{self, RunStep};
use crate::batch::run::Outcome;
use crate::batch::seq_spill::SeqSpill;
use crate::batch::sig_spill::SigSpill;
use crate::dedup::{Dedup, DocFingerprint};
use crate::error::Error;
use crate::host::host_of;
use crate::keep::KeepKey;
use crate::rules::composite::{CompositeCheck, PostingFilter};
use crate::rules::templates::TemplateStats;
use crate::verify::ShingleSeq;

/// Candidate pairs whose sequences are read back at once.
const BLOCK_PAIRS: usize = 1 << 16;

/// A document's sequence by its index (`None` without one).
pub(crate) type SeqLookup<'s> = dyn Fn(u32) -> Option<&'s ShingleSeq> + Sync + 's;

/// Where the engine finds the documents' signatures.
pub(crate) enum Sigs<'a> {
    /// In memory, in the documents.
    Memory(&'a [DocFingerprint<'a>]),
    /// On disk, one slot per document.
    Spilled(&'a mut SigSpill),
}

/// Where the engine finds the documents' shingle sequences.
pub(crate) enum Seqs<'a> {
    /// In memory: empty, or one entry per document.
    Memory(&'a [Option<&'a ShingleSeq>]),
    /// On disk, one slot per document.
    Spilled(&'a mut SeqSpill),
}

impl Dedup {
    /// As [`Dedup::run`], for a corpus whose documents are in `docs` and
    /// whose shingle sequences and signatures were moved into `spill` and
    /// `sigs` as it was read (slot `i` of each is document `i`'s). The
    /// outcome is the one [`Dedup::run`] gives with everything in memory;
    /// the site template pass rewrites the sequences and signatures it
    /// changes in the stores.
    ///
    /// # Errors
    /// When a store does not hold one slot per document or cannot be read
    /// back, and as [`Dedup::run`].
    pub fn run_spilled(
        &self,
        docs: &DocTable,
        spill: &mut SeqSpill,
        sigs: &mut SigSpill,
    ) -> Result<Outcome, Error> {
        if spill.len() != docs.len() || sigs.len() != docs.len() {
            return Err(Error::corpus(
                "one spilled shingle sequence and signature per document is needed",
            ));
        }
        let templates = self.strip_spilled_templates(docs, spill, sigs)?;
        let order = self.config.keep.order_by(docs.len(), |d| {
            let doc = docs.as_doc(d as usize);
            KeepKey {
                url: doc.url,
                text_len: doc.text_len,
            }
        });
        let groups = self.cluster_with(order, Seqs::Spilled(spill), Sigs::Spilled(sigs))?;
        Ok(Outcome::new(groups, templates))
    }

    /// The site template pass over spilled sequences: per host with more
    /// pages than [`crate::SiteTemplates::witnesses`], its pages' sequences
    /// are read back and [`Dedup::strip_host_templates`] decides, as
    /// [`Dedup::strip_site_templates`] does over the whole corpus.
    fn strip_spilled_templates(
        &self,
        docs: &DocTable,
        spill: &mut SeqSpill,
        sigs: &mut SigSpill,
    ) -> Result<TemplateStats, Error> {
        let mut stats = TemplateStats::default();
        let Some(cfg) = self.site_templates() else {
            return Ok(stats);
        };
        // The method must be the one the sequences were made for.
        let Some(first) = (0..docs.len()).find(|&d| sigs.has(d as u32) && spill.has(d as u32))
        else {
            return Ok(stats);
        };
        let sample = spill.load(&[first as u32])?;
        let Some(resketched) = self.template_resketch(&sample[&(first as u32)]) else {
            return Ok(stats);
        };
        if !sigs.holds(first as u32, &resketched)? {
            return Ok(stats);
        }
        let mut hosts: HashMap<String, Vec<u32>> = HashMap::new();
        for d in 0..docs.len() {
            if spill.has(d as u32) {
                if let Some(h) = host_of(docs.as_doc(d).url) {
                    hosts.entry(h).or_default().push(d as u32);
                }
            }
        }
        let mut groups: Vec<Vec<u32>> = hosts
            .into_values()
            .filter(|pages| pages.len() > cfg.witnesses)
            .collect();
        groups.sort_unstable();
        let progress = self.config.progress.as_deref();
        progress::enter(progress, RunStep::Templates, groups.len() as u64);
        for pages in groups {
            progress::advance(progress, 1);
            let loaded = spill.load(&pages)?;
            let seqs: Vec<&ShingleSeq> = pages.iter().map(|d| &loaded[d]).collect();
            for (&d, stripped) in pages.iter().zip(self.strip_host_templates(&seqs)) {
                let Some((seq, sig)) = stripped else {
                    continue;
                };
                stats.documents += 1;
                stats.shingles += loaded[&d].len() - seq.len();
                spill.replace(d as usize, &seq)?;
                sigs.replace(d as usize, &sig, Some(&seq))?;
            }
        }
        Ok(stats)
    }
}

/// Runs `f` on `pairs` (of indices into `distinct`, the document of each)
/// block by block, with a lookup of the sequences of the block's
/// documents; the results in order.
pub(crate) fn in_blocks<T>(
    spill: &mut SeqSpill,
    distinct: &[u32],
    pairs: &[(u32, u32)],
    mut f: impl for<'s> FnMut(&[(u32, u32)], &SeqLookup<'s>) -> Vec<T>,
) -> Result<Vec<T>, Error> {
    let mut out = Vec::new();
    for block in pairs.chunks(BLOCK_PAIRS) {
        let docs: Vec<u32> = block
            .iter()
            .flat_map(|&(a, b)| [distinct[a as usize], distinct[b as usize]])
            .collect();
        let loaded = spill.load(&docs)?;
        let get = |k: u32| loaded.get(&distinct[k as usize]);
        out.extend(f(block, &get));
    }
    Ok(out)
}

/// The sequences (by document) the corpus-level rules may read for
/// `suspects` (pairs of indices into `distinct`): the pairs' own pages and
/// their near-duplicates among `verified`; with the composite check and
/// its suspects, every page holding a sampled shingle of the runs it looks
/// up (the third documents it may read; `k`: the shingle length).
pub(crate) fn load_for_rules(
    spill: &mut SeqSpill,
    distinct: &[u32],
    suspects: &[(u32, u32)],
    verified: &[(u32, u32, f64)],
    composite: Option<(CompositeCheck, &[(u32, u32)])>,
    k: usize,
) -> Result<HashMap<u32, ShingleSeq>, Error> {
    if suspects.is_empty() {
        return Ok(HashMap::new());
    }
    let pages: HashSet<u32> = suspects.iter().flat_map(|&(a, b)| [a, b]).collect();
    let mut wanted: Vec<u32> = pages.iter().map(|&k| distinct[k as usize]).collect();
    for &(a, b, _) in verified {
        if pages.contains(&a) || pages.contains(&b) {
            wanted.extend([distinct[a as usize], distinct[b as usize]]);
        }
    }
    let Some((cfg, runs_of)) = composite.filter(|(_, list)| !list.is_empty()) else {
        return spill.load(&wanted);
    };
    // The runs the check looks up, as it finds them, and their sampled
    // hashes; the pairs' sequences are read a block at a time (the runs
    // are much smaller).
    let runs: Vec<((u32, u32), Vec<u32>)> = in_blocks(spill, distinct, runs_of, |block, seq| {
        let mut runs = Vec::new();
        for &(a, b) in block {
            if let (Some(x), Some(y)) = (seq(a), seq(b)) {
                for run in cfg
                    .foreign_runs(x, y, k)
                    .into_iter()
                    .chain(cfg.foreign_runs(y, x, k))
                {
                    runs.push(((a, b), run));
                }
            }
        }
        runs
    })?;
    let mut hashes: Vec<u32> = runs
        .iter()
        .flat_map(|(_, run)| run.iter().copied().filter(|&h| cfg.is_sampled(h)))
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    if hashes.is_empty() {
        return spill.load(&wanted);
    }
    // Their postings (hash, index into `distinct`), as the check's index
    // holds them, then the third documents it reads for each run. The
    // check reads the first POSTINGS_READ documents of a hash other than
    // the pair's own two, so no more are kept: the documents are scanned a
    // block at a time and each block's postings merged into those kept.
    let filter = PostingFilter::new(cfg, &hashes);
    let mut postings: Vec<(u32, u32)> = Vec::new();
    // `distinct` is in document order, so a document's index is found by
    // a binary search.
    for block in distinct.chunks(POSTINGS_BLOCK) {
        let found = spill.par_scan(block, |d, seq, out| {
            let k = distinct.binary_search(&d).unwrap_or(usize::MAX) as u32;
            filter.postings(k, seq, out);
        })?;
        postings.extend(found);
        postings.par_sort_unstable();
        postings.dedup();
        CompositeCheck::keep_earliest_per_hash(&mut postings);
    }
    for ((a, b), run) in &runs {
        let docs_with = |h: u32| {
            let from = postings.partition_point(|&(g, _)| g < h);
            postings[from..]
                .iter()
                .take_while(move |&&(g, _)| g == h)
                .map(|&(_, z)| z)
                .filter(move |z| z != a && z != b)
        };
        let third = cfg.third_candidates(run, docs_with);
        wanted.extend(third.into_iter().map(|z| distinct[z as usize]));
    }
    spill.load(&wanted)
}

/// Documents whose composite-check postings are gathered at once by
/// [`load_for_rules`]: what a block adds before it is cut down.
#[cfg(not(test))]
const POSTINGS_BLOCK: usize = 1 << 18;
/// Small in tests, so that their corpora take several blocks.
#[cfg(test)]
const POSTINGS_BLOCK: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::fingerprinted::Fingerprinted;
    use crate::rules::test_text::words;

    /// A corpus with a case for each step: copies, an edited copy, a page
    /// glued from two articles (refused by the composite check), the head
    /// of an article (found by the containment side channel), a host's
    /// template text, an empty document and a failure.
    fn corpus(dedup: &Dedup) -> Vec<Fingerprinted> {
        let (a, b, c) = (words(300, 1), words(200, 2), words(250, 3));
        let furniture = words(40, 9);
        let mut texts: Vec<(String, String)> = vec![
            ("http://a.org/1".into(), a.clone()),
            (
                "http://b.org/1".into(),
                format!("{a} an editor's note here"),
            ),
            ("http://b.org/2".into(), b.clone()),
            ("http://c.org/1".into(), format!("{b} {}", words(100, 1))),
            ("http://c.org/2".into(), a.clone()),
            (
                "http://d.org/1".into(),
                c.split(' ').take(160).collect::<Vec<_>>().join(" "),
            ),
            ("http://d.org/2".into(), c.clone()),
            ("http://f.org/1".into(), format!("{c} a credit line")),
            ("http://e.org/0".into(), " ".into()),
        ];
        for i in 0..6 {
            let body = words(150, 20 + i);
            texts.push((
                format!("http://t.org/{i}"),
                format!("{furniture} {body} {furniture}"),
            ));
        }
        texts.push((
            "http://t.org/copy".into(),
            format!("{furniture} {} {furniture}", words(150, 20)),
        ));
        let mut docs: Vec<Fingerprinted> = texts
            .iter()
            .enumerate()
            .map(|(i, (url, t))| dedup.fingerprint_doc(format!("d{i}"), Some(url.clone()), t, &[]))
            .collect();
        docs.push(Fingerprinted::failed(
            "bad".into(),
            None,
            "unreadable".into(),
        ));
        docs
    }

    #[test]
    fn spilled_runs_decide_as_runs_in_memory() {
        let dir = neardup_testkit::TempDir::new("run-spilled");
        let engines = [
            Dedup::new(),
            Dedup::builder().containment(Some(0.8)).build(),
            Dedup::builder()
                .composite(None)
                .partial_copies(None)
                .build(),
        ];
        // Each engine with its signatures kept whole, then as its run keeps
        // them (band keys instead, but with the containment side channel).
        for (dedup, whole) in engines.iter().flat_map(|e| [(e, true), (e, false)]) {
            let mut memory = corpus(dedup);
            let expected = dedup.run(&mut memory).unwrap();
            let (table, mut spill, mut sigs) = spilled(dedup, &dir, whole);
            let got = dedup.run_spilled(&table, &mut spill, &mut sigs).unwrap();
            assert!(expected.duplicates() > 0 && expected.templates.documents > 0);
            assert_eq!(got.groups.assignments, expected.groups.assignments);
            assert_eq!(got.groups.refusals, expected.groups.refusals);
            assert_eq!(got.groups.candidates, expected.groups.candidates);
            assert_eq!(got.groups.verified, expected.groups.verified);
            assert_eq!(got.templates, expected.templates);
            assert_eq!(got.contained_in, expected.contained_in);
            let keys = dedup.config.containment.is_none() && !whole;
            assert_eq!(sigs.keys_params().is_some(), keys, "{whole}");
            // The template pass rewrote the same signatures.
            for (d, f) in memory.iter().enumerate() {
                let held = match &f.signature {
                    Some(sig) => sigs.holds(d as u32, sig).unwrap(),
                    None => !sigs.has(d as u32),
                };
                assert!(held, "template pass, document {d}");
            }
        }
    }

    /// The corpus as a spilled run holds it.
    fn spilled(
        dedup: &Dedup,
        dir: &std::path::Path,
        whole: bool,
    ) -> (DocTable, SeqSpill, SigSpill) {
        let mut table = DocTable::new();
        let mut spill = SeqSpill::create(dir, 3).unwrap();
        let keys = SigSpill::keys_only(dedup).filter(|_| !whole);
        let mut sigs = SigSpill::with_keys(dir, keys).unwrap();
        for mut d in corpus(dedup) {
            let seq = d.shingles.take();
            spill.push(seq.as_ref()).unwrap();
            sigs.push(d.signature.as_ref(), seq.as_ref()).unwrap();
            table.push(&d);
        }
        (table, spill, sigs)
    }

    #[test]
    fn the_corpus_has_a_case_for_each_step() {
        let dedup = Dedup::builder().containment(Some(0.8)).build();
        let out = dedup.run(&mut corpus(&dedup)).unwrap();
        let rules: Vec<&str> = out.groups.refusals.iter().map(|r| r.rule).collect();
        assert_eq!(rules, ["composite"]);
        assert!(!out.contained_in.is_empty() && out.templates.documents > 0);
    }

    #[test]
    fn a_spill_of_another_corpus_is_refused() {
        let dir = neardup_testkit::TempDir::new("run-spilled-len");
        let dedup = Dedup::new();
        let (table, mut seqs, mut sigs) = spilled(&dedup, &dir, false);
        let mut short = SeqSpill::create(&dir, 3).unwrap();
        short.push(None).unwrap();
        assert!(dedup.run_spilled(&table, &mut short, &mut sigs).is_err());
        let mut short = SigSpill::create(&dir).unwrap();
        short.push(None, None).unwrap();
        assert!(dedup.run_spilled(&table, &mut seqs, &mut short).is_err());
        assert!(dedup.run_spilled(&table, &mut seqs, &mut sigs).is_ok());
    }
}

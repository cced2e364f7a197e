//! `neardup report CLUSTERS INPUT... -o DIR`: a static HTML site of a
//! deduplication. CLUSTERS (the output of `neardup dedup` on the same
//! inputs) gives the groups shown; the inputs are read again with the same
//! pipeline and `Dedup::run` is run again for the engine's explanations and
//! the pairs refused by corpus-level rules (a disagreement with CLUSTERS is
//! noted on the index page). The texts of the groups shown are extracted
//! again for the side-by-side pages.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use neardup::dedup::PairVerdict;
use neardup::dedup::{method_name, Outcome};
use neardup::extract::Extractor;
use neardup::io::{Inputs, Item, Source};
use neardup::{Dedup, Fingerprinted, Page};
use serde::Deserialize;

use crate::corpus;
use crate::input_args::InputArgs;
use crate::method_args::MethodArgs;
use crate::pipeline;
use crate::progress::Progress;
use crate::report::{self, Doc, Duplicate, Group, GroupRow, RefusedPair, Summary};

/// Refused pairs listed at most.
const MAX_REFUSALS: usize = 1000;

/// Writes a static HTML report of near-duplicate groups.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The output of `neardup dedup` on the same inputs (JSON Lines).
    #[arg(value_name = "CLUSTERS")]
    clusters: PathBuf,
    /// The inputs given to `neardup dedup`.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// The directory to write the site into (`index.html`, `groups/`).
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    #[command(flatten)]
    opts: ReportOpts,
    #[command(flatten)]
    method: MethodArgs,
    #[command(flatten)]
    input: InputArgs,
    /// Worker threads (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
    /// Do not print the summary on standard error.
    #[arg(long, short)]
    quiet: bool,
}

/// The options of the site's size, shared with `dedup --report-html`.
#[derive(Debug, Clone, Args)]
pub struct ReportOpts {
    /// Detailed pages for this many of the largest groups.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub max_groups: usize,
    /// Duplicates shown on a group's page at most.
    #[arg(long, default_value_t = 50, value_name = "N")]
    pub max_duplicates: usize,
    /// Groups per page of the group list (every group is listed, in pages;
    /// the filter searches them all).
    #[arg(long, default_value_t = 1000, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub page_size: u64,
}

/// A line of CLUSTERS.
#[derive(Debug, Clone, Deserialize)]
pub struct Line {
    id: String,
    cluster: String,
    duplicate_of: Option<String>,
    similarity: Option<f64>,
    #[serde(default)]
    empty: bool,
    error: Option<String>,
}

fn read_clusters(path: &Path) -> Result<Vec<Line>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(serde_json::from_str(&line).with_context(|| {
            format!(
                "{} line {}: not a line of `neardup dedup` output",
                path.display(),
                n + 1
            )
        })?);
    }
    Ok(out)
}

/// Runs the command.
pub fn run(args: ReportArgs) -> Result<()> {
    let start = Instant::now();
    let lines = read_clusters(&args.clusters)?;
    crate::validate::writable_dir(&args.output, "report directory", true)?;
    let dedup = args
        .method
        .dedup_builder(args.method.method()?)
        .keep(args.input.keep_policy()?)
        .build();
    let fields = args.input.jsonl_fields();
    let inputs = Inputs::builder().jsonl_fields(fields).build();
    let sources = inputs.sources(&args.inputs)?;
    let extractor = args.input.extractor();
    let pool = pipeline::thread_pool(args.threads)?;
    let progress = Progress::start(
        "report",
        Inputs::total_bytes(&sources),
        Default::default(),
        !args.quiet,
    );
    let mut entries =
        corpus::fingerprint_corpus(&inputs, &sources, &extractor, &dedup, &pool, &progress)?
            .entries;
    progress.finish();
    let outcome = pool.install(|| dedup.run(&mut entries))?;
    let site = Site {
        dedup: &dedup,
        entries: &entries,
        outcome: &outcome,
        inputs: &inputs,
        sources: &sources,
        extractor: &extractor,
        method: &args.method.method,
    };
    let bytes = site.write(&args.output, &lines, &args.opts)?;
    if !args.quiet {
        eprintln!(
            "neardup report: wrote {} ({} bytes) in {:.2}s",
            args.output.display(),
            bytes,
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// What the site is made of: the engine's run over the corpus and the way
/// to read the inputs again.
pub struct Site<'a> {
    pub dedup: &'a Dedup,
    pub entries: &'a [Fingerprinted],
    pub outcome: &'a Outcome,
    pub inputs: &'a Inputs,
    pub sources: &'a [Source],
    pub extractor: &'a Extractor,
    pub method: &'a str,
}

/// The lines `dedup` writes, from an outcome (for `dedup --report-html`).
pub fn lines_of(entries: &[Fingerprinted], outcome: &Outcome) -> Vec<Line> {
    entries
        .iter()
        .zip(&outcome.groups.assignments)
        .map(|(e, a)| Line {
            id: e.id.clone(),
            cluster: entries[a.representative as usize].id.clone(),
            duplicate_of: a.duplicate_of.map(|d| entries[d as usize].id.clone()),
            similarity: a.duplicate_of.map(|_| a.similarity),
            empty: e.error.is_none() && e.signature.is_none(),
            error: e.error.clone(),
        })
        .collect()
}

impl Site<'_> {
    /// Writes the site of `lines` into `dir`; returns the bytes written.
    pub fn write(&self, dir: &Path, lines: &[Line], opts: &ReportOpts) -> Result<u64> {
        let index: HashMap<&str, usize> = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.as_str(), i))
            .collect();
        let mut notes = Vec::new();
        let differ = lines
            .iter()
            .filter(|l| match index.get(l.id.as_str()) {
                Some(&i) => {
                    let r = self.outcome.groups.assignments[i].representative as usize;
                    self.entries[r].id != l.cluster
                }
                None => true,
            })
            .count();
        if differ > 0 || lines.len() != self.entries.len() {
            notes.push(format!(
                "The clusters file and this run disagree: {differ} of its {} documents are in another group now or not in the inputs ({} documents read). The groups shown are the file's; explanations are this run's.",
                lines.len(),
                self.entries.len()
            ));
        } else {
            notes.push("This run of the engine gives the same groups as the clusters file.".into());
        }
        // Groups in order of first appearance, then largest first.
        let mut by_cluster: HashMap<&str, usize> = HashMap::new();
        let mut groups: Vec<Vec<&Line>> = Vec::new();
        for l in lines {
            let g = *by_cluster.entry(l.cluster.as_str()).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(l);
        }
        let mut histogram = BTreeMap::new();
        for g in &groups {
            *histogram.entry(g.len() as u64).or_default() += 1;
        }
        groups.retain(|g| g.len() > 1);
        groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
        let kept_of =
            |g: &[&Line]| -> usize { g.iter().position(|l| l.duplicate_of.is_none()).unwrap_or(0) };
        let paged = groups.len().min(opts.max_groups);
        let mut needed: HashSet<&str> = HashSet::new();
        for g in &groups[..paged] {
            let k = kept_of(g);
            needed.insert(&g[k].id);
            for l in g
                .iter()
                .filter(|l| l.duplicate_of.is_some())
                .take(opts.max_duplicates)
            {
                needed.insert(&l.id);
            }
        }
        let texts = self.texts(&needed);
        let doc = |id: &str| -> Doc {
            let url = index.get(id).and_then(|&i| self.entries[i].url.clone());
            match texts.get(id) {
                Some(p) => Doc {
                    id: id.into(),
                    url: url.or(p.url.clone()),
                    title: p.title.clone(),
                    text: p.text.clone(),
                },
                None => Doc {
                    id: id.into(),
                    url,
                    title: "(text not available)".into(),
                    text: String::new(),
                },
            }
        };
        let mut pages = Vec::with_capacity(paged);
        for (n, g) in groups[..paged].iter().enumerate() {
            let k = kept_of(g);
            let dups: Vec<&&Line> = g.iter().filter(|l| l.duplicate_of.is_some()).collect();
            let shown = dups.iter().take(opts.max_duplicates).map(|l| {
                let (verdict, explanation) =
                    match (index.get(g[k].id.as_str()), index.get(l.id.as_str())) {
                        (Some(&a), Some(&b)) => {
                            let e = self.dedup.explain_in(self.entries, self.outcome, a, b);
                            (e.verdict.to_string(), e.lines(self.dedup.verifier()))
                        }
                        _ => ("not in the inputs".into(), Vec::new()),
                    };
                Duplicate {
                    doc: doc(&l.id),
                    similarity: l.similarity,
                    verdict,
                    explanation,
                }
            });
            pages.push(Group {
                number: n + 1,
                kept: doc(&g[k].id),
                duplicates: shown.collect(),
                hidden: dups.len().saturating_sub(opts.max_duplicates),
            });
        }
        let rows = groups.iter().enumerate().map(|(n, g)| {
            let k = &g[kept_of(g)];
            GroupRow {
                id: k.id.clone(),
                url: index
                    .get(k.id.as_str())
                    .and_then(|&i| self.entries[i].url.clone()),
                size: g.len(),
                page: (n < paged).then_some(n + 1),
            }
        });
        if groups.len() > paged {
            notes.push(format!(
                "Pages for the {paged} largest groups of {} (--max-groups).",
                groups.len()
            ));
        }
        let page_of: HashMap<&str, usize> = groups[..paged]
            .iter()
            .enumerate()
            .flat_map(|(n, g)| g.iter().map(move |l| (l.id.as_str(), n + 1)))
            .collect();
        let refused = &self.outcome.groups.refusals;
        let side = |i: u32| {
            let e = &self.entries[i as usize];
            (e.id.clone(), e.url.clone())
        };
        let summary = Summary {
            documents: lines.len(),
            groups: groups.len(),
            duplicates: lines.iter().filter(|l| l.duplicate_of.is_some()).count(),
            errors: lines.iter().filter(|l| l.error.is_some()).count(),
            empty: lines.iter().filter(|l| l.empty).count(),
            method: self.method_text(),
            histogram,
            notes,
            rows: rows.collect(),
            page_size: usize::try_from(opts.page_size).unwrap_or(usize::MAX),
            paged,
            refusals: refused
                .iter()
                .take(MAX_REFUSALS)
                .map(|r| RefusedPair {
                    a: side(r.a),
                    b: side(r.b),
                    pages: (
                        page_of.get(self.entries[r.a as usize].id.as_str()).copied(),
                        page_of.get(self.entries[r.b as usize].id.as_str()).copied(),
                    ),
                    similarity: r.similarity,
                    rule: r.rule.to_string(),
                    why: PairVerdict::Rule(r.rule).to_string(),
                })
                .collect(),
            refusals_hidden: refused.len().saturating_sub(MAX_REFUSALS),
        };
        report::write_site(dir, &summary, &pages)
    }

    fn method_text(&self) -> String {
        let mut s = format!(
            "{} (`--method {}`)",
            method_name(self.dedup.method()),
            self.method
        );
        if let Some(v) = self.dedup.verifier() {
            s.push_str(&format!(
                "; exact verification: Jaccard of {}-word shingles at least {}, runs of foreign tokens at most {} (at the head {})",
                v.k, v.threshold, v.max_foreign_run, v.max_head_run
            ));
        }
        s
    }

    /// Reads the inputs again and extracts the documents of `needed`.
    fn texts(&self, needed: &HashSet<&str>) -> HashMap<String, Page> {
        let mut out = HashMap::new();
        if needed.is_empty() {
            return out;
        }
        for item in self.inputs.read_all(self.sources) {
            if let Item::Document(raw) = item {
                if needed.contains(raw.id.as_str()) {
                    let id = raw.id.clone();
                    if let Ok(p) = Page::from_raw(raw, self.extractor) {
                        out.insert(id, p);
                    }
                    if out.len() == needed.len() {
                        break;
                    }
                }
            }
        }
        out
    }
}

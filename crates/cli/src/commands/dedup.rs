//! `neardup dedup`: group near-duplicate documents and say which to keep.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Result};
use clap::Args;
use neardup::dedup::Outcome;
use neardup::io::{Inputs, ReadCounter, TruncatedIds};
use neardup::{BatchCorpus, Spill};
use rayon::prelude::*;
use serde::Serialize;

use crate::corpus;
use crate::input_args::InputArgs;
use crate::method_args::MethodArgs;
use crate::progress::{Progress, StepProgress};
use crate::{output, pipeline};

/// Finds groups of near-duplicate documents.
#[derive(Debug, Args)]
pub struct DedupArgs {
    /// HTML files, directories, WARC files, JSONL files.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Write the result here instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    method: MethodArgs,
    #[command(flatten)]
    input: InputArgs,
    /// With the default method: verify candidates on a verification sketch
    /// of their shingles (one in up to 8 kept, 3 bytes each: about 120
    /// bytes for a 2 KB text, where every shingle takes 4 bytes a token)
    /// instead of all of them: an estimate of the same rule, with the
    /// corpus-level rules off (site templates, composite and partial copy
    /// checks need every shingle). For corpora whose shingles do not fit
    /// in memory or on disk (docs/dedup.md).
    #[arg(long, conflicts_with = "no_exact")]
    verify_sketch: bool,
    /// Report partial reprints: a document of which at least this share is
    /// found in another document it does not duplicate gets
    /// `"contained_in"` and `"containment"` (needs the default method).
    #[arg(long, value_name = "T")]
    containment: Option<f64>,
    /// Also write the kept documents here, in the inputs' format: a WARC
    /// file (`.warc.gz`: one gzip member per record) for WARC inputs, JSON
    /// Lines for JSONL inputs, a directory of copies for HTML files.
    #[arg(long, value_name = "PATH")]
    kept: Option<PathBuf>,
    /// Let `--kept` write into a directory that is not empty.
    #[arg(long, requires = "kept")]
    force: bool,
    /// Memory budget (`8G`, `512M`, bytes; default: half of the
    /// machine's memory). When the documents read take more than three
    /// fifths of it, their signatures and shingle sequences move to disk
    /// (`--spill-dir`, else the system's temporary directory) and the run
    /// goes on there; results are the same.
    #[arg(long, value_name = "SIZE")]
    memory: Option<String>,
    /// Keep the signatures and shingle sequences on disk in this directory
    /// from the first document on (without `--memory`), and sort the
    /// MinHash band tables there: a document then costs about 200 bytes
    /// of memory, plus 256 MB; results are the same.
    #[arg(long, value_name = "DIR")]
    spill_dir: Option<PathBuf>,
    /// Entries per sorted run when spilling (default 4 Mi).
    #[arg(long, value_name = "N", requires = "spill_dir")]
    spill_run_records: Option<usize>,
    /// Write a JSON summary (counts, group sizes, time per stage) here.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Also write the static HTML report of `neardup report` into this
    /// directory.
    #[arg(long, value_name = "DIR")]
    report_html: Option<PathBuf>,
    #[command(flatten)]
    report_opts: crate::commands::report::ReportOpts,
    /// Worker threads (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
    /// Do not print the summary on standard error.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Serialize)]
struct OutLine<'a> {
    id: &'a str,
    cluster: &'a str,
    duplicate_of: Option<&'a str>,
    similarity: Option<f64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    empty: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    contained_in: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    containment: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    /// The record was cut short; the document is what it held.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
}

/// Entries per block of output lines formatted by one task.
const OUTPUT_BLOCK: usize = 4096;
/// Blocks formatted at once before they are written (16 per thread of a
/// 2-core machine: about 6 MB of output lines at a time).
const OUTPUT_WINDOW: usize = 32;

/// Writes the output line of every document to `out`, in input order,
/// formatted in parallel by blocks of consecutive lines.
fn write_output_lines(
    out: &mut dyn Write,
    pool: &rayon::ThreadPool,
    entries: &BatchCorpus,
    outcome: &Outcome,
    truncated: &TruncatedIds,
) -> Result<()> {
    let assignments = &outcome.groups.assignments;
    // Looked up per document only when some record was cut short.
    let any_truncated = !truncated.is_empty();
    let block = |start: usize| -> Result<Vec<u8>> {
        let end = (start + OUTPUT_BLOCK).min(entries.len());
        let mut out = Vec::with_capacity((end - start) * 96);
        for (i, a) in (start..end).zip(&assignments[start..end]) {
            let within = outcome.contained_in.get(&(i as u32));
            let (id, error) = (entries.id(i), entries.error(i));
            let line = OutLine {
                id,
                cluster: entries.id(a.representative as usize),
                duplicate_of: a.duplicate_of.map(|d| entries.id(d as usize)),
                similarity: a.duplicate_of.map(|_| (a.similarity * 1e4).round() / 1e4),
                empty: error.is_none() && !entries.has_signature(i),
                contained_in: within.map(|&(c, _)| entries.id(c as usize)),
                containment: within.map(|&(_, c)| (c * 1e4).round() / 1e4),
                error,
                truncated: any_truncated && truncated.contains(id),
            };
            serde_json::to_writer(&mut out, &line)?;
            out.push(b'\n');
        }
        Ok(out)
    };
    let starts: Vec<usize> = (0..entries.len()).step_by(OUTPUT_BLOCK).collect();
    // A window of blocks at a time: in parallel within it, never the whole
    // output in memory (about 100 bytes a document).
    for window in starts.chunks(OUTPUT_WINDOW) {
        let blocks: Vec<Vec<u8>> =
            pool.install(|| window.par_iter().map(|&s| block(s)).collect::<Result<_>>())?;
        for b in blocks {
            out.write_all(&b)?;
        }
    }
    Ok(())
}

/// Where a corpus past its budget goes.
fn spill_dir(args: &DedupArgs) -> PathBuf {
    args.spill_dir.clone().unwrap_or_else(std::env::temp_dir)
}

/// The memory budget: `--memory`, else half of the machine's memory (8 GiB
/// where the system does not say).
fn memory_budget(args: &DedupArgs) -> Result<u64> {
    match &args.memory {
        Some(m) => crate::commands::spans::parse_size(m),
        None => Ok(neardup::default_memory_budget()),
    }
}

/// Where the run holds its documents: on disk from the start with
/// `--spill-dir` alone; in memory for the HTML report (which reads them
/// all); otherwise in memory up to `budget` (the `--memory` in force),
/// then on disk.
fn batch_corpus(args: &DedupArgs, dedup: &neardup::Dedup, budget: u64) -> Result<BatchCorpus> {
    if args.report_html.is_some() {
        if args.memory.is_some() || args.spill_dir.is_some() {
            bail!("--report-html keeps every document in memory: it cannot be used with --memory or --spill-dir");
        }
        return Ok(BatchCorpus::in_memory());
    }
    let dir = spill_dir(args);
    if !dir.is_dir() {
        bail!("--spill-dir {}: not a directory", dir.display());
    }
    crate::validate::writable_dir(&dir, "--spill-dir", true)?;
    let memory = args.memory.is_some().then_some(budget);
    Ok(BatchCorpus::for_run(
        dedup,
        memory,
        args.spill_dir.as_deref(),
    )?)
}

/// Runs the command.
pub fn run(args: DedupArgs) -> Result<()> {
    let start = Instant::now();
    crate::heap::grow_in_large_steps();
    // The merge of a spilled run keeps every sorted run open.
    let _ = crate::open_files::raise_limit();
    crate::validate::writable_file(args.output.as_deref().unwrap_or("-".as_ref()), "output")?;
    if let Some(report) = &args.report {
        crate::validate::writable_file(report, "--report file")?;
    }
    if let Some(dir) = &args.report_html {
        crate::validate::writable_dir(dir, "--report-html directory", true)?;
    }
    let method = args.method.method()?;
    let cjk = method.segmenter().mode();
    let run_progress = Arc::new(neardup::RunProgress::new());
    let verifier = match (args.method.verifier(), args.verify_sketch) {
        (None, true) => bail!("--verify-sketch needs the default method's verification"),
        (Some(v), true) => Some(v.sketched()),
        (v, false) => v,
    };
    let dedup = args
        .method
        .dedup_builder(method)
        .verifier(verifier)
        .keep(args.input.keep_policy()?)
        .spill(args.spill_dir.as_ref().map(|dir| {
            let mut spill = Spill::new(dir);
            if let Some(n) = args.spill_run_records {
                spill.run_records = n.max(1);
            }
            spill
        }))
        .containment(args.containment)
        .progress(Some(run_progress.clone()))
        .build();
    let fields = args.input.jsonl_fields();
    let counter = ReadCounter::new();
    let truncated = TruncatedIds::new();
    let inputs = Inputs::builder()
        .jsonl_fields(fields)
        .read_counter(counter.clone())
        .truncated_ids(truncated.clone())
        .build();
    let sources = inputs.sources(&args.inputs)?;
    if let Some(target) = &args.kept {
        crate::kept::check(target, &sources, args.force)?;
    }
    let progress = Progress::start("dedup", Inputs::total_bytes(&sources), counter, !args.quiet);
    let extractor = args.input.extractor();
    let pool = pipeline::thread_pool(args.threads)?;

    let budget = memory_budget(&args)?;
    let docs = batch_corpus(&args, &dedup, budget)?;
    let read = corpus::fingerprint_into(
        &inputs, &sources, &extractor, &dedup, &pool, &progress, docs,
    )?;
    progress.finish();
    let (mut docs, skipped) = (read.docs, read.skipped);
    let skipped_by_reason = read.skipped_by_reason;
    let read_secs = start.elapsed().as_secs_f64();
    if docs.is_spilled() && !args.quiet && args.spill_dir.is_none() {
        eprintln!(
            "neardup dedup: the documents passed the memory budget: their signatures and shingles went to disk ({})",
            spill_dir(&args).display()
        );
    }
    if docs.is_spilled() && docs.spilled_floor() > budget && !args.quiet {
        eprintln!(
            "neardup dedup: warning: {} documents need about {} MB of memory even on disk, more than the budget of {} MB: the run goes on above it",
            docs.len(),
            docs.spilled_floor() >> 20,
            budget >> 20
        );
    }

    let cluster_start = Instant::now();
    let steps = StepProgress::start("dedup", run_progress, !args.quiet);
    let outcome = pool.install(|| docs.run(&dedup));
    steps.finish();
    let outcome = outcome?;
    let cluster_secs = cluster_start.elapsed().as_secs_f64();
    let groups = &outcome.groups;

    let mut out = output::open(args.output.as_deref())?;
    write_output_lines(&mut out, &pool, &docs, &outcome, &truncated)?;
    out.flush()?;

    if let Some(target) = &args.kept {
        let kept_ids: std::collections::HashSet<&str> = (0..docs.len())
            .zip(&groups.assignments)
            .filter(|&(i, a)| a.duplicate_of.is_none() && docs.error(i).is_none())
            .map(|(i, _)| docs.id(i))
            .collect();
        let roots = &args.inputs;
        let w = crate::kept::write_kept(
            target,
            &inputs,
            &sources,
            roots,
            &kept_ids,
            &args.input.id_field,
        )?;
        if !args.quiet {
            eprintln!(
                "neardup dedup: wrote {} kept documents ({}) to {}",
                w.count,
                w.what,
                target.display()
            );
        }
    }

    if let (Some(dir), Some(entries)) = (&args.report_html, docs.in_memory_docs()) {
        let site = crate::commands::report::Site {
            dedup: &dedup,
            entries,
            outcome: &outcome,
            inputs: &inputs,
            sources: &sources,
            extractor: &extractor,
            method: &args.method.method,
        };
        let lines = crate::commands::report::lines_of(entries, &outcome);
        site.write(dir, &lines, &args.report_opts)?;
        if !args.quiet {
            eprintln!("neardup dedup: wrote the HTML report to {}", dir.display());
        }
    }

    let failed = (0..docs.len()).filter(|&i| docs.error(i).is_some()).count();
    let empty = (0..docs.len())
        .filter(|&i| docs.error(i).is_none() && !docs.has_signature(i))
        .count();
    let duplicates = outcome.duplicates();
    let histogram = outcome.group_sizes();
    let total_secs = start.elapsed().as_secs_f64();
    if !args.quiet {
        eprintln!(
            "neardup dedup: {} documents, {} groups, {} duplicates, {} empty, {} errors, {} records skipped; {:.2}s ({:.0} docs/s)",
            docs.len(),
            outcome.group_count(),
            duplicates,
            empty,
            failed,
            skipped,
            total_secs,
            docs.len() as f64 / total_secs.max(1e-9)
        );
    }
    if let Some(path) = &args.report {
        let report = serde_json::json!({
            "documents": docs.len(),
            "groups": outcome.group_count(),
            "duplicates": duplicates,
            "empty": empty,
            "errors": failed,
            "records_skipped": skipped,
            "records_skipped_by_reason": skipped_by_reason,
            "truncated": truncated.len(),
            "method": args.method.method,
            "cjk": cjk.name(),
            "distinct_signatures": groups.distinct,
            "candidate_pairs": groups.candidates,
            "verified_pairs": groups.verified,
            "composite_pairs_refused": groups.composites,
            "partial_pairs_refused": groups.partial_copies,
            "spilled_runs": groups.spilled_runs,
            "partial_reprints": outcome.contained_in.len(),
            "site_templates": {"documents": outcome.templates.documents, "shingles_removed": outcome.templates.shingles},
            "group_size_histogram": histogram.iter().map(|(k, v)| (k.to_string(), serde_json::Value::from(*v))).collect::<serde_json::Map<_, _>>(),
            "seconds": {"read_extract_fingerprint": read_secs, "cluster": cluster_secs, "total": total_secs},
        });
        std::fs::write(path, serde_json::to_vec_pretty(&report)?)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    // The process ends with this command: freeing a few allocations per
    // document one by one would only cost time (a tenth of a second per
    // 100,000 documents); the operating system takes the memory back.
    std::mem::forget((docs, outcome));
    Ok(())
}

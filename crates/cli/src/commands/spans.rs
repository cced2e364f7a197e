//! `neardup spans`: repeated passages inside documents (paragraphs, lines,
//! sentences, fuzzy paragraphs, exact substrings) and stretches shared with
//! a reference set.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use neardup::io::{Content, Inputs, Item, JsonlFields, ReadCounter};
use neardup::spans::{Emitted, Keep, ReferenceIndex, SpanFinder, Unit};

use crate::input_args::InputArgs;
use crate::progress::Progress;
use crate::report::spans::SpanSite;
use crate::span_outputs::{span_chars, write_line, AttributeWriter, CleanWriter};
use crate::{output, pipeline};

/// Finds repeated passages inside documents.
#[derive(Debug, Args)]
pub struct SpansArgs {
    /// HTML files, directories, WARC/ARC/WET files, JSONL, Parquet (`-`:
    /// standard input).
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Write the spans here (one JSON line per document) instead of
    /// standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The unit compared: `paragraph` (default), `line`, `sentence` or
    /// `substring` (runs of at least `--min-tokens` tokens, by suffix
    /// array). With `--reference` and no `--unit`, only reference spans
    /// are looked for.
    #[arg(long, value_name = "UNIT")]
    unit: Option<String>,
    /// Units shorter than this, normalized, in characters, are ignored.
    #[arg(long, default_value_t = neardup::spans::DEFAULT_MIN_CHARS, value_name = "N")]
    min_chars: usize,
    /// `--unit substring`: the shortest repeated run, in tokens (words;
    /// CJK characters). Default 50, or 1 with `--min-bytes` alone.
    #[arg(long, value_name = "N")]
    min_tokens: Option<usize>,
    /// `--unit substring`: the shortest repeated run, in bytes of its
    /// normalized tokens joined by spaces (Lee et al.'s 100 bytes).
    #[arg(long, value_name = "N")]
    min_bytes: Option<u64>,
    /// A paragraph is a repeat when `--overlap` of its word n-grams
    /// appeared before (paragraphs only).
    #[arg(long)]
    fuzzy: bool,
    /// Share of n-grams seen before that makes a fuzzy repeat.
    #[arg(long, default_value_t = neardup::spans::DEFAULT_OVERLAP, value_name = "T")]
    overlap: f64,
    /// N-gram length in words (CJK characters) of `--fuzzy`.
    #[arg(long, default_value_t = neardup::spans::DEFAULT_NGRAM, value_name = "N")]
    ngram: usize,
    /// Which copy survives: `first` (input order) or `none` (every copy is
    /// a span).
    #[arg(long, default_value = "first", value_name = "POLICY")]
    keep: String,
    /// Reference sets (JSON Lines) to find leaked passages of.
    #[arg(long, value_name = "REF", num_args = 1..)]
    reference: Vec<PathBuf>,
    /// N-gram length in words (CJK characters) of reference matches.
    #[arg(long, default_value_t = neardup::spans::DEFAULT_NGRAM, value_name = "N")]
    ref_ngram: usize,
    /// JSONL field holding a reference item's id.
    #[arg(long, default_value = "id", value_name = "NAME")]
    ref_id_field: String,
    /// JSONL field holding a reference item's text.
    #[arg(long, default_value = "text", value_name = "NAME")]
    ref_text_field: String,
    /// Also write the documents with their spans removed (`{"id", "text"}`).
    #[arg(long, value_name = "FILE")]
    clean: Option<PathBuf>,
    /// With `--clean`, drop documents left with fewer characters.
    #[arg(long, default_value_t = 1, value_name = "N")]
    min_doc_chars: usize,
    /// Also write dolma attribute files (`[start, end, score]`) here, one
    /// per input file.
    #[arg(long, value_name = "DIR")]
    attributes: Option<PathBuf>,
    /// The attribute's name in `--attributes` files.
    #[arg(long, default_value = "neardup_repeated_spans", value_name = "NAME")]
    attribute_name: String,
    /// Write a JSON report (counts, characters, the most repeated
    /// passages, leaked reference items) here.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Also write a static HTML report here: the counts, the most repeated
    /// passages, and a page per document with spans marked.
    #[arg(long, value_name = "DIR")]
    report_html: Option<PathBuf>,
    /// Documents with spans that get a page in `--report-html`.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    report_docs: usize,
    /// Most repeated passages listed in the report.
    #[arg(long, default_value_t = 50, value_name = "N")]
    report_top: usize,
    /// Memory budget of the index (`4G`, `512M`, bytes); past it the keys
    /// are partitioned onto `--spill-dir`.
    #[arg(long, default_value = "4G", value_name = "SIZE")]
    memory: String,
    /// Where partitions go (`--keep none`, or past `--memory`); default:
    /// the system's temporary directory.
    #[arg(long, value_name = "DIR")]
    spill_dir: Option<PathBuf>,
    /// JSONL field holding the document id.
    #[arg(long, default_value = "id", value_name = "NAME")]
    id_field: String,
    /// JSONL field holding plain text.
    #[arg(long, default_value = "text", value_name = "NAME")]
    text_field: String,
    /// JSONL field holding HTML.
    #[arg(long, default_value = "html", value_name = "NAME")]
    html_field: String,
    /// Look at all visible text of HTML pages instead of the main text.
    #[arg(long)]
    all_text: bool,
    /// Worker threads (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
    /// Do not print the summary on standard error.
    #[arg(long, short)]
    quiet: bool,
}

/// Parses `4G`, `512M`, `64K`, `1.5G` or a number of bytes.
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                'B' => 1,
                _ => bail!("--memory {s:?}: unknown unit {c:?} (K, M, G, T)"),
            };
            (&t[..i], m)
        }
        _ => (t, 1),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| anyhow!("--memory {s:?}: not a size (e.g. 4G, 512M)"))?;
    if !(v.is_finite() && v > 0.0) {
        bail!("--memory {s:?}: must be positive");
    }
    Ok((v * mult as f64) as u64)
}

fn finder(args: &SpansArgs) -> Result<SpanFinder> {
    let keep = match args.keep.as_str() {
        "first" => Keep::First,
        "none" => Keep::None,
        k => bail!("--keep {k:?}: expected first or none"),
    };
    let mut b = SpanFinder::builder();
    if let Some(u) = &args.unit {
        b = b.unit(Unit::from_name(u).ok_or_else(|| {
            anyhow!("--unit {u:?}: expected paragraph, line, sentence or substring")
        })?);
    }
    if let Some(n) = args.min_tokens {
        b = b.min_tokens(n);
    }
    if let Some(n) = args.min_bytes {
        b = b.min_bytes(n);
    }
    let mut b = b
        .keep(keep)
        .min_chars(args.min_chars)
        .fuzzy(args.fuzzy)
        .overlap(args.overlap)
        .ngram(args.ngram)
        .memory(parse_size(&args.memory)?)
        // The lines, `--report` and `--attributes` read the spans' text
        // only: the rest of a document waits on disk only for `--clean`
        // and the HTML report's pages.
        .whole_text(args.clean.is_some() || args.report_html.is_some());
    if let Some(dir) = &args.spill_dir {
        if !dir.is_dir() {
            bail!("--spill-dir {}: not a directory", dir.display());
        }
        crate::validate::writable_dir(dir, "--spill-dir", true)?;
        b = b.spill_dir(dir);
    }
    if !args.reference.is_empty() {
        b = b.reference(load_reference(args)?);
    }
    Ok(b.build()?)
}

/// Reads the reference sets: one item per JSON line (or HTML page).
fn load_reference(args: &SpansArgs) -> Result<ReferenceIndex> {
    let inputs = Inputs::builder()
        .jsonl_fields(JsonlFields {
            id: args.ref_id_field.clone(),
            text: args.ref_text_field.clone(),
            ..JsonlFields::default()
        })
        .build();
    let sources = inputs.sources(&args.reference).context("--reference")?;
    let mut idx = ReferenceIndex::new(args.ref_ngram);
    let extractor = neardup::extract::Extractor::new();
    let budget = parse_size(&args.memory)?;
    for item in inputs.read_all(&sources) {
        match item {
            Item::Document(d) => match d.content {
                Content::Text(t) => {
                    idx.add(d.id, &t);
                }
                Content::Html { .. } => {
                    let id = d.id.clone();
                    match neardup::Page::from_raw(d, &extractor) {
                        Ok(p) => {
                            idx.add(id, &p.text);
                        }
                        Err(e) => eprintln!("neardup: reference {id}: {e}"),
                    }
                }
            },
            Item::Error(e) => bail!("--reference: {}: {}", e.id, e.kind),
            Item::Skipped { .. } => {}
        }
        if idx.memory_bytes() > budget {
            bail!(
                "--reference: the reference set needs more than the memory budget of {budget} bytes (raise --memory)"
            );
        }
    }
    if idx.is_empty() {
        bail!("--reference: no reference items read");
    }
    Ok(idx)
}

/// Runs the command.
pub fn run(args: SpansArgs) -> Result<()> {
    let start = Instant::now();
    crate::heap::grow_in_large_steps();
    // Past its budget a run keeps its 256 key partitions open at once.
    let _ = crate::open_files::raise_limit();
    crate::validate::writable_file(args.output.as_deref().unwrap_or("-".as_ref()), "output")?;
    for (path, what) in [
        (&args.clean, "--clean file"),
        (&args.report, "--report file"),
    ] {
        if let Some(p) = path {
            crate::validate::writable_file(p, what)?;
        }
    }
    if let Some(dir) = &args.attributes {
        crate::validate::writable_dir(dir, "--attributes directory", true)?;
    }
    if let Some(dir) = &args.report_html {
        crate::validate::writable_dir(dir, "--report-html directory", true)?;
    }
    let finder = finder(&args)?;
    let inputs = Inputs::builder()
        .jsonl_fields(JsonlFields {
            id: args.id_field.clone(),
            text: args.text_field.clone(),
            html: args.html_field.clone(),
            ..JsonlFields::default()
        })
        .read_counter(ReadCounter::new())
        .build();
    let sources = inputs.sources(&args.inputs)?;
    let extractor = InputArgs::extractor_for(args.all_text);
    let pool = pipeline::thread_pool(args.threads)?;
    let counter = ReadCounter::new();
    let progress = Progress::start("spans", Inputs::total_bytes(&sources), counter, !args.quiet);

    let mut out = output::open(args.output.as_deref())?;
    let mut clean = match &args.clean {
        Some(p) => Some(CleanWriter::create(p, args.min_doc_chars)?),
        None => None,
    };
    let mut attrs = match &args.attributes {
        Some(dir) => Some(AttributeWriter::create(
            dir,
            &args.attribute_name,
            &sources,
        )?),
        None => None,
    };
    let mut site = match &args.report_html {
        Some(dir) => Some(SpanSite::create(dir, args.report_docs)?),
        None => None,
    };
    // Documents come back in input order; the sink of the run writes each
    // one's line (with `--keep none` or past the budget, at the end).
    let doc_source: std::cell::RefCell<Vec<u32>> = std::cell::RefCell::default();
    let mut failure: Option<anyhow::Error> = None;
    let mut sink = |e: &Emitted<'_>| -> std::io::Result<()> {
        let chars = span_chars(e);
        let mut write = || -> Result<()> {
            write_line(&mut out, e, &chars)?;
            if let Some(c) = clean.as_mut() {
                c.write(e)?;
            }
            if let Some(s) = site.as_mut() {
                s.document(e)?;
            }
            if let Some(a) = attrs.as_mut() {
                let source = doc_source
                    .borrow()
                    .get(e.index as usize)
                    .copied()
                    .unwrap_or(0);
                a.write(source as usize, e, &chars)?;
            }
            Ok(())
        };
        write().map_err(|err| {
            let io = std::io::Error::other(crate::output::error_message(&err));
            failure.get_or_insert(err);
            io
        })
    };
    let mut run = finder.run()?;
    let analyse = |(source, item): (usize, Item)| {
        (
            source,
            neardup::span_item_for_run(&finder, item, &extractor),
        )
    };
    pipeline::map_ordered_sourced(&inputs, &sources, &pool, analyse, |(source, doc)| {
        let Some((id, body)) = doc else {
            return Ok(());
        };
        progress.add(1);
        if let Err(msg) = &body {
            eprintln!("neardup: {id}: {msg}");
        }
        doc_source.borrow_mut().push(source as u32);
        run.push(&id, body, &mut sink)?;
        Ok(())
    })?;
    progress.finish();
    let stats = run.finish(&mut sink)?;
    if let Some(e) = failure {
        return Err(e);
    }
    out.flush()?;
    if let Some(a) = attrs.as_mut() {
        a.close()?;
    }
    let secs = start.elapsed().as_secs_f64();
    if let Some(path) = &args.report {
        let report = crate::span_outputs::report_json(
            &finder,
            &stats,
            args.report_top,
            secs,
            clean.as_ref(),
        );
        std::fs::write(path, serde_json::to_vec_pretty(&report)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(c) = clean.take() {
        c.finish()?;
    }
    if let Some(s) = site.take() {
        s.finish(&finder, &stats, args.report_top)?;
    }
    if !args.quiet {
        let kinds: Vec<String> = stats
            .spans
            .iter()
            .map(|(k, n)| format!("{n} {}", k.name()))
            .collect();
        eprintln!(
            "neardup spans: {} documents, {} with spans ({}), {:.1}% of {} characters in spans, {} errors; {:.2}s ({:.0} docs/s)",
            stats.documents,
            stats.documents_with_spans,
            if kinds.is_empty() { "none".to_string() } else { kinds.join(", ") },
            100.0 * stats.span_chars_total() as f64 / stats.chars.max(1) as f64,
            stats.chars,
            stats.errors,
            secs,
            stats.documents as f64 / secs.max(1e-9)
        );
    }
    Ok(())
}

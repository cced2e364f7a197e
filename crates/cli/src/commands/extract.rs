//! `neardup extract`: main text of every page, as JSON Lines or plain text.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};
use neardup::extract::{Extractor, Mode};
use neardup::io::{Inputs, Item, TruncatedIds};
use neardup::Page;
use serde::Serialize;

use crate::{output, pipeline};

/// Extracts the main text (title, paragraphs, text) of every page.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// HTML files (optionally .gz), directories, WARC files, JSONL files.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Write to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Jsonl)]
    format: Format,
    /// Keep all visible text: no boilerplate removal.
    #[arg(long)]
    all_text: bool,
    /// Worker threads (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
    /// Do not print the summary line on standard error.
    #[arg(long, short)]
    quiet: bool,
}

/// How extracted pages are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// One JSON object per page: id, url, title, text, paragraphs, charset.
    Jsonl,
    /// The text of each page, pages separated by a blank line.
    Text,
}

#[derive(Serialize)]
struct Record<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    title: &'a str,
    text: &'a str,
    paragraphs: &'a [String],
    charset: Option<&'a str>,
    /// The record was cut short; the page is what it held.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
}

#[derive(Serialize)]
struct ErrorRecord<'a> {
    id: &'a str,
    error: &'a str,
}

enum Outcome {
    Page(Page),
    Failed { id: String, message: String },
    Skipped,
}

/// Runs the command.
pub fn run(args: ExtractArgs) -> Result<()> {
    crate::validate::writable_file(args.output.as_deref().unwrap_or("-".as_ref()), "output")?;
    let truncated = TruncatedIds::new();
    let inputs = Inputs::builder().truncated_ids(truncated.clone()).build();
    let sources = inputs.sources(&args.inputs)?;
    let mode = if args.all_text {
        Mode::AllText
    } else {
        Mode::Main
    };
    let extractor = Extractor::builder().mode(mode).build();
    let pool = pipeline::thread_pool(args.threads)?;
    let mut out = output::open(args.output.as_deref())?;
    let (mut pages, mut failed, mut skipped) = (0u64, 0u64, 0u64);
    let mut first = true;
    let map = |item: Item| match item {
        Item::Document(raw) => {
            let id = raw.id.clone();
            match Page::from_raw(raw, &extractor) {
                Ok(page) => Outcome::Page(page),
                Err(e) => Outcome::Failed {
                    id,
                    message: e.to_string(),
                },
            }
        }
        Item::Error(e) => Outcome::Failed {
            id: e.id.clone(),
            message: e.kind.to_string(),
        },
        Item::Skipped { .. } => Outcome::Skipped,
    };
    pipeline::map_ordered(&inputs, &sources, &pool, map, |outcome| {
        match outcome {
            Outcome::Page(p) => {
                pages += 1;
                match args.format {
                    Format::Jsonl => {
                        let rec = Record {
                            id: &p.id,
                            url: p.url.as_deref(),
                            title: &p.title,
                            text: &p.text,
                            paragraphs: &p.paragraphs,
                            charset: p.charset,
                            truncated: truncated.contains(&p.id),
                        };
                        serde_json::to_writer(&mut out, &rec)?;
                        out.write_all(b"\n")?;
                    }
                    Format::Text => {
                        if !first {
                            out.write_all(b"\n")?;
                        }
                        first = false;
                        writeln!(out, "{}", p.text)?;
                    }
                }
            }
            Outcome::Failed { id, message } => {
                failed += 1;
                eprintln!("neardup: {id}: {message}");
                if args.format == Format::Jsonl {
                    serde_json::to_writer(
                        &mut out,
                        &ErrorRecord {
                            id: &id,
                            error: &message,
                        },
                    )?;
                    out.write_all(b"\n")?;
                }
            }
            Outcome::Skipped => skipped += 1,
        }
        Ok(())
    })?;
    out.flush()?;
    if !args.quiet {
        eprintln!("neardup extract: {pages} pages, {failed} errors, {skipped} records skipped");
    }
    Ok(())
}

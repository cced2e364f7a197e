//! `neardup store stats|verify|compact`: offline maintenance of a service
//! store (stop `neardup serve` first: an open store is locked).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use neardup_server::maintenance::{self, StoreReport};
use serde_json::json;

/// Options of `neardup store`.
#[derive(Debug, Args)]
pub struct StoreArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Format, method, documents and file size, from the metadata alone.
    Stats(Target),
    /// Read and check every record (exit status 2 on the first problem).
    Verify(Target),
    /// Give the space of deleted documents back to the file system.
    Compact(Target),
}

#[derive(Debug, Args)]
struct Target {
    /// The service's data directory.
    #[arg(long, value_name = "DIR")]
    data_dir: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn report_json(r: &StoreReport) -> serde_json::Value {
    json!({
        "format": r.format, "method": r.method, "documents": r.documents,
        "duplicates": r.duplicates, "empty": r.empty,
        "text_bytes": r.text_bytes, "file_bytes": r.file_bytes,
        "snapshot": match &r.snapshot {
            None => json!(null),
            Some(Ok(bytes)) => json!({"bytes": bytes}),
            Some(Err(why)) => json!({"refused": why}),
        },
        "postings_segments": r.postings_segments,
        "postings_damaged": r.postings_damaged,
        "postings_bytes": r.postings_bytes,
    })
}

/// Runs the command.
pub fn run(args: StoreArgs) -> Result<()> {
    match args.action {
        Action::Stats(t) => {
            let r = maintenance::stats(&t.data_dir)
                .with_context(|| t.data_dir.display().to_string())?;
            if t.json {
                println!("{}", report_json(&r));
            } else {
                println!(
                    "{}: format {}, {}, {} documents, {} bytes",
                    t.data_dir.display(),
                    r.format,
                    r.method,
                    r.documents,
                    r.file_bytes
                );
            }
        }
        Action::Verify(t) => {
            let r = maintenance::verify(&t.data_dir)
                .with_context(|| t.data_dir.display().to_string())?;
            if t.json {
                println!("{}", report_json(&r));
            } else {
                println!(
                    "{}: ok: {} documents ({} duplicates, {} without text), {} bytes of text, {} bytes",
                    t.data_dir.display(),
                    r.documents,
                    r.duplicates,
                    r.empty,
                    r.text_bytes,
                    r.file_bytes
                );
                match &r.snapshot {
                    None => println!("index snapshot: none (the index is rebuilt at start)"),
                    Some(Ok(b)) => println!("index snapshot: ok, {b} bytes"),
                    Some(Err(why)) => {
                        println!("index snapshot: {why} (the index is rebuilt at start)")
                    }
                }
                println!(
                    "postings: {} segments, {} bytes{}",
                    r.postings_segments,
                    r.postings_bytes,
                    if r.postings_damaged.is_empty() {
                        String::new()
                    } else {
                        format!(", damaged: {}", r.postings_damaged.join(", "))
                    }
                );
            }
        }
        Action::Compact(t) => {
            let (before, after) = maintenance::compact(&t.data_dir)
                .with_context(|| t.data_dir.display().to_string())?;
            if t.json {
                println!("{}", json!({"bytes_before": before, "bytes_after": after}));
            } else {
                println!("{}: {before} -> {after} bytes", t.data_dir.display());
            }
        }
    }
    Ok(())
}

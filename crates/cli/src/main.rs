//! The `neardup` command-line tool.

mod commands;
mod corpus;
mod explain;
mod heap;
mod input_args;
mod kept;
mod method_args;
mod open_files;
mod output;
mod pipeline;
mod plot;
mod progress;
mod report;
mod span_outputs;
mod validate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Near-duplicate web page detection.
#[derive(Debug, Parser)]
#[command(name = "neardup", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Extract the main text of web pages.
    Extract(commands::extract::ExtractArgs),
    /// Find groups of near-duplicate documents and the copy to keep.
    Dedup(commands::dedup::DedupArgs),
    /// Explain why two pages are, or are not, near-duplicates.
    Compare(commands::compare::CompareArgs),
    /// Score groups against labels, or sweep a threshold into a curve.
    Eval(commands::eval::EvalArgs),
    /// Write a static HTML report of the groups (opens from disk).
    Report(commands::report::ReportArgs),
    /// Run the ContentSeen HTTP service over a persistent store.
    Serve(commands::serve::ServeArgs),
    /// Look at, check or compact a service store, offline.
    Store(commands::store::StoreArgs),
    /// Find repeated passages inside documents (paragraphs, lines,
    /// sentences, exact substrings) and passages leaked from a reference
    /// set.
    Spans(commands::spans::SpansArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Extract(args) => commands::extract::run(args),
        Command::Dedup(args) => commands::dedup::run(args),
        Command::Compare(args) => commands::compare::run(args),
        Command::Eval(args) => commands::eval::run(args),
        Command::Report(args) => commands::report::run(args),
        Command::Serve(args) => commands::serve::run(args),
        Command::Store(args) => commands::store::run(args),
        Command::Spans(args) => commands::spans::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("neardup: error: {}", output::error_message(&e));
            ExitCode::from(2)
        }
    }
}

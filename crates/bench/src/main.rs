//! `neardup-bench`: tools to measure neardup at scale.

mod realtext;
mod sketch;
mod synth;

use neardup_bench::{mix, paragraphs, rng, spancorpus, substrcorpus};

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

/// Benchmark tools for neardup.
#[derive(Debug, Parser)]
#[command(name = "neardup-bench", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write a synthetic JSONL corpus with known near-duplicates.
    Synth {
        /// Number of documents.
        #[arg(long, default_value_t = 100_000)]
        docs: u64,
        /// Share of near-duplicates of an earlier document.
        #[arg(long, default_value_t = 0.2)]
        dup_rate: f64,
        /// Share of words replaced in a near-duplicate.
        #[arg(long, default_value_t = 0.03)]
        edit_rate: f64,
        /// Vocabulary size.
        #[arg(long, default_value_t = 50_000)]
        vocabulary: usize,
        /// Seed.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Output file (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Write a JSONL corpus of real paragraphs (the ground truth of the
    /// shared extraction datasets) with planted near-duplicates: curly
    /// quotes, accents, a share of CJK documents. Prints a summary on
    /// standard error.
    Realtext {
        /// Number of documents.
        #[arg(long, default_value_t = 100_000)]
        docs: u64,
        /// Share of near-duplicates of an earlier document.
        #[arg(long, default_value_t = 0.2)]
        dup_rate: f64,
        /// Share of words (CJK characters) replaced in a near-duplicate.
        #[arg(long, default_value_t = 0.01)]
        edit_rate: f64,
        /// Share of original documents made of CJK paragraphs.
        #[arg(long, default_value_t = 0.13)]
        cjk_share: f64,
        /// Share of words (CJK characters) of an original document replaced
        /// by random real ones, so that unrelated documents share few
        /// shingles (0: the paragraph pieces as they are).
        #[arg(long, default_value_t = 0.2)]
        mix_rate: f64,
        /// Directory of the extraction datasets (`*/ground-truth.json`).
        #[arg(long, default_value = "../shared/eval/extraction")]
        eval: PathBuf,
        /// Seed.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Also write each document's `{"id", "cluster"}` here (one line
        /// each, in order): the labels of a corpus streamed into a run
        /// and not kept, for `bench/label_score.py`.
        #[arg(long, value_name = "FILE")]
        labels: Option<PathBuf>,
        /// Output file (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Write a corpus of real paragraphs with planted repeated passages
    /// (boilerplate lines, pasted and near-identical paragraphs, leaked
    /// reference items) for `neardup spans`: DIR/corpus.jsonl,
    /// DIR/reference.jsonl and DIR/truth.jsonl (the planted passages, code
    /// point offsets).
    Spancorpus {
        /// Number of documents.
        #[arg(long, default_value_t = 2000)]
        docs: usize,
        /// Share of CJK documents.
        #[arg(long, default_value_t = 0.15)]
        cjk_share: f64,
        /// Reference items.
        #[arg(long, default_value_t = 200)]
        reference_items: usize,
        /// Directory of the extraction datasets (`*/ground-truth.json`).
        #[arg(long, default_value = "../shared/eval/extraction")]
        eval: PathBuf,
        /// Seed.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Output directory.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Write real paragraphs with planted copied runs of tokens (the
    /// substring unit of `neardup spans`) as JSON Lines `{"id", "text"}`.
    Substrcorpus {
        /// Number of documents.
        #[arg(long, default_value_t = 1000)]
        docs: usize,
        /// Share of CJK paragraphs.
        #[arg(long, default_value_t = 0.15)]
        cjk_share: f64,
        /// Directory of the extraction datasets (`*/ground-truth.json`).
        #[arg(long, default_value = "../shared/eval/extraction")]
        eval: PathBuf,
        /// Seed.
        #[arg(long, default_value_t = 11)]
        seed: u64,
        /// Output file (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Signatures per second of fingerprinting methods, one thread, on the
    /// texts of a JSONL corpus; prints one JSON object per method.
    Sketch {
        /// A JSONL corpus with a `text` field.
        corpus: PathBuf,
        /// Methods to time.
        #[arg(long, default_value = "minhash,minhash-oph,simhash")]
        methods: String,
        /// Documents to use.
        #[arg(long, default_value_t = 20_000)]
        limit: usize,
        /// Timed rounds (the best is reported).
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Also time classic MinHash on precomputed word 5-grams (the
        /// shingles the Python tools get): from the shingle strings and from
        /// their hashes.
        #[arg(long)]
        precomputed: bool,
    },
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::Synth {
            docs,
            dup_rate,
            edit_rate,
            vocabulary,
            seed,
            output,
        } => {
            let cfg = synth::SynthConfig {
                docs,
                dup_rate,
                edit_rate,
                min_bytes: 1000,
                max_bytes: 2000,
                vocabulary,
                seed,
            };
            let mut out = output_file(output.as_deref())?;
            synth::write_corpus(&cfg, &mut out)?;
            out.flush()?;
        }
        Command::Realtext {
            docs,
            dup_rate,
            edit_rate,
            cjk_share,
            mix_rate,
            eval,
            seed,
            labels,
            output,
        } => {
            let pools = paragraphs::Pools::load(&eval)?;
            let cfg = realtext::RealConfig {
                docs,
                dup_rate,
                edit_rate,
                cjk_share,
                mix_rate,
                min_bytes: 1000,
                max_bytes: 2000,
                seed,
            };
            let mut out = output_file(output.as_deref())?;
            let mut labels = match &labels {
                Some(path) => Some(std::io::BufWriter::new(std::fs::File::create(path)?)),
                None => None,
            };
            let sum = realtext::write_corpus(
                &cfg,
                &pools,
                &mut out,
                labels.as_mut().map(|l| l as &mut dyn Write),
            )?;
            out.flush()?;
            if let Some(l) = labels.as_mut() {
                l.flush()?;
            }
            let share = |n: u64| 100.0 * n as f64 / sum.docs.max(1) as f64;
            eprintln!(
                "{} documents ({:.0} MB of text) from {} spaced and {} CJK paragraph pieces: \
                 {} near-duplicates, {:.0}% with non-ASCII characters, {:.0}% with CJK",
                sum.docs,
                sum.bytes as f64 / 1e6,
                pools.spaced.len(),
                pools.cjk.len(),
                sum.duplicates,
                share(sum.non_ascii),
                share(sum.cjk),
            );
        }
        Command::Spancorpus {
            docs,
            cjk_share,
            reference_items,
            eval,
            seed,
            output,
        } => {
            let pools = paragraphs::Pools::load(&eval)?;
            let corpus = spancorpus::generate(
                &pools,
                &spancorpus::SpanCorpusConfig {
                    docs,
                    cjk_share,
                    reference_items,
                    seed,
                },
            );
            spancorpus::write(&corpus, &output)?;
            let planted: usize = corpus.truth.iter().map(Vec::len).sum();
            eprintln!(
                "{} documents, {} planted passages (origins included), {} reference items, in {}",
                corpus.docs.len(),
                planted,
                corpus.reference.len(),
                output.display()
            );
        }
        Command::Substrcorpus {
            docs,
            cjk_share,
            eval,
            seed,
            output,
        } => {
            let pools = paragraphs::Pools::load(&eval)?;
            let cfg = substrcorpus::SubstrCorpusConfig {
                docs,
                cjk_share,
                seed,
                ..Default::default()
            };
            let mut out = output_file(output.as_deref())?;
            let mut bytes = 0usize;
            for (id, text) in substrcorpus::generate(&pools, &cfg) {
                bytes += text.len();
                serde_json::to_writer(&mut out, &serde_json::json!({"id": id, "text": text}))?;
                out.write_all(b"\n")?;
            }
            out.flush()?;
            eprintln!("{docs} documents, {:.0} MB of text", bytes as f64 / 1e6);
        }
        Command::Sketch {
            corpus,
            methods,
            limit,
            rounds,
            precomputed,
        } => {
            let texts = sketch::load_texts(&corpus, limit)?;
            let row = |method: &str, input: &str, rate: f64| {
                println!(
                    "{}",
                    serde_json::json!({"tool": "neardup", "method": method, "input": input, "docs": texts.len(), "per_second": rate.round()})
                );
            };
            for name in methods.split(',') {
                let method: neardup::sketch::Method = name.parse()?;
                row(
                    name,
                    "raw-text",
                    sketch::signatures_per_second(&method, &texts, rounds),
                );
            }
            if precomputed {
                let shingles: Vec<Vec<String>> = texts
                    .iter()
                    .map(|t| sketch::python_shingles(t, 5))
                    .collect();
                let (strings, hashes) = sketch::minhash_of_shingles_per_second(&shingles, rounds);
                row("minhash", "shingle-strings", strings);
                row("minhash", "shingle-hashes", hashes);
            }
        }
    }
    Ok(())
}

/// A buffered writer to `path`, or to standard output.
fn output_file(path: Option<&std::path::Path>) -> Result<Box<dyn Write>> {
    Ok(match path {
        Some(p) => Box::new(BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    })
}

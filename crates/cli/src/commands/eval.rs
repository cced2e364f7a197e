//! `neardup eval`: score groups against labels, or sweep a method's
//! threshold over a labelled benchmark and draw the precision/recall curve.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use neardup::extract::Extractor;
use neardup::index::{Evaluator, Role};
use neardup::io::Inputs;
use neardup::sketch::Method;
use neardup::DocFingerprint;
use serde_json::Value;

use crate::corpus;
use crate::method_args::MethodArgs;
use crate::pipeline;
use crate::plot::{curve_svg, CurvePoint};
use crate::progress::Progress;

/// Scores near-duplicate groups against labels.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Labels: JSON Lines with `url` (or `id`), `cluster`, and optionally
    /// `role` (`original`; `truncated` and `merged` are not reprints; any
    /// other role is a kind of reprint).
    #[arg(long, value_name = "FILE")]
    labels: PathBuf,
    /// Without --sweep: a predictions file (`{"id", "cluster"}` per line, as
    /// `neardup dedup` writes). With --sweep: the inputs to deduplicate.
    #[arg(required = true, value_name = "FILE")]
    inputs: Vec<PathBuf>,
    /// Run the method at every threshold and print a curve.
    #[arg(long)]
    sweep: bool,
    #[command(flatten)]
    method: MethodArgs,
    /// Sweep range: first,last,step (thresholds; for simhash, Hamming
    /// distances).
    #[arg(long, default_value = "0.3,0.95,0.05", value_name = "A,B,STEP")]
    range: String,
    /// Write the curve as SVG.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Write the curve as CSV.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Worker threads (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
}

struct Labels {
    ids: Vec<String>,
    cluster: Vec<String>,
    role: Vec<Role<String>>,
}

fn read_jsonl(path: &Path) -> Result<Vec<Value>> {
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("{}: cannot read", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(
            serde_json::from_str(&line)
                .with_context(|| format!("{}:{}: not JSON", path.display(), n + 1))?,
        );
    }
    Ok(out)
}

fn id_of(v: &Value) -> Option<String> {
    match v.get("id").or_else(|| v.get("url"))? {
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn read_labels(path: &Path) -> Result<Labels> {
    let mut l = Labels {
        ids: Vec::new(),
        cluster: Vec::new(),
        role: Vec::new(),
    };
    for (n, v) in read_jsonl(path)?.into_iter().enumerate() {
        let id = v.get("url").or_else(|| v.get("id")).and_then(Value::as_str);
        let (Some(id), Some(c)) = (id, v.get("cluster")) else {
            bail!(
                "{}:{}: a label needs \"url\" (or \"id\") and \"cluster\"",
                path.display(),
                n + 1
            );
        };
        l.ids.push(id.to_string());
        l.cluster.push(c.to_string());
        l.role.push(match v.get("role").and_then(Value::as_str) {
            Some("original") => Role::Original,
            Some("truncated" | "merged") | None => Role::Excluded,
            Some(kind) => Role::Variant(kind.to_string()),
        });
    }
    Ok(l)
}

struct Scores {
    precision: f64,
    recall: f64,
    f1: f64,
    ari: f64,
    pairs: (u64, u64, u64),
    by_kind: BTreeMap<String, (usize, usize)>,
}

/// Scores predictions (id → cluster label); missing ids are clusters of
/// their own, as the shared scorer does.
fn score(labels: &Labels, pred: &HashMap<String, String>) -> Result<Scores> {
    let predicted: Vec<String> = labels
        .ids
        .iter()
        .map(|id| {
            pred.get(id)
                .cloned()
                .unwrap_or_else(|| format!("\u{0}missing:{id}"))
        })
        .collect();
    let ev = Evaluator::new();
    let pair = ev.pair_scores(&labels.cluster, &predicted)?;
    let ari = ev.adjusted_rand_index(&labels.cluster, &predicted)?;
    let by_kind = ev
        .recall_by_kind(&labels.cluster, &predicted, &labels.role)?
        .into_iter()
        .map(|(k, r)| (k, (r.hits, r.total)))
        .collect();
    Ok(Scores {
        precision: pair.precision,
        recall: pair.recall,
        f1: pair.f1,
        ari,
        pairs: (pair.true_pairs, pair.predicted_pairs, pair.correct_pairs),
        by_kind,
    })
}

fn print_scores(s: &Scores, pages: usize, missing: usize) {
    println!("pages {pages}  missing {missing}");
    println!(
        "pairs: true {}  predicted {}  correct {}",
        s.pairs.0, s.pairs.1, s.pairs.2
    );
    println!(
        "precision {:.4}  recall {:.4}  F1 {:.4}  ARI {:.4}",
        s.precision, s.recall, s.f1, s.ari
    );
    let kinds: Vec<String> = s
        .by_kind
        .iter()
        .map(|(k, (h, t))| format!("{k} {h}/{t}"))
        .collect();
    println!("recall by kind: {}", kinds.join("  "));
    println!(
        "{}",
        serde_json::json!({"precision": round4(s.precision), "recall": round4(s.recall), "f1": round4(s.f1), "ari": round4(s.ari), "missing": missing})
    );
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// Runs the command.
pub fn run(args: EvalArgs) -> Result<()> {
    let labels = read_labels(&args.labels)?;
    if !args.sweep {
        if args.inputs.len() != 1 {
            bail!("without --sweep, give one predictions file");
        }
        let mut pred = HashMap::new();
        for v in read_jsonl(&args.inputs[0])? {
            if let (Some(id), Some(c)) = (id_of(&v), v.get("cluster")) {
                pred.insert(id, c.to_string());
            }
        }
        let missing = labels
            .ids
            .iter()
            .filter(|id| !pred.contains_key(*id))
            .count();
        print_scores(&score(&labels, &pred)?, labels.ids.len(), missing);
        return Ok(());
    }
    sweep(&args, &labels)
}

fn parse_range(s: &str) -> Result<Vec<f64>> {
    let parts: Vec<f64> = s
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .context("--range takes three numbers: first,last,step")?;
    let [a, b, step] = parts[..] else {
        bail!("--range takes three numbers: first,last,step")
    };
    if step.is_nan() || step <= 0.0 || b < a {
        bail!("--range needs first <= last and a positive step");
    }
    let n = ((b - a) / step + 1e-9).floor() as usize;
    Ok((0..=n).map(|i| round4(a + i as f64 * step)).collect())
}

fn sweep(args: &EvalArgs, labels: &Labels) -> Result<()> {
    let segmenter = args.method.segmenter()?;
    let base = args.method.method_at(
        args.method.threshold,
        args.method.max_distance,
        segmenter.as_ref(),
    )?;
    let is_distance = matches!(base, Method::SimHash(_));
    let values = parse_range(&args.range)?;
    let dedup = args.method.dedup_builder(base).build();
    let inputs = Inputs::new();
    let sources = inputs.sources(&args.inputs)?;
    let pool = pipeline::thread_pool(args.threads)?;
    let progress = Progress::start(
        "eval",
        Inputs::total_bytes(&sources),
        Default::default(),
        false,
    );
    let mut corpus = corpus::fingerprint_corpus(
        &inputs,
        &sources,
        &Extractor::new(),
        &dedup,
        &pool,
        &progress,
    )?;
    progress.finish();
    // The site template pass runs once: it does not depend on the
    // threshold, and each threshold then clusters the stripped corpus.
    pool.install(|| dedup.strip_site_templates(&mut corpus.entries));
    let docs: Vec<DocFingerprint<'_>> = corpus
        .entries
        .iter()
        .map(neardup::Fingerprinted::as_doc)
        .collect();
    let shingles = neardup::shingles_of(&corpus.entries);
    let mut points = Vec::new();
    let mut csv = String::from("threshold,precision,recall,f1,ari\n");
    println!(
        "| {} | precision | recall | F1 | ARI |",
        if is_distance {
            "max distance"
        } else {
            "threshold"
        }
    );
    println!("|---|---|---|---|---|");
    for &v in &values {
        let method = if is_distance {
            args.method
                .method_at(None, Some(v.round() as u32), segmenter.as_ref())?
        } else {
            args.method
                .method_at(Some(v), args.method.max_distance, segmenter.as_ref())?
        };
        let verifier = args.method.verifier().map(|mut ver| {
            if !is_distance {
                ver.threshold = v;
            }
            ver
        });
        // Every decision option of the command line (the corpus-level
        // rules included) at this threshold.
        let at = args.method.dedup_builder(method).verifier(verifier).build();
        let groups = pool.install(|| at.cluster_exact(&docs, &shingles))?;
        let pred: HashMap<String, String> = corpus
            .entries
            .iter()
            .zip(&groups.assignments)
            .map(|(e, a)| {
                (
                    e.id.clone(),
                    corpus.entries[a.representative as usize].id.clone(),
                )
            })
            .collect();
        let s = score(labels, &pred)?;
        println!(
            "| {v} | {:.4} | {:.4} | {:.4} | {:.4} |",
            s.precision, s.recall, s.f1, s.ari
        );
        csv.push_str(&format!(
            "{v},{:.4},{:.4},{:.4},{:.4}\n",
            s.precision, s.recall, s.f1, s.ari
        ));
        points.push(CurvePoint {
            threshold: v,
            precision: s.precision,
            recall: s.recall,
            f1: s.f1,
        });
    }
    if let Some(path) = &args.csv {
        std::fs::write(path, csv).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.svg {
        let title = format!("{} on {}", args.method.method, args.labels.display());
        let xlabel = if is_distance {
            "max Hamming distance"
        } else {
            "threshold"
        };
        std::fs::write(path, curve_svg(&title, xlabel, &points))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("0.5,0.7,0.1").unwrap(), vec![0.5, 0.6, 0.7]);
        assert_eq!(parse_range("0,3,1").unwrap(), vec![0.0, 1.0, 2.0, 3.0]);
        assert!(parse_range("0.5,0.4,0.1").is_err());
        assert!(parse_range("0.5,0.7,0").is_err());
        assert!(parse_range("a,b").is_err());
    }
}

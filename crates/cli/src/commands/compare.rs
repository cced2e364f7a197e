//! `neardup compare A B`: why two pages are, or are not, near-duplicates.
//! First the engine's own verdict (the method of `dedup` and `serve`, with
//! the numbers and the rule that decided), then every classic method's
//! similarity and verdict, the exact and estimated Jaccard of shingles,
//! containment both ways, and a paragraph alignment. With `--in CORPUS`,
//! A and B are ids of a corpus and the corpus-level rules apply.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use neardup::extract::Extractor;
use neardup::io::{Content, Inputs, Item, RawDocument, Source, SourceKind};
use neardup::sketch::{overlap, DocText, Method, MethodKind, Paragraph, Signature, Sketcher};
use neardup::text::ShingleUnit;
use neardup::{Dedup, Page};
use serde_json::json;

use crate::corpus;
use crate::explain;
use crate::method_args::MethodArgs;
use crate::pipeline;
use crate::progress::Progress;

/// Compares two documents: the engine's verdict, then every method.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// First document (an HTML file, optionally .gz, or `-` for standard
    /// input); with `--in`, the id of a document of the corpus.
    a: String,
    /// Second document (or id, with `--in`).
    b: String,
    /// Read A and B from this corpus (files, directories, WARC, JSON Lines;
    /// repeat for more) and explain their pair as `neardup dedup` decides
    /// it over the whole corpus, corpus-level rules included.
    #[arg(long = "in", value_name = "INPUT")]
    corpus: Vec<PathBuf>,
    /// The inputs are plain text, not HTML.
    #[arg(long)]
    text: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Shingle length in tokens (words; characters for CJK) for the classic
    /// methods' Jaccard lines.
    #[arg(long, value_name = "K", default_value_t = 5)]
    classic_shingle: usize,
    /// Worker threads for `--in` (0: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
    #[command(flatten)]
    method: MethodArgs,
}

fn load(name: &str, text: bool) -> Result<Page> {
    let path = PathBuf::from(name);
    let bytes = if name == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("cannot read standard input")?;
        buf
    } else if text {
        std::fs::read(&path).with_context(|| format!("cannot read {name}"))?
    } else {
        let source = Source {
            path,
            kind: SourceKind::Html,
        };
        match Inputs::new().read(&source).next() {
            Some(Item::Document(RawDocument {
                content: Content::Html { bytes, .. },
                ..
            })) => bytes,
            Some(Item::Error(e)) => bail!("{e}"),
            _ => bail!("{name}: cannot read"),
        }
    };
    if text {
        return Ok(Page::from_text(
            name.to_string(),
            None,
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }
    let raw = RawDocument {
        id: name.to_string(),
        url: None,
        content: Content::Html {
            bytes,
            content_type: None,
        },
    };
    Page::from_raw(raw, &Extractor::new()).with_context(|| format!("{name}: extraction failed"))
}

fn snippet(s: &str) -> String {
    let mut out: String = s.chars().take(70).collect();
    if s.chars().count() > 70 {
        out.push('…');
    }
    out
}

/// Appends a line to a `String` (which cannot fail).
macro_rules! outln {
    ($buf:expr) => {
        $buf.push('\n')
    };
    ($buf:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($buf, $($arg)*);
    }};
}

/// Writes what was built to standard output (a closed pipe is an error
/// that `main` takes for success, never a panic).
fn emit(buf: &str) -> Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(buf.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Runs the command.
pub fn run(args: CompareArgs) -> Result<()> {
    let mut buf = String::new();
    let dedup = args.method.dedup_builder(args.method.method()?).build();
    if !args.corpus.is_empty() {
        return in_corpus(&args, &dedup);
    }
    let a = load(&args.a, args.text)?;
    let b = load(&args.b, args.text)?;
    let fingerprint = |p: &Page| dedup.fingerprint_doc(p.id.clone(), None, &p.text, &p.paragraphs);
    let engine = dedup.explain(&fingerprint(&a), &fingerprint(&b));
    let (da, db) = (
        DocText::new(&a.text, &a.paragraphs),
        DocText::new(&b.text, &b.paragraphs),
    );
    let mut methods = Vec::new();
    for kind in MethodKind::ALL {
        let method = Method::with_defaults(kind);
        let (sa, sb) = (method.sketch(&da), method.sketch(&db));
        let similarity = method.similarity(&sa, &sb)?;
        let duplicate = method.is_duplicate(&sa, &sb)?;
        let detail = match (&sa, &sb) {
            (Signature::SimHash(x), Signature::SimHash(y)) => {
                Some(format!("Hamming distance {}", x.distance(y)?))
            }
            _ => None,
        };
        methods.push((kind.name(), similarity, duplicate, detail));
    }
    if args.classic_shingle == 0 {
        bail!("--classic-shingle must be at least 1");
    }
    let ov = overlap(&da, &db, ShingleUnit::Token, args.classic_shingle);
    let minhash = Method::with_defaults(MethodKind::MinHash);
    let estimated = minhash.similarity(&minhash.sketch(&da), &minhash.sketch(&db))?;
    let para = Paragraph::new();
    let (pa, pb) = (para.signature(&da), para.signature(&db));
    let alignment = para.align(&pa, &pb)?;

    if args.json {
        let out = json!({
            "engine": explain::to_json(&engine, dedup.verifier()),
            "a": {"id": a.id, "title": a.title, "paragraphs": a.paragraphs.len(), "chars": a.text.chars().count()},
            "b": {"id": b.id, "title": b.title, "paragraphs": b.paragraphs.len(), "chars": b.text.chars().count()},
            "methods": methods.iter().map(|(n, s, d, detail)| json!({"method": n, "similarity": s, "duplicate": d, "detail": detail})).collect::<Vec<_>>(),
            "shingles": {
                "k": args.classic_shingle, "a": ov.shingles_a, "b": ov.shingles_b, "shared": ov.shared,
                "jaccard": ov.jaccard, "jaccard_estimated": estimated,
                "containment_a_in_b": ov.a_in_b, "containment_b_in_a": ov.b_in_a,
            },
            "paragraphs": {
                "matched": alignment.pairs.iter().map(|&(i, j, d)| json!({"a": i, "b": j, "distance": d})).collect::<Vec<_>>(),
                "only_a": alignment.only_a, "only_b": alignment.only_b,
            },
        });
        outln!(buf, "{}", serde_json::to_string_pretty(&out)?);
        return emit(&buf);
    }
    for (label, p) in [("A", &a), ("B", &b)] {
        outln!(
            buf,
            "{label}: {} — {:?}, {} paragraphs, {} characters",
            p.id,
            snippet(&p.title),
            p.paragraphs.len(),
            p.text.chars().count()
        );
    }
    outln!(buf);
    for line in engine.lines(dedup.verifier()) {
        outln!(buf, "{line}");
    }
    outln!(buf);
    outln!(buf, "classic methods, each with its paper's parameters:");
    outln!(buf, "{:<14} {:>10}  verdict", "method", "similarity");
    for (name, s, d, detail) in &methods {
        let verdict = if *d { "near-duplicate" } else { "different" };
        let extra = detail
            .as_ref()
            .map(|x| format!(" ({x})"))
            .unwrap_or_default();
        outln!(buf, "{name:<14} {s:>10.4}  {verdict}{extra}");
    }
    outln!(buf);
    outln!(
        buf,
        "shingles ({}-grams of words, characters for CJK): A {}, B {}, shared {}",
        args.classic_shingle,
        ov.shingles_a,
        ov.shingles_b,
        ov.shared
    );
    outln!(
        buf,
        "  Jaccard: exact {:.4}, estimated by MinHash {:.4}",
        ov.jaccard,
        estimated
    );
    outln!(
        buf,
        "  containment: A in B {:.4}, B in A {:.4}",
        ov.a_in_b,
        ov.b_in_a
    );
    outln!(buf);
    outln!(
        buf,
        "paragraphs: {} matched, {} only in A, {} only in B",
        alignment.pairs.len(),
        alignment.only_a.len(),
        alignment.only_b.len()
    );
    for &(i, j, d) in &alignment.pairs {
        outln!(
            buf,
            "  A[{i}] = B[{j}] (distance {d})  {}",
            snippet(a.paragraphs.get(i).map_or("", String::as_str))
        );
    }
    for &i in &alignment.only_a {
        outln!(
            buf,
            "  A[{i}] only in A  {}",
            snippet(a.paragraphs.get(i).map_or("", String::as_str))
        );
    }
    for &j in &alignment.only_b {
        outln!(
            buf,
            "  B[{j}] only in B  {}",
            snippet(b.paragraphs.get(j).map_or("", String::as_str))
        );
    }
    emit(&buf)
}

/// `compare --in CORPUS A B`: the pair as `dedup` decides it in the corpus.
fn in_corpus(args: &CompareArgs, dedup: &Dedup) -> Result<()> {
    let mut buf = String::new();
    let inputs = Inputs::new();
    let sources = inputs.sources(&args.corpus)?;
    let pool = pipeline::thread_pool(args.threads)?;
    let progress = Progress::start("compare", 0, Default::default(), false);
    let extractor = Extractor::new();
    let mut docs =
        corpus::fingerprint_corpus(&inputs, &sources, &extractor, dedup, &pool, &progress)?.entries;
    progress.finish();
    let find = |id: &str| {
        docs.iter()
            .position(|d| d.id == id || d.url.as_deref() == Some(id))
            .with_context(|| {
                let example = docs
                    .first()
                    .map_or(String::new(), |d| format!(" (ids look like {:?})", d.id));
                format!("{id:?} is not an id or URL of the corpus{example}")
            })
    };
    let (ia, ib) = (find(&args.a)?, find(&args.b)?);
    let outcome = pool.install(|| dedup.run(&mut docs))?;
    let e = dedup.explain_in(&docs, &outcome, ia, ib);
    let place = |i: usize| {
        let a = outcome.groups.assignments[i];
        match a.duplicate_of {
            None => json!({"id": docs[i].id, "kept": true}),
            Some(o) => json!({
                "id": docs[i].id, "kept": false, "duplicate_of": docs[o as usize].id,
                "similarity": (a.similarity * 1e4).round() / 1e4,
            }),
        }
    };
    if args.json {
        let out = json!({
            "engine": explain::to_json(&e, dedup.verifier()),
            "a": place(ia),
            "b": place(ib),
        });
        outln!(buf, "{}", serde_json::to_string_pretty(&out)?);
        return emit(&buf);
    }
    outln!(buf, "A: {}\nB: {}\n", docs[ia].id, docs[ib].id);
    for line in e.lines(dedup.verifier()) {
        outln!(buf, "{line}");
    }
    outln!(buf, "\nin the corpus ({} documents):", docs.len());
    for (label, i) in [("A", ia), ("B", ib)] {
        let p = place(i);
        match p["duplicate_of"].as_str() {
            None => outln!(buf, "  {label} is kept"),
            Some(o) => outln!(
                buf,
                "  {label} duplicates {o} (similarity {})",
                p["similarity"]
            ),
        }
    }
    emit(&buf)
}

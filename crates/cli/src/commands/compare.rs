//! `neardup compare A B`: why two pages are, or are not, near-duplicates.
//! Every method's similarity and verdict, the exact and estimated Jaccard of
//! shingles, containment both ways, and a paragraph alignment.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use neardup::extract::Extractor;
use neardup::io::{Content, Inputs, Item, RawDocument, Source, SourceKind};
use neardup::sketch::{overlap, DocText, Method, MethodKind, Paragraph, Signature, Sketcher};
use neardup::text::ShingleUnit;
use neardup::Page;
use serde_json::json;

/// Compares two documents with every method.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// First document (an HTML file, optionally .gz, or `-` for standard input).
    a: PathBuf,
    /// Second document.
    b: PathBuf,
    /// The inputs are plain text, not HTML.
    #[arg(long)]
    text: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Shingle length in tokens (words; characters for CJK) for the Jaccard lines.
    #[arg(long, default_value_t = 5)]
    shingle: usize,
}

fn load(path: &PathBuf, text: bool) -> Result<Page> {
    let name = path.display().to_string();
    let bytes = if name == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("cannot read standard input")?;
        buf
    } else if text {
        std::fs::read(path).with_context(|| format!("cannot read {name}"))?
    } else {
        let source = Source {
            path: path.clone(),
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
            name,
            None,
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }
    let raw = RawDocument {
        id: name.clone(),
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

/// Runs the command.
pub fn run(args: CompareArgs) -> Result<()> {
    let a = load(&args.a, args.text)?;
    let b = load(&args.b, args.text)?;
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
    if args.shingle == 0 {
        bail!("--shingle must be at least 1");
    }
    let ov = overlap(&da, &db, ShingleUnit::Token, args.shingle);
    let minhash = Method::with_defaults(MethodKind::MinHash);
    let estimated = minhash.similarity(&minhash.sketch(&da), &minhash.sketch(&db))?;
    let para = Paragraph::new();
    let (pa, pb) = (para.signature(&da), para.signature(&db));
    let alignment = para.align(&pa, &pb)?;

    if args.json {
        let out = json!({
            "a": {"id": a.id, "title": a.title, "paragraphs": a.paragraphs.len(), "chars": a.text.chars().count()},
            "b": {"id": b.id, "title": b.title, "paragraphs": b.paragraphs.len(), "chars": b.text.chars().count()},
            "methods": methods.iter().map(|(n, s, d, detail)| json!({"method": n, "similarity": s, "duplicate": d, "detail": detail})).collect::<Vec<_>>(),
            "shingles": {
                "k": args.shingle, "a": ov.shingles_a, "b": ov.shingles_b, "shared": ov.shared,
                "jaccard": ov.jaccard, "jaccard_estimated": estimated,
                "containment_a_in_b": ov.a_in_b, "containment_b_in_a": ov.b_in_a,
            },
            "paragraphs": {
                "matched": alignment.pairs.iter().map(|&(i, j, d)| json!({"a": i, "b": j, "distance": d})).collect::<Vec<_>>(),
                "only_a": alignment.only_a, "only_b": alignment.only_b,
            },
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    for (label, p) in [("A", &a), ("B", &b)] {
        println!(
            "{label}: {} — {:?}, {} paragraphs, {} characters",
            p.id,
            snippet(&p.title),
            p.paragraphs.len(),
            p.text.chars().count()
        );
    }
    println!();
    println!("{:<14} {:>10}  verdict", "method", "similarity");
    for (name, s, d, detail) in &methods {
        let verdict = if *d { "near-duplicate" } else { "different" };
        let extra = detail
            .as_ref()
            .map(|x| format!(" ({x})"))
            .unwrap_or_default();
        println!("{name:<14} {s:>10.4}  {verdict}{extra}");
    }
    println!();
    println!(
        "shingles ({}-grams of words, characters for CJK): A {}, B {}, shared {}",
        args.shingle, ov.shingles_a, ov.shingles_b, ov.shared
    );
    println!(
        "  Jaccard: exact {:.4}, estimated by MinHash {:.4}",
        ov.jaccard, estimated
    );
    println!(
        "  containment: A in B {:.4}, B in A {:.4}",
        ov.a_in_b, ov.b_in_a
    );
    println!();
    println!(
        "paragraphs: {} matched, {} only in A, {} only in B",
        alignment.pairs.len(),
        alignment.only_a.len(),
        alignment.only_b.len()
    );
    for &(i, j, d) in &alignment.pairs {
        println!(
            "  A[{i}] = B[{j}] (distance {d})  {}",
            snippet(a.paragraphs.get(i).map_or("", String::as_str))
        );
    }
    for &i in &alignment.only_a {
        println!(
            "  A[{i}] only in A  {}",
            snippet(a.paragraphs.get(i).map_or("", String::as_str))
        );
    }
    for &j in &alignment.only_b {
        println!(
            "  B[{j}] only in B  {}",
            snippet(b.paragraphs.get(j).map_or("", String::as_str))
        );
    }
    Ok(())
}

//! `neardup dedup --kept`: the kept documents, written back in the inputs'
//! own format: WARC records stay WARC records (copied byte for byte), JSON
//! Lines stay lines, HTML files are copied into a directory.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use neardup::io::{open_input, Inputs, Source, SourceKind, WarcWriter};

/// Writes the documents whose ids are in `kept`; returns how many.
pub fn write_kept(
    target: &Path,
    inputs: &Inputs,
    sources: &[Source],
    kept: &HashSet<&str>,
    id_field: &str,
) -> Result<u64> {
    let kinds: HashSet<SourceKind> = sources
        .iter()
        .map(|s| s.kind)
        .filter(|k| *k != SourceKind::Other)
        .collect();
    if kinds.len() > 1 {
        bail!("--kept needs inputs of one kind (all WARC, all JSONL or all HTML)");
    }
    match kinds.into_iter().next() {
        None => Ok(0),
        Some(SourceKind::Warc) => write_warc(target, inputs, sources, kept),
        Some(SourceKind::Jsonl) => write_jsonl(target, sources, kept, id_field),
        Some(SourceKind::Parquet) => {
            bail!("--kept cannot write Parquet; the dedup output lists the kept ids")
        }
        Some(_) => copy_html(target, sources, kept),
    }
}

fn create(path: &Path) -> Result<BufWriter<File>> {
    Ok(BufWriter::new(File::create(path).with_context(|| {
        format!("cannot create {}", path.display())
    })?))
}

fn write_warc(
    target: &Path,
    inputs: &Inputs,
    sources: &[Source],
    kept: &HashSet<&str>,
) -> Result<u64> {
    let gzip = target.to_string_lossy().ends_with(".gz");
    let mut out = WarcWriter::new(create(target)?, gzip);
    let mut n = 0;
    for source in sources {
        let Some(records) = inputs.raw_records(source) else {
            continue;
        };
        let records = records.map_err(|e| anyhow::anyhow!("{}: {e}", source.path.display()))?;
        for rec in records {
            let is_doc = rec.warc_type == "response" || rec.warc_type == "resource";
            if is_doc && rec.target_uri.as_deref().is_some_and(|u| kept.contains(u)) {
                out.write(&rec)?;
                n += 1;
            }
        }
    }
    out.finish()?;
    Ok(n)
}

fn write_jsonl(
    target: &Path,
    sources: &[Source],
    kept: &HashSet<&str>,
    id_field: &str,
) -> Result<u64> {
    let mut out = create(target)?;
    let mut n = 0;
    for source in sources {
        let name = source.path.display().to_string();
        let reader = open_input(&source.path).with_context(|| format!("cannot open {name}"))?;
        for (i, line) in reader.split(b'\n').enumerate() {
            let line = line.with_context(|| format!("cannot read {name}"))?;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let id = match serde_json::from_slice::<serde_json::Value>(&line) {
                Ok(v) => match v.get(id_field) {
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(serde_json::Value::Number(x)) => x.to_string(),
                    _ => format!("{name}:{}", i + 1),
                },
                Err(_) => format!("{name}:{}", i + 1),
            };
            if kept.contains(id.as_str()) {
                out.write_all(&line)?;
                out.write_all(b"\n")?;
                n += 1;
            }
        }
    }
    out.flush()?;
    Ok(n)
}

fn copy_html(target: &Path, sources: &[Source], kept: &HashSet<&str>) -> Result<u64> {
    std::fs::create_dir_all(target)
        .with_context(|| format!("cannot create directory {}", target.display()))?;
    let mut used: HashSet<PathBuf> = HashSet::new();
    let mut n = 0;
    for source in sources {
        let id = source.path.display().to_string();
        if !kept.contains(id.as_str()) {
            continue;
        }
        let name = source
            .path
            .file_name()
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("page.html"));
        let mut dest = target.join(&name);
        let mut k = 1;
        while used.contains(&dest) || dest.exists() {
            dest = target.join(format!("{k}-{}", name.display()));
            k += 1;
        }
        std::fs::copy(&source.path, &dest)
            .with_context(|| format!("cannot copy {id} to {}", dest.display()))?;
        used.insert(dest);
        n += 1;
    }
    Ok(n)
}

//! The outputs of `neardup spans`: one JSON line per document, the cleaned
//! documents, dolma attribute files, and the report.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use flate2::write::GzEncoder;
use neardup::io::Source;
use neardup::spans::{char_len, clean, Emitted, Source as SpanSource, SpanFinder, Stats};
use serde::Serialize;

#[derive(Serialize)]
struct SpanOut<'a> {
    start: usize,
    end: usize,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    first: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reference: Option<&'a str>,
}

#[derive(Serialize)]
struct Line<'a> {
    id: &'a str,
    chars: usize,
    spans: Vec<SpanOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
}

/// The code point offsets of a document's spans, `(start, end)` each.
pub fn span_chars(e: &Emitted<'_>) -> Vec<(usize, usize)> {
    e.spans.iter().map(|s| s.chars).collect()
}

/// Writes the output line of one document.
pub fn write_line(out: &mut dyn Write, e: &Emitted<'_>, chars: &[(usize, usize)]) -> Result<()> {
    let spans = e
        .spans
        .iter()
        .zip(chars)
        .map(|(s, &(start, end))| {
            let (first, reference) = match s.source {
                SpanSource::First(_) => (Some(e.source_id(s)), None),
                SpanSource::Reference(_) => (None, Some(e.source_id(s))),
            };
            SpanOut {
                start,
                end,
                kind: s.kind.name(),
                first,
                reference,
            }
        })
        .collect();
    let line = Line {
        id: e.id,
        chars: e.chars,
        spans,
        error: e.error,
    };
    serde_json::to_writer(&mut *out, &line)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// `--clean`: the documents without their spans, `{"id", "text"}`, those
/// left with fewer than `min_chars` characters dropped.
pub struct CleanWriter {
    out: Box<dyn Write>,
    min_chars: usize,
    /// Documents written.
    pub written: u64,
    /// Documents dropped for being too short once cleaned.
    pub dropped: u64,
}

#[derive(Serialize)]
struct CleanLine<'a> {
    id: &'a str,
    text: &'a str,
}

impl CleanWriter {
    /// Creates the file.
    pub fn create(path: &Path, min_chars: usize) -> Result<CleanWriter> {
        Ok(CleanWriter {
            out: crate::output::open(Some(path))?,
            min_chars,
            written: 0,
            dropped: 0,
        })
    }

    /// Writes one document (failed documents are left out).
    pub fn write(&mut self, e: &Emitted<'_>) -> Result<()> {
        if e.error.is_some() {
            return Ok(());
        }
        let text = clean(e.text, e.spans);
        if char_len(&text) < self.min_chars {
            self.dropped += 1;
            return Ok(());
        }
        serde_json::to_writer(
            &mut self.out,
            &CleanLine {
                id: e.id,
                text: &text,
            },
        )?;
        self.out.write_all(b"\n")?;
        self.written += 1;
        Ok(())
    }

    /// Flushes the file.
    pub fn finish(mut self) -> Result<()> {
        self.out.flush()?;
        Ok(())
    }
}

/// `--attributes DIR`: dolma attribute files, one per input file, named as
/// the input file (gzip-compressed when it is), each line `{"id",
/// "attributes": {NAME: [[start, end, score], ...]}}` with code point
/// offsets and score 1.0.
pub struct AttributeWriter {
    dir: PathBuf,
    name: String,
    names: Vec<String>,
    current: Option<(usize, Box<dyn Write>)>,
}

impl AttributeWriter {
    /// Prepares the directory (created when missing) for `sources`.
    pub fn create(dir: &Path, name: &str, sources: &[Source]) -> Result<AttributeWriter> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create --attributes directory {}", dir.display()))?;
        let mut names: Vec<String> = Vec::with_capacity(sources.len());
        for s in sources {
            let base = s.path.file_name().map_or("stdin.jsonl".to_string(), |n| {
                n.to_string_lossy().into_owned()
            });
            let mut candidate = base.clone();
            let mut n = 2;
            while names.contains(&candidate) {
                candidate = format!("{n}-{base}");
                n += 1;
            }
            names.push(candidate);
        }
        Ok(AttributeWriter {
            dir: dir.to_path_buf(),
            name: name.to_string(),
            names,
            current: None,
        })
    }

    /// Writes the attributes of one document read from source `source`.
    pub fn write(
        &mut self,
        source: usize,
        e: &Emitted<'_>,
        chars: &[(usize, usize)],
    ) -> Result<()> {
        if self.current.as_ref().map(|c| c.0) != Some(source) {
            self.close()?;
            let file_name = &self.names[source.min(self.names.len() - 1)];
            let path = self.dir.join(file_name);
            let f =
                File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
            // The encoder is handed whole buffers: a line at a time costs
            // it a reset of its state per call.
            let w: Box<dyn Write> = if file_name.ends_with(".gz") {
                Box::new(BufWriter::with_capacity(
                    1 << 16,
                    GzEncoder::new(BufWriter::new(f), flate2::Compression::fast()),
                ))
            } else {
                Box::new(BufWriter::new(f))
            };
            self.current = Some((source, w));
        }
        let Some((_, w)) = self.current.as_mut() else {
            return Ok(());
        };
        // Written by hand: a JSON value per document would cost more than
        // the rest of the line.
        w.write_all(b"{\"id\":")?;
        serde_json::to_writer(&mut *w, e.id)?;
        w.write_all(b",\"attributes\":{")?;
        serde_json::to_writer(&mut *w, &self.name)?;
        w.write_all(b":[")?;
        for (i, &(s, e)) in chars.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            write!(w, "[{s},{e},1.0]")?;
        }
        w.write_all(b"]}}\n")?;
        Ok(())
    }

    /// Closes the file being written.
    pub fn close(&mut self) -> Result<()> {
        if let Some((_, mut w)) = self.current.take() {
            w.flush()?;
        }
        Ok(())
    }
}

/// The report (`--report`): counts per kind, characters in spans, the most
/// repeated passages and the reference items that leaked.
pub fn report_json(
    finder: &SpanFinder,
    stats: &Stats,
    top: usize,
    seconds: f64,
    clean: Option<&CleanWriter>,
) -> serde_json::Value {
    let per_kind: serde_json::Map<String, serde_json::Value> = stats
        .spans
        .iter()
        .map(|(k, n)| {
            let chars = stats.span_chars.get(k).copied().unwrap_or(0);
            (
                k.name().to_string(),
                serde_json::json!({"spans": n, "chars": chars}),
            )
        })
        .collect();
    let repeated: Vec<serde_json::Value> = stats
        .most_repeated(top)
        .iter()
        .map(|r| serde_json::json!({"copies": r.copies, "kind": r.kind.name(), "text": r.text}))
        .collect();
    let longest: Vec<serde_json::Value> = stats
        .longest(top)
        .iter()
        .map(|r| serde_json::json!({"chars": r.chars, "id": r.id, "kind": r.kind.name(), "text": r.text}))
        .collect();
    let leaked: Vec<serde_json::Value> = finder.reference().map_or_else(Vec::new, |refs| {
        let mut v: Vec<(&u32, &u64)> = stats.leaked.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        v.iter()
            .map(|(r, n)| serde_json::json!({"reference": refs.id(**r), "documents": n}))
            .collect()
    });
    serde_json::json!({
        "documents": stats.documents,
        "errors": stats.errors,
        "documents_with_spans": stats.documents_with_spans,
        "units_compared": stats.units,
        "chars": stats.chars,
        "span_chars": stats.span_chars_total(),
        "span_share": stats.span_chars_total() as f64 / (stats.chars.max(1)) as f64,
        "by_kind": per_kind,
        "unit": finder.unit().name(),
        "fuzzy": finder.fuzzy(),
        "keep": finder.keep().name(),
        "most_repeated": repeated,
        "longest": longest,
        "reference_items": finder.reference().map(|r| r.len()),
        "reference_items_too_short": finder.reference().map(|r| r.too_short()),
        "reference_items_leaked": finder.reference().map(|_| stats.leaked.len()),
        "leaked": leaked,
        "distinct_keys_in_memory": stats.keys,
        "partitioned_from_document": stats.partitioned_from,
        "spilled_bytes": stats.spilled_bytes,
        "clean": clean.map(|c| serde_json::json!({"written": c.written, "dropped": c.dropped})),
        "seconds": seconds,
    })
}

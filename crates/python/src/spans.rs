//! The span stage from Python: `spans` over files (the rows of
//! `neardup spans`) and `SpanFinder`, per document over texts.

use std::path::PathBuf;

use neardup::io::{Inputs, Item};
use neardup::spans::{Emitted, Keep, ReferenceIndex, SpanFinder as Finder, SpanRun, Unit};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;

use crate::document::extractor;
use crate::errors::err;

/// One span, code point offsets.
struct SpanRow {
    start: usize,
    end: usize,
    kind: &'static str,
    first: Option<String>,
    reference: Option<String>,
}

/// One document's result.
struct DocRow {
    id: String,
    chars: usize,
    spans: Vec<SpanRow>,
    error: Option<String>,
}

fn row(e: &Emitted<'_>) -> DocRow {
    let spans = e
        .spans
        .iter()
        .map(|s| {
            let c = [s.chars.0, s.chars.1];
            let source = e.source_id(s).to_string();
            let is_ref = s.kind == neardup::spans::SpanKind::Reference;
            SpanRow {
                start: c[0],
                end: c[1],
                kind: s.kind.name(),
                first: (!is_ref).then(|| source.clone()),
                reference: is_ref.then_some(source),
            }
        })
        .collect();
    DocRow {
        id: e.id.to_string(),
        chars: e.chars,
        spans,
        error: e.error.map(str::to_string),
    }
}

fn spans_list<'py>(py: Python<'py>, spans: &[SpanRow]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for s in spans {
        let d = PyDict::new(py);
        d.set_item("start", s.start)?;
        d.set_item("end", s.end)?;
        d.set_item("kind", s.kind)?;
        if let Some(f) = &s.first {
            d.set_item("first", f)?;
        }
        if let Some(r) = &s.reference {
            d.set_item("reference", r)?;
        }
        list.append(d)?;
    }
    Ok(list)
}

fn rows_list<'py>(py: Python<'py>, rows: &[DocRow]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for r in rows {
        let d = PyDict::new(py);
        d.set_item("id", &r.id)?;
        d.set_item("chars", r.chars)?;
        d.set_item("spans", spans_list(py, &r.spans)?)?;
        if let Some(e) = &r.error {
            d.set_item("error", e)?;
        }
        list.append(d)?;
    }
    Ok(list)
}

/// The options both entry points take.
#[allow(clippy::too_many_arguments)]
pub(crate) fn finder(
    unit: Option<&str>,
    keep: &str,
    fuzzy: bool,
    overlap: f64,
    ngram: usize,
    min_chars: usize,
    min_tokens: Option<usize>,
    min_bytes: Option<u64>,
    memory: Option<u64>,
    spill_dir: Option<PathBuf>,
    reference: Option<ReferenceIndex>,
) -> PyResult<Finder> {
    let keep = match keep {
        "first" => Keep::First,
        "none" => Keep::None,
        k => return Err(err(format!("keep {k:?}: expected 'first' or 'none'"))),
    };
    let mut b = Finder::builder()
        .keep(keep)
        .fuzzy(fuzzy)
        .overlap(overlap)
        .ngram(ngram)
        .min_chars(min_chars)
        // The rows are offsets: no document's whole text waits on disk.
        .whole_text(false);
    if let Some(unit) = unit {
        b = b.unit(Unit::from_name(unit).ok_or_else(|| {
            err(format!(
                "unit {unit:?}: expected paragraph, line, sentence or substring"
            ))
        })?);
    }
    if let Some(n) = min_tokens {
        b = b.min_tokens(n);
    }
    if let Some(n) = min_bytes {
        b = b.min_bytes(n);
    }
    if let Some(m) = memory {
        b = b.memory(m);
    }
    if let Some(d) = spill_dir {
        b = b.spill_dir(d);
    }
    if let Some(r) = reference {
        b = b.reference(r);
    }
    b.build().map_err(|e| err(e.to_string()))
}

/// A reference index from `(id, text)` pairs.
pub(crate) fn reference_of(
    items: Option<Vec<(String, String)>>,
    ngram: usize,
) -> Option<ReferenceIndex> {
    items.map(|items| {
        let mut idx = ReferenceIndex::new(ngram);
        for (id, text) in items {
            idx.add(id, &text);
        }
        idx
    })
}

/// Reads reference items from files (JSON Lines `{"id", "text"}`).
fn reference_files(paths: &[PathBuf]) -> Result<Vec<(String, String)>, String> {
    let inputs = Inputs::new();
    let sources = inputs.sources(paths).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for item in inputs.read_all(&sources) {
        match item {
            Item::Document(d) => {
                let id = d.id.clone();
                let page = neardup::Page::from_raw(d, extractor(false))
                    .map_err(|e| format!("reference {id}: {e}"))?;
                out.push((id, page.text));
            }
            Item::Error(e) => return Err(format!("reference {}: {}", e.id, e.kind)),
            Item::Skipped { .. } => {}
        }
    }
    Ok(out)
}

fn run_files(
    paths: &[PathBuf],
    f: &Finder,
    all_text: bool,
    threads: usize,
) -> Result<Vec<DocRow>, String> {
    let inputs = Inputs::new();
    let sources = inputs.sources(paths).map_err(|e| e.to_string())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("thread pool: {e}"))?;
    let mut rows = Vec::new();
    let mut sink = |e: &Emitted<'_>| {
        rows.push(row(e));
        Ok(())
    };
    let mut run = f.run().map_err(|e| e.to_string())?;
    let mut items = inputs.read_all(&sources).peekable();
    const CHUNK: usize = 256;
    while items.peek().is_some() {
        let chunk: Vec<Item> = items.by_ref().take(CHUNK).collect();
        crate::batch::check_unique_ids(&chunk)?;
        let done: Vec<_> = pool.install(|| {
            chunk
                .into_par_iter()
                .map(|i| neardup::span_item_for_run(f, i, extractor(all_text)))
                .collect()
        });
        for (id, body) in done.into_iter().flatten() {
            run.push(&id, body, &mut sink).map_err(|e| e.to_string())?;
        }
    }
    run.finish(&mut sink).map_err(|e| e.to_string())?;
    Ok(rows)
}

/// Finds repeated passages in the documents of files and directories, as
/// `neardup spans` does, with the same result: one dict per document in
/// input order, `{"id", "chars", "spans": [{"start", "end", "kind",
/// "first"|"reference"}]}` with code point offsets into the document's text
/// (`"error"` for a document that could not be read). `reference` names
/// JSON Lines files of reference items (decontamination); with it and
/// `unit=None`, only reference spans are looked for. `memory` is the
/// index's budget in bytes.
#[pyfunction]
#[pyo3(signature = (paths, unit=Some("paragraph"), *, keep="first", fuzzy=false, overlap=0.8, ngram=13, min_chars=20, min_tokens=None, min_bytes=None, reference=None, ref_ngram=13, memory=None, spill_dir=None, all_text=false, threads=0))]
#[allow(clippy::too_many_arguments)]
pub fn spans<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    unit: Option<&str>,
    keep: &str,
    fuzzy: bool,
    overlap: f64,
    ngram: usize,
    min_chars: usize,
    min_tokens: Option<usize>,
    min_bytes: Option<u64>,
    reference: Option<Vec<PathBuf>>,
    ref_ngram: usize,
    memory: Option<u64>,
    spill_dir: Option<PathBuf>,
    all_text: bool,
    threads: usize,
) -> PyResult<Bound<'py, PyList>> {
    let refs = match &reference {
        Some(p) => Some(py.allow_threads(|| reference_files(p)).map_err(err)?),
        None => None,
    };
    let f = finder(
        unit,
        keep,
        fuzzy,
        overlap,
        ngram,
        min_chars,
        min_tokens,
        min_bytes,
        memory,
        spill_dir,
        reference_of(refs, ref_ngram),
    )?;
    let rows = py
        .allow_threads(|| run_files(&paths, &f, all_text, threads))
        .map_err(err)?;
    rows_list(py, &rows)
}

/// Repeated passages per document: `add(id, text)` gives the spans of each
/// document as it comes (the first copy is kept); `spans(texts)` runs over
/// a whole iterable of texts (any keep policy). Spans are dicts `{"start",
/// "end", "kind", "first"|"reference"}`, code point offsets into the text.
#[pyclass(module = "neardup")]
pub struct SpanFinder {
    finder: Finder,
    run: Option<SpanRun>,
}

#[pymethods]
impl SpanFinder {
    #[new]
    #[pyo3(signature = (unit=Some("paragraph"), *, keep="first", fuzzy=false, overlap=0.8, ngram=13, min_chars=20, min_tokens=None, min_bytes=None, reference=None, ref_ngram=13, memory=None, spill_dir=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        unit: Option<&str>,
        keep: &str,
        fuzzy: bool,
        overlap: f64,
        ngram: usize,
        min_chars: usize,
        min_tokens: Option<usize>,
        min_bytes: Option<u64>,
        reference: Option<Vec<(String, String)>>,
        ref_ngram: usize,
        memory: Option<u64>,
        spill_dir: Option<PathBuf>,
    ) -> PyResult<SpanFinder> {
        let finder = finder(
            unit,
            keep,
            fuzzy,
            overlap,
            ngram,
            min_chars,
            min_tokens,
            min_bytes,
            memory,
            spill_dir,
            reference_of(reference, ref_ngram),
        )?;
        Ok(SpanFinder { finder, run: None })
    }

    /// The spans of the next document, against every document added
    /// before (keep first only).
    fn add<'py>(
        &mut self,
        py: Python<'py>,
        id: String,
        text: String,
    ) -> PyResult<Bound<'py, PyList>> {
        if !self.finder.answers_each_document() {
            return Err(err(
                "add() gives each document's spans as it comes: it needs keep='first' and a unit other than 'substring' (use spans() for the others)",
            ));
        }
        if self.run.is_none() {
            self.run = Some(self.finder.run().map_err(|e| err(e.to_string()))?);
        }
        let (finder, run) = (&self.finder, self.run.as_mut());
        let Some(run) = run else {
            return Err(err("no run"));
        };
        let mut got: Option<DocRow> = None;
        py.allow_threads(|| {
            let a = finder.analyze_for_run(&text, None);
            run.push(&id, Ok((text, a)), &mut |e: &Emitted<'_>| {
                got = Some(row(e));
                Ok(())
            })
        })
        .map_err(|e| err(e.to_string()))?;
        let row = got.ok_or_else(|| {
            err("the index passed its memory budget and went to disk: add() needs it in memory (raise memory=, or use spans())")
        })?;
        spans_list(py, &row.spans)
    }

    /// Runs over `texts` (an iterable of strings; ids are `ids` or the
    /// positions) as a corpus of its own, apart from `add`, and returns one
    /// dict per text as `spans()` over files does.
    #[pyo3(signature = (texts, ids=None, threads=0))]
    fn spans<'py>(
        &self,
        py: Python<'py>,
        texts: Bound<'py, PyAny>,
        ids: Option<Vec<String>>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let texts: Vec<String> = texts
            .try_iter()?
            .map(|t| t.and_then(|t| t.extract::<String>()))
            .collect::<PyResult<_>>()?;
        let ids: Vec<String> = match ids {
            Some(ids) if ids.len() == texts.len() => ids,
            Some(ids) => return Err(err(format!("{} ids for {} texts", ids.len(), texts.len()))),
            None => (0..texts.len()).map(|i| i.to_string()).collect(),
        };
        let f = &self.finder;
        let rows = py
            .allow_threads(|| -> Result<Vec<DocRow>, String> {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|e| format!("thread pool: {e}"))?;
                let analyses: Vec<_> = pool.install(|| {
                    texts
                        .par_iter()
                        .map(|t| f.analyze_for_run(t, None))
                        .collect()
                });
                let mut rows = Vec::with_capacity(texts.len());
                let mut sink = |e: &Emitted<'_>| {
                    rows.push(row(e));
                    Ok(())
                };
                let mut run = f.run().map_err(|e| e.to_string())?;
                for ((id, text), a) in ids.iter().zip(texts).zip(analyses) {
                    run.push(id, Ok((text, a)), &mut sink)
                        .map_err(|e| e.to_string())?;
                }
                run.finish(&mut sink).map_err(|e| e.to_string())?;
                Ok(rows)
            })
            .map_err(err)?;
        rows_list(py, &rows)
    }

    /// Whether documents are decided by their units' keys alone (every
    /// unit but `substring`): what a shuffle by key (Spark) can run.
    #[getter]
    fn decides_by_keys(&self) -> bool {
        self.finder.decides_by_keys()
    }

    /// Documents added so far.
    fn __len__(&self) -> usize {
        self.run.as_ref().map_or(0, |r| r.ids().len())
    }

    fn __repr__(&self) -> String {
        format!(
            "SpanFinder(unit={:?}, keep={:?}, fuzzy={}, added={})",
            self.finder.unit().name(),
            self.finder.keep().name(),
            self.finder.fuzzy(),
            self.__len__()
        )
    }
}

/// `text` without `spans` (dicts with code point `start` and `end`, as
/// `SpanFinder` gives them): the rule of `neardup spans --clean` (a line
/// left empty goes with its line break).
#[pyfunction]
pub fn clean_spans(text: &str, spans: Vec<Bound<'_, PyDict>>) -> PyResult<String> {
    let mut ranges: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for d in &spans {
        let get = |k: &str| -> PyResult<usize> {
            d.get_item(k)?
                .ok_or_else(|| err(format!("a span without {k:?}")))?
                .extract()
        };
        ranges.push((get("start")?, get("end")?));
    }
    ranges.sort_unstable();
    // Code points to bytes, in one pass.
    let mut bytes_at: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    bytes_at.push(text.len());
    let mut out: Vec<neardup::spans::Span> = Vec::with_capacity(ranges.len());
    let mut last = 0;
    for (s, e) in ranges {
        if s > e || e >= bytes_at.len() || s < last {
            return Err(err(format!(
                "span {s}..{e} is out of the text's {} code points or overlaps another",
                bytes_at.len() - 1
            )));
        }
        last = e;
        out.push(neardup::spans::Span {
            start: bytes_at[s],
            end: bytes_at[e],
            chars: (s, e),
            kind: neardup::spans::SpanKind::Paragraph,
            source: neardup::spans::Source::First(0),
            key: 0,
        });
    }
    Ok(neardup::spans::clean(text, &out))
}

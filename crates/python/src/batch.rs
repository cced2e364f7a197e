//! Reading inputs and batch deduplication of files: `read_documents` and
//! `dedup_files`, the Python side of `neardup dedup`.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Mutex;

use neardup::io::{Content, DocErrorKind, Inputs, Item, Source};
use neardup::sketch::Signature as Sig;
use neardup::{
    BatchCorpus, CompositeCheck, Dedup, Fingerprinted, KeepPolicy, PartialCopyCheck, SiteTemplates,
};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rayon::prelude::*;

use crate::document::extractor;
use crate::errors::{err, py_repr};
use crate::method::MethodSpec;

/// One document read from an input file.
#[pyclass(frozen, get_all, module = "neardup")]
pub struct Record {
    /// Its id: the path for files, `WARC-Target-URI` for WARC records, the
    /// id field for JSON Lines.
    pub id: String,
    /// Its URL when the input says it.
    pub url: Option<String>,
    /// The raw HTML bytes (`None` for plain-text JSONL documents).
    pub html: Option<Py<PyBytes>>,
    /// The HTTP `Content-Type` header, if the input had one.
    pub content_type: Option<String>,
    /// The plain text of a JSONL `text` document.
    pub text: Option<String>,
    /// Why the document could not be read (then it has no content).
    pub error: Option<String>,
}

#[pymethods]
impl Record {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Record(id={}, error={})",
            py_repr(py, Some(&self.id)),
            py_repr(py, self.error.as_deref())
        )
    }

    /// The HTML decoded to text as `neardup dedup` decodes it (charset from
    /// the byte order mark, the HTTP `Content-Type`, the `<meta>` prescan,
    /// then detection guided by the URL's domain), with the charset's name:
    /// `(text, charset)`; `None` for a plain-text document or an error.
    fn decode_html(&self, py: Python<'_>) -> Option<(String, &'static str)> {
        let bytes = self.html.as_ref()?.bind(py).as_bytes().to_vec();
        let (ct, url) = (self.content_type.as_deref(), self.url.as_deref());
        let d = py.allow_threads(|| neardup::io::decode_html_owned(bytes, ct, url));
        Some((d.text, d.charset))
    }
}

struct ReadState {
    inputs: Inputs,
    sources: VecDeque<Source>,
    current: Option<Box<dyn Iterator<Item = Item> + Send>>,
}

impl ReadState {
    /// The next document or read error; skipped records are passed over.
    fn next_item(&mut self) -> Option<Item> {
        loop {
            if let Some(it) = &mut self.current {
                match it.next() {
                    Some(Item::Skipped { .. }) => continue,
                    Some(item) => return Some(item),
                    None => self.current = None,
                }
            }
            let source = self.sources.pop_front()?;
            self.current = Some(self.inputs.read(&source));
        }
    }
}

/// Iterator over the documents of input files (see `read_documents`).
#[pyclass(module = "neardup")]
pub struct RecordIter {
    state: Mutex<ReadState>,
}

impl RecordIter {
    /// The records of `items` (a part of one input, `read_parts.rs`).
    pub(crate) fn of(inputs: Inputs, items: Box<dyn Iterator<Item = Item> + Send>) -> RecordIter {
        RecordIter {
            state: Mutex::new(ReadState {
                inputs,
                sources: VecDeque::new(),
                current: Some(items),
            }),
        }
    }
}

#[pymethods]
impl RecordIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Record>> {
        let state = &self.state;
        let item = py.allow_threads(|| match state.lock() {
            Ok(mut s) => Ok(s.next_item()),
            Err(_) => Err(err("the reader failed earlier")),
        })?;
        Ok(item.map(|item| match item {
            Item::Document(d) => {
                let (html, content_type, text) = match d.content {
                    Content::Html {
                        bytes,
                        content_type,
                    } => (Some(PyBytes::new(py, &bytes).unbind()), content_type, None),
                    Content::Text(t) => (None, None, Some(t)),
                };
                Record {
                    id: d.id,
                    url: d.url,
                    html,
                    content_type,
                    text,
                    error: None,
                }
            }
            Item::Error(e) => Record {
                error: Some(e.kind.to_string()),
                id: e.id,
                url: None,
                html: None,
                content_type: None,
                text: None,
            },
            Item::Skipped { id, .. } => Record {
                id,
                url: None,
                html: None,
                content_type: None,
                text: None,
                error: None,
            },
        }))
    }
}

fn open_sources(paths: &[PathBuf]) -> PyResult<(Inputs, Vec<Source>)> {
    let inputs = Inputs::new();
    let sources = inputs
        .sources(paths)
        .map_err(|e| PyOSError::new_err(e.to_string()))?;
    Ok((inputs, sources))
}

/// Reads HTML files, directories, WARC files (`.warc`, `.warc.gz`) and JSON
/// Lines (`.jsonl`, `.ndjson`, optionally `.gz`) lazily, like the CLI:
/// yields a `Record` per document (WARC `response` records with an HTML
/// payload; other records are passed over), and a `Record` with `error` set
/// for a document that cannot be read. Raises `OSError` when a path cannot
/// be opened.
#[pyfunction]
pub fn read_documents(paths: Vec<PathBuf>) -> PyResult<RecordIter> {
    let (inputs, sources) = open_sources(&paths)?;
    Ok(RecordIter {
        state: Mutex::new(ReadState {
            inputs,
            sources: sources.into(),
            current: None,
        }),
    })
}

/// A repeated JSON Lines or Parquet id stops a run over files before the
/// work (archives give repeated URIs unique ids as they are read).
pub(crate) fn check_unique_ids(chunk: &[Item]) -> Result<(), String> {
    for item in chunk {
        if let Item::Error(e) = item {
            if let DocErrorKind::DuplicateId(id) = &e.kind {
                return Err(format!(
                    "document ids must be unique in JSON Lines and Parquet input: {id:?} occurs more than once"
                ));
            }
        }
    }
    Ok(())
}

fn keep_policy(s: &str) -> PyResult<KeepPolicy> {
    s.parse().map_err(|e: String| err(format!("keep: {e}")))
}

/// Rows of the result, before conversion to Python.
struct Row {
    id: String,
    cluster: String,
    duplicate_of: Option<String>,
    similarity: Option<f64>,
    empty: bool,
    error: Option<String>,
}

/// Where a batch run over files holds its documents, and within what.
pub(crate) struct Holding {
    /// Memory budget in bytes (`None`: the engine's default).
    pub memory: Option<u64>,
    /// Where documents go past it (or from the start, without `memory`).
    pub spill_dir: Option<PathBuf>,
}

impl Holding {
    /// Fails before the work on a spill directory that is not one.
    pub fn check(&self) -> PyResult<()> {
        match &self.spill_dir {
            Some(dir) if !dir.is_dir() => Err(PyOSError::new_err(format!(
                "spill_dir {}: not a directory",
                dir.display()
            ))),
            _ => Ok(()),
        }
    }

    /// The corpus these options ask for (`BatchCorpus::for_run`).
    pub fn corpus(&self, dedup: &Dedup) -> Result<BatchCorpus, String> {
        BatchCorpus::for_run(dedup, self.memory, self.spill_dir.as_deref())
            .map_err(|e| e.to_string())
    }
}

fn run_batch(
    paths: &[PathBuf],
    dedup: &Dedup,
    all_text: bool,
    threads: usize,
    holding: &Holding,
) -> Result<Vec<Row>, String> {
    let (inputs, sources) = {
        let inputs = Inputs::new();
        let sources = inputs.sources(paths).map_err(|e| e.to_string())?;
        (inputs, sources)
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("thread pool: {e}"))?;
    let mut docs = holding.corpus(dedup)?;
    let mut items = inputs.read_all(&sources).peekable();
    const CHUNK: usize = 256;
    while items.peek().is_some() {
        let chunk: Vec<Item> = items.by_ref().take(CHUNK).collect();
        check_unique_ids(&chunk)?;
        let done: Vec<Option<Fingerprinted>> = pool.install(|| {
            chunk
                .into_par_iter()
                .map(|i| neardup::fingerprint_item(dedup, i, extractor(all_text)))
                .collect()
        });
        for doc in done.into_iter().flatten() {
            docs.push(doc).map_err(|e| e.to_string())?;
        }
    }
    docs.check_unique_ids().map_err(|e| e.to_string())?;
    let outcome = pool
        .install(|| docs.run(dedup))
        .map_err(|e| e.to_string())?;
    let groups = &outcome.groups;
    Ok(groups
        .assignments
        .iter()
        .enumerate()
        .map(|(i, a)| Row {
            id: docs.id(i).to_string(),
            cluster: docs.id(a.representative as usize).to_string(),
            duplicate_of: a.duplicate_of.map(|d| docs.id(d as usize).to_string()),
            similarity: a.duplicate_of.map(|_| (a.similarity * 1e4).round() / 1e4),
            empty: docs.error(i).is_none() && !docs.has_signature(i),
            error: docs.error(i).map(str::to_string),
        })
        .collect())
}

/// The batch engine of `neardup dedup` with its options, as every Python
/// entry point of the batch engine builds it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn batch_engine(
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    keep: &str,
    site_templates: bool,
    composite_check: bool,
    partial_check: bool,
    verify_sketch: bool,
) -> PyResult<Dedup> {
    let spec = MethodSpec {
        name: method.to_string(),
        threshold,
        max_distance,
        ..MethodSpec::default()
    };
    let verifier = match (spec.verifier(), verify_sketch) {
        (None, true) => {
            return Err(PyValueError::new_err(
                "verify_sketch needs the default method's verification",
            ))
        }
        (Some(v), true) => Some(v.sketched()),
        (v, false) => v,
    };
    Ok(Dedup::builder()
        .method(spec.build()?)
        .keep(keep_policy(keep)?)
        .verifier(verifier)
        .site_templates(site_templates.then(SiteTemplates::default))
        .composite(composite_check.then(CompositeCheck::default))
        .partial_copies(partial_check.then(PartialCopyCheck::default))
        .build())
}

/// Deduplicates the documents of files and directories (HTML, WARC, JSON
/// Lines) with the batch engine of `neardup dedup`, with the same result:
/// one dict per document in input order, `{"id", "cluster", "duplicate_of",
/// "similarity"}`, plus `"empty": True` for a document without text and
/// `"error"` for one that could not be read or extracted (each its own
/// group). `keep` is `"first"`, `"longest"` or `"url:PATTERN"`; `threads`
/// 0 uses every core; `site_templates=False` turns the site template pass
/// off (`--no-site-templates`), `composite_check=False` the composite page
/// check (`--no-composite-check`), `partial_check=False` the partial copy
/// check (`--no-partial-check`). `memory` (bytes; default: half of the
/// machine's memory) and `spill_dir` are `neardup dedup`'s `--memory` and
/// `--spill-dir`: documents stay in memory up to three fifths of the
/// budget, then move to disk in `spill_dir` (else the system's temporary
/// directory); `spill_dir` alone puts them on disk from the first.
/// `verify_sketch=True` is `--verify-sketch`: pairs are verified on a
/// sketch of their shingles, about a tenth of them (a third of the disk a
/// spilled document takes; the corpus-level checks are off with it).
#[pyfunction]
#[pyo3(signature = (paths, method="default", threshold=None, *, max_distance=None, keep="first", all_text=false, threads=0, site_templates=true, composite_check=true, partial_check=true, memory=None, spill_dir=None, verify_sketch=false))]
#[allow(clippy::too_many_arguments)]
pub fn dedup_files<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    keep: &str,
    all_text: bool,
    threads: usize,
    site_templates: bool,
    composite_check: bool,
    partial_check: bool,
    memory: Option<u64>,
    spill_dir: Option<PathBuf>,
    verify_sketch: bool,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let holding = Holding { memory, spill_dir };
    holding.check()?;
    let dedup = batch_engine(
        method,
        threshold,
        max_distance,
        keep,
        site_templates,
        composite_check,
        partial_check,
        verify_sketch,
    )?;
    for p in &paths {
        if std::fs::metadata(p).is_err() {
            return Err(PyOSError::new_err(format!("cannot open {}", p.display())));
        }
    }
    let rows = py
        .allow_threads(|| run_batch(&paths, &dedup, all_text, threads, &holding))
        .map_err(err)?;
    rows.into_iter()
        .map(|r| {
            let d = PyDict::new(py);
            d.set_item("id", r.id)?;
            d.set_item("cluster", r.cluster)?;
            d.set_item("duplicate_of", r.duplicate_of)?;
            d.set_item("similarity", r.similarity)?;
            if r.empty {
                d.set_item("empty", true)?;
            }
            if let Some(e) = r.error {
                d.set_item("error", e)?;
            }
            Ok(d)
        })
        .collect()
}

/// Extracts and fingerprints one document for the Spark kernels, as the
/// engine does (`Dedup::fingerprint_with_shingles`): its signature and
/// shingles (`None` without text) and its main text's length.
pub fn fingerprint_content(
    id: &str,
    content: Content,
    dedup: &neardup::Dedup,
    all_text: bool,
) -> Result<(Option<Sig>, Option<neardup::ShingleSeq>, usize), String> {
    // A URL id (WARC records are named by their target URI) guides charset
    // detection as the URL does in `neardup dedup`.
    let url = id.contains("://").then(|| id.to_string());
    let page = crate::document::page_of(id, url, content, all_text)?;
    let (sig, seq) = dedup.fingerprint_with_shingles(&page.text, &page.paragraphs);
    Ok((sig, seq, page.text.len()))
}

//! `neardup.Deduplicator`: the online first-seen engine
//! ([`neardup::dedup::Online`], the one `neardup serve` wraps) with PyO3.
//!
//! Documents arrive one at a time. A new document is a duplicate of the most
//! similar earlier *kept* document (ties: the earliest), never of a
//! duplicate; otherwise it is kept. A document whose signature is
//! byte-identical to an earlier one's takes that document's place. With
//! the default method and `composite_check=True` (the default, as the
//! service), a page glued together from two articles is not a duplicate of
//! either when a copy of the other article was added before. The batch
//! engine's site template pass and partial copy check need documents that
//! arrive later, so the online engine has neither: with
//! `composite_check=False` it gives the groups of `dedup_files(...,
//! site_templates=False, composite_check=False, partial_check=False)`.

use neardup::dedup::{signature_key, CompositeCheck, Judgement, Online, Role};
use neardup::sketch::{Signature as Sig, Sketcher};
use neardup::{Dedup, Page, ShingleSeq};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyType};

use crate::dedup_file::{self, Settings};
use crate::dedup_input::{input, signature_arg, Input};
use crate::document::{page_of, HtmlArg};
use crate::errors::{err, py_repr};
use crate::method::MethodSpec;
use crate::signature::Signature;

/// The decision for one document.
#[pyclass(frozen, get_all, module = "neardup")]
#[derive(Clone)]
pub struct Verdict {
    /// The document's id (`None` for `Deduplicator.query`).
    pub id: Option<String>,
    /// Whether it duplicates an earlier kept document.
    pub duplicate: bool,
    /// The id of that kept document.
    pub duplicate_of: Option<String>,
    /// The similarity to it (the method's measure), `None` when kept.
    pub similarity: Option<f64>,
    /// Whether the document had no text to fingerprint (kept on its own).
    pub empty: bool,
}

#[pymethods]
impl Verdict {
    fn __repr__(&self, py: Python<'_>) -> String {
        let b = |x: bool| if x { "True" } else { "False" };
        format!(
            "Verdict(id={}, duplicate={}, duplicate_of={}, similarity={}, empty={})",
            py_repr(py, self.id.as_deref()),
            b(self.duplicate),
            py_repr(py, self.duplicate_of.as_deref()),
            self.similarity
                .map_or_else(|| "None".to_string(), |s| format!("{s:.4}")),
            b(self.empty)
        )
    }

    fn __bool__(&self) -> bool {
        self.duplicate
    }
}

/// A signature with its key, as the online engine takes it.
type Keyed = Option<(Sig, u128)>;

/// The online engine and how documents are read for it.
struct Engine {
    online: Online,
    /// The batch engine of the same method and verifier: how a document
    /// is fingerprinted, as everywhere else.
    dedup: Dedup,
    all_text: bool,
}

impl Engine {
    fn keyed(sig: Option<Sig>) -> Keyed {
        sig.map(|s| {
            let key = signature_key(&s.to_bytes());
            (s, key)
        })
    }

    fn judge(&self, sig: &Keyed, shingles: Option<&ShingleSeq>) -> Result<Judgement, String> {
        self.online
            .judge(sig.as_ref().map(|(s, k)| (s, *k)), shingles)
            .map_err(|e| e.to_string())
    }

    fn verdict(&self, id: Option<String>, j: Judgement, empty: bool) -> Verdict {
        Verdict {
            id,
            duplicate: j.duplicate_of.is_some(),
            duplicate_of: j
                .duplicate_of
                .map(|(o, _)| self.online.slot(o).id.to_string()),
            similarity: j.duplicate_of.map(|(_, s)| s),
            empty,
        }
    }

    fn fingerprint(&self, page: &Page) -> (Option<Sig>, Option<ShingleSeq>) {
        self.dedup
            .fingerprint_with_shingles(&page.text, &page.paragraphs)
    }

    /// Live documents in arrival order, each with its group's kept
    /// document and the similarity to it (`None` when kept).
    fn live(&self) -> impl Iterator<Item = (u32, u32, Option<f64>)> + '_ {
        self.online
            .slots()
            .iter()
            .enumerate()
            .filter_map(|(d, slot)| {
                let d = d as u32;
                match slot.role {
                    Role::Deleted => None,
                    Role::Duplicate { of, similarity } => Some((d, of, Some(similarity))),
                    Role::Original | Role::Empty => Some((d, d, None)),
                }
            })
    }
}

/// An incremental near-duplicate index: `add` documents in arrival order;
/// each is kept or called a duplicate of the most similar earlier kept
/// document, never of a duplicate (no chaining).
///
/// `method` is any of `neardup.methods()` (`"default"`: MinHash over word
/// 3-grams, verified exactly on the shingles); `threshold` and
/// `max_distance` tune its decision as the CLI's options do. Only
/// `keep="first"` can be decided online; `dedup_files` has the other
/// policies. `remove` forgets a document; `save` / `load`, `to_bytes` /
/// `from_bytes` and pickling keep the whole state.
#[pyclass(module = "neardup")]
pub struct Deduplicator {
    engine: Engine,
    settings: Settings,
}

impl Deduplicator {
    fn with_settings(settings: Settings) -> PyResult<Deduplicator> {
        let spec = MethodSpec {
            name: settings.method.clone(),
            threshold: settings.threshold,
            max_distance: settings.max_distance,
            ..MethodSpec::default()
        };
        let m = spec.build()?;
        let composite = settings.composite_check.then(CompositeCheck::default);
        let dedup = Dedup::builder()
            .method(m.clone())
            .verifier(spec.verifier())
            .build();
        let online = Online::new(m, spec.verifier(), composite).map_err(|e| err(e.to_string()))?;
        Ok(Deduplicator {
            engine: Engine {
                online,
                dedup,
                all_text: settings.all_text,
            },
            settings,
        })
    }

    fn from_data(data: &[u8]) -> PyResult<Deduplicator> {
        let (settings, docs) = dedup_file::decode_settings(data).map_err(err)?;
        let mut d = Deduplicator::with_settings(settings)?;
        dedup_file::replay(&mut d.engine.online, docs).map_err(err)?;
        Ok(d)
    }

    fn signature_of(
        &self,
        py: Python<'_>,
        name: &str,
        url: Option<String>,
        inp: Input,
    ) -> PyResult<(Option<Sig>, Option<ShingleSeq>)> {
        let engine = &self.engine;
        let method_kind = engine.online.method().kind();
        py.allow_threads(|| -> Result<(Option<Sig>, Option<ShingleSeq>), String> {
            match inp {
                Input::Sig(s) => {
                    if s.kind() != method_kind {
                        return Err(format!(
                            "{name}: a {} signature given to a {} deduplicator",
                            s.kind().name(),
                            method_kind.name()
                        ));
                    }
                    Ok((Some(s), None))
                }
                Input::Text(t) => {
                    Ok(engine.fingerprint(&Page::from_text(name.to_string(), url, t)))
                }
                Input::Html(h) => {
                    let page = page_of(name, url, h.into_content(None), engine.all_text)?;
                    Ok(engine.fingerprint(&page))
                }
            }
        })
        .map_err(err)
    }
}

#[pymethods]
impl Deduplicator {
    #[new]
    #[pyo3(signature = (method="default", threshold=None, keep="first", *, max_distance=None, all_text=false, composite_check=true))]
    fn new(
        method: &str,
        threshold: Option<f64>,
        keep: &str,
        max_distance: Option<u32>,
        all_text: bool,
        composite_check: bool,
    ) -> PyResult<Deduplicator> {
        if keep != "first" {
            return Err(err(format!(
                "an incremental Deduplicator keeps the first copy (keep=\"first\"), not {keep:?}; \
                 use dedup_files(..., keep=...) for longest or url:PATTERN"
            )));
        }
        Deduplicator::with_settings(Settings {
            method: method.to_string(),
            threshold,
            max_distance,
            all_text,
            composite_check,
        })
    }

    /// Adds a document (HTML as bytes or str, plain text, or a signature
    /// made with the same method: a `Signature`, `TextMinHash`, `SimHash`,
    /// or a `MinHash` of the method's size for a `minhash` deduplicator)
    /// and returns its verdict. Ids must be unique among live documents.
    #[pyo3(signature = (id, html=None, *, text=None, signature=None, url=None))]
    fn add(
        &mut self,
        py: Python<'_>,
        id: String,
        html: Option<HtmlArg>,
        text: Option<String>,
        signature: Option<&Bound<'_, PyAny>>,
        url: Option<String>,
    ) -> PyResult<Verdict> {
        if self.engine.online.dense(&id).is_some() {
            return Err(err(format!("{id}: this id was already added")));
        }
        let sig = signature_arg(signature, self.engine.online.method())?;
        let inp = input(html, text, sig)?;
        let (sig, shingles) = self.signature_of(py, &id, url, inp)?;
        let sig = Engine::keyed(sig);
        let engine = &self.engine;
        let judgement = py
            .allow_threads(|| engine.judge(&sig, shingles.as_ref()))
            .map_err(|e| err(format!("{id}: {e}")))?;
        let verdict = self
            .engine
            .verdict(Some(id.clone()), judgement, sig.is_none());
        self.engine
            .online
            .add(&id, sig, shingles, judgement)
            .map_err(|e| err(format!("{id}: {e}")))?;
        Ok(verdict)
    }

    /// The verdict a document would get, without adding it.
    #[pyo3(signature = (html=None, *, text=None, signature=None, url=None))]
    fn query(
        &self,
        py: Python<'_>,
        html: Option<HtmlArg>,
        text: Option<String>,
        signature: Option<&Bound<'_, PyAny>>,
        url: Option<String>,
    ) -> PyResult<Verdict> {
        let sig = signature_arg(signature, self.engine.online.method())?;
        let inp = input(html, text, sig)?;
        let name = url.clone().unwrap_or_else(|| "<query>".to_string());
        let (sig, shingles) = self.signature_of(py, &name, url, inp)?;
        let sig = Engine::keyed(sig);
        let engine = &self.engine;
        let judgement = py
            .allow_threads(|| engine.judge(&sig, shingles.as_ref()))
            .map_err(|e| err(format!("{name}: {e}")))?;
        Ok(self.engine.verdict(None, judgement, sig.is_none()))
    }

    /// The signature `add` would compute for a document.
    #[pyo3(signature = (html=None, *, text=None, url=None))]
    fn fingerprint(
        &self,
        py: Python<'_>,
        html: Option<HtmlArg>,
        text: Option<String>,
        url: Option<String>,
    ) -> PyResult<Option<Signature>> {
        let inp = input(html, text, None)?;
        let name = url.clone().unwrap_or_else(|| "<document>".to_string());
        let (sig, _) = self.signature_of(py, &name, url, inp)?;
        Ok(sig.map(|s| Signature::new(s, self.engine.online.method().clone())))
    }

    /// Groups so far: each kept document's id -> the ids of its group, the
    /// kept one first, then its duplicates in arrival order.
    fn clusters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut slot: std::collections::HashMap<u32, usize> = Default::default();
        for (d, rep, _) in self.engine.live() {
            let i = *slot.entry(rep).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[i].push(d);
        }
        let online = &self.engine.online;
        let out = PyDict::new(py);
        for g in groups {
            let ids: Vec<&str> = g.iter().map(|&d| &*online.slot(d).id).collect();
            out.set_item(ids[0], ids)?;
        }
        Ok(out)
    }

    /// One row per document in arrival order, like `neardup dedup`'s output:
    /// `{"id", "cluster", "duplicate_of", "similarity"}` (similarity rounded
    /// to 4 decimals, `None` when kept).
    fn rows<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let online = &self.engine.online;
        let id = |d: u32| &*online.slot(d).id;
        self.engine
            .live()
            .map(|(d, rep, similarity)| {
                let row = PyDict::new(py);
                row.set_item("id", id(d))?;
                row.set_item("cluster", id(rep))?;
                row.set_item("duplicate_of", similarity.map(|_| id(rep)))?;
                row.set_item("similarity", similarity.map(|s| (s * 1e4).round() / 1e4))?;
                Ok(row)
            })
            .collect()
    }

    /// Removes a document (`KeyError` when unknown). Its duplicates keep
    /// their verdicts; a removed kept document is no longer a target, so a
    /// later copy of it is kept.
    fn remove(&mut self, id: &str) -> PyResult<()> {
        if self.engine.online.remove(id) {
            Ok(())
        } else {
            Err(PyKeyError::new_err(id.to_string()))
        }
    }

    /// The deduplicator as bytes (settings and every document: ids,
    /// signatures, shingles, verdicts; versioned and checksummed).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &dedup_file::encode(&self.settings, &self.engine.online))
    }

    /// A deduplicator from `to_bytes` output.
    #[classmethod]
    fn from_bytes(_cls: &Bound<'_, PyType>, py: Python<'_>, data: &[u8]) -> PyResult<Deduplicator> {
        py.allow_threads(|| Deduplicator::from_data(data))
    }

    /// Writes `to_bytes()` to `path` (a temporary file renamed into place).
    fn save(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        let data = dedup_file::encode(&self.settings, &self.engine.online);
        py.allow_threads(|| {
            let tmp = path.with_extension("tmp-neardup");
            std::fs::write(&tmp, &data).and_then(|()| std::fs::rename(&tmp, &path))
        })
        .map_err(|e| err(format!("{}: {e}", path.display())))
    }

    /// Reads a deduplicator written by `save`.
    #[classmethod]
    fn load(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        path: std::path::PathBuf,
    ) -> PyResult<Deduplicator> {
        let data = std::fs::read(&path).map_err(|e| err(format!("{}: {e}", path.display())))?;
        py.allow_threads(|| Deduplicator::from_data(&data))
            .map_err(|e| err(format!("{}: {e}", path.display())))
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let ctor = slf.get_type().getattr("from_bytes")?;
        Ok((ctor, (slf.borrow().to_bytes(py),)))
    }

    /// The method's name.
    #[getter]
    fn method(&self) -> &str {
        &self.settings.method
    }

    fn __len__(&self) -> usize {
        self.engine.online.len()
    }

    fn __contains__(&self, id: &str) -> bool {
        self.engine.online.dense(id).is_some()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let online = &self.engine.online;
        format!(
            "Deduplicator(method={}, documents={}, kept={})",
            py_repr(py, Some(&self.settings.method)),
            online.len(),
            online.originals() + online.empty()
        )
    }
}

//! `neardup.Deduplicator`: an incremental first-seen index.
//!
//! Documents arrive one at a time. A new document is a duplicate of the most
//! similar earlier *kept* document (ties: the earliest), never of a
//! duplicate; otherwise it is kept. A document whose signature is
//! byte-identical to an earlier one's takes that document's place: the
//! earlier one's duplicate (similarity 1) when it was kept, else the same
//! kept document and similarity. This is the batch engine's rule
//! (`neardup dedup --keep first`), applied online: only kept documents are
//! indexed, and adding documents in input order gives the CLI's groups (see
//! `keys` for the one approximation, the posting-length cap of inverted
//! methods, which counts kept documents here). The batch engine's two
//! corpus-level passes need documents that arrive later (the site template
//! pass compares a page with the host's next pages too, the composite page
//! check looks a run up in the whole corpus, the partial copy check reads
//! a page's later copies), so this index has none of them: it gives the
//! groups of `dedup_files(..., site_templates=False, composite_check=False,
//! partial_check=False)`.

use std::collections::HashMap;

use neardup::sketch::{DocText, Method, Signature as Sig, Sketcher};
use neardup::{Page, ShingleSeq, Verifier};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::document::{page_of, HtmlArg};
use crate::errors::err;
use crate::keys::{candidate_keys, rule, verify, Rule};
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
    fn __repr__(&self) -> String {
        format!(
            "Verdict(id={:?}, duplicate={}, duplicate_of={:?}, similarity={:?}, empty={})",
            self.id, self.duplicate, self.duplicate_of, self.similarity, self.empty
        )
    }

    fn __bool__(&self) -> bool {
        self.duplicate
    }
}

#[derive(Clone, Copy)]
struct Decision {
    /// The kept document duplicated, `None` when kept.
    duplicate_of: Option<u32>,
    similarity: f64,
    empty: bool,
}

/// A decision, the new signature's bytes when it is a new distinct
/// signature, and its candidate keys when it is kept.
type Decided = (Decision, Option<Vec<u8>>, Vec<(u32, u64)>);

/// The engine behind `Deduplicator`, free of Python.
struct Engine {
    method: Method,
    /// Exact verification (the `default` method).
    verifier: Option<Verifier>,
    /// Kept documents' shingles, when verifying exactly.
    shingles: HashMap<u32, ShingleSeq>,
    rule: Rule,
    all_text: bool,
    ids: Vec<String>,
    by_id: HashMap<String, u32>,
    decisions: Vec<Decision>,
    /// Kept documents' signatures.
    sigs: HashMap<u32, Sig>,
    /// First document of each distinct signature (its bytes).
    exact: HashMap<Vec<u8>, u32>,
    /// Candidate keys of kept documents: `(table, key)` -> documents.
    postings: HashMap<(u32, u64), Vec<u32>>,
}

impl Engine {
    /// The decision for a signature against the documents so far.
    fn decide(&self, sig: Option<&Sig>, shingles: Option<&ShingleSeq>) -> Result<Decided, String> {
        let Some(sig) = sig else {
            return Ok((
                Decision {
                    duplicate_of: None,
                    similarity: 1.0,
                    empty: true,
                },
                None,
                Vec::new(),
            ));
        };
        let bytes = sig.to_bytes();
        if let Some(&first) = self.exact.get(&bytes) {
            let d = self.decisions[first as usize];
            let decision = match d.duplicate_of {
                None => Decision {
                    duplicate_of: Some(first),
                    similarity: 1.0,
                    empty: false,
                },
                Some(_) => d,
            };
            return Ok((decision, None, Vec::new()));
        }
        let keys = candidate_keys(&self.method, sig)?;
        let mut shared: HashMap<u32, u32> = HashMap::new();
        for k in &keys {
            if let Some(docs) = self.postings.get(k) {
                if self
                    .rule
                    .max_posting_len
                    .is_some_and(|cap| docs.len() > cap)
                {
                    continue;
                }
                for &d in docs {
                    *shared.entry(d).or_default() += 1;
                }
            }
        }
        let mut cands: Vec<u32> = shared
            .into_iter()
            .filter(|&(_, n)| n >= self.rule.min_shared)
            .map(|(d, _)| d)
            .collect();
        cands.sort_unstable();
        let mut best: Option<(f64, u32)> = None;
        for d in cands {
            let Some(kept) = self.sigs.get(&d) else {
                continue;
            };
            let exact = match (&self.verifier, self.shingles.get(&d), shingles) {
                (Some(v), Some(x), Some(y)) => Some(v.verify(x, y)),
                _ => None,
            };
            let verdict = match exact {
                Some(e) => e,
                None => verify(&self.method, kept, sig)?,
            };
            if let Some(s) = verdict {
                if best.is_none_or(|(bs, _)| s > bs) {
                    best = Some((s, d));
                }
            }
        }
        Ok(match best {
            Some((s, d)) => (
                Decision {
                    duplicate_of: Some(d),
                    similarity: s,
                    empty: false,
                },
                Some(bytes),
                Vec::new(),
            ),
            None => (
                Decision {
                    duplicate_of: None,
                    similarity: 1.0,
                    empty: false,
                },
                Some(bytes),
                keys,
            ),
        })
    }

    fn insert(
        &mut self,
        id: String,
        sig: Option<Sig>,
        shingles: Option<ShingleSeq>,
        decision: Decision,
        bytes: Option<Vec<u8>>,
        keys: Vec<(u32, u64)>,
    ) -> u32 {
        let d = self.ids.len() as u32;
        self.by_id.insert(id.clone(), d);
        self.ids.push(id);
        self.decisions.push(decision);
        if let Some(b) = bytes {
            self.exact.insert(b, d);
        }
        if decision.duplicate_of.is_none() {
            if let Some(sig) = sig {
                self.sigs.insert(d, sig);
            }
            if let Some(sh) = shingles {
                self.shingles.insert(d, sh);
            }
            for k in keys {
                self.postings.entry(k).or_default().push(d);
            }
        }
        d
    }

    fn verdict(&self, id: Option<String>, d: Decision) -> Verdict {
        Verdict {
            id,
            duplicate: d.duplicate_of.is_some(),
            duplicate_of: d.duplicate_of.map(|o| self.ids[o as usize].clone()),
            similarity: d.duplicate_of.map(|_| d.similarity),
            empty: d.empty,
        }
    }

    fn fingerprint(&self, page: &Page) -> (Option<Sig>, Option<ShingleSeq>) {
        if !page.text.chars().any(char::is_alphanumeric) {
            return (None, None);
        }
        let sig = self
            .method
            .sketch(&DocText::new(&page.text, &page.paragraphs));
        let shingles = self.verifier.map(|v| v.shingles(&page.text, &self.method));
        (Some(sig), shingles)
    }
}

/// What `add` / `query` were given.
enum Input {
    Html(HtmlArg),
    Text(String),
    Sig(Sig),
}

fn input(
    html: Option<HtmlArg>,
    text: Option<String>,
    signature: Option<&Signature>,
) -> PyResult<Input> {
    match (html, text, signature) {
        (Some(h), None, None) => Ok(Input::Html(h)),
        (None, Some(t), None) => Ok(Input::Text(t)),
        (None, None, Some(s)) => Ok(Input::Sig(s.sig.clone())),
        _ => Err(err("give exactly one of html=, text= or signature=")),
    }
}

/// An incremental near-duplicate index: `add` documents in arrival order;
/// each is kept or called a duplicate of the most similar earlier kept
/// document, never of a duplicate (no chaining).
///
/// `method` is any of `neardup.methods()`; `threshold` and `max_distance`
/// tune its decision as the CLI's options do. Only `keep="first"` can be
/// decided online; `dedup_files` has the other policies.
#[pyclass(module = "neardup")]
pub struct Deduplicator {
    engine: Engine,
    name: String,
}

impl Deduplicator {
    fn signature_of(
        &self,
        py: Python<'_>,
        name: &str,
        url: Option<String>,
        inp: Input,
    ) -> PyResult<(Option<Sig>, Option<ShingleSeq>)> {
        let engine = &self.engine;
        let method_kind = engine.method.kind();
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
    #[pyo3(signature = (method="default", threshold=None, keep="first", *, max_distance=None, all_text=false))]
    fn new(
        method: &str,
        threshold: Option<f64>,
        keep: &str,
        max_distance: Option<u32>,
        all_text: bool,
    ) -> PyResult<Deduplicator> {
        if keep != "first" {
            return Err(err(format!(
                "an incremental Deduplicator keeps the first copy (keep=\"first\"), not {keep:?}; \
                 use dedup_files(..., keep=...) for longest or url:PATTERN"
            )));
        }
        let spec = MethodSpec {
            name: method.to_string(),
            threshold,
            max_distance,
            ..MethodSpec::default()
        };
        let m = spec.build()?;
        Ok(Deduplicator {
            name: method.to_string(),
            engine: Engine {
                verifier: spec.verifier(),
                shingles: HashMap::new(),
                rule: rule(&m),
                method: m,
                all_text,
                ids: Vec::new(),
                by_id: HashMap::new(),
                decisions: Vec::new(),
                sigs: HashMap::new(),
                exact: HashMap::new(),
                postings: HashMap::new(),
            },
        })
    }

    /// Adds a document (HTML as bytes or str, plain text, or a signature
    /// made with the same method) and returns its verdict. Ids must be
    /// unique.
    #[pyo3(signature = (id, html=None, *, text=None, signature=None, url=None))]
    fn add(
        &mut self,
        py: Python<'_>,
        id: String,
        html: Option<HtmlArg>,
        text: Option<String>,
        signature: Option<PyRef<'_, Signature>>,
        url: Option<String>,
    ) -> PyResult<Verdict> {
        if self.engine.by_id.contains_key(&id) {
            return Err(err(format!("{id}: this id was already added")));
        }
        let inp = input(html, text, signature.as_deref())?;
        let (sig, shingles) = self.signature_of(py, &id, url, inp)?;
        let engine = &self.engine;
        let (decision, bytes, keys) = py
            .allow_threads(|| engine.decide(sig.as_ref(), shingles.as_ref()))
            .map_err(|e| err(format!("{id}: {e}")))?;
        let verdict = self.engine.verdict(Some(id.clone()), decision);
        self.engine.insert(id, sig, shingles, decision, bytes, keys);
        Ok(verdict)
    }

    /// The verdict a document would get, without adding it.
    #[pyo3(signature = (html=None, *, text=None, signature=None, url=None))]
    fn query(
        &self,
        py: Python<'_>,
        html: Option<HtmlArg>,
        text: Option<String>,
        signature: Option<PyRef<'_, Signature>>,
        url: Option<String>,
    ) -> PyResult<Verdict> {
        let inp = input(html, text, signature.as_deref())?;
        let name = url.clone().unwrap_or_else(|| "<query>".to_string());
        let (sig, shingles) = self.signature_of(py, &name, url, inp)?;
        let engine = &self.engine;
        let (decision, _, _) = py
            .allow_threads(|| engine.decide(sig.as_ref(), shingles.as_ref()))
            .map_err(|e| err(format!("{name}: {e}")))?;
        Ok(self.engine.verdict(None, decision))
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
        Ok(sig.map(|s| Signature::new(s, self.engine.method.clone())))
    }

    /// Groups so far: each kept document's id -> the ids of its group, the
    /// kept one first, then its duplicates in arrival order.
    fn clusters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut slot: HashMap<u32, usize> = HashMap::new();
        for (d, dec) in self.engine.decisions.iter().enumerate() {
            let rep = dec.duplicate_of.unwrap_or(d as u32);
            let i = *slot.entry(rep).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[i].push(d as u32);
        }
        let out = PyDict::new(py);
        for g in groups {
            let ids: Vec<&str> = g
                .iter()
                .map(|&d| self.engine.ids[d as usize].as_str())
                .collect();
            out.set_item(ids[0], ids)?;
        }
        Ok(out)
    }

    /// One row per document in arrival order, like `neardup dedup`'s output:
    /// `{"id", "cluster", "duplicate_of", "similarity"}` (similarity rounded
    /// to 4 decimals, `None` when kept).
    fn rows<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let ids = &self.engine.ids;
        self.engine
            .decisions
            .iter()
            .enumerate()
            .map(|(d, dec)| {
                let row = PyDict::new(py);
                row.set_item("id", &ids[d])?;
                let rep = dec.duplicate_of.unwrap_or(d as u32);
                row.set_item("cluster", &ids[rep as usize])?;
                row.set_item("duplicate_of", dec.duplicate_of.map(|o| &ids[o as usize]))?;
                row.set_item(
                    "similarity",
                    dec.duplicate_of
                        .map(|_| (dec.similarity * 1e4).round() / 1e4),
                )?;
                Ok(row)
            })
            .collect()
    }

    /// The method's name.
    #[getter]
    fn method(&self) -> &str {
        &self.name
    }

    fn __len__(&self) -> usize {
        self.engine.ids.len()
    }

    fn __contains__(&self, id: &str) -> bool {
        self.engine.by_id.contains_key(id)
    }

    fn __repr__(&self) -> String {
        let kept = self
            .engine
            .decisions
            .iter()
            .filter(|d| d.duplicate_of.is_none())
            .count();
        format!(
            "Deduplicator(method={:?}, documents={}, kept={})",
            self.name,
            self.engine.ids.len(),
            kept
        )
    }
}

//! The span stage's kernels for `neardup.spark.spans`: the keys of each
//! document (shuffled by key in Spark to find first occurrences), then each
//! document's spans from what the shuffle found, by the library's rule
//! (`SpanFinder::spans_of`).

use neardup::io::{Item, RawDocument};
use neardup::spans::{Analysis, Source, Span, SpanFinder as Finder};
use pyo3::prelude::*;

use crate::document::{content_of, extractor, HtmlArg, TextArg};
use crate::errors::err;
use crate::spans::{finder, reference_of};

/// The options of a span kernel, as `neardup.spark.spans` passes them.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct SpanOptions {
    unit: Option<String>,
    keep: String,
    fuzzy: bool,
    overlap: f64,
    ngram: usize,
    min_chars: usize,
    reference: Option<Vec<(String, String)>>,
    ref_ngram: usize,
    min_tokens: Option<usize>,
    min_bytes: Option<u64>,
    pub(crate) all_text: bool,
}

impl SpanOptions {
    /// The finder of these options, any unit.
    pub(crate) fn any_finder(&self) -> PyResult<Finder> {
        finder(
            self.unit.as_deref(),
            &self.keep,
            self.fuzzy,
            self.overlap,
            self.ngram,
            self.min_chars,
            self.min_tokens,
            self.min_bytes,
            None,
            None,
            reference_of(self.reference.clone(), self.ref_ngram),
        )
    }

    /// The finder of a unit decided by keys (not the substring unit,
    /// whose kernels are in `spark_substring.rs`).
    fn finder(&self) -> PyResult<Finder> {
        let f = self.any_finder()?;
        if !f.decides_by_keys() {
            return Err(err(
                "the substring unit is decided by windows, not by unit keys (substring_windows_batch)",
            ));
        }
        Ok(f)
    }
}

pub(crate) type Doc = Result<(String, Analysis), String>;

/// Each document's text and analysis, as `neardup spans` reads it.
pub(crate) fn analyse(
    f: &Finder,
    ids: Vec<String>,
    htmls: Option<Vec<Option<HtmlArg>>>,
    texts: Option<Vec<Option<TextArg>>>,
    all_text: bool,
) -> PyResult<Vec<Doc>> {
    let n = ids.len();
    let mut htmls = htmls.map(|h| h.into_iter());
    let mut texts = texts.map(|t| t.into_iter());
    let mut out = Vec::with_capacity(n);
    for id in ids {
        let html = htmls.as_mut().and_then(|h| h.next()).flatten();
        let text = texts.as_mut().and_then(|t| t.next()).flatten();
        let doc = match content_of(html, text) {
            None => Ok((String::new(), f.analyze("", None))),
            Some(content) => {
                let item = Item::Document(RawDocument {
                    id,
                    url: None,
                    content,
                });
                match neardup::span_item(f, item, extractor(all_text)) {
                    Some((_, body)) => body,
                    None => Err("not a document".to_string()),
                }
            }
        };
        out.push(doc);
    }
    if out.len() != n {
        return Err(err("ids and documents differ in length"));
    }
    Ok(out)
}

/// The keys of a batch: four flat lists (position of the document in the
/// batch, index of the key in it, its unit, the key as a signed 64-bit
/// value).
type KeyRows = (Vec<u32>, Vec<u32>, Vec<u32>, Vec<i64>);

/// Keys of every document of a batch (see [`KeyRows`]).
#[pyfunction]
#[pyo3(signature = (options, ids, htmls=None, texts=None))]
pub fn span_keys_batch(
    py: Python<'_>,
    options: SpanOptions,
    ids: Vec<String>,
    htmls: Option<Vec<Option<HtmlArg>>>,
    texts: Option<Vec<Option<TextArg>>>,
) -> PyResult<KeyRows> {
    let f = options.finder()?;
    py.allow_threads(|| {
        let docs = analyse(&f, ids, htmls, texts, options.all_text)?;
        let mut rows: KeyRows = Default::default();
        for (pos, d) in docs.iter().enumerate() {
            let Ok((_, a)) = d else { continue };
            for (i, (&k, &u)) in a.key_values().iter().zip(a.key_units()).enumerate() {
                rows.0.push(pos as u32);
                rows.1.push(i as u32);
                rows.2.push(u);
                rows.3.push(k as i64);
            }
        }
        Ok(rows)
    })
}

/// One document's result: characters, spans as `(start, end, kind, first
/// id or reference id)` in code points, and the error.
pub(crate) type SpanRows = Vec<(
    usize,
    Vec<(usize, usize, &'static str, String)>,
    Option<String>,
)>;

/// The spans of every document of a batch, given per document the keys
/// found seen: `(key index, order of the first document, its id)`.
#[pyfunction]
#[pyo3(signature = (options, ids, matches, htmls=None, texts=None))]
pub fn span_rows_batch(
    py: Python<'_>,
    options: SpanOptions,
    ids: Vec<String>,
    matches: Vec<Option<Vec<(u32, i64, String)>>>,
    htmls: Option<Vec<Option<HtmlArg>>>,
    texts: Option<Vec<Option<TextArg>>>,
) -> PyResult<SpanRows> {
    let f = options.finder()?;
    py.allow_threads(|| {
        let docs = analyse(&f, ids, htmls, texts, options.all_text)?;
        if docs.len() != matches.len() {
            return Err(err("documents and matches differ in length"));
        }
        let mut out: SpanRows = Vec::with_capacity(docs.len());
        for (d, m) in docs.into_iter().zip(matches) {
            let (text, a) = match d {
                Ok(x) => x,
                Err(e) => {
                    out.push((0, Vec::new(), Some(e)));
                    continue;
                }
            };
            // First documents numbered in their input order, so that the
            // rule's tie-break (the earliest) holds.
            let mut m = m.unwrap_or_default();
            m.sort_by_key(|x| (x.1, x.0));
            let mut firsts: Vec<String> = Vec::new();
            let mut last: Option<i64> = None;
            let mut key_first: Vec<Option<u32>> = vec![None; a.keys()];
            for (k, ord, id) in m {
                if last != Some(ord) {
                    firsts.push(id);
                    last = Some(ord);
                }
                if let Some(slot) = key_first.get_mut(k as usize) {
                    *slot = Some(firsts.len() as u32 - 1);
                }
            }
            let spans = f.spans_of(&text, &a, &key_first);
            let rows = span_rows(&f, &spans, &firsts);
            out.push((a.chars(), rows, None));
        }
        Ok(out)
    })
}

/// Spans as rows: code point offsets, kind, and the id of the first
/// document (`firsts`, by the spans' [`Source::First`] numbers) or of the
/// reference item.
pub(crate) fn span_rows(
    f: &Finder,
    spans: &[Span],
    firsts: &[String],
) -> Vec<(usize, usize, &'static str, String)> {
    spans
        .iter()
        .map(|s| {
            let source = match s.source {
                Source::First(i) => firsts.get(i as usize).cloned().unwrap_or_default(),
                Source::Reference(r) => {
                    f.reference().map_or(String::new(), |x| x.id(r).to_string())
                }
            };
            (s.chars.0, s.chars.1, s.kind.name(), source)
        })
        .collect()
}

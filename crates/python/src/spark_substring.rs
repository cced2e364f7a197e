//! The substring unit's kernels for `neardup.spark.spans`: the windows of
//! each document keyed by fingerprint (shuffled by key in Spark to find
//! each window's earliest occurrence and its count), then each document's
//! spans from its copied windows, by the library's rule
//! (`SpanFinder::substring_spans`, the rule `neardup spans --unit
//! substring` applies to its suffix array's copies).

use neardup::spans::SpanFinder as Finder;
use pyo3::prelude::*;

use crate::document::{HtmlArg, TextArg};
use crate::errors::err;
use crate::spark_spans::{analyse, span_rows, SpanOptions, SpanRows};

/// The windows of a batch: five flat lists (position of the document in
/// the batch, token position of the window, its length in tokens, the two
/// hashes of its fingerprint as signed 64-bit values).
type WindowRows = (Vec<u32>, Vec<u32>, Vec<u32>, Vec<i64>, Vec<i64>);

/// A copied window of a document as the shuffle found it: token position,
/// length, order of the document of its earliest occurrence, that
/// document's id.
type CopiedWindow = (u32, u32, i64, String);

impl SpanOptions {
    fn substring_finder(&self) -> PyResult<Finder> {
        let f = self.any_finder()?;
        if f.decides_by_keys() {
            return Err(err("the window kernels are for unit='substring'"));
        }
        Ok(f)
    }
}

/// Windows of every document of a batch (see [`WindowRows`]).
#[pyfunction]
#[pyo3(signature = (options, ids, htmls=None, texts=None))]
pub fn substring_windows_batch(
    py: Python<'_>,
    options: SpanOptions,
    ids: Vec<String>,
    htmls: Option<Vec<Option<HtmlArg>>>,
    texts: Option<Vec<Option<TextArg>>>,
) -> PyResult<WindowRows> {
    let f = options.substring_finder()?;
    py.allow_threads(|| {
        let docs = analyse(&f, ids, htmls, texts, options.all_text)?;
        let mut rows: WindowRows = Default::default();
        for (pos, d) in docs.iter().enumerate() {
            let Ok((_, a)) = d else { continue };
            for w in f.substring_windows(a) {
                rows.0.push(pos as u32);
                rows.1.push(w.position);
                rows.2.push(w.length);
                rows.3.push(w.fingerprint.0 as i64);
                rows.4.push(w.fingerprint.1 as i64);
            }
        }
        Ok(rows)
    })
}

/// The spans of every document of a batch, given per document its copied
/// windows (see [`CopiedWindow`]; any order).
#[pyfunction]
#[pyo3(signature = (options, ids, copies, htmls=None, texts=None))]
pub fn substring_rows_batch(
    py: Python<'_>,
    options: SpanOptions,
    ids: Vec<String>,
    copies: Vec<Option<Vec<CopiedWindow>>>,
    htmls: Option<Vec<Option<HtmlArg>>>,
    texts: Option<Vec<Option<TextArg>>>,
) -> PyResult<SpanRows> {
    let f = options.substring_finder()?;
    py.allow_threads(|| {
        let docs = analyse(&f, ids, htmls, texts, options.all_text)?;
        if docs.len() != copies.len() {
            return Err(err("documents and copies differ in length"));
        }
        let mut out: SpanRows = Vec::with_capacity(docs.len());
        for (d, c) in docs.into_iter().zip(copies) {
            let (text, a) = match d {
                Ok(x) => x,
                Err(e) => {
                    out.push((0, Vec::new(), Some(e)));
                    continue;
                }
            };
            let (windows, firsts) = local_copies(c.unwrap_or_default());
            let spans = f
                .substring_spans(&text, &a, &windows)
                .map_err(|e| err(e.to_string()))?;
            out.push((a.chars(), span_rows(&f, &spans, &firsts), None));
        }
        Ok(out)
    })
}

/// A document's copies as the library takes them: `(position, length,
/// number of the first document)` by position, the first documents
/// numbered in input order, with their ids by number.
fn local_copies(copies: Vec<CopiedWindow>) -> (Vec<(u32, u32, u32)>, Vec<String>) {
    let mut ords: Vec<(i64, &str)> = copies.iter().map(|c| (c.2, c.3.as_str())).collect();
    ords.sort_unstable();
    ords.dedup_by_key(|x| x.0);
    let firsts: Vec<String> = ords.iter().map(|x| x.1.to_string()).collect();
    let number = |ord: i64| ords.partition_point(|x| x.0 < ord) as u32;
    let mut windows: Vec<(u32, u32, u32)> =
        copies.iter().map(|c| (c.0, c.1, number(c.2))).collect();
    windows.sort_unstable();
    (windows, firsts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_documents_are_numbered_in_input_order() {
        let (w, firsts) = local_copies(vec![
            (7, 3, 40, "late".into()),
            (0, 3, 5, "early".into()),
            (1, 3, 40, "late".into()),
        ]);
        assert_eq!(w, [(0, 3, 0), (1, 3, 1), (7, 3, 1)]);
        assert_eq!(firsts, ["early", "late"]);
    }
}

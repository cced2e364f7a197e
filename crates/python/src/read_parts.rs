//! Inputs listed and read by parts, for `neardup.spark.read_documents`:
//! the driver lists the sources as the CLI expands them, executors read a
//! part each (a whole file, a range of JSON Lines, a range of Parquet row
//! groups) with the CLI's readers.

use std::path::PathBuf;

use neardup::io::{Inputs, Source, SourceKind};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use crate::batch::RecordIter;

fn kind_name(kind: &SourceKind) -> &'static str {
    match kind {
        SourceKind::Html => "html",
        SourceKind::Warc => "warc",
        SourceKind::Arc => "arc",
        SourceKind::Jsonl => "jsonl",
        SourceKind::Parquet => "parquet",
        SourceKind::Other => "other",
        SourceKind::Unreadable => "unreadable",
        SourceKind::Stdin => "stdin",
        SourceKind::Unrecognized => "unrecognized",
        _ => "unknown",
    }
}

/// The files `paths` stand for, in the CLI's order (directories expanded,
/// in byte order of paths), each as `(path, kind)`; `kind` is one of
/// `html`, `warc`, `arc`, `jsonl` (`plain` tells whether it can be read by
/// byte ranges), `parquet`, `other`, `unreadable`, `stdin`,
/// `unrecognized`. Raises `OSError` when a path does not exist.
#[pyfunction]
pub fn input_sources(paths: Vec<PathBuf>) -> PyResult<Vec<(String, &'static str, bool)>> {
    let sources = Inputs::new()
        .sources(&paths)
        .map_err(|e| PyOSError::new_err(e.to_string()))?;
    Ok(sources
        .iter()
        .map(|s| {
            let plain = s.kind == SourceKind::Jsonl && Inputs::jsonl_is_plain(&s.path);
            (s.path.display().to_string(), kind_name(&s.kind), plain)
        })
        .collect())
}

fn kind_of(name: &str) -> Option<SourceKind> {
    Some(match name {
        "html" => SourceKind::Html,
        "warc" => SourceKind::Warc,
        "arc" => SourceKind::Arc,
        "jsonl" => SourceKind::Jsonl,
        "parquet" => SourceKind::Parquet,
        "other" => SourceKind::Other,
        "unreadable" => SourceKind::Unreadable,
        "unrecognized" => SourceKind::Unrecognized,
        _ => return None,
    })
}

/// The records of one part of an input, as `read_documents` gives them for
/// the whole input, ids before they are made unique over the inputs:
/// `part` a kind of `input_sources` (not `stdin`): the whole file read as
/// that kind (`start`, `end`, `before` unused);
/// `part="lines"` the lines in bytes `start..end` of a plain JSON Lines
/// file (both line starts), `before` lines before `start`; `part="groups"`
/// Parquet row groups `start..end`, `before` rows before them.
#[pyfunction]
#[pyo3(signature = (path, part, start=0, end=0, before=0))]
pub fn read_part(
    path: PathBuf,
    part: &str,
    start: u64,
    end: u64,
    before: u64,
) -> PyResult<RecordIter> {
    let inputs = Inputs::new();
    let items = match part {
        "lines" => inputs.read_jsonl_lines(&path, start, end, before),
        "groups" => {
            let first = usize::try_from(start).map_err(|e| PyValueError::new_err(e.to_string()))?;
            let end = usize::try_from(end).map_err(|e| PyValueError::new_err(e.to_string()))?;
            inputs.read_parquet_groups(&path, first, end, before)
        }
        kind => match kind_of(kind) {
            Some(kind) => inputs.read(&Source { path, kind }),
            None => {
                return Err(PyValueError::new_err(format!(
                    "part: {kind:?} is not lines, groups or a kind of input_sources"
                )))
            }
        },
    };
    Ok(RecordIter::of(inputs, items))
}

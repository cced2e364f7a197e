//! The package's exception and conversions of Rust errors into it.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::PyErr;

create_exception!(
    neardup,
    NeardupError,
    PyValueError,
    "An error of neardup: a document that cannot be read or extracted, a \
     signature that cannot be decoded or compared, a bad parameter."
);

/// A `NeardupError` with `msg`.
pub fn err(msg: impl Into<String>) -> PyErr {
    NeardupError::new_err(msg.into())
}

/// Python's `repr` of a string, or `None`.
pub fn py_repr(py: Python<'_>, s: Option<&str>) -> String {
    match s {
        None => "None".to_string(),
        Some(s) => PyString::new(py, s)
            .repr()
            .map_or_else(|_| format!("{s:?}"), |r| r.to_string()),
    }
}

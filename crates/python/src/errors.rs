//! The package's exception and conversions of Rust errors into it.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
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

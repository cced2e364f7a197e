//! `neardup.LeanMinHash`: datasketch's immutable MinHash (seed and slots).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyType};

use crate::minhash::{same_sketch, MinHash};
use crate::minhash_core::MAX_HASH;

/// A MinHash that cannot be updated (datasketch's `LeanMinHash`): only the
/// seed and the slots, for storage and indexing. `LeanMinHash(minhash)`, or
/// `LeanMinHash(seed=..., hashvalues=...)`.
#[pyclass(extends = MinHash, module = "neardup")]
pub struct LeanMinHash;

#[pymethods]
impl LeanMinHash {
    #[new]
    #[pyo3(signature = (minhash=None, seed=None, hashvalues=None))]
    fn new(
        minhash: Option<PyRef<'_, MinHash>>,
        seed: Option<u64>,
        hashvalues: Option<Vec<u64>>,
    ) -> PyResult<(LeanMinHash, MinHash)> {
        let base = match (minhash, seed, hashvalues) {
            (Some(m), None, None) => MinHash::make(m.seed, m.values.clone(), None, true),
            (None, Some(s), Some(v)) => {
                if v.iter().any(|&x| x > MAX_HASH) {
                    return Err(PyValueError::new_err("hashvalues must be below 2^32"));
                }
                MinHash::make(s, v.into_iter().map(|x| x as u32).collect(), None, true)
            }
            (None, None, None) => MinHash::make(1, Vec::new(), None, true),
            _ => {
                return Err(PyValueError::new_err(
                    "give LeanMinHash(minhash) or LeanMinHash(seed=..., hashvalues=...)",
                ))
            }
        };
        Ok((LeanMinHash, base))
    }

    /// Bytes `serialize` writes (datasketch's format: seed `q`, count `i`,
    /// the slots `I`, in `byteorder`).
    #[pyo3(signature = (byteorder="@"))]
    fn bytesize(slf: PyRef<'_, Self>, byteorder: &str) -> PyResult<usize> {
        check_order(byteorder)?;
        Ok(12 + 4 * slf.as_super().values.len())
    }

    /// Writes the sketch into `buf` (a writable buffer) in datasketch's
    /// legacy format (before 2.0, still read by 2.0):
    /// `LeanMinHash.deserialize` of either library reads it.
    #[pyo3(signature = (buf, byteorder="@"))]
    fn serialize(slf: PyRef<'_, Self>, buf: &Bound<'_, PyAny>, byteorder: &str) -> PyResult<()> {
        check_order(byteorder)?;
        let py = buf.py();
        let base = slf.as_super();
        let n = base.values.len();
        if buf.len()? < 12 + 4 * n {
            return Err(PyValueError::new_err(
                "The buffer does not have enough space for holding this MinHash.",
            ));
        }
        let mut args: Vec<PyObject> = vec![
            format!("{byteorder}qi{n}I")
                .into_pyobject(py)?
                .into_any()
                .unbind(),
            buf.clone().unbind(),
            0i64.into_pyobject(py)?.into_any().unbind(),
            (base.seed as i64).into_pyobject(py)?.into_any().unbind(),
            (n as i64).into_pyobject(py)?.into_any().unbind(),
        ];
        for &v in &base.values {
            args.push(v.into_pyobject(py)?.into_any().unbind());
        }
        py.import("struct")?
            .call_method1("pack_into", PyTuple::new(py, args)?)?;
        Ok(())
    }

    /// Reads `serialize`'s bytes (or datasketch's).
    #[classmethod]
    #[pyo3(signature = (buf, byteorder="@"))]
    fn deserialize<'py>(
        _cls: &Bound<'py, PyType>,
        buf: &Bound<'py, PyAny>,
        byteorder: &str,
    ) -> PyResult<Bound<'py, LeanMinHash>> {
        check_order(byteorder)?;
        let py = buf.py();
        let st = py.import("struct")?;
        let (seed, n): (i64, i32) = st
            .call_method1("unpack_from", (format!("{byteorder}qi"), buf, 0))?
            .extract()?;
        if n < 0 {
            return Err(PyValueError::new_err(
                "a sketch of datasketch's 2.0 affine schemes: neardup reads the legacy \
                 format (seed, count, 32-bit values), which it writes",
            ));
        }
        let values: Vec<u32> = st
            .call_method1("unpack_from", (format!("{byteorder}{n}I"), buf, 12))?
            .extract()?;
        let base = MinHash::make(seed as u64, values, None, true);
        Bound::new(py, PyClassInitializer::from(base).add_subclass(LeanMinHash))
    }

    /// A LeanMinHash is immutable: `TypeError`.
    fn update(&self, _b: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(PyTypeError::new_err("Cannot update a LeanMinHash"))
    }

    /// A LeanMinHash is immutable: `TypeError`.
    fn update_batch(&self, _b: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(PyTypeError::new_err("Cannot update a LeanMinHash"))
    }

    fn __eq__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> bool {
        same_sketch(slf.as_any(), other)
    }

    fn __hash__(slf: PyRef<'_, Self>) -> u64 {
        let base = slf.as_super();
        let mut h = base.seed;
        for &v in &base.values {
            h = (h ^ u64::from(v)).wrapping_mul(0x0100_0000_01B3);
        }
        h
    }
}

/// datasketch's byte orders (`struct` prefixes).
fn check_order(byteorder: &str) -> PyResult<()> {
    if matches!(byteorder, "@" | "=" | "<" | ">" | "!") {
        Ok(())
    } else {
        Err(PyValueError::new_err(
            "byteorder must be one of '@', '=', '<', '>', '!'",
        ))
    }
}

//! `neardup.LeanMinHash`: datasketch's immutable MinHash (seed and slots).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

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

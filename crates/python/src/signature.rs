//! `neardup.Signature` and `neardup.sketch`: fingerprints of every method,
//! in the Rust crate's versioned byte format.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use neardup::sketch::{DocText, Method, Signature as Sig, Sketcher};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyType};

use crate::errors::{err, py_repr};
use crate::method::MethodSpec;

/// A fingerprint of one text, made by one method with its parameters.
///
/// Signatures of the same method compare with `similarity` (the method's
/// own measure: estimated Jaccard for MinHash, `1 - distance / bits` for
/// SimHash, shared keys for super-shingles...) and `is_duplicate` (the
/// method's decision with its threshold). `to_bytes` / `from_bytes` use the
/// Rust crate's versioned, checksummed format: bytes written by either side
/// read on the other.
#[pyclass(frozen, module = "neardup")]
pub struct Signature {
    pub(crate) sig: Sig,
    pub(crate) method: Method,
}

/// The method's name as `neardup.sketch` takes it.
pub fn sig_method_name(sig: &Sig) -> &'static str {
    match sig {
        Sig::SimHash(h) if h.bits() == 128 => "simhash128",
        _ => sig.kind().name(),
    }
}

impl Signature {
    /// Wraps a signature with the method that compares it.
    pub fn new(sig: Sig, method: Method) -> Signature {
        Signature { sig, method }
    }

    fn check_same(&self, other: &Signature) -> PyResult<()> {
        if self.sig.kind() != other.sig.kind() {
            return Err(err(format!(
                "cannot compare a {} signature with a {} signature",
                sig_method_name(&self.sig),
                sig_method_name(&other.sig)
            )));
        }
        Ok(())
    }
}

#[pymethods]
impl Signature {
    /// Decodes bytes made by `to_bytes` (here or by the Rust crate). The
    /// decision parameters are not part of the bytes: give `threshold` /
    /// `max_distance` to compare with other than the defaults.
    #[classmethod]
    #[pyo3(signature = (data, *, threshold=None, max_distance=None))]
    fn from_bytes(
        _cls: &Bound<'_, PyType>,
        data: &[u8],
        threshold: Option<f64>,
        max_distance: Option<u32>,
    ) -> PyResult<Signature> {
        let sig =
            Sig::from_bytes(data).map_err(|e| err(format!("cannot decode signature: {e}")))?;
        let spec = MethodSpec {
            name: sig_method_name(&sig).to_string(),
            threshold,
            max_distance,
            ..MethodSpec::default()
        };
        let method = spec.build()?;
        Ok(Signature { sig, method })
    }

    /// The encoded signature.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.sig.to_bytes())
    }

    /// The method's name (`minhash`, `simhash128`, ...).
    #[getter]
    fn method(&self) -> &'static str {
        sig_method_name(&self.sig)
    }

    /// The method's similarity of the two signatures, in [0, 1].
    fn similarity(&self, other: &Signature) -> PyResult<f64> {
        self.check_same(other)?;
        self.method
            .similarity(&self.sig, &other.sig)
            .map_err(|e| err(format!("cannot compare signatures: {e}")))
    }

    /// `1 - similarity`.
    fn distance(&self, other: &Signature) -> PyResult<f64> {
        Ok(1.0 - self.similarity(other)?)
    }

    /// Whether the method calls the two documents near-duplicates.
    fn is_duplicate(&self, other: &Signature) -> PyResult<bool> {
        self.check_same(other)?;
        self.method
            .is_duplicate(&self.sig, &other.sig)
            .map_err(|e| err(format!("cannot compare signatures: {e}")))
    }

    /// Hamming distance of two SimHash signatures.
    fn hamming(&self, other: &Signature) -> PyResult<u32> {
        match (&self.sig, &other.sig) {
            (Sig::SimHash(a), Sig::SimHash(b)) => a
                .distance(b)
                .map_err(|e| err(format!("cannot compare signatures: {e}"))),
            _ => Err(err("hamming() needs two SimHash signatures")),
        }
    }

    /// The MinHash slot values (`minhash`, `minhash-oph`).
    fn values(&self) -> PyResult<Vec<u32>> {
        match &self.sig {
            Sig::MinHash(m) => Ok(m.values().to_vec()),
            _ => Err(err(format!(
                "values() is for MinHash signatures, not {}",
                sig_method_name(&self.sig)
            ))),
        }
    }

    /// The SimHash fingerprint as an integer (64 or 128 bits).
    #[getter]
    fn value(&self) -> PyResult<u128> {
        match &self.sig {
            Sig::SimHash(h) if h.bits() == 128 => Ok(h.value128()),
            Sig::SimHash(h) => Ok(u128::from(h.value64())),
            _ => Err(err(format!(
                "value is for SimHash signatures, not {}",
                sig_method_name(&self.sig)
            ))),
        }
    }

    /// 64-bit keys for an inverted index (see the Rust `index_keys`).
    fn index_keys(&self) -> Vec<u64> {
        self.sig.index_keys()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.downcast::<Signature>() {
            Ok(o) => o.get().sig == self.sig,
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.sig.hash(&mut h);
        h.finish()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Signature(method={}, bytes={})",
            py_repr(py, Some(sig_method_name(&self.sig))),
            self.sig.to_bytes().len()
        )
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let ctor = slf.get_type().getattr("from_bytes")?;
        Ok((ctor, (PyBytes::new(py, &slf.get().sig.to_bytes()),)))
    }
}

/// Fingerprints `text` with a method by name (`neardup.methods()` lists
/// them). `paragraphs` feeds the methods that use them (`paragraph`; the
/// text's lines otherwise). `threshold`, `max_distance`, `num_perm` and
/// `seed` tune the method as the CLI's options do.
#[pyfunction]
#[pyo3(signature = (method, text, paragraphs=None, *, threshold=None, max_distance=None, num_perm=None, seed=None))]
#[allow(clippy::too_many_arguments)]
pub fn sketch(
    py: Python<'_>,
    method: &str,
    text: &str,
    paragraphs: Option<Vec<String>>,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    num_perm: Option<usize>,
    seed: Option<u64>,
) -> PyResult<Signature> {
    let spec = MethodSpec {
        name: method.to_string(),
        threshold,
        max_distance,
        num_perm,
        seed,
    };
    let m = spec.build()?;
    let paragraphs = paragraphs.unwrap_or_default();
    let sig = py.allow_threads(|| m.sketch(&DocText::new(text, &paragraphs)));
    Ok(Signature::new(sig, m))
}

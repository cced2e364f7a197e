//! `neardup.MinHash` and `neardup.LeanMinHash`: MinHash of a set of
//! elements with datasketch's names and semantics (`update(b)` adds ONE
//! element; `jaccard`, `count`, `merge`, `digest`, `hashvalues`, ...).
//!
//! Elements are hashed to 64 bits with XXH3 (or by the caller's `hashfunc`),
//! then permuted with `num_perm` functions `(a * h + b) mod (2^61 - 1)`
//! (`a`, `b` from splitmix64 of the seed) and truncated to 32 bits, as
//! datasketch does; each slot keeps the minimum. The values are not
//! datasketch's bit for bit (its permutations come from NumPy's random
//! generator and its element hash is SHA-1), but the estimates agree within
//! sampling error. neardup's own text sketches are `MinHash.from_text` and
//! `neardup.sketch`.

use pyo3::exceptions::{PyAttributeError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString, PyTuple, PyType};

use crate::minhash_core::{
    decode_state, encode_state, jaccard, min_update, permutations, MAX_HASH,
};

/// MinHash of a set (datasketch's `MinHash`): `update(b)` adds one element
/// (bytes; a str is taken as its UTF-8), `jaccard` estimates the Jaccard
/// similarity of two sets, `count` their cardinality.
///
/// `MinHash(num_perm=128, seed=1, hashfunc=None, hashvalues=None)`:
/// `hashfunc`, when given, maps an element to an int (as datasketch's);
/// the default hashes the bytes with XXH3 in Rust (`xxh3_hash64`). The
/// hash function stays on the sketch (`m.hashfunc`), and `copy`, `union`
/// and pickling keep it. Sketches compare when their `num_perm` and `seed`
/// agree. neardup's text sketch (5-word shingles of a document) is
/// `MinHash.from_text`.
#[pyclass(subclass, module = "neardup")]
pub struct MinHash {
    pub(crate) seed: u64,
    pub(crate) values: Vec<u32>,
    perms: Vec<(u64, u64)>,
    hashfunc: Option<PyObject>,
    /// A `LeanMinHash`: no permutations, no hash function, no updates.
    lean: bool,
    /// datasketch's `gpu_mode="always"`: neardup has no GPU backend, so
    /// `update_batch` refuses to run (as datasketch does without CuPy).
    gpu_always: bool,
}

impl MinHash {
    pub(crate) fn make(
        seed: u64,
        values: Vec<u32>,
        hashfunc: Option<PyObject>,
        lean: bool,
    ) -> MinHash {
        let perms = if lean {
            Vec::new()
        } else {
            permutations(seed, values.len())
        };
        MinHash {
            seed,
            values,
            perms,
            hashfunc: if lean { None } else { hashfunc },
            lean,
            gpu_always: false,
        }
    }

    fn hash_of(&self, b: &Bound<'_, PyAny>) -> PyResult<u64> {
        if let Some(f) = &self.hashfunc {
            let h = f.bind(b.py()).call1((b,))?;
            return match h.extract::<u64>() {
                Ok(v) => Ok(v),
                Err(_) => Ok(h.extract::<i64>()? as u64),
            };
        }
        default_hash(b)
    }

    fn check_updatable(&self) -> PyResult<()> {
        if self.lean {
            return Err(PyTypeError::new_err("Cannot update a LeanMinHash"));
        }
        Ok(())
    }

    pub(crate) fn check_same(&self, other: &MinHash, what: &str) -> PyResult<()> {
        if self.seed != other.seed {
            return Err(PyValueError::new_err(format!(
                "Cannot {what} MinHash with different seeds"
            )));
        }
        if self.values.len() != other.values.len() {
            return Err(PyValueError::new_err(format!(
                "Cannot {what} MinHash with different numbers of permutation functions"
            )));
        }
        Ok(())
    }

    fn hashvalues_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let list = self.values.clone();
        match py.import("numpy") {
            Ok(np) => np.call_method1("array", (list, np.getattr("uint64")?)),
            Err(_) => Ok(list.into_pyobject(py)?.into_any()),
        }
    }
}

/// The default element hash: XXH3 (64 bits) of the bytes, a str taken as
/// its UTF-8.
fn default_hash(b: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(bytes) = b.downcast::<PyBytes>() {
        Ok(xxhash_rust::xxh3::xxh3_64(bytes.as_bytes()))
    } else if let Ok(s) = b.downcast::<PyString>() {
        Ok(xxhash_rust::xxh3::xxh3_64(s.to_cow()?.as_bytes()))
    } else if let Ok(a) = b.downcast::<PyByteArray>() {
        Ok(xxhash_rust::xxh3::xxh3_64(&a.to_vec()))
    } else {
        Err(PyTypeError::new_err(format!(
            "MinHash.update takes one element as bytes (or str), not {}",
            b.get_type().name()?
        )))
    }
}

/// `MinHash`'s default hash function, as a function (datasketch's
/// `sha1_hash32` in its place): the 64-bit XXH3 of `b` (bytes, bytearray,
/// or a str taken as its UTF-8). `MinHash(hashfunc=xxh3_hash64)` is the
/// default, hashed in Rust without calling back into Python.
#[pyfunction]
pub fn xxh3_hash64(b: &Bound<'_, PyAny>) -> PyResult<u64> {
    default_hash(b)
}

/// The module's `xxh3_hash64` (the same object each time).
fn default_hashfunc(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    py.import("neardup._neardup")?.getattr("xxh3_hash64")
}

/// A constructor's `hashfunc`: `None` for the default (given or not), so
/// that the default is hashed in Rust; a callable otherwise (datasketch's
/// `ValueError`).
fn hashfunc_arg(py: Python<'_>, f: Option<PyObject>) -> PyResult<Option<PyObject>> {
    let Some(f) = f else { return Ok(None) };
    let bound = f.bind(py);
    if bound.is_none() || bound.is(&default_hashfunc(py)?) {
        return Ok(None);
    }
    if !bound.is_callable() {
        return Err(PyValueError::new_err("The hashfunc must be a callable."));
    }
    Ok(Some(f))
}

/// datasketch's equality: the same class, seed and slots.
pub(crate) fn same_sketch(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> bool {
    if !a.get_type().is(b.get_type()) {
        return false;
    }
    match (a.downcast::<MinHash>(), b.downcast::<MinHash>()) {
        (Ok(x), Ok(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            x.seed == y.seed && x.values == y.values
        }
        _ => false,
    }
}

/// `num_perm` as datasketch takes it, with a hint for neardup's old API.
fn num_perm_of(x: &Bound<'_, PyAny>) -> PyResult<usize> {
    if x.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "MinHash(num_perm=128, seed=1, hashfunc=None) sketches a set of elements \
             (update(b) adds one); for neardup's sketch of a text use MinHash.from_text(text)",
        ));
    }
    let n: usize = x.extract()?;
    if n == 0 || n > u32::MAX as usize {
        return Err(PyValueError::new_err(format!(
            "num_perm must be between 1 and 2^32, not {n}"
        )));
    }
    Ok(n)
}

#[pymethods]
impl MinHash {
    #[new]
    #[pyo3(signature = (num_perm=None, seed=1, hashfunc=None, hashvalues=None, *, gpu_mode="disable"))]
    fn new(
        py: Python<'_>,
        num_perm: Option<&Bound<'_, PyAny>>,
        seed: u64,
        hashfunc: Option<PyObject>,
        hashvalues: Option<Vec<u64>>,
        gpu_mode: &str,
    ) -> PyResult<MinHash> {
        // datasketch's GPU switch: `disable` and `detect` (no GPU found)
        // run on the CPU; `always` is refused by `update_batch`.
        let gpu_always = match gpu_mode {
            "disable" | "detect" => false,
            "always" => true,
            other => {
                return Err(PyValueError::new_err(format!(
                    "gpu_mode must be 'disable', 'detect' or 'always', not {other:?}"
                )))
            }
        };
        let n = match num_perm {
            Some(x) => num_perm_of(x)?,
            None => 128,
        };
        let values = match hashvalues {
            Some(v) if v.iter().any(|&x| x > MAX_HASH) => {
                return Err(PyValueError::new_err("hashvalues must be below 2^32"))
            }
            Some(v) => v.into_iter().map(|x| x as u32).collect(),
            None => vec![u32::MAX; n],
        };
        let mut m = MinHash::make(seed, values, hashfunc_arg(py, hashfunc)?, false);
        m.gpu_always = gpu_always;
        Ok(m)
    }

    /// Adds one element (bytes, or a str taken as UTF-8; anything
    /// `hashfunc` takes when one was given).
    fn update(&mut self, b: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_updatable()?;
        let h = self.hash_of(b)?;
        min_update(&mut self.values, &self.perms, &[h]);
        Ok(())
    }

    /// Adds every element of an iterable.
    fn update_batch(&mut self, py: Python<'_>, b: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_updatable()?;
        if self.gpu_always {
            return Err(PyRuntimeError::new_err(
                "GPU mode 'always' requested but neardup has no GPU backend \
                 (use gpu_mode='disable' or 'detect')",
            ));
        }
        let hashes = b
            .try_iter()?
            .map(|x| self.hash_of(&x?))
            .collect::<PyResult<Vec<u64>>>()?;
        let (values, perms) = (&mut self.values, &self.perms);
        if hashes.len() > 1024 {
            py.allow_threads(|| min_update(values, perms, &hashes));
        } else {
            min_update(values, perms, &hashes);
        }
        Ok(())
    }

    /// Estimated Jaccard similarity of the two sets: the share of equal
    /// slots. Both need the same `num_perm` and `seed` (`ValueError`).
    fn jaccard(&self, other: PyRef<'_, MinHash>) -> PyResult<f64> {
        self.check_same(&other, "compute Jaccard similarity of")?;
        Ok(jaccard(&self.values, &other.values))
    }

    /// Estimated number of distinct elements added.
    fn count(&self) -> f64 {
        let k = self.values.len() as f64;
        let s: f64 = self
            .values
            .iter()
            .map(|&v| f64::from(v) / MAX_HASH as f64)
            .sum();
        k / s - 1.0
    }

    /// Makes this the sketch of the union with `other`'s set.
    fn merge(&mut self, other: PyRef<'_, MinHash>) -> PyResult<()> {
        self.check_same(&other, "merge")?;
        for (v, o) in self.values.iter_mut().zip(&other.values) {
            *v = (*v).min(*o);
        }
        Ok(())
    }

    /// The slot values (a NumPy uint64 array when NumPy is installed).
    fn digest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.hashvalues_array(py)
    }

    /// The slot values (a NumPy uint64 array when NumPy is installed).
    #[getter]
    fn hashvalues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.hashvalues_array(py)
    }

    /// The seed of the permutations.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// The hash function of the elements (datasketch's `hashfunc`): the
    /// one given, or `neardup.xxh3_hash64`. A `LeanMinHash` has none
    /// (`AttributeError`, as datasketch's), as it cannot be updated.
    #[getter]
    fn hashfunc<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.lean {
            return Err(PyAttributeError::new_err(
                "a LeanMinHash keeps no hash function (it cannot be updated)",
            ));
        }
        match &self.hashfunc {
            Some(f) => Ok(f.bind(py).clone()),
            None => default_hashfunc(py),
        }
    }

    /// The permutation scheme, by datasketch's name: `"legacy"`, the family
    /// `(a * h + b) mod (2^61 - 1)` truncated to 32-bit slots (neardup draws
    /// its own `a` and `b` from the seed, so slot values are not
    /// datasketch's).
    #[getter]
    fn scheme(&self) -> &'static str {
        "legacy"
    }

    /// The permutation functions `h -> (a * h + b) mod (2^61 - 1)`, as
    /// datasketch gives them: `(a, b)`, two arrays of `num_perm` values (a
    /// NumPy uint64 array of shape `(2, num_perm)` when NumPy is installed).
    /// A `LeanMinHash` has none (`ValueError`), as it cannot be updated.
    #[getter]
    fn permutations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.lean {
            return Err(PyValueError::new_err(
                "a LeanMinHash keeps no permutations (it cannot be updated)",
            ));
        }
        let a: Vec<u64> = self.perms.iter().map(|p| p.0).collect();
        let b: Vec<u64> = self.perms.iter().map(|p| p.1).collect();
        match py.import("numpy") {
            Ok(np) => np.call_method1("array", ((a, b), np.getattr("uint64")?)),
            Err(_) => Ok((a, b).into_pyobject(py)?.into_any()),
        }
    }

    /// Whether no element was added.
    fn is_empty(&self) -> bool {
        self.values.iter().all(|&v| v == u32::MAX)
    }

    /// Forgets every element.
    fn clear(&mut self) -> PyResult<()> {
        self.check_updatable()?;
        self.values.fill(u32::MAX);
        Ok(())
    }

    /// A copy (of the same class).
    fn copy(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        let py = slf.py();
        let (state, args) = {
            let me = slf.borrow();
            (
                encode_state(me.seed, &me.values),
                MinHash::ctor_args(&me, py, slf.is_exact_instance_of::<MinHash>())?,
            )
        };
        let obj = slf.get_type().call1(args)?;
        obj.call_method1("__setstate__", (PyBytes::new(py, &state),))?;
        // The hash function too, whatever the class's constructor takes.
        let mut copy = obj.downcast::<MinHash>()?.borrow_mut();
        if !copy.lean {
            copy.hashfunc = slf.borrow().hashfunc.as_ref().map(|f| f.clone_ref(py));
        }
        drop(copy);
        Ok(obj.unbind())
    }

    /// Sketches of several sets at once: `bulk([[b"a", b"b"], [b"c"]],
    /// num_perm=128)`.
    #[classmethod]
    #[pyo3(signature = (b, **kwargs))]
    fn bulk<'py>(
        cls: &Bound<'py, PyType>,
        b: &Bound<'py, PyAny>,
        kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let mut out = Vec::new();
        for set in b.try_iter()? {
            let m = cls.call((), kwargs)?;
            m.call_method1("update_batch", (set?,))?;
            out.push(m);
        }
        Ok(out)
    }

    /// The sketch of the union of several sketches' sets.
    #[classmethod]
    #[pyo3(signature = (*mhs))]
    fn union<'py>(
        _cls: &Bound<'py, PyType>,
        mhs: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if mhs.len() < 2 {
            return Err(PyValueError::new_err("Cannot union less than 2 MinHash"));
        }
        let first = mhs.get_item(0)?;
        let out = first.call_method0("copy")?;
        let out_ref = out.downcast::<MinHash>()?;
        for m in mhs.iter().skip(1) {
            let m = m.downcast::<MinHash>()?.borrow();
            let mut o = out_ref.borrow_mut();
            o.check_same(&m, "union")?;
            for (v, x) in o.values.iter_mut().zip(&m.values) {
                *v = (*v).min(*x);
            }
        }
        Ok(out)
    }

    /// neardup's own sketch of a text (5-word shingles, the `minhash`
    /// method): a `neardup.TextMinHash`, as `MinHash(text)` was before 0.2.
    #[staticmethod]
    #[pyo3(signature = (text=None, **kwargs))]
    fn from_text<'py>(
        py: Python<'py>,
        text: Option<&Bound<'py, PyAny>>,
        kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let cls = py.import("neardup")?.getattr("TextMinHash")?;
        cls.call((text,), kwargs)
    }

    /// Band keys for an LSH index: `b` byte strings of `r` slots each.
    fn _bands<'py>(
        &self,
        py: Python<'py>,
        b: usize,
        r: usize,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        if b * r > self.values.len() {
            return Err(PyValueError::new_err("b * r exceeds num_perm"));
        }
        Ok((0..b)
            .map(|i| {
                let bytes: Vec<u8> = self.values[i * r..(i + 1) * r]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect();
                PyBytes::new(py, &bytes)
            })
            .collect())
    }

    fn __len__(&self) -> usize {
        self.values.len()
    }

    fn __eq__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> bool {
        same_sketch(slf.as_any(), other)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let me = slf.borrow();
        Ok(format!(
            "{}(num_perm={}, seed={}, count≈{:.1})",
            slf.get_type().name()?,
            me.values.len(),
            me.seed,
            if me.is_empty() { 0.0 } else { me.count() }
        ))
    }

    fn __getstate__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &encode_state(self.seed, &self.values))
    }

    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        let (seed, values) = decode_state(state).map_err(PyValueError::new_err)?;
        *self = MinHash::make(seed, values, self.hashfunc.take(), self.lean);
        Ok(())
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let me = slf.borrow();
        let args = MinHash::ctor_args(&me, py, slf.is_exact_instance_of::<MinHash>())?;
        let state = PyBytes::new(py, &encode_state(me.seed, &me.values));
        PyTuple::new(
            py,
            [slf.get_type().into_any(), args.into_any(), state.into_any()],
        )
    }
}

impl MinHash {
    /// The constructor arguments `__reduce__` and `copy` give the class.
    fn ctor_args<'py>(&self, py: Python<'py>, exact: bool) -> PyResult<Bound<'py, PyTuple>> {
        if exact {
            let f = self.hashfunc.as_ref().map(|f| f.clone_ref(py));
            PyTuple::new(
                py,
                [
                    self.values.len().into_pyobject(py)?.into_any(),
                    self.seed.into_pyobject(py)?.into_any(),
                    f.into_pyobject(py)?.into_any(),
                ],
            )
        } else {
            Ok(PyTuple::empty(py))
        }
    }
}

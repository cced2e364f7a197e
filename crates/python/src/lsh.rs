//! The band/row choice of `neardup.MinHashLSH`, as datasketch makes it:
//! the `(b, r)` with `b * r <= num_perm` that minimises the weighted sum
//! of the false positive and false negative probabilities around the
//! threshold (each integrated with datasketch's midpoint rule, step 0.001).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Midpoint rule with step 0.001 over `[a, b]`, as datasketch integrates.
fn integrate(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    let p = 0.001;
    let mut area = 0.0;
    let mut x = a;
    while x < b {
        area += f(x + 0.5 * p) * p;
        x += p;
    }
    area
}

/// Probability mass of pairs below the threshold that share a band.
fn false_positive(threshold: f64, b: u32, r: u32) -> f64 {
    integrate(
        |s| 1.0 - (1.0 - s.powf(f64::from(r))).powf(f64::from(b)),
        0.0,
        threshold,
    )
}

/// Probability mass of pairs above the threshold that share no band.
fn false_negative(threshold: f64, b: u32, r: u32) -> f64 {
    integrate(
        |s| 1.0 - (1.0 - (1.0 - s.powf(f64::from(r))).powf(f64::from(b))),
        threshold,
        1.0,
    )
}

/// The `(b, r)` minimising `fp * fp_weight + fn * fn_weight`.
pub fn optimal_param(threshold: f64, num_perm: u32, fp_weight: f64, fn_weight: f64) -> (u32, u32) {
    let mut min_error = f64::INFINITY;
    let mut opt = (0, 0);
    for b in 1..=num_perm {
        for r in 1..=num_perm / b {
            let error = false_positive(threshold, b, r) * fp_weight
                + false_negative(threshold, b, r) * fn_weight;
            if error < min_error {
                min_error = error;
                opt = (b, r);
            }
        }
    }
    opt
}

/// datasketch's `_optimal_param(threshold, num_perm, false_positive_weight,
/// false_negative_weight)`: the LSH bands `b` and rows per band `r`.
#[pyfunction]
pub fn _optimal_param(
    py: Python<'_>,
    threshold: f64,
    num_perm: u32,
    false_positive_weight: f64,
    false_negative_weight: f64,
) -> PyResult<(u32, u32)> {
    if !(0.0..=1.0).contains(&threshold) || num_perm < 2 {
        return Err(PyValueError::new_err(
            "threshold must be in [0.0, 1.0] and num_perm at least 2",
        ));
    }
    Ok(py.allow_threads(|| {
        optimal_param(
            threshold,
            num_perm,
            false_positive_weight,
            false_negative_weight,
        )
    }))
}

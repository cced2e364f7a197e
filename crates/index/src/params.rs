//! Band/row parameters of MinHash LSH and their optimisation.
//!
//! Two signatures with Jaccard similarity `s` share at least one of `b` bands
//! of `r` rows with probability `P(s) = 1 - (1 - s^r)^b` (the "S-curve").
//! For a target threshold `t`, the false-positive mass is the area under
//! `P` on `[0, t]` and the false-negative mass the area above it on `[t, 1]`.
//! [`LshParams::optimal`] picks the `(b, r)` with `b * r <= num_perm` that
//! minimises the weighted sum of both, integrating numerically (composite
//! Simpson rule, [`SIMPSON_INTERVALS`] intervals).

use rayon::prelude::*;

use crate::error::{Error, Result};

/// Number of Simpson intervals used to integrate the S-curve.
pub const SIMPSON_INTERVALS: usize = 1024;

/// Largest accepted number of permutations (and of `bands * rows`).
pub const MAX_PERM: usize = 1 << 16;

/// Bands and rows of a MinHash LSH index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LshParams {
    bands: usize,
    rows: usize,
}

impl Default for LshParams {
    /// The optimum for threshold 0.7, 128 permutations and equal weights
    /// (`LshParams::optimal(0.7, 128, 0.5, 0.5)`, checked by a test).
    fn default() -> Self {
        Self { bands: 14, rows: 9 }
    }
}

impl LshParams {
    /// Explicit parameters; `bands >= 1`, `rows >= 1`, `bands * rows <= MAX_PERM`.
    pub fn new(bands: usize, rows: usize) -> Result<Self> {
        if bands == 0 || rows == 0 {
            return Err(Error::invalid("bands and rows must be at least 1"));
        }
        match bands.checked_mul(rows) {
            Some(p) if p <= MAX_PERM => Ok(Self { bands, rows }),
            _ => Err(Error::invalid("bands * rows must not exceed MAX_PERM")),
        }
    }

    /// The `(bands, rows)` with `bands * rows <= num_perm` minimising
    /// `fp_weight * FP(t) + fn_weight * FN(t)`; ties go to fewer bands, then
    /// fewer rows.
    ///
    /// `threshold` must lie in `[0, 1]`, `num_perm` in `1..=MAX_PERM`, the
    /// weights be finite, non-negative and not both zero.
    pub fn optimal(
        threshold: f64,
        num_perm: usize,
        fp_weight: f64,
        fn_weight: f64,
    ) -> Result<Self> {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(Error::invalid("threshold must lie in [0, 1]"));
        }
        if num_perm == 0 || num_perm > MAX_PERM {
            return Err(Error::invalid("num_perm must lie in 1..=MAX_PERM"));
        }
        let ok = |w: f64| w.is_finite() && w >= 0.0;
        if !ok(fp_weight) || !ok(fn_weight) || fp_weight + fn_weight == 0.0 {
            return Err(Error::invalid(
                "weights must be finite, non-negative and not both zero",
            ));
        }
        // Every (bands, rows), rows by rows in parallel: the powers s^r of
        // the integration nodes are computed once per `rows`, not once per
        // pair. Each error is the same expression, evaluated in the same
        // order, as `false_positive_area` and `false_negative_area` give.
        let (fp_nodes, fn_nodes) = (&Nodes::new(0.0, threshold), &Nodes::new(threshold, 1.0));
        let mut errors: Vec<(Self, f64)> = (1..=num_perm)
            .into_par_iter()
            .flat_map_iter(|rows| {
                let r = i32::try_from(rows).unwrap_or(i32::MAX);
                let (fp_pow, fn_pow) = (fp_nodes.powers(r), fn_nodes.powers(r));
                (1..=num_perm / rows).map(move |bands| {
                    let b = i32::try_from(bands).unwrap_or(i32::MAX);
                    let fp = fp_nodes.integrate(&fp_pow, |sr| 1.0 - (1.0 - sr).powi(b));
                    let fn_ = fn_nodes.integrate(&fn_pow, |sr| 1.0 - (1.0 - (1.0 - sr).powi(b)));
                    (Self { bands, rows }, fp_weight * fp + fn_weight * fn_)
                })
            })
            .collect();
        // The first minimum in the order of fewer bands, then fewer rows.
        errors.sort_unstable_by_key(|(p, _)| (p.bands, p.rows));
        let mut best = Self { bands: 1, rows: 1 };
        let mut best_err = f64::INFINITY;
        for (p, err) in errors {
            if err < best_err {
                best_err = err;
                best = p;
            }
        }
        Ok(best)
    }

    /// Number of bands.
    pub fn bands(&self) -> usize {
        self.bands
    }

    /// Rows (signature values) per band.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Signature values used: `bands * rows`.
    pub fn num_perm(&self) -> usize {
        self.bands * self.rows
    }

    /// Probability that two signatures of Jaccard similarity `s` become
    /// candidates: `1 - (1 - s^r)^b`. `s` is clamped to `[0, 1]`.
    pub fn probability(&self, s: f64) -> f64 {
        let s = if s.is_nan() { 0.0 } else { s.clamp(0.0, 1.0) };
        let r = i32::try_from(self.rows).unwrap_or(i32::MAX);
        let b = i32::try_from(self.bands).unwrap_or(i32::MAX);
        1.0 - (1.0 - s.powi(r)).powi(b)
    }

    /// Area under the S-curve on `[0, threshold]`: the false-positive mass.
    pub fn false_positive_area(&self, threshold: f64) -> f64 {
        simpson(|s| self.probability(s), 0.0, threshold)
    }

    /// Area above the S-curve on `[threshold, 1]`: the false-negative mass.
    pub fn false_negative_area(&self, threshold: f64) -> f64 {
        simpson(|s| 1.0 - self.probability(s), threshold, 1.0)
    }
}

/// The nodes of the composite Simpson rule on `[a, b]`
/// ([`SIMPSON_INTERVALS`] intervals), in the order their values are added.
struct Nodes {
    /// `a`, `b`, then the inner nodes; empty when `b <= a`.
    at: Vec<f64>,
    h: f64,
}

impl Nodes {
    fn new(a: f64, b: f64) -> Nodes {
        if b <= a {
            return Nodes {
                at: Vec::new(),
                h: 0.0,
            };
        }
        let n = SIMPSON_INTERVALS;
        let h = (b - a) / n as f64;
        let mut at = vec![a, b];
        at.extend((1..n).map(|i| a + h * i as f64));
        Nodes { at, h }
    }

    /// `s.powi(r)` at every node (the nodes lie in `[0, 1]`, where
    /// [`LshParams::probability`] clamps nothing).
    fn powers(&self, r: i32) -> Vec<f64> {
        self.at.iter().map(|s| s.powi(r)).collect()
    }

    /// The Simpson sum of `f` over `values`, one per node in the order of
    /// `at`: the nodes themselves ([`simpson`]), or their powers `s^r`
    /// (the S-curve search, which computes them once per row count).
    fn integrate(&self, values: &[f64], f: impl Fn(f64) -> f64) -> f64 {
        let Some((ends, inner)) = values.split_at_checked(2) else {
            return 0.0;
        };
        let mut sum = f(ends[0]) + f(ends[1]);
        for (i, &p) in inner.iter().enumerate() {
            let w = if (i + 1) % 2 == 1 { 4.0 } else { 2.0 };
            sum += w * f(p);
        }
        sum * self.h / 3.0
    }
}

/// Composite Simpson rule with [`SIMPSON_INTERVALS`] intervals.
fn simpson(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    let nodes = Nodes::new(a, b);
    nodes.integrate(&nodes.at, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simpson_integrates_polynomials() {
        assert!((simpson(|x| x * x, 0.0, 1.0) - 1.0 / 3.0).abs() < 1e-12);
        assert!((simpson(|x| x.powi(4), 0.0, 0.5) - 0.5f64.powi(5) / 5.0).abs() < 1e-10);
        assert_eq!(simpson(|x| x, 0.7, 0.7), 0.0);
    }

    #[test]
    fn one_band_one_row_areas() {
        // P(s) = s: FP = t^2 / 2, FN = (1 - t)^2 / 2.
        let p = LshParams::new(1, 1).unwrap();
        assert!((p.false_positive_area(0.6) - 0.18).abs() < 1e-9);
        assert!((p.false_negative_area(0.6) - 0.08).abs() < 1e-9);
    }

    #[test]
    fn default_is_the_optimum_at_0_7() {
        let p = LshParams::optimal(0.7, 128, 0.5, 0.5).unwrap();
        assert_eq!(p, LshParams::default());
        assert!(p.num_perm() <= 128);
    }

    #[test]
    fn optimum_beats_every_alternative_and_moves_with_threshold() {
        let t = 0.5;
        let p = LshParams::optimal(t, 64, 0.5, 0.5).unwrap();
        let err = |q: LshParams| 0.5 * q.false_positive_area(t) + 0.5 * q.false_negative_area(t);
        for b in 1..=64 {
            for r in 1..=64 / b {
                assert!(err(p) <= err(LshParams::new(b, r).unwrap()) + 1e-15);
            }
        }
        let lo = LshParams::optimal(0.3, 128, 0.5, 0.5).unwrap();
        let hi = LshParams::optimal(0.9, 128, 0.5, 0.5).unwrap();
        assert!(lo.rows() < hi.rows());
        // The S-curve's midpoint sits near the threshold.
        assert!(hi.probability(0.99) > 0.9 && hi.probability(0.7) < 0.01);
    }

    /// The optimum by the public areas, pair by pair.
    fn optimal_by_areas(t: f64, num_perm: usize, fp_w: f64, fn_w: f64) -> LshParams {
        let mut best = LshParams { bands: 1, rows: 1 };
        let mut best_err = f64::INFINITY;
        for bands in 1..=num_perm {
            for rows in 1..=num_perm / bands {
                let p = LshParams { bands, rows };
                let err = fp_w * p.false_positive_area(t) + fn_w * p.false_negative_area(t);
                if err < best_err {
                    best_err = err;
                    best = p;
                }
            }
        }
        best
    }

    #[test]
    fn optimum_is_the_one_of_the_areas_pair_by_pair() {
        for num_perm in [1, 2, 7, 64, 128] {
            for t in [0.0, 0.05, 0.3, 0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0] {
                for (fp_w, fn_w) in [(0.5, 0.5), (0.9, 0.1), (0.1, 0.9), (1.0, 0.0), (0.0, 1.0)] {
                    assert_eq!(
                        LshParams::optimal(t, num_perm, fp_w, fn_w).unwrap(),
                        optimal_by_areas(t, num_perm, fp_w, fn_w),
                        "{num_perm} {t} {fp_w} {fn_w}"
                    );
                }
            }
        }
    }

    #[test]
    fn weights_shift_the_tradeoff() {
        let fp_heavy = LshParams::optimal(0.7, 128, 0.9, 0.1).unwrap();
        let fn_heavy = LshParams::optimal(0.7, 128, 0.1, 0.9).unwrap();
        assert!(fp_heavy.false_positive_area(0.7) < fn_heavy.false_positive_area(0.7));
        assert!(fp_heavy.false_negative_area(0.7) > fn_heavy.false_negative_area(0.7));
    }

    #[test]
    fn rejects_bad_inputs() {
        assert!(LshParams::new(0, 4).is_err());
        assert!(LshParams::new(usize::MAX, 2).is_err());
        assert!(LshParams::optimal(1.5, 128, 0.5, 0.5).is_err());
        assert!(LshParams::optimal(f64::NAN, 128, 0.5, 0.5).is_err());
        assert!(LshParams::optimal(0.5, 0, 0.5, 0.5).is_err());
        assert!(LshParams::optimal(0.5, 128, 0.0, 0.0).is_err());
        assert!(LshParams::optimal(0.5, 128, -1.0, 0.5).is_err());
        assert!(LshParams::optimal(0.5, 128, f64::INFINITY, 0.5).is_err());
        let p = LshParams::new(2, 3).unwrap();
        assert_eq!(p.probability(f64::NAN), 0.0);
        assert_eq!(p.probability(2.0), 1.0);
    }
}

//! Methods by name with their parameters, as the CLI's `--method`,
//! `--threshold` and `--max-distance` choose them.

use neardup::sketch::{Method, Sketcher};
use neardup::Verifier;
use pyo3::prelude::*;

use crate::errors::err;

/// A method's name and tuning, as given from Python.
#[derive(Debug, Clone, Default)]
pub struct MethodSpec {
    /// Name (`minhash`, `simhash`, ...).
    pub name: String,
    /// Similarity threshold of the decision, when it applies.
    pub threshold: Option<f64>,
    /// Largest Hamming distance (simhash, paragraph).
    pub max_distance: Option<u32>,
    /// Permutations / bins (minhash, minhash-oph).
    pub num_perm: Option<usize>,
    /// Hash seed (minhash, minhash-oph, simhash).
    pub seed: Option<u64>,
}

impl MethodSpec {
    /// Whether this is the CLI's `default` method (MinHash over word
    /// 3-grams, verified exactly on the texts' shingles).
    pub fn is_default(&self) -> bool {
        self.name == "default"
    }

    /// Exact verification, for the `default` method only (as the CLI).
    pub fn verifier(&self) -> Option<Verifier> {
        self.is_default().then(|| {
            let mut v = Verifier::default();
            if let Some(t) = self.threshold {
                v.threshold = t;
            }
            v
        })
    }

    /// Builds the method, with the CLI's rules for which option applies to
    /// which method.
    pub fn build(&self) -> PyResult<Method> {
        let mut method = neardup::build_method(&self.name, self.threshold, self.max_distance)
            .map_err(|e| err(format!("method {:?}: {e}", self.name)))?;
        if let Some(n) = self.num_perm {
            if n == 0 {
                return Err(err("num_perm must be at least 1"));
            }
            match &mut method {
                Method::MinHash(m) => {
                    m.num_perm(n);
                }
                Method::OphMinHash(m) => {
                    m.num_bins(n);
                }
                other => {
                    return Err(err(format!(
                        "num_perm does not apply to {}",
                        other.kind().name()
                    )))
                }
            }
        }
        if let Some(s) = self.seed {
            match &mut method {
                Method::MinHash(m) => {
                    m.seed(s);
                }
                Method::OphMinHash(m) => {
                    m.seed(s);
                }
                Method::SimHash(m) => {
                    m.seed(s);
                }
                other => {
                    return Err(err(format!(
                        "seed does not apply to {}",
                        other.kind().name()
                    )))
                }
            }
        }
        Ok(method)
    }
}

/// The method names: the CLI's `default`, then those `Method::from_str`
/// knows (aliases aside).
pub const NAMES: [&str; 11] = [
    "default",
    "minhash",
    "minhash-oph",
    "simhash",
    "simhash128",
    "exact",
    "supershingle",
    "imatch",
    "long-sentence",
    "feature-code",
    "paragraph",
];

/// The names of the fingerprinting methods.
#[pyfunction]
pub fn methods() -> Vec<&'static str> {
    NAMES.to_vec()
}

//! Candidate keys and verification, the same rules as the batch engine
//! (`neardup::Dedup::cluster`), in a form that can be computed one document
//! at a time: by the incremental `Deduplicator` and by Spark executors.
//!
//! Two documents are candidates when they share a key of the same table:
//! - MinHash (both schemes): LSH bands. The `(bands, rows)` are those the
//!   engine picks, `LshParams::optimal(threshold - 0.1, num_perm, 0.3,
//!   0.7)`, and the key of a band is `neardup::index::band_key`; the table is
//!   the band. Same keys, same candidate pairs as the engine's LSH tables.
//! - SimHash: the pigeonhole principle. The 64-bit fingerprint (the one the
//!   engine's permuted tables index) is cut into `k + 1` blocks; two
//!   fingerprints within Hamming distance `k` agree on at least one block.
//!   This finds every pair the engine's tables find (all pairs within `k`),
//!   and verification (`is_duplicate`) decides the rest exactly the same.
//! - Every other method: the signature's index keys in one table; a pair
//!   must share `min_shared` distinct keys (2 for super-shingles, else 1),
//!   and keys held by more than `MAX_POSTING_LEN` documents are ignored.

use std::cell::RefCell;
use std::collections::HashMap;

use neardup::index::{band_key, LshParams};
use neardup::sketch::{Method, Signature, Sketcher};

/// The engine's cap on an inverted-index posting list.
pub const MAX_POSTING_LEN: usize = 10_000;

/// The engine's LSH margin below the verification threshold.
const LSH_MARGIN: f64 = 0.1;

/// How candidates are formed for a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Distinct shared keys a candidate pair needs.
    pub min_shared: u32,
    /// Keys with more documents than this make no candidates.
    pub max_posting_len: Option<usize>,
}

/// The candidate rule of `method`.
pub fn rule(method: &Method) -> Rule {
    match method {
        Method::MinHash(_) | Method::OphMinHash(_) | Method::SimHash(_) => Rule {
            min_shared: 1,
            max_posting_len: None,
        },
        Method::SuperShingle(_) => Rule {
            min_shared: 2,
            max_posting_len: Some(MAX_POSTING_LEN),
        },
        _ => Rule {
            min_shared: 1,
            max_posting_len: Some(MAX_POSTING_LEN),
        },
    }
}

fn lsh_params(threshold: f64, num_perm: usize) -> Result<LshParams, String> {
    thread_local! {
        static CACHE: RefCell<HashMap<(u64, usize), LshParams>> = RefCell::new(HashMap::new());
    }
    let t = (threshold - LSH_MARGIN).clamp(0.05, 1.0);
    let key = (t.to_bits(), num_perm);
    if let Some(p) = CACHE.with(|c| c.borrow().get(&key).copied()) {
        return Ok(p);
    }
    let p =
        LshParams::optimal(t, num_perm, 0.3, 0.7).map_err(|e| format!("LSH parameters: {e}"))?;
    CACHE.with(|c| c.borrow_mut().insert(key, p));
    Ok(p)
}

/// The `(table, key)` pairs of one signature, distinct.
pub fn candidate_keys(method: &Method, sig: &Signature) -> Result<Vec<(u32, u64)>, String> {
    let mismatch = || {
        format!(
            "a {} signature given to the {} method",
            sig.kind().name(),
            method.kind().name()
        )
    };
    if sig.kind() != method.kind() {
        return Err(mismatch());
    }
    let lsh_threshold = match method {
        Method::MinHash(x) => Some(x.get_threshold()),
        Method::OphMinHash(x) => Some(x.get_threshold()),
        _ => None,
    };
    match (method, sig) {
        (_, Signature::MinHash(m)) if lsh_threshold.is_some() => {
            let threshold = lsh_threshold.unwrap_or_default();
            let values = m.values();
            if values.is_empty() {
                return Err("a MinHash signature has no values".to_string());
            }
            let p = lsh_params(threshold, values.len())?;
            let mut scratch = Vec::new();
            Ok((0..p.bands())
                .map(|b| {
                    let band = &values[b * p.rows()..(b + 1) * p.rows()];
                    (b as u32, band_key(band, &mut scratch))
                })
                .collect())
        }
        (Method::SimHash(s), Signature::SimHash(h)) => {
            let k = s.get_max_distance();
            let v = h.value64();
            if k >= 64 {
                return Ok(vec![(0, 0)]);
            }
            let blocks = k as usize + 1;
            let mut out = Vec::with_capacity(blocks);
            let mut start = 0usize;
            for b in 0..blocks {
                let width = 64 / blocks + usize::from(b < 64 % blocks);
                let mask = if width == 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                };
                out.push((b as u32, (v >> start) & mask));
                start += width;
            }
            Ok(out)
        }
        (Method::SimHash(_) | Method::MinHash(_) | Method::OphMinHash(_), _) => Err(mismatch()),
        _ => {
            let mut keys = sig.index_keys();
            keys.sort_unstable();
            keys.dedup();
            Ok(keys.into_iter().map(|k| (0, k)).collect())
        }
    }
}

/// The engine's verification: the method's decision, then its similarity;
/// `None` when the pair is not a duplicate (or the similarity is not finite).
pub fn verify(method: &Method, a: &Signature, b: &Signature) -> Result<Option<f64>, String> {
    let dup = method
        .is_duplicate(a, b)
        .map_err(|e| format!("cannot compare signatures: {e}"))?;
    if !dup {
        return Ok(None);
    }
    let s = method
        .similarity(a, b)
        .map_err(|e| format!("cannot compare signatures: {e}"))?;
    Ok(s.is_finite().then_some(s))
}

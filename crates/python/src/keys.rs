//! Candidate keys and verification, the same rules as the batch engine
//! (`neardup::Dedup::cluster`), in a form that can be computed one document
//! at a time: by the incremental `Deduplicator` and by Spark executors.
//!
//! Two documents are candidates when they share a key of the same table:
//! - MinHash (both schemes): LSH bands. The `(bands, rows)` are those the
//!   engine picks from the method's rule, and the key of a band is `neardup::index::band_key`; the table is
//!   the band. Same keys, same candidate pairs as the engine's LSH tables.
//! - SimHash: the pigeonhole principle. The 64-bit fingerprint (the one the
//!   engine's permuted tables index) is cut into `k + 1` blocks; two
//!   fingerprints within Hamming distance `k` agree on at least one block.
//!   This finds every pair the engine's tables find (all pairs within `k`),
//!   and verification (`is_duplicate`) decides the rest exactly the same.
//! - Every other method: the signature's index keys in one table; a pair
//!   must share `min_shared` distinct keys (2 for super-shingles, else 1),
//!   and keys held by more than `max_posting_len` documents are ignored.
//!
//! The numbers come from the method's [`CandidateRule`]; none is copied.

use std::cell::RefCell;
use std::collections::HashMap;

use neardup::index::{band_key, LshParams};
use neardup::sketch::{CandidateRule, Method, Signature, Sketcher, LSH_WEIGHTS};

/// How candidates are formed for a method, in shared keys: the method's
/// own [`CandidateRule`] read as keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Distinct shared keys a candidate pair needs.
    pub min_shared: u32,
    /// Keys with more documents than this make no candidates.
    pub max_posting_len: Option<usize>,
}

/// The candidate rule of `method`, in keys.
pub fn rule(method: &Method) -> Rule {
    match method.candidate_rule() {
        CandidateRule::Lsh { .. } | CandidateRule::Hamming { .. } => Rule {
            min_shared: 1,
            max_posting_len: None,
        },
        CandidateRule::Keys {
            min_shared,
            max_posting_len,
        } => Rule {
            min_shared,
            max_posting_len: Some(max_posting_len),
        },
    }
}

/// LSH parameters for an S-curve centred at `t` (the rule's threshold).
fn lsh_params(t: f64, num_perm: usize) -> Result<LshParams, String> {
    thread_local! {
        static CACHE: RefCell<HashMap<(u64, usize), LshParams>> = RefCell::new(HashMap::new());
    }
    let key = (t.to_bits(), num_perm);
    if let Some(p) = CACHE.with(|c| c.borrow().get(&key).copied()) {
        return Ok(p);
    }
    let p = LshParams::optimal(t, num_perm, LSH_WEIGHTS.0, LSH_WEIGHTS.1)
        .map_err(|e| format!("LSH parameters: {e}"))?;
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
    let lsh_threshold = match method.candidate_rule() {
        CandidateRule::Lsh { threshold } => Some(threshold),
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
        (Method::SimHash(_), Signature::SimHash(h)) => {
            let k = match method.candidate_rule() {
                CandidateRule::Hamming { max_distance } => max_distance,
                _ => 0,
            };
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

/// The engine's verification on signatures ([`neardup::verify_signatures`]).
pub fn verify(method: &Method, a: &Signature, b: &Signature) -> Result<Option<f64>, String> {
    neardup::verify_signatures(method, a, b).map_err(|e| format!("cannot compare signatures: {e}"))
}

//! The verification step of `neardup.spark.dedup` on document blobs
//! ([`crate::spark_docs`]): the pairs go to the partition of `v`, where
//! [`export_docs_batch`] forwards each pair to the partition of `u` with
//! the documents `v` that partition lacks (each once, so a task holds its
//! partition's documents and at most one more per pair); there
//! [`verify_blobs_batch`] verifies every pair by the rule of
//! [`crate::spark::verify_batch`] ([`PairRule`]).

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::err;
use crate::packed::i64_bytes;
use crate::spark::{spec_of, PairRule};
use crate::spark_docs::{chunked, doc_partition, index_docs, parse_pairs, PAIR};

/// What travels on from one partition: destination, kind and payload.
pub type Routed = Vec<(u32, u8, Vec<u8>)>;

/// The payload kinds of [`Routed`].
pub const KIND_PAIRS: u8 = 1;
pub const KIND_DOCS: u8 = 2;

/// The pairs of one `v` partition (`pairs`, their `v` among `docs`) routed
/// to the partitions of their `u`: for each, its pairs and the documents
/// `v` it does not hold, each once, in payloads of at most `chunk_bytes`.
pub fn export_docs(
    docs: &[Vec<u8>],
    pairs: &[Vec<u8>],
    parts: usize,
    chunk_bytes: usize,
) -> Result<Routed, String> {
    let index = index_docs(docs)?;
    let mut by_dest: Vec<(Vec<u8>, Vec<i64>)> = vec![(Vec::new(), Vec::new()); parts.max(1)];
    for blob in pairs {
        for (u, v) in parse_pairs(blob)? {
            if !index.contains_key(&v) {
                return Err(format!(
                    "pair ({u}, {v}): document {v} is not among its partition's documents"
                ));
            }
            let q = doc_partition(u, parts);
            by_dest[q].0.extend(u.to_le_bytes());
            by_dest[q].0.extend(v.to_le_bytes());
            if doc_partition(v, parts) != q {
                by_dest[q].1.push(v);
            }
        }
    }
    let mut out = Vec::new();
    for (q, (pair_bytes, mut wanted)) in by_dest.into_iter().enumerate() {
        for p in chunked(pair_bytes.chunks(PAIR), chunk_bytes) {
            out.push((q as u32, KIND_PAIRS, p));
        }
        wanted.sort_unstable();
        wanted.dedup();
        for p in chunked(wanted.iter().map(|v| index[v].record), chunk_bytes) {
            out.push((q as u32, KIND_DOCS, p));
        }
    }
    Ok(out)
}

/// One confirmed pair: `u`, `v`, similarity, foreign runs, partial suspect.
pub type Confirmed = (i64, i64, f64, Option<Vec<u8>>, bool);

/// Every pair of `pairs` (both documents among `docs`) verified by the
/// rule of `verify_batch`, in `(u, v)` order; the confirmed ones.
pub fn verify_blobs(
    rule: &PairRule,
    docs: &[Vec<u8>],
    pairs: &[Vec<u8>],
) -> Result<Vec<Confirmed>, String> {
    let index = index_docs(docs)?;
    let mut all = Vec::new();
    for blob in pairs {
        all.extend(parse_pairs(blob)?);
    }
    all.sort_unstable();
    let mut out = Vec::new();
    for (u, v) in all {
        let doc = |x: i64| {
            index.get(&x).ok_or_else(|| {
                format!("pair ({u}, {v}): document {x} is not among the document blobs")
            })
        };
        let (a, b) = (doc(u)?, doc(v)?);
        let (sim, runs, suspect) = rule
            .verify_one(a.sig, b.sig, a.shingles, b.shingles)
            .map_err(|e| format!("pair ({u}, {v}): {e}"))?;
        if let Some(s) = sim {
            out.push((u, v, s, runs, suspect));
        }
    }
    Ok(out)
}

/// Routed payloads: destination partitions, kinds and payloads.
type RoutedPy<'py> = (Vec<u32>, Vec<u8>, Vec<Bound<'py, PyBytes>>);

/// [`export_docs`]: the pairs of one partition of `v` (pair blobs) with
/// its document blobs, routed to the partitions of their `u`.
#[pyfunction]
pub fn export_docs_batch<'py>(
    py: Python<'py>,
    docs: Vec<Vec<u8>>,
    pairs: Vec<Vec<u8>>,
    parts: usize,
    chunk_bytes: usize,
) -> PyResult<RoutedPy<'py>> {
    let routed = py
        .allow_threads(|| export_docs(&docs, &pairs, parts, chunk_bytes))
        .map_err(err)?;
    let mut out: RoutedPy<'_> = (Vec::new(), Vec::new(), Vec::new());
    for (q, kind, payload) in routed {
        out.0.push(q);
        out.1.push(kind);
        out.2.push(PyBytes::new(py, &payload));
    }
    Ok(out)
}

/// Confirmed pairs: `u`, `v` (packed 64-bit), similarities (packed f64),
/// foreign runs and partial copy suspects.
type ConfirmedPy<'py> = (
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Vec<Option<Bound<'py, PyBytes>>>,
    Vec<bool>,
);

/// [`verify_blobs`]: the confirmed pairs of pair blobs whose documents are
/// all in `docs` (document blobs), verified as `verify_batch` verifies.
#[pyfunction]
#[pyo3(signature = (method, threshold, max_distance, docs, pairs, composite=false, partial=false))]
#[allow(clippy::too_many_arguments)]
pub fn verify_blobs_batch<'py>(
    py: Python<'py>,
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    docs: Vec<Vec<u8>>,
    pairs: Vec<Vec<u8>>,
    composite: bool,
    partial: bool,
) -> PyResult<ConfirmedPy<'py>> {
    let rule = PairRule::new(
        &spec_of(method, threshold, max_distance),
        composite,
        partial,
    )?;
    let confirmed = py
        .allow_threads(|| verify_blobs(&rule, &docs, &pairs))
        .map_err(err)?;
    let u: Vec<i64> = confirmed.iter().map(|c| c.0).collect();
    let v: Vec<i64> = confirmed.iter().map(|c| c.1).collect();
    let sims: Vec<u8> = confirmed.iter().flat_map(|c| c.2.to_le_bytes()).collect();
    Ok((
        PyBytes::new(py, &i64_bytes(&u)),
        PyBytes::new(py, &i64_bytes(&v)),
        PyBytes::new(py, &sims),
        confirmed
            .iter()
            .map(|c| c.3.as_ref().map(|r| PyBytes::new(py, r)))
            .collect(),
        confirmed.iter().map(|c| c.4).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spark_docs::{parse_docs, push_doc};
    use neardup::io::Content;

    /// Documents of the default method: order, signature, shingles.
    fn docs(texts: &[&str]) -> Vec<(i64, Vec<u8>, Vec<u8>)> {
        let spec = spec_of("default", None, None);
        let dedup = neardup::Dedup::builder()
            .method(spec.build().unwrap())
            .verifier(spec.verifier())
            .build();
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let c = Content::Text(t.to_string());
                let (sig, seq, _) =
                    crate::batch::fingerprint_content("x", c, &dedup, false).unwrap();
                (i as i64, sig.unwrap().to_bytes(), seq.unwrap().to_bytes())
            })
            .collect()
    }

    fn pairs(p: &[(i64, i64)]) -> Vec<u8> {
        p.iter()
            .flat_map(|(u, v)| [u.to_le_bytes(), v.to_le_bytes()].concat())
            .collect()
    }

    fn text(seed: usize, n: usize) -> String {
        (0..n)
            .map(|i| format!("w{}", (i * 7 + seed * 13) % 97 + seed * (i % 3)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn blob_verification_is_verify_batch_rule() {
        let a = text(1, 200);
        let b = format!("{a} and a few more words");
        let c = text(2, 200);
        let d = docs(&[&a, &b, &c]);
        let rule = PairRule::new(&spec_of("default", None, None), true, true).unwrap();
        // Two blobs, one document of another partition's among them.
        let mut one = Vec::new();
        push_doc(&mut one, d[0].0, &d[0].1, Some(&d[0].2)).unwrap();
        let mut two = Vec::new();
        for x in &d[1..] {
            push_doc(&mut two, x.0, &x.1, Some(&x.2)).unwrap();
        }
        let all = [(0, 1), (0, 2), (1, 2)];
        let got = verify_blobs(&rule, &[one, two], &[pairs(&all[..2]), pairs(&all[2..])]).unwrap();
        let want: Vec<Confirmed> = all
            .iter()
            .filter_map(|&(u, v)| {
                let (x, y) = (&d[u as usize], &d[v as usize]);
                let (s, r, p) = rule.verify_one(&x.1, &y.1, Some(&x.2), Some(&y.2)).unwrap();
                s.map(|s| (u, v, s, r, p))
            })
            .collect();
        assert_eq!(got, want);
        assert_eq!(got.len(), 1, "only the near-duplicate pair is confirmed");
        let e = verify_blobs(&rule, &[], &[pairs(&[(0, 1)])]).unwrap_err();
        assert!(e.contains("pair (0, 1): document 0 is not among"), "{e}");
    }

    #[test]
    fn export_sends_each_pair_to_u_with_the_documents_it_lacks_once() {
        let parts = 8;
        // Documents of one partition of v, pairs from many u.
        let vs: Vec<i64> = (0..200)
            .filter(|&o| doc_partition(o, parts) == 3)
            .take(3)
            .collect();
        let mut blob = Vec::new();
        for &v in &vs {
            push_doc(&mut blob, v, b"s", Some(&v.to_le_bytes())).unwrap();
        }
        let ps: Vec<(i64, i64)> = (0..100)
            .flat_map(|u| vs.iter().map(move |&v| (u, v)))
            .collect();
        let routed = export_docs(&[blob], &[pairs(&ps)], parts, 40).unwrap();
        let mut got_pairs = Vec::new();
        for q in 0..parts as u32 {
            let mine = routed.iter().filter(|r| r.0 == q);
            let mut imported = Vec::new();
            for (_, kind, payload) in mine {
                assert!(payload.len() <= 40 || *kind == KIND_DOCS);
                match *kind {
                    KIND_PAIRS => got_pairs.extend(parse_pairs(payload).unwrap()),
                    _ => imported.extend(parse_docs(payload).unwrap().iter().map(|d| d.ord)),
                }
            }
            let wanted: Vec<i64> = if q == 3 { vec![] } else { vs.clone() };
            assert_eq!(imported, wanted, "partition {q}");
        }
        got_pairs.sort_unstable();
        let mut want = ps.clone();
        want.sort_unstable();
        assert_eq!(got_pairs, want);
        let e = export_docs(&[], &[pairs(&[(1, 2)])], parts, 40).unwrap_err();
        assert!(e.contains("document 2 is not among"), "{e}");
    }
}

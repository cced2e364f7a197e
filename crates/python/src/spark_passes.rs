//! Batch kernels for the corpus-level passes of `neardup.spark` with the
//! `default` method: the site template pass (per host group) and the
//! composite page check (runs looked up in a sampled shingle index built
//! with Spark joins). Like the kernels of `spark.rs`, each works on whole
//! columns with the GIL released and names the row in every error.

use neardup::{CompositeCheck, Dedup, PartialCopyCheck, PostingFilter, ShingleSeq};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;

use crate::errors::err;
use crate::packed::{i64_bytes, i64s};
use crate::spark::{seq_of, spec_of};

/// The foreign runs of a pair as bytes: for each run, its side (0: a run
/// of the first page that the second lacks, 1: the other way round), its
/// length `n` (u32) and its `n` sorted distinct shingle hashes (u32), all
/// little-endian.
pub(crate) fn encode_runs(first: &[Vec<u32>], second: &[Vec<u32>]) -> Vec<u8> {
    let mut out = Vec::new();
    for (side, runs) in [(0u8, first), (1u8, second)] {
        for run in runs {
            out.push(side);
            out.extend((run.len() as u32).to_le_bytes());
            out.extend(run.iter().flat_map(|h| h.to_le_bytes()));
        }
    }
    out
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Reads [`encode_runs`]: `(side, run)` in order.
fn decode_runs(bytes: &[u8]) -> Option<Vec<(u8, Vec<u32>)>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let side = bytes[at];
        let n = u32_at(bytes, at + 1)? as usize;
        at += 5;
        let end = at.checked_add(n.checked_mul(4)?)?;
        if side > 1 || end > bytes.len() {
            return None;
        }
        let run = (0..n)
            .map(|j| u32_at(bytes, at + 4 * j))
            .collect::<Option<_>>()?;
        out.push((side, run));
        at = end;
    }
    Some(out)
}

/// New signatures and shingle sequences.
type Stripped<'py> = (
    Vec<Option<Bound<'py, PyBytes>>>,
    Vec<Option<Bound<'py, PyBytes>>>,
);

/// The site template pass on the pages of one host, given in input order
/// (shingle sequences from `fingerprint_batch`): for each page, its new
/// signature and shingles without template text, `None` for a page left
/// as it was. Nothing changes unless `method` is `default`.
#[pyfunction]
#[pyo3(signature = (method, threshold, max_distance, shingles))]
pub fn strip_templates_batch<'py>(
    py: Python<'py>,
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    shingles: Vec<PyBackedBytes>,
) -> PyResult<Stripped<'py>> {
    let spec = spec_of(method, threshold, max_distance);
    let Some(v) = spec.verifier() else {
        return Ok((vec![None; shingles.len()], vec![None; shingles.len()]));
    };
    let dedup = Dedup::builder()
        .method(spec.build()?)
        .verifier(Some(v))
        .build();
    let out = py
        .allow_threads(|| -> Result<_, String> {
            let seqs: Vec<ShingleSeq> = shingles
                .iter()
                .enumerate()
                .map(|(i, b)| seq_of(b, v.k, "row", i))
                .collect::<Result<_, _>>()?;
            let refs: Vec<&ShingleSeq> = seqs.iter().collect();
            Ok(dedup.strip_host_templates(&refs))
        })
        .map_err(err)?;
    Ok(out
        .into_iter()
        .map(|r| match r {
            Some((seq, sig)) => (
                Some(PyBytes::new(py, &sig.to_bytes())),
                Some(PyBytes::new(py, &seq.to_bytes())),
            ),
            None => (None, None),
        })
        .unzip())
}

/// Input rows, sides, run numbers and runs.
type SplitRuns = (Vec<u32>, Vec<u8>, Vec<u32>, Vec<Vec<u8>>);

/// Runs of a column of encoded runs (from `verify_batch`), one per row of
/// the result: the input row, its side, its number within the row, and
/// the run's hashes as bytes (u32 little-endian, sorted, distinct).
#[pyfunction]
pub fn split_runs_batch(py: Python<'_>, runs: Vec<PyBackedBytes>) -> PyResult<SplitRuns> {
    py.allow_threads(|| -> Result<_, String> {
        let (mut rows, mut sides, mut nums, mut bytes) = (vec![], vec![], vec![], vec![]);
        for (i, r) in runs.iter().enumerate() {
            let decoded = decode_runs(r).ok_or_else(|| format!("row {i}: damaged runs"))?;
            for (n, (side, run)) in decoded.into_iter().enumerate() {
                rows.push(i as u32);
                sides.push(side);
                nums.push(n as u32);
                bytes.push(run.iter().flat_map(|h| h.to_le_bytes()).collect());
            }
        }
        Ok((rows, sides, nums, bytes))
    })
    .map_err(err)
}

/// The distinct sampled shingle hashes (those the composite check indexes)
/// of a column of hash sequences (shingle sequences or runs, as bytes):
/// the row and the hash of each; with `among` (sorted 64-bit integers as
/// packed little-endian bytes, [`crate::packed`]), only the hashes in it.
#[pyfunction]
#[pyo3(signature = (seqs, among=None))]
pub fn sampled_hashes_batch(
    py: Python<'_>,
    seqs: Vec<PyBackedBytes>,
    among: Option<&[u8]>,
) -> PyResult<(Vec<u32>, Vec<i64>)> {
    let check = CompositeCheck::default();
    // The looked-up hashes are shingle hashes (u32), sorted: as the
    // engine's own filter of its index reads them.
    let among: Option<Vec<u32>> = among
        .map(|b| i64s(b, "among"))
        .transpose()
        .map_err(err)?
        .map(|a| {
            a.into_iter()
                .filter_map(|h| u32::try_from(h).ok())
                .collect()
        });
    py.allow_threads(|| -> Result<_, String> {
        let filter = among.as_deref().map(|a| PostingFilter::new(check, a));
        let (mut rows, mut hashes) = (Vec::new(), Vec::new());
        let mut found: Vec<(u32, u32)> = Vec::new();
        for (i, b) in seqs.iter().enumerate() {
            let seq = seq_of(b, 1, "row", i)?;
            let mut sampled: Vec<u32> = match &filter {
                Some(f) => {
                    found.clear();
                    f.postings(i as u32, seq.hashes(), &mut found);
                    found.iter().map(|&(h, _)| h).collect()
                }
                None => seq
                    .hashes()
                    .iter()
                    .copied()
                    .filter(|&h| check.is_sampled(h))
                    .collect(),
            };
            sampled.sort_unstable();
            sampled.dedup();
            rows.extend(std::iter::repeat_n(i as u32, sampled.len()));
            hashes.extend(sampled.into_iter().map(i64::from));
        }
        Ok((rows, hashes))
    })
    .map_err(err)
}

/// The shingle length of `method`'s exact verification (1 without it).
fn shingle_k(method: &str, threshold: Option<f64>, max_distance: Option<u32>) -> usize {
    spec_of(method, threshold, max_distance)
        .verifier()
        .map_or(1, |v| v.k)
}

/// `decide` on each row of three columns of hash sequences, each named and
/// read with its shingle length, the GIL released.
fn per_row<F>(
    py: Python<'_>,
    columns: [(&str, &[PyBackedBytes], usize); 3],
    decide: F,
) -> PyResult<Vec<bool>>
where
    F: Fn(&ShingleSeq, &ShingleSeq, &ShingleSeq) -> bool + Send + Sync,
{
    let n = columns[0].1.len();
    if columns.iter().any(|c| c.1.len() != n) {
        let names: Vec<&str> = columns.iter().map(|c| c.0).collect();
        return Err(err(format!(
            "columns {} differ in length",
            names.join(", ")
        )));
    }
    py.allow_threads(|| {
        (0..n)
            .map(|i| {
                let [a, b, c] = columns.map(|(name, rows, k)| seq_of(&rows[i], k, name, i));
                Ok(decide(&a?, &b?, &c?))
            })
            .collect::<Result<Vec<_>, String>>()
    })
    .map_err(err)
}

/// Whether each third document (`thirds[i]`, a shingle sequence) makes up
/// run `runs[i]` and is another article than `others[i]`, the page the run
/// is missing from: the composite page check's exact step.
#[pyfunction]
#[pyo3(signature = (method, threshold, max_distance, runs, thirds, others))]
pub fn composite_check_batch(
    py: Python<'_>,
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    runs: Vec<PyBackedBytes>,
    thirds: Vec<PyBackedBytes>,
    others: Vec<PyBackedBytes>,
) -> PyResult<Vec<bool>> {
    let k = shingle_k(method, threshold, max_distance);
    let check = CompositeCheck::default();
    per_row(
        py,
        [
            ("run", &runs, 1),
            ("third", &thirds, k),
            ("other", &others, k),
        ],
        |run, third, other| check.third_document_covers(run.hashes(), third, other),
    )
}

/// Candidates of [`composite_thirds_batch`]: the row and the document.
type Thirds = (Vec<u32>, Vec<i64>);

/// The third documents the composite page check reads for each run, in the
/// order it reads them (the engine's [`CompositeCheck::third_candidates`]):
/// `runs[i]` is a foreign run of the pair `(us[i], vs[i])` (its hashes as
/// [`split_runs_batch`] gives them), `hashes[i][j]` one of its sampled
/// hashes and `docs[i][j]` the earliest documents holding that hash,
/// ascending (at least [`CompositeCheck::POSTINGS_READ`] + 2 of them when
/// there are that many: the pair is left out here). Returns the row and the
/// document of each candidate.
#[pyfunction]
pub fn composite_thirds_batch(
    py: Python<'_>,
    us: Vec<i64>,
    vs: Vec<i64>,
    runs: Vec<PyBackedBytes>,
    hashes: Vec<Vec<i64>>,
    docs: Vec<Vec<Vec<i64>>>,
) -> PyResult<Thirds> {
    let n = us.len();
    if vs.len() != n || runs.len() != n || hashes.len() != n || docs.len() != n {
        return Err(err("us, vs, runs, hashes and docs differ in length"));
    }
    let check = CompositeCheck::default();
    py.allow_threads(|| -> Result<Thirds, String> {
        let mut out: Thirds = (Vec::new(), Vec::new());
        for i in 0..n {
            if runs[i].len() % 4 != 0 || hashes[i].len() != docs[i].len() {
                return Err(format!("row {i}: a damaged run or hash list"));
            }
            let run: Vec<u32> = runs[i]
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            // Dense ids in document order (ties go to the earlier document).
            let pair = [us[i], vs[i]];
            let mut named: Vec<i64> = docs[i]
                .iter()
                .flatten()
                .copied()
                .filter(|z| !pair.contains(z))
                .collect();
            named.sort_unstable();
            named.dedup();
            let mut lists: Vec<(u32, Vec<u32>)> = hashes[i]
                .iter()
                .zip(&docs[i])
                .map(|(&h, zs)| {
                    let mut d: Vec<u32> = zs
                        .iter()
                        .filter_map(|z| named.binary_search(z).ok().map(|p| p as u32))
                        .collect();
                    d.sort_unstable();
                    (h as u32, d)
                })
                .collect();
            lists.sort_unstable_by_key(|e| e.0);
            let docs_with = |h: u32| match lists.binary_search_by_key(&h, |e| e.0) {
                Ok(p) => lists[p].1.clone(),
                Err(_) => Vec::new(),
            };
            for z in check.third_candidates(&run, docs_with) {
                out.0.push(i as u32);
                out.1.push(named[z as usize]);
            }
        }
        Ok(out)
    })
    .map_err(err)
}

/// Whether each `parts[i]` is a partial copy of `fulls[i]`, as `thirds[i]`
/// (another near-duplicate of the full page) shows: the partial copy
/// check's exact step.
#[pyfunction]
#[pyo3(signature = (method, threshold, max_distance, fulls, parts, thirds))]
pub fn partial_check_batch(
    py: Python<'_>,
    method: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
    fulls: Vec<PyBackedBytes>,
    parts: Vec<PyBackedBytes>,
    thirds: Vec<PyBackedBytes>,
) -> PyResult<Vec<bool>> {
    let k = shingle_k(method, threshold, max_distance);
    let check = PartialCopyCheck::default();
    per_row(
        py,
        [
            ("full", &fulls, k),
            ("part", &parts, k),
            ("third", &thirds, k),
        ],
        |full, part, third| {
            check
                .missing_part(full, part)
                .is_some_and(|missing| check.corroborates(&missing, third))
        },
    )
}

/// How many of a full page's other near-duplicates the partial copy check
/// reads, earliest first.
#[pyfunction]
pub fn partial_rule() -> usize {
    PartialCopyCheck::NEIGHBOURS_READ
}

/// How the composite check reads its index: `(postings_kept,
/// candidates_per_run)`, the documents of a hash to keep (the pair's own
/// two and those it reads) and the third documents it looks at per run.
#[pyfunction]
pub fn composite_rule() -> (usize, usize) {
    (
        CompositeCheck::POSTINGS_KEPT,
        CompositeCheck::CANDIDATES_PER_RUN,
    )
}

/// Postings `(hashes[i], docs[i])` (packed little-endian 64-bit columns),
/// sorted by hash then document, repeats dropped, and only the earliest
/// documents of each hash the composite check may read
/// ([`CompositeCheck::keep_earliest_per_hash`], as the spilled batch
/// engine keeps them); returned as the same two packed columns.
#[pyfunction]
pub fn earliest_per_hash_batch<'py>(
    py: Python<'py>,
    hashes: &[u8],
    docs: &[u8],
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let hashes = i64s(hashes, "hashes").map_err(err)?;
    let docs = i64s(docs, "docs").map_err(err)?;
    if hashes.len() != docs.len() {
        return Err(err("hashes and docs differ in length"));
    }
    let postings = py.allow_threads(|| {
        let mut postings: Vec<(i64, i64)> = hashes.into_iter().zip(docs).collect();
        postings.sort_unstable();
        postings.dedup();
        CompositeCheck::keep_earliest_per_hash(&mut postings);
        postings
    });
    let (h, z): (Vec<i64>, Vec<i64>) = postings.into_iter().unzip();
    Ok((
        PyBytes::new(py, &i64_bytes(&h)),
        PyBytes::new(py, &i64_bytes(&z)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_round_trip_and_damage_is_caught() {
        let (a, b) = (vec![vec![1, 5, 9], vec![2]], vec![vec![7, 8]]);
        let bytes = encode_runs(&a, &b);
        let back = decode_runs(&bytes).unwrap();
        assert_eq!(
            back,
            vec![(0, vec![1, 5, 9]), (0, vec![2]), (1, vec![7, 8])]
        );
        assert_eq!(decode_runs(&[]), Some(vec![]));
        assert_eq!(decode_runs(&bytes[..bytes.len() - 1]), None);
        let mut bad = bytes.clone();
        bad[0] = 2;
        assert_eq!(decode_runs(&bad), None);
    }
}

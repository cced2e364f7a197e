//! Exact verification of candidate pairs on the documents' token shingles.
//!
//! Signatures estimate similarity; the exact check decides. It keeps, per
//! document, the sequence of its word k-gram hashes (4 bytes a token), and a
//! pair is a near-duplicate when
//!
//! * the exact Jaccard similarity of the two shingle sets reaches the
//!   threshold, and
//! * neither document has a long run of text that the other does not cover
//!   (at most `max_foreign_run` tokens in a row whose shingles are all
//!   missing from the other). Edits, an editor's note or a credit line make
//!   short runs; a page that glues half of another article in front of this
//!   one (a "merged" page) makes a long one, even when the other article is
//!   short enough to keep the Jaccard similarity high.

use std::cell::RefCell;

use neardup_sketch::{containment as set_containment, Method, Signature, Sketcher};
use neardup_text::{Segmenter, ShingleUnit, Shingler};

use crate::refusal::VerifyRefusal;
use crate::shingle_set::ShingleSet;
use crate::verify_sketch::{compare_sampled, Sampled, VerifySketch};

thread_local! {
    /// The thread's shingler (kept while its shingle length and segmenter
    /// stay the same) and hash buffer: a document's sequence is made
    /// without growing buffers, then copied to its exact size.
    static SCRATCH: RefCell<(Option<Shingler>, Vec<u32>)> = const { RefCell::new((None, Vec::new())) };
}

/// A document's token shingles, in text order, as 32-bit hashes; or a
/// verification sketch of them ([`VerifySketch`]): a sample, as 16-bit
/// keys with their token positions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShingleSeq {
    seq: Vec<u32>,
    /// Tokens covered by the sequence (shingles + k - 1).
    tokens: usize,
    /// Where the samples are, for a sketch.
    pub(crate) sampled: Option<Sampled>,
}

impl ShingleSeq {
    /// The `k`-gram shingles of `text` (normalized first) with the default
    /// method's tokens: words, and overlapping character bigrams in runs of
    /// CJK characters ([`Segmenter::bigrams`]).
    pub fn new(text: &str, k: usize) -> ShingleSeq {
        ShingleSeq::with_segmenter(text, k, &Segmenter::bigrams())
    }

    /// As [`ShingleSeq::new`], with tokens cut by `segmenter` (dictionary
    /// words for Han runs with a dictionary segmenter).
    pub fn with_segmenter(text: &str, k: usize, segmenter: &Segmenter) -> ShingleSeq {
        let k = k.max(1);
        SCRATCH.with(|cell| {
            let mut scratch = cell.borrow_mut();
            let (shingler, hashes) = &mut *scratch;
            let reusable = shingler
                .as_ref()
                .is_some_and(|s| s.k() == k && s.segmenter() == segmenter);
            if !reusable {
                *shingler = None;
            }
            let shingler = shingler.get_or_insert_with(|| {
                Shingler::with_segmenter(ShingleUnit::Token, k, segmenter.clone())
            });
            hashes.clear();
            // The high half of each 64-bit shingle hash: the half MinHash
            // uses, so a signature can be recomputed from the sequence.
            shingler.for_each_normalizing(text, |h| hashes.push((h >> 32) as u32));
            let seq = ShingleSeq::from_hashes(hashes.to_vec(), k);
            crate::rules::templates::shrink_large(hashes);
            seq
        })
    }

    /// A sequence of `k`-gram hashes, covering `len + k - 1` tokens.
    fn from_hashes(seq: Vec<u32>, k: usize) -> ShingleSeq {
        let tokens = if seq.is_empty() {
            0
        } else {
            seq.len() + k.max(1) - 1
        };
        ShingleSeq {
            seq,
            tokens,
            sampled: None,
        }
    }

    /// A sketch: sampled keys, the document's tokens, the samples' places.
    pub(crate) fn sketched(keys: Vec<u32>, tokens: usize, sampled: Sampled) -> ShingleSeq {
        ShingleSeq {
            seq: keys,
            tokens,
            sampled: Some(sampled),
        }
    }

    /// Tokens of the document (shingles + k - 1, 0 without shingles).
    pub fn tokens(&self) -> usize {
        self.tokens
    }

    /// Number of shingles (of samples, for a sketch).
    pub fn len(&self) -> usize {
        self.seq.len()
    }

    /// Whether there are no shingles.
    pub fn is_empty(&self) -> bool {
        self.seq.is_empty()
    }

    /// Bytes of memory held.
    pub fn memory_bytes(&self) -> usize {
        (self.seq.capacity() + self.sampled.as_ref().map_or(0, |s| s.pos.capacity())) * 4
    }

    /// The shingle hashes in text order (the high halves of the 64-bit
    /// shingle hashes of [`neardup_text::Shingler`]).
    pub fn hashes(&self) -> &[u32] {
        &self.seq
    }

    /// The sequence as bytes (each hash little-endian), for shipping it
    /// between processes (Spark executors); [`ShingleSeq::from_bytes`]
    /// reads it back. A full sequence's: a sketch ships with
    /// [`ShingleSeq::to_sketch_bytes`].
    pub fn to_bytes(&self) -> Vec<u8> {
        self.seq.iter().flat_map(|h| h.to_le_bytes()).collect()
    }

    /// Reads [`ShingleSeq::to_bytes`] of a sequence of `k`-gram shingles;
    /// `None` when the length is not a whole number of hashes.
    pub fn from_bytes(bytes: &[u8], k: usize) -> Option<ShingleSeq> {
        if bytes.len() % 4 != 0 {
            return None;
        }
        let seq = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Some(ShingleSeq::from_hashes(seq, k))
    }

    /// The sequence without the shingles whose `drop` flag is set (one
    /// flag per shingle): the text with those passages cut out.
    pub(crate) fn without(&self, drop: &[bool], k: usize) -> ShingleSeq {
        let seq = self
            .seq
            .iter()
            .zip(drop)
            .filter(|&(_, &d)| !d)
            .map(|(&h, _)| h)
            .collect();
        ShingleSeq::from_hashes(seq, k)
    }

    pub(crate) fn sorted_set(&self) -> Vec<u32> {
        let mut s = self.seq.clone();
        s.sort_unstable();
        s.dedup();
        s
    }
}

/// The outcome of an exact comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// Exact Jaccard similarity of the shingle sets.
    pub jaccard: f64,
    /// Longest run of tokens of A not covered by B's shingles.
    pub run_a: usize,
    /// Longest run of tokens of B not covered by A's shingles.
    pub run_b: usize,
    /// Tokens at the head of A before the first one B covers.
    pub head_a: usize,
    /// Tokens at the head of B before the first one A covers.
    pub head_b: usize,
    /// Share of A's distinct shingles that B lacks.
    pub missing_a: f64,
    /// Share of B's distinct shingles that A lacks.
    pub missing_b: f64,
}

/// Compares two documents exactly; `k` is the shingle length they were made
/// with. With a sketch on either side, the estimate of
/// [`crate::VerifySketch`].
pub fn compare(a: &ShingleSeq, b: &ShingleSeq, k: usize) -> Comparison {
    if a.sampled.is_some() || b.sampled.is_some() {
        return compare_sampled(a, b, k);
    }
    compare_from(a, b, k, 0.0).unwrap_or_else(|| comparison(0, 0, 0, (0, 0), (0, 0)))
}

/// [`compare`], `None` as soon as the Jaccard similarity is known to be
/// below `least` (before the runs are measured): what verification needs
/// of most candidate pairs, which are not near-duplicates.
fn compare_from(a: &ShingleSeq, b: &ShingleSeq, k: usize, least: f64) -> Option<Comparison> {
    if a.sampled.is_some() || b.sampled.is_some() {
        let c = compare_sampled(a, b, k);
        return (c.jaccard >= least).then_some(c);
    }
    crate::shingle_set::with_sets(|sa, sb| {
        sa.fill(&a.seq);
        // One pass over `b`: its set, the shingles both have, and its runs
        // (which need only `a`'s set).
        sb.reset(b.seq.len());
        let mut runs_b = Runs::new(k);
        let mut shared = 0;
        for (i, &h) in b.seq.iter().enumerate() {
            let in_a = sa.contains(h);
            shared += usize::from(sb.insert(h) & in_a);
            runs_b.step(i, in_a);
        }
        let (na, nb) = (sa.len(), sb.len());
        if comparison(na, nb, shared, (0, 0), (0, 0)).jaccard < least {
            return None;
        }
        let sb: &ShingleSet = sb;
        let ra = uncovered_runs(a, |h| sb.contains(h), k);
        Some(comparison(na, nb, shared, ra, runs_b.finish(b.tokens)))
    })
}

/// The comparison of sets of `na` and `nb` distinct shingles with `shared`
/// in common and these (head, longest) uncovered runs.
pub(crate) fn comparison(
    na: usize,
    nb: usize,
    shared: usize,
    (head_a, run_a): (usize, usize),
    (head_b, run_b): (usize, usize),
) -> Comparison {
    let shared = shared as f64;
    let union = (na + nb) as f64 - shared;
    let missing = |n: usize| if n == 0 { 0.0 } else { 1.0 - shared / n as f64 };
    Comparison {
        jaccard: if union > 0.0 { shared / union } else { 1.0 },
        run_a,
        run_b,
        head_a,
        head_b,
        missing_a: missing(na),
        missing_b: missing(nb),
    }
}

/// Share of `a`'s distinct shingles that `b` has too (1 for an empty `a`).
pub fn containment(a: &ShingleSeq, b: &ShingleSeq) -> f64 {
    set_containment(&a.sorted_set(), &b.sorted_set())
}

/// Runs of tokens of `a` that no shingle of `a` found in the other
/// document (`in_other`) covers (a
/// shingle at position `i` covers tokens `i..i + k`): the run at the head
/// (before the first covered token) and the longest run anywhere.
fn uncovered_runs(a: &ShingleSeq, in_other: impl Fn(u32) -> bool, k: usize) -> (usize, usize) {
    let mut runs = Runs::new(k);
    for (i, &h) in a.seq.iter().enumerate() {
        runs.step(i, in_other(h));
    }
    runs.finish(a.tokens)
}

/// The uncovered runs of [`uncovered_runs`], measured one shingle at a time.
pub(crate) struct Runs {
    k: usize,
    /// Tokens below this index are covered.
    covered_until: usize,
    /// The first covered shingle.
    head: Option<usize>,
    /// The longest run so far.
    best: usize,
}

impl Runs {
    pub(crate) fn new(k: usize) -> Runs {
        Runs {
            k: k.max(1),
            covered_until: 0,
            head: None,
            best: 0,
        }
    }

    /// The shingle at position `i` is (`covered`) or is not in the other
    /// document.
    #[inline]
    pub(crate) fn step(&mut self, i: usize, covered: bool) {
        if covered {
            self.head.get_or_insert(i);
            self.best = self.best.max(i.saturating_sub(self.covered_until));
            self.covered_until = self.covered_until.max(i + self.k);
        }
    }

    /// (head run, longest run) of a sequence covering `tokens` tokens.
    pub(crate) fn finish(self, tokens: usize) -> (usize, usize) {
        let best = self.best.max(tokens.saturating_sub(self.covered_until));
        (self.head.unwrap_or(tokens), best)
    }
}

/// The decision rule of exact verification.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verifier {
    /// Shingle length in tokens.
    pub k: usize,
    /// Least exact Jaccard similarity of a near-duplicate.
    pub threshold: f64,
    /// Longest run of tokens one document may have that the other lacks.
    pub max_foreign_run: usize,
    /// Longest such run at the head of a document: a merged page puts the
    /// other article first, where an editor's note is short.
    pub max_head_run: usize,
    /// Verify on a sketch of the shingles instead of all of them
    /// ([`VerifySketch`]): [`Verifier::shingles`] makes sketches.
    pub sketch: Option<VerifySketch>,
}

impl Default for Verifier {
    fn default() -> Verifier {
        Verifier {
            k: 3,
            threshold: 0.5,
            max_foreign_run: 160,
            max_head_run: 60,
            sketch: None,
        }
    }
}

impl Verifier {
    /// Magic at the start of [`Verifier::params_bytes`].
    pub const PARAMS_MAGIC: [u8; 4] = *b"NDVP";
    /// Version of the format of [`Verifier::params_bytes`].
    pub const PARAMS_VERSION: u8 = 1;

    /// The rule's parameters, versioned: magic `NDVP`, version (1), then
    /// `k` (u32), the threshold (f64 bits), the two run limits (u32), with
    /// a sketch (version 2) its least samples (u32) and coarsest level
    /// (u8), all little-endian, and an `xxh3_64` checksum of what precedes.
    pub fn params_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(38);
        b.extend(Self::PARAMS_MAGIC);
        b.push(match self.sketch {
            None => Self::PARAMS_VERSION,
            Some(_) => Self::PARAMS_VERSION + 1,
        });
        for n in [self.k, self.max_foreign_run, self.max_head_run] {
            b.extend(u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
        }
        b.extend(self.threshold.to_bits().to_le_bytes());
        if let Some(s) = self.sketch {
            b.extend(s.min_samples.to_le_bytes());
            b.push(s.max_level);
        }
        let sum = xxhash_rust::xxh3::xxh3_64(&b);
        b.extend(sum.to_le_bytes());
        b
    }

    /// This verifier on the default verification sketch instead of every
    /// shingle (`neardup dedup --verify-sketch`, the service's
    /// `--store-verify sketch`, the Python engines' `verify_sketch`).
    pub fn sketched(self) -> Verifier {
        Verifier {
            sketch: Some(VerifySketch::default()),
            ..self
        }
    }

    /// What this verifier compares of `text`: its `k`-gram shingles, with
    /// tokens cut by `method`'s segmenter, as the method's signatures cut
    /// them (CJK bigrams for the default method).
    /// With a sketch, the sketch of them.
    pub fn shingles(&self, text: &str, method: &Method) -> ShingleSeq {
        self.sample(ShingleSeq::with_segmenter(text, self.k, method.segmenter()))
    }

    /// What this verifier keeps of a full shingle sequence: the sequence,
    /// or its sketch.
    pub fn sample(&self, seq: ShingleSeq) -> ShingleSeq {
        match &self.sketch {
            Some(s) => s.sample(seq),
            None => seq,
        }
    }

    /// `Some(jaccard)` when the pair is a near-duplicate.
    pub fn verify(&self, a: &ShingleSeq, b: &ShingleSeq) -> Option<f64> {
        self.check(a, b).map(|c| c.jaccard)
    }

    /// The comparison of a pair that is a near-duplicate, `None` otherwise
    /// (an empty document never is): what the corpus-level checks read.
    pub fn check(&self, a: &ShingleSeq, b: &ShingleSeq) -> Option<Comparison> {
        if a.is_empty() || b.is_empty() {
            return None;
        }
        // A pair below the threshold is refused whatever its runs.
        let c = compare_from(a, b, self.k, self.threshold)?;
        self.accepts(&c).then_some(c)
    }

    /// Whether a comparison (of two non-empty documents) passes the rule.
    fn accepts(&self, c: &Comparison) -> bool {
        self.refusal(c).is_none()
    }

    /// Why the rule refuses a comparison (of two non-empty documents),
    /// `None` when it accepts it: the first failing test, in the order
    /// Jaccard, head run, any run.
    pub fn refusal(&self, c: &Comparison) -> Option<VerifyRefusal> {
        if c.jaccard < self.threshold {
            return Some(VerifyRefusal::BelowThreshold {
                jaccard: c.jaccard,
                threshold: self.threshold,
            });
        }
        let head = c.head_a.max(c.head_b);
        if head > self.max_head_run {
            return Some(VerifyRefusal::HeadRun {
                in_a: c.head_a >= c.head_b,
                tokens: head,
                limit: self.max_head_run,
            });
        }
        let run = c.run_a.max(c.run_b);
        if run > self.max_foreign_run {
            return Some(VerifyRefusal::ForeignRun {
                in_a: c.run_a >= c.run_b,
                tokens: run,
                limit: self.max_foreign_run,
            });
        }
        None
    }
}

/// Verification on signatures alone, for a pair without shingles (exact
/// verification off, or a signature given without its text): the method's
/// own rule, then its similarity. `Ok(None)` when the pair is not a
/// near-duplicate (or its similarity is not a number).
///
/// # Errors
/// Signatures of another method, or not comparable.
pub fn verify_signatures(
    method: &Method,
    a: &Signature,
    b: &Signature,
) -> neardup_sketch::Result<Option<f64>> {
    if !method.is_duplicate(a, b)? {
        return Ok(None);
    }
    let s = method.similarity(a, b)?;
    Ok(s.is_finite().then_some(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_sketch::intersection_size;

    fn words(n: usize, seed: usize) -> String {
        (0..n)
            .map(|i| format!("w{}", (i * 7919 + seed * 104729) % 100_003))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn identical_and_disjoint() {
        let a = ShingleSeq::new(&words(100, 1), 3);
        let c = compare(&a, &a, 3);
        assert_eq!((c.jaccard, c.run_a, c.run_b), (1.0, 0, 0));
        let b = ShingleSeq::new(&words(50, 2), 3);
        let c = compare(&a, &b, 3);
        assert_eq!((c.jaccard, c.run_a, c.run_b), (0.0, 100, 50));
    }

    #[test]
    fn runs_measure_the_foreign_block() {
        let body = words(300, 1);
        let note = "editor's note this story was updated";
        let foreign = words(150, 9);
        let original = ShingleSeq::new(&body, 3);
        let noted = ShingleSeq::new(&format!("{note} {body}"), 3);
        let merged = ShingleSeq::new(&format!("{foreign} {body}"), 3);
        let c = compare(&noted, &original, 3);
        assert!(c.run_a <= 8 && c.run_b == 0, "{c:?}");
        let c = compare(&merged, &original, 3);
        assert!((150..=152).contains(&c.run_a), "{c:?}");
        assert_eq!(c.run_b, 0);
        let v = Verifier::default();
        assert!(v.verify(&noted, &original).is_some());
        assert!(compare(&merged, &original, 3).jaccard > 0.65);
        assert_eq!(
            v.verify(&merged, &original),
            None,
            "the merged page is not a copy"
        );
    }

    #[test]
    fn a_foreign_block_at_the_head_is_allowed_less() {
        let body = words(400, 1);
        let block = words(80, 7);
        let original = ShingleSeq::new(&body, 3);
        let head = ShingleSeq::new(&format!("{block} {body}"), 3);
        let tail = ShingleSeq::new(&format!("{body} {block}"), 3);
        let c = compare(&head, &original, 3);
        assert!((80..=82).contains(&c.head_a) && c.head_b == 0, "{c:?}");
        assert_eq!(compare(&tail, &original, 3).head_a, 0);
        let v = Verifier::default();
        assert_eq!(v.verify(&head, &original), None, "80 tokens glued in front");
        assert!(
            v.verify(&tail, &original).is_some(),
            "80 tokens of page furniture after"
        );
    }

    #[test]
    fn a_run_in_the_middle_counts() {
        let (x, y) = (words(100, 1), words(100, 2));
        let mid = ShingleSeq::new(&format!("{x} {} {y}", words(90, 3)), 3);
        let both = ShingleSeq::new(&format!("{x} {y}"), 3);
        let c = compare(&mid, &both, 3);
        assert!((88..=92).contains(&c.run_a), "{c:?}");
    }

    #[test]
    fn symmetric_and_bounded() {
        let a = ShingleSeq::new(&format!("{} {}", words(80, 1), words(40, 5)), 3);
        let b = ShingleSeq::new(&format!("{} {}", words(30, 7), words(80, 1)), 3);
        let (x, y) = (compare(&a, &b, 3), compare(&b, &a, 3));
        assert_eq!(x.jaccard, y.jaccard);
        assert_eq!((x.run_a, x.run_b), (y.run_b, y.run_a));
        assert!((0.0..=1.0).contains(&x.jaccard));
    }

    #[test]
    fn containment_is_directional() {
        let body = words(300, 1);
        let full = ShingleSeq::new(&body, 3);
        let head: String = body.split(' ').take(100).collect::<Vec<_>>().join(" ");
        let part = ShingleSeq::new(&head, 3);
        assert_eq!(containment(&part, &full), 1.0);
        let back = containment(&full, &part);
        assert!((0.32..0.34).contains(&back), "{back}");
    }

    #[test]
    fn bytes_round_trip() {
        let a = ShingleSeq::new(&words(50, 3), 3);
        let back = ShingleSeq::from_bytes(&a.to_bytes(), 3).unwrap();
        assert_eq!(back, a);
        assert_eq!(ShingleSeq::from_bytes(&[], 3), Some(ShingleSeq::default()));
        assert_eq!(ShingleSeq::from_bytes(&[1, 2, 3], 3), None);
    }

    /// The comparison by sorted sets and binary searches: what `compare`
    /// computed before its hash sets.
    fn compare_sorted(a: &ShingleSeq, b: &ShingleSeq, k: usize) -> Comparison {
        let (sa, sb) = (a.sorted_set(), b.sorted_set());
        let ra = uncovered_runs(a, |h| sb.binary_search(&h).is_ok(), k);
        let rb = uncovered_runs(b, |h| sa.binary_search(&h).is_ok(), k);
        let shared = intersection_size(&sa, &sb);
        comparison(sa.len(), sb.len(), shared, ra, rb)
    }

    proptest::proptest! {
        #[test]
        fn hash_sets_compare_as_sorted_sets(
            a in proptest::collection::vec(0u32..64, 0..200),
            b in proptest::collection::vec(0u32..64, 0..200),
            k in 1usize..6,
        ) {
            let (a, b) = (ShingleSeq::from_hashes(a, k), ShingleSeq::from_hashes(b, k));
            proptest::prop_assert_eq!(compare(&a, &b, k), compare_sorted(&a, &b, k));
        }

        #[test]
        fn checking_early_refuses_what_the_full_comparison_refuses(
            a in proptest::collection::vec(0u32..64, 1..200),
            b in proptest::collection::vec(0u32..64, 1..200),
            threshold in 0.0f64..1.0,
        ) {
            let (a, b) = (ShingleSeq::from_hashes(a, 3), ShingleSeq::from_hashes(b, 3));
            let v = Verifier { threshold, ..Verifier::default() };
            let full = compare(&a, &b, 3);
            let expected = v.refusal(&full).is_none().then_some(full);
            proptest::prop_assert_eq!(v.check(&a, &b), expected);
        }
    }

    #[test]
    fn empty_documents_are_never_duplicates() {
        let e = ShingleSeq::new("", 3);
        assert!(e.is_empty());
        assert_eq!(Verifier::default().verify(&e, &e), None);
    }
}

//! Composite pages: a page glued together from two articles.
//!
//! A "merged" page puts part of article A in front of (or after) all of
//! article B. Against a copy of B it has a run of text B lacks, and when A's
//! part is short the pair still passes the Jaccard threshold and the run
//! limits of [`crate::Verifier`]. What gives it away is the corpus: that run
//! is a good share of *another* document, one unrelated to B (a copy of A).
//! An editor's note, a credit line or a reflowed paragraph is nobody else's
//! text.
//!
//! So a verified pair (X, Y) is refused when one of them has a run of at
//! least [`CompositeCheck::min_run`] tokens that the other lacks, and some
//! third document Z
//!
//! * has at least [`CompositeCheck::coverage`] of the run's shingles,
//! * of which the run is at least [`CompositeCheck::share_of_other`] of Z's
//!   own shingles (the run is a real part of Z, not a phrase Z quotes), and
//! * has at least [`CompositeCheck::min_other_len`] shingles, and
//! * is another article than the other page of the pair (less than
//!   [`CompositeCheck::max_in_other`] of its shingles are in it).
//!
//! Third documents are found through an index of a sample of every
//! document's shingles (those whose hash is 0 modulo
//! [`CompositeCheck::sample`]), then checked exactly. The check runs only on
//! pairs that already passed verification with a long foreign run, which are
//! few, and reads the index without changing it: the result does not depend
//! on the number of threads.

use rayon::prelude::*;

use neardup_sketch::{containment, intersection_size};

use crate::verify::{Comparison, ShingleSeq};

/// Settings of the composite page check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompositeCheck {
    /// Shortest run of tokens, missing from the other page, that is looked
    /// up in the corpus.
    pub min_run: usize,
    /// Least share of the run's shingles a third document must have.
    pub coverage: f64,
    /// Least share of the third document's shingles the run must make up.
    pub share_of_other: f64,
    /// Shortest third document, in shingles: a snippet cannot show that a
    /// page was glued together from two.
    pub min_other_len: usize,
    /// The third document must have less than this share of its shingles
    /// in the other page of the pair (it is another article, not a shorter
    /// copy of the same one).
    pub max_in_other: f64,
    /// One shingle in this many (by hash) is indexed to find third
    /// documents; larger saves memory and misses more short runs.
    pub sample: u32,
}

impl Default for CompositeCheck {
    fn default() -> CompositeCheck {
        CompositeCheck {
            min_run: 30,
            coverage: 0.5,
            share_of_other: 0.3,
            min_other_len: 60,
            max_in_other: 0.3,
            sample: 4,
        }
    }
}

impl CompositeCheck {
    /// Every setting as bytes (little endian, in declaration order; the
    /// fractions as `f64` bits), for what must match it exactly: the
    /// online engine's index snapshots.
    pub fn params_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(48);
        b.extend((self.min_run as u64).to_le_bytes());
        b.extend(self.coverage.to_bits().to_le_bytes());
        b.extend(self.share_of_other.to_bits().to_le_bytes());
        b.extend((self.min_other_len as u64).to_le_bytes());
        b.extend(self.max_in_other.to_bits().to_le_bytes());
        b.extend(self.sample.to_le_bytes());
        b
    }

    /// Third documents looked at per run: those with the most sampled
    /// shingles of the run, ties to the earlier document.
    pub const CANDIDATES_PER_RUN: usize = 4;

    /// Documents read per indexed shingle, earliest first, leaving out the
    /// pair itself: a phrase on thousands of pages (furniture) says nothing,
    /// and any of the first few copies of an article serves as well as the
    /// rest.
    pub const POSTINGS_READ: usize = 32;

    /// Documents of a shingle an index that feeds this check must keep,
    /// earliest first: the [`Self::POSTINGS_READ`] it reads and the pair's
    /// own two, which may be among the earliest and are left out.
    pub const POSTINGS_KEPT: usize = Self::POSTINGS_READ + 2;

    /// Keeps, of `postings` `(hash, document)` sorted by hash then
    /// document, the first [`Self::POSTINGS_KEPT`] documents of each hash:
    /// all the check reads of them. The spilled batch engine and the Spark
    /// frontend both cut their postings with it.
    pub fn keep_earliest_per_hash<H: PartialEq + Copy, D>(postings: &mut Vec<(H, D)>) {
        let (mut hash, mut seen) = (None, 0);
        postings.retain(|(h, _)| {
            if hash != Some(*h) {
                (hash, seen) = (Some(*h), 0);
            }
            seen += 1;
            seen <= Self::POSTINGS_KEPT
        });
    }

    /// Whether a verified pair, by its comparison, has a foreign run long
    /// enough to look up.
    pub fn applies_to(&self, c: &Comparison) -> bool {
        c.run_a.max(c.run_b) >= self.min_run
    }

    /// Whether a shingle hash is in the sampled index.
    #[inline]
    pub fn is_sampled(&self, hash: u32) -> bool {
        let n = self.sample.max(1);
        // A mask for the usual powers of two (the default, 4): the same
        // answer as the remainder, without a division per shingle.
        if n.is_power_of_two() {
            hash & (n - 1) == 0
        } else {
            hash % n == 0
        }
    }

    /// The runs of `page` that `other` lacks and that are long enough to
    /// look up (`k`: the shingle length), each as its sorted distinct
    /// shingle hashes.
    pub fn foreign_runs(&self, page: &ShingleSeq, other: &ShingleSeq, k: usize) -> Vec<Vec<u32>> {
        self.runs_of(page, &other.sorted_set(), k)
    }

    fn runs_of(&self, page: &ShingleSeq, other: &[u32], k: usize) -> Vec<Vec<u32>> {
        let min_shingles = (self.min_run + 1).saturating_sub(k.max(1)).max(1);
        foreign_runs(page.hashes(), other, min_shingles)
            .into_iter()
            .map(|(p, q)| {
                let mut run = page.hashes()[p..q].to_vec();
                run.sort_unstable();
                run.dedup();
                run
            })
            .collect()
    }

    /// Whether document `third` makes up a run (sorted distinct hashes, from
    /// [`CompositeCheck::foreign_runs`]) and is another article than
    /// `other`, the page the run is missing from.
    pub fn third_document_covers(
        &self,
        run: &[u32],
        third: &ShingleSeq,
        other: &ShingleSeq,
    ) -> bool {
        self.covers(run, &third.sorted_set(), &other.sorted_set())
    }

    /// Whether some third document makes up `run` (sorted distinct hashes)
    /// and is another article than `other`, the page the run is missing
    /// from: the lookup step of the check, over any index.
    /// `docs_with(hash)` lists the documents holding a sampled hash,
    /// earliest first, without the pair itself (at most
    /// [`CompositeCheck::POSTINGS_READ`] of them are read); `shingles_of`
    /// gives a document's shingles.
    pub fn made_up_by_third<I, S>(
        &self,
        run: &[u32],
        other: &ShingleSeq,
        docs_with: impl FnMut(u32) -> I,
        shingles_of: impl Fn(u32) -> Option<S>,
    ) -> bool
    where
        I: IntoIterator<Item = u32>,
        S: std::borrow::Borrow<ShingleSeq>,
    {
        let candidates = self.third_candidates(run, docs_with);
        if candidates.is_empty() {
            return false;
        }
        let other = other.sorted_set();
        candidates.into_iter().any(|z| {
            shingles_of(z).is_some_and(|zs| self.covers(run, &zs.borrow().sorted_set(), &other))
        })
    }

    /// The third documents [`CompositeCheck::made_up_by_third`] reads for
    /// `run`, in the order it reads them: those with the most sampled
    /// shingles of the run, ties to the earlier document. `docs_with(h)`
    /// gives the documents holding sampled hash `h`, earliest first,
    /// without the pair itself (at most
    /// [`CompositeCheck::POSTINGS_READ`] of them are read).
    pub fn third_candidates<I>(&self, run: &[u32], mut docs_with: impl FnMut(u32) -> I) -> Vec<u32>
    where
        I: IntoIterator<Item = u32>,
    {
        let mut hits: Vec<u32> = Vec::new();
        for &h in run.iter().filter(|&&h| self.is_sampled(h)) {
            hits.extend(docs_with(h).into_iter().take(Self::POSTINGS_READ));
        }
        hits.sort_unstable();
        let mut counted: Vec<(usize, u32)> = hits
            .chunk_by(|x, y| x == y)
            .map(|c| (c.len(), c[0]))
            .collect();
        counted.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        counted
            .into_iter()
            .take(Self::CANDIDATES_PER_RUN)
            .map(|(_, z)| z)
            .collect()
    }

    fn covers(&self, run: &[u32], z_set: &[u32], other_set: &[u32]) -> bool {
        if z_set.len() < self.min_other_len {
            return false;
        }
        let shared = intersection_size(run, z_set) as f64;
        shared >= self.coverage * run.len() as f64
            && shared >= self.share_of_other * z_set.len() as f64
            && containment(z_set, other_set) < self.max_in_other
    }
}

/// The pairs among `suspects` (verified pairs with a long foreign run, as
/// document indices into `seqs`, made with `k`-token shingles) that are a
/// composite page and a page of one of its articles, sorted.
///
/// Only the sampled shingles of the suspects' runs are looked up, so the
/// index holds the postings of those alone: its cost follows the number of
/// suspects, not the size of the corpus.
pub(crate) fn composite_pairs(
    cfg: &CompositeCheck,
    k: usize,
    seqs: &[Option<&ShingleSeq>],
    suspects: &[(u32, u32)],
) -> Vec<(u32, u32)> {
    let lookups: Vec<Lookup> = suspects
        .par_iter()
        .flat_map_iter(|&(a, b)| {
            let mut out = Vec::new();
            if let (Some(x), Some(y)) = (seqs[a as usize], seqs[b as usize]) {
                let (sx, sy) = (x.sorted_set(), y.sorted_set());
                for (page, other, other_set) in [(x, b, &sy), (y, a, &sx)] {
                    out.extend(
                        cfg.runs_of(page, other_set, k)
                            .into_iter()
                            .map(|run| Lookup {
                                pair: (a, b),
                                run,
                                other,
                            }),
                    );
                }
            }
            out
        })
        .collect();
    let mut wanted: Vec<u32> = lookups
        .iter()
        .flat_map(|l| l.run.iter().copied().filter(|&h| cfg.is_sampled(h)))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let index = CompositeIndex::new(*cfg, seqs, &wanted);
    let mut refused: Vec<(u32, u32)> = lookups
        .par_iter()
        .filter(|l| index.third_document_has(l))
        .map(|l| l.pair)
        .collect();
    refused.sort_unstable();
    refused.dedup();
    refused
}

/// A run of one page of a pair, missing from the other page.
struct Lookup {
    pair: (u32, u32),
    /// Sorted distinct shingle hashes.
    run: Vec<u32>,
    /// The page the run is missing from.
    other: u32,
}

/// Sampled shingles to documents, for the hashes looked up.
struct CompositeIndex<'s, 'a> {
    cfg: CompositeCheck,
    seqs: &'s [Option<&'a ShingleSeq>],
    /// `(hash, document)`, sorted.
    postings: Vec<(u32, u32)>,
}

/// High bits of a shingle hash in the filter that rules out the hashes no
/// run wants before their binary search: 2^20 bits (128 KiB, in cache), so
/// that even a few hundred thousand wanted hashes leave most bits clear.
const PREFILTER_BITS: u32 = 20;

impl<'s, 'a> CompositeIndex<'s, 'a> {
    /// The postings of the `wanted` hashes (sorted) in `seqs`.
    fn new(cfg: CompositeCheck, seqs: &'s [Option<&'a ShingleSeq>], wanted: &[u32]) -> Self {
        let filter = PostingFilter::new(cfg, wanted);
        let mut postings: Vec<(u32, u32)> = if wanted.is_empty() {
            Vec::new()
        } else {
            seqs.par_iter()
                .enumerate()
                .filter_map(|(d, s)| Some((d as u32, (*s)?)))
                .fold(Vec::new, |mut found, (d, s)| {
                    filter.postings(d, s.hashes(), &mut found);
                    found
                })
                .flatten_iter()
                .collect()
        };
        postings.par_sort_unstable();
        postings.dedup();
        CompositeIndex {
            cfg,
            seqs,
            postings,
        }
    }

    /// Whether a third document, another article than the page the run is
    /// missing from, makes up the run.
    fn third_document_has(&self, l: &Lookup) -> bool {
        let Some(other) = self.seqs[l.other as usize] else {
            return false;
        };
        let pair = [l.pair.0, l.pair.1];
        let docs_with = |h: u32| {
            let from = self.postings.partition_point(|&(g, _)| g < h);
            self.postings[from..]
                .iter()
                .take_while(move |&&(g, _)| g == h)
                .map(|&(_, d)| d)
                .filter(move |d| !pair.contains(d))
        };
        self.cfg
            .made_up_by_third(&l.run, other, docs_with, |z| self.seqs[z as usize])
    }
}

/// Which hashes of a document the composite check's index holds: the
/// sampled ones among those some run looks up. The one filter of the index
/// in memory, of the pass over spilled sequences and of the Spark pass
/// over every document's shingles.
pub struct PostingFilter<'w> {
    cfg: CompositeCheck,
    /// The hashes looked up, sorted.
    wanted: &'w [u32],
    /// A bit per value of the high [`PREFILTER_BITS`] bits of the wanted
    /// hashes: most hashes are ruled out before the search.
    high: Vec<u64>,
}

impl<'w> PostingFilter<'w> {
    /// The filter of the `wanted` hashes (sorted).
    pub fn new(cfg: CompositeCheck, wanted: &'w [u32]) -> Self {
        let mut high = vec![0u64; 1 << (PREFILTER_BITS - 6)];
        for &h in wanted {
            let (word, bit) = Self::slot(h);
            high[word] |= bit;
        }
        PostingFilter { cfg, wanted, high }
    }

    #[inline]
    fn slot(h: u32) -> (usize, u64) {
        let top = h >> (32 - PREFILTER_BITS);
        ((top >> 6) as usize, 1u64 << (top & 63))
    }

    /// Appends `(hash, d)` for every hash of document `d` the index holds.
    pub fn postings(&self, d: u32, hashes: &[u32], out: &mut Vec<(u32, u32)>) {
        sampled_hashes(&self.cfg, hashes, |h| {
            let (word, bit) = Self::slot(h);
            if self.high[word] & bit != 0 && self.wanted.binary_search(&h).is_ok() {
                out.push((h, d));
            }
        });
    }
}

/// Calls `f` with every hash of `hashes` in the sampled index, in order.
/// With a power-of-two sample (the default), sixteen hashes at a time are
/// tested without a branch (the compiler vectorizes it) and only the one
/// in four that pass are looked at.
fn sampled_hashes(cfg: &CompositeCheck, hashes: &[u32], mut f: impl FnMut(u32)) {
    let n = cfg.sample.max(1);
    if !n.is_power_of_two() {
        hashes
            .iter()
            .filter(|&&h| cfg.is_sampled(h))
            .for_each(|&h| f(h));
        return;
    }
    let mask = n - 1;
    for chunk in hashes.chunks(16) {
        let mut bits = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (j, &h)| acc | (u32::from(h & mask == 0) << j));
        while bits != 0 {
            f(chunk[bits.trailing_zeros() as usize]);
            bits &= bits - 1;
        }
    }
}

/// Maximal runs `(start, end)` of consecutive shingles of `seq` missing from
/// `other` (sorted), at least `min_len` shingles long.
fn foreign_runs(seq: &[u32], other: &[u32], min_len: usize) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, h) in seq.iter().enumerate() {
        let missing = other.binary_search(h).is_err();
        match (missing, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if i - s >= min_len {
                    runs.push((s, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        if seq.len() - s >= min_len {
            runs.push((s, seq.len()));
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_text::{seq, words};

    #[test]
    fn only_the_earliest_postings_of_each_hash_are_kept() {
        let n = CompositeCheck::POSTINGS_KEPT as u32;
        // Hash 1 on more documents than are kept, hash 2 on one, hash 5
        // on exactly as many as are kept.
        let mut p: Vec<(u32, u32)> = (0..n + 6).map(|d| (1, d)).collect();
        p.push((2, 3));
        p.extend((0..n).map(|d| (5, 100 + d)));
        CompositeCheck::keep_earliest_per_hash(&mut p);
        let mut want: Vec<(u32, u32)> = (0..n).map(|d| (1, d)).collect();
        want.push((2, 3));
        want.extend((0..n).map(|d| (5, 100 + d)));
        assert_eq!(p, want);
        let mut none: Vec<(u32, u32)> = Vec::new();
        CompositeCheck::keep_earliest_per_hash(&mut none);
        assert!(none.is_empty());
        // Any hash and document types: the Spark frontend's are 64-bit.
        let mut wide: Vec<(i64, i64)> = (0..n as i64 + 1).map(|d| (-7, d)).collect();
        CompositeCheck::keep_earliest_per_hash(&mut wide);
        assert_eq!(wide.len(), n as usize);
    }

    fn half(text: &str) -> String {
        let w: Vec<&str> = text.split(' ').collect();
        w[..w.len() / 2].join(" ")
    }

    #[test]
    fn sampled_hashes_are_those_of_the_remainder_rule_in_order() {
        let hashes: Vec<u32> = (0..100u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        for sample in [0, 1, 3, 4, 8] {
            let cfg = CompositeCheck {
                sample,
                ..CompositeCheck::default()
            };
            for n in [0, 1, 15, 16, 17, 100] {
                let mut got = Vec::new();
                sampled_hashes(&cfg, &hashes[..n], |h| got.push(h));
                let want: Vec<u32> = hashes[..n]
                    .iter()
                    .copied()
                    .filter(|&h| cfg.is_sampled(h))
                    .collect();
                assert_eq!(got, want, "{sample} {n}");
            }
        }
    }

    #[test]
    fn sampling_is_the_remainder_rule() {
        for sample in [0, 1, 2, 3, 4, 7, 8, 64] {
            let cfg = CompositeCheck {
                sample,
                ..CompositeCheck::default()
            };
            for h in (0..5000u32).chain([u32::MAX - 3, u32::MAX]) {
                let h = h.wrapping_mul(2_654_435_761);
                assert_eq!(cfg.is_sampled(h), h % sample.max(1) == 0, "{sample} {h}");
            }
        }
    }

    #[test]
    fn runs_are_maximal_and_long_enough() {
        let other = [2, 4];
        assert_eq!(
            foreign_runs(&[1, 3, 2, 5, 6, 7, 4, 8], &other, 2),
            vec![(0, 2), (3, 6)]
        );
        assert_eq!(foreign_runs(&[1, 3, 2, 5, 6, 7], &other, 3), vec![(3, 6)]);
        assert!(foreign_runs(&[2, 4], &other, 1).is_empty());
    }

    fn refused(docs: &[Option<&ShingleSeq>], pairs: &[(u32, u32)]) -> Vec<(u32, u32)> {
        composite_pairs(&CompositeCheck::default(), 3, docs, pairs)
    }

    #[test]
    fn half_of_another_article_is_found_in_the_corpus() {
        let (a, b) = (words(120, 1), words(400, 2));
        let merged = seq(&format!("{} {b}", half(&a)));
        let (copy_b, copy_a) = (seq(&b), seq(&a));
        let docs = vec![Some(&merged), Some(&copy_b), Some(&copy_a)];
        assert_eq!(refused(&docs, &[(0, 1)]), vec![(0, 1)]);
        assert_eq!(refused(&docs, &[(1, 0)]), vec![(1, 0)], "either way round");
        // Without A's copy in the corpus, nothing gives the page away.
        assert!(refused(&docs[..2], &[(0, 1)]).is_empty());
    }

    #[test]
    fn an_editors_note_or_a_quoted_phrase_is_not_a_composite() {
        let b = words(400, 2);
        let note = words(20, 3);
        let noted = seq(&format!("{note} {b}"));
        // A long page that quotes the same 40 words: they are a small part
        // of it.
        let quote = words(40, 4);
        let quoting = seq(&format!("{} {quote} {}", words(300, 5), words(300, 6)));
        let quoted = seq(&format!("{quote} {b}"));
        let copy_b = seq(&b);
        let docs = vec![Some(&noted), Some(&copy_b), Some(&quoting), Some(&quoted)];
        assert!(
            refused(&docs, &[(0, 1)]).is_empty(),
            "the note is too short"
        );
        assert!(
            refused(&docs, &[(3, 1)]).is_empty(),
            "the quote is a small part"
        );
    }

    #[test]
    fn a_third_document_related_to_the_other_page_does_not_count() {
        let (a, b) = (words(120, 1), words(400, 2));
        let merged = seq(&format!("{} {b}", half(&a)));
        let copy_b = seq(&b);
        // Another merged copy is not A: it is B's relative.
        let merged_again = seq(&format!("{} {b}", half(&a)));
        let docs = vec![Some(&merged), Some(&copy_b), Some(&merged_again)];
        assert!(refused(&docs, &[(0, 1)]).is_empty());
    }

    #[test]
    fn documents_without_shingles_are_never_composites() {
        let b = seq(&words(100, 2));
        assert!(refused(&[None, Some(&b)], &[(0, 1), (1, 0)]).is_empty());
    }
}

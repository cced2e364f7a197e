//! How each method finds candidate pairs: the method's own rule, read by
//! every engine (the batch candidate search, the online index of the
//! service and Python, the Spark keys), so that none of them copies a
//! constant.

use crate::method::Method;

/// How far below a MinHash method's decision threshold the LSH S-curve is
/// centred, so that pairs just above the threshold are found with high
/// probability (verification removes the false positives).
pub const LSH_MARGIN: f64 = 0.1;

/// Postings of an inverted index longer than this are features too common
/// to say anything (boilerplate sentences, empty paragraphs): they make no
/// candidates.
pub const MAX_POSTING_LEN: usize = 10_000;

/// The LSH weights of false positives and false negatives when bands and
/// rows are picked: towards recall, as verification follows.
pub const LSH_WEIGHTS: (f64, f64) = (0.3, 0.7);

/// How candidate pairs of a method are found: never all pairs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CandidateRule {
    /// LSH bands over MinHash values, the S-curve centred at `threshold`
    /// (already lowered by [`LSH_MARGIN`], at least 0.05), bands and rows
    /// picked with [`LSH_WEIGHTS`].
    Lsh {
        /// Where the S-curve is centred.
        threshold: f64,
    },
    /// SimHash fingerprints within a Hamming distance (permuted tables, or
    /// the pigeonhole principle over `max_distance + 1` blocks).
    Hamming {
        /// The largest Hamming distance of a candidate pair.
        max_distance: u32,
    },
    /// An inverted index over the signature's index keys.
    Keys {
        /// Distinct keys a pair must share.
        min_shared: u32,
        /// Keys held by more documents than this make no candidates.
        max_posting_len: usize,
    },
}

impl Method {
    /// The method's candidate rule.
    ///
    /// ```
    /// use neardup_sketch::{CandidateRule, Method};
    /// let m: Method = "minhash".parse().unwrap();
    /// assert!(matches!(m.candidate_rule(), CandidateRule::Lsh { .. }));
    /// let s: Method = "supershingle".parse().unwrap();
    /// assert!(matches!(s.candidate_rule(), CandidateRule::Keys { min_shared: 2, .. }));
    /// ```
    pub fn candidate_rule(&self) -> CandidateRule {
        let lsh = |t: f64| CandidateRule::Lsh {
            threshold: (t - LSH_MARGIN).clamp(0.05, 1.0),
        };
        match self {
            Method::MinHash(m) => lsh(m.get_threshold()),
            Method::OphMinHash(m) => lsh(m.get_threshold()),
            Method::SimHash(m) => CandidateRule::Hamming {
                max_distance: m.get_max_distance(),
            },
            // A super-shingle is itself a hash of several shingles: one
            // shared by chance says little, two say the pages share text.
            Method::SuperShingle(_) => CandidateRule::Keys {
                min_shared: 2,
                max_posting_len: MAX_POSTING_LEN,
            },
            _ => CandidateRule::Keys {
                min_shared: 1,
                max_posting_len: MAX_POSTING_LEN,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MethodKind;

    #[test]
    fn every_method_has_a_rule() {
        for kind in MethodKind::ALL {
            let rule = Method::with_defaults(kind).candidate_rule();
            match (kind, rule) {
                (
                    MethodKind::MinHash | MethodKind::OphMinHash,
                    CandidateRule::Lsh { threshold },
                ) => {
                    assert!((0.05..1.0).contains(&threshold), "{kind}");
                }
                (MethodKind::SimHash, CandidateRule::Hamming { max_distance }) => {
                    assert_eq!(max_distance, 3);
                }
                (MethodKind::SuperShingle, CandidateRule::Keys { min_shared, .. }) => {
                    assert_eq!(min_shared, 2);
                }
                (
                    _,
                    CandidateRule::Keys {
                        min_shared,
                        max_posting_len,
                    },
                ) => {
                    assert_eq!(
                        (min_shared, max_posting_len),
                        (1, MAX_POSTING_LEN),
                        "{kind}"
                    );
                }
                (kind, rule) => panic!("{kind}: unexpected {rule:?}"),
            }
        }
    }
}

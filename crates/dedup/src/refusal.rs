//! Why exact verification refuses a pair: the typed reason behind
//! [`crate::Verifier::refusal`], which explanations print.

/// Why exact verification refuses a pair ([`crate::Verifier::refusal`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum VerifyRefusal {
    /// The exact Jaccard similarity is below the threshold.
    BelowThreshold {
        /// The pair's exact Jaccard similarity.
        jaccard: f64,
        /// The verifier's threshold.
        threshold: f64,
    },
    /// One page starts with more tokens the other lacks than allowed.
    HeadRun {
        /// Whether the run is in A (else in B).
        in_a: bool,
        /// Its length in tokens.
        tokens: usize,
        /// The verifier's limit.
        limit: usize,
    },
    /// One page has a longer run of tokens the other lacks than allowed.
    ForeignRun {
        /// Whether the run is in A (else in B).
        in_a: bool,
        /// Its length in tokens.
        tokens: usize,
        /// The verifier's limit.
        limit: usize,
    },
}

impl std::fmt::Display for VerifyRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let side = |a: bool| if a { "A" } else { "B" };
        match *self {
            VerifyRefusal::BelowThreshold { jaccard, threshold } => {
                write!(f, "exact Jaccard {jaccard:.4} is below the threshold {threshold}")
            }
            VerifyRefusal::HeadRun { in_a, tokens, limit } => write!(
                f,
                "{} starts with {tokens} tokens the other page lacks (at most {limit} at the head): text glued in front",
                side(in_a)
            ),
            VerifyRefusal::ForeignRun { in_a, tokens, limit } => write!(
                f,
                "{} has a run of {tokens} tokens the other page lacks (at most {limit}): another text in it",
                side(in_a)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_read_as_sentences() {
        let cases = [
            (
                VerifyRefusal::BelowThreshold {
                    jaccard: 0.25,
                    threshold: 0.5,
                },
                "exact Jaccard 0.2500 is below the threshold 0.5",
            ),
            (
                VerifyRefusal::HeadRun {
                    in_a: false,
                    tokens: 80,
                    limit: 60,
                },
                "B starts with 80 tokens",
            ),
            (
                VerifyRefusal::ForeignRun {
                    in_a: true,
                    tokens: 200,
                    limit: 160,
                },
                "A has a run of 200 tokens",
            ),
        ];
        for (r, want) in cases {
            assert!(r.to_string().contains(want), "{r}");
        }
    }
}

//! Explanations: why the engine calls two pages near-duplicates or not,
//! with the very numbers and rules the decision used. `neardup compare`
//! prints them; the report shows them.

use neardup_sketch::Sketcher;

use crate::batch::fingerprinted::Fingerprinted;
use crate::batch::run::Outcome;
use crate::dedup::Dedup;
use crate::refusal::VerifyRefusal;
use crate::verify::{compare, containment, verify_signatures, Comparison, Verifier};

/// The engine's verdict on a pair, and why.
#[derive(Debug, Clone, PartialEq)]
pub enum PairVerdict {
    /// Near-duplicates, at this similarity (exact Jaccard with exact
    /// verification, else the method's measure).
    Duplicate(f64),
    /// A page without text is never a duplicate.
    Empty,
    /// Exact verification refuses the pair.
    Verification(VerifyRefusal),
    /// The method's own rule on signatures refuses it (no exact
    /// verification).
    Signature,
    /// Verification accepts the pair, but a corpus-level rule refuses it
    /// (`composite`, `partial-copy`): only known for pairs of a corpus.
    Rule(&'static str),
}

impl std::fmt::Display for PairVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PairVerdict::Duplicate(s) => write!(f, "near-duplicate (similarity {s:.4})"),
            PairVerdict::Empty => f.write_str("different: a page has no text"),
            PairVerdict::Verification(r) => write!(f, "different: {r}"),
            PairVerdict::Signature => f.write_str("different: the method's rule on signatures"),
            PairVerdict::Rule("composite") => f.write_str(
                "different: the composite page rule (one page has a run of another article of the corpus)",
            ),
            PairVerdict::Rule("partial-copy") => f.write_str(
                "different: the partial copy rule (one page lacks a large part of the other that its other copies have)",
            ),
            PairVerdict::Rule(name) => write!(f, "different: the {name} rule"),
        }
    }
}

/// Everything the engine knows about a pair.
#[derive(Debug, Clone, PartialEq)]
pub struct PairExplanation {
    /// The method's name ([`crate::method_name`]).
    pub method: &'static str,
    /// The exact comparison of the shingles (with exact verification and
    /// two pages with text).
    pub comparison: Option<Comparison>,
    /// Shingles of A and of B.
    pub shingles: (usize, usize),
    /// Share of A's distinct shingles in B, and of B's in A.
    pub containment: Option<(f64, f64)>,
    /// The method's similarity of the two signatures (for MinHash, the
    /// estimated Jaccard).
    pub signature_similarity: Option<f64>,
    /// The verdict.
    pub verdict: PairVerdict,
}

impl PairExplanation {
    /// The explanation as lines of text: the verdict, then the numbers
    /// and the rules it used (`verifier`: the engine's, for the limits).
    pub fn lines(&self, verifier: Option<&Verifier>) -> Vec<String> {
        let mut out = vec![format!(
            "{} method (what `neardup dedup` and `neardup serve` decide): {}",
            self.method, self.verdict
        )];
        if let (Some(c), Some(v)) = (self.comparison, verifier) {
            out.push(format!(
                "  {}-gram shingles: A {}, B {}; exact Jaccard {:.4} (threshold {}){}",
                v.k,
                self.shingles.0,
                self.shingles.1,
                c.jaccard,
                v.threshold,
                self.signature_similarity
                    .map(|s| format!(", estimated by the signatures {s:.4}"))
                    .unwrap_or_default()
            ));
            for (label, run, head) in [("A", c.run_a, c.head_a), ("B", c.run_b, c.head_b)] {
                out.push(format!(
                    "  tokens {label} has that the other lacks: longest run {run} (at most {}), at the head {head} (at most {})",
                    v.max_foreign_run, v.max_head_run
                ));
            }
        } else if let Some(s) = self.signature_similarity {
            out.push(format!("  similarity of the signatures {s:.4}"));
        }
        if let Some((ab, ba)) = self.containment {
            out.push(format!("  containment: A in B {ab:.4}, B in A {ba:.4}"));
        }
        out
    }
}

impl Dedup {
    /// Explains the verdict on two documents on their own (no corpus-level
    /// rule can apply: see [`Dedup::explain_in`]).
    pub fn explain(&self, a: &Fingerprinted, b: &Fingerprinted) -> PairExplanation {
        let method = self.method();
        let signature_similarity = match (&a.signature, &b.signature) {
            (Some(x), Some(y)) => method.similarity(x, y).ok(),
            _ => None,
        };
        let exact = match (self.verifier(), &a.shingles, &b.shingles) {
            (Some(v), Some(x), Some(y)) if !x.is_empty() && !y.is_empty() => Some((v, x, y)),
            _ => None,
        };
        let comparison = exact.map(|(v, x, y)| compare(x, y, v.k));
        let verdict = match (&a.signature, &b.signature, exact, &comparison) {
            (None, _, _, _) | (_, None, _, _) => PairVerdict::Empty,
            (_, _, Some((v, _, _)), Some(c)) => match v.refusal(c) {
                Some(r) => PairVerdict::Verification(r),
                None => PairVerdict::Duplicate(c.jaccard),
            },
            (Some(x), Some(y), _, _) => match verify_signatures(method, x, y) {
                Ok(Some(s)) => PairVerdict::Duplicate(s),
                _ => PairVerdict::Signature,
            },
        };
        PairExplanation {
            method: crate::method_name(method),
            comparison,
            shingles: (
                a.shingles.as_ref().map_or(0, |s| s.len()),
                b.shingles.as_ref().map_or(0, |s| s.len()),
            ),
            containment: exact.map(|(_, x, y)| (containment(x, y), containment(y, x))),
            signature_similarity,
            verdict,
        }
    }

    /// Explains the verdict on documents `a` and `b` of a corpus that
    /// [`Dedup::run`] decided (`docs` as `run` left them: site template
    /// text already cut out): the pair's own explanation, with the
    /// corpus-level rule that refused it, if one did.
    pub fn explain_in(
        &self,
        docs: &[Fingerprinted],
        outcome: &Outcome,
        a: usize,
        b: usize,
    ) -> PairExplanation {
        let mut e = self.explain(&docs[a], &docs[b]);
        let (lo, hi) = (a.min(b) as u32, a.max(b) as u32);
        if let Some(r) = outcome
            .groups
            .refusals
            .iter()
            .find(|r| (r.a, r.b) == (lo, hi))
        {
            e.verdict = PairVerdict::Rule(r.rule);
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_text::words;

    fn doc(dedup: &Dedup, id: &str, text: &str) -> Fingerprinted {
        dedup.fingerprint_doc(id.into(), Some(id.into()), text, &[])
    }

    #[test]
    fn verdicts_name_their_reason() {
        let dedup = Dedup::new();
        let body = words(300, 1);
        let a = doc(&dedup, "a", &body);
        let noted = doc(&dedup, "n", &format!("{body} an editor's note"));
        let e = dedup.explain(&a, &noted);
        assert_eq!(e.method, "default");
        assert!(
            matches!(e.verdict, PairVerdict::Duplicate(s) if s > 0.9),
            "{e:?}"
        );
        let glued = doc(&dedup, "g", &format!("{} {body}", words(80, 2)));
        let e = dedup.explain(&glued, &a);
        assert!(
            matches!(
                e.verdict,
                PairVerdict::Verification(VerifyRefusal::HeadRun { in_a: true, .. })
            ),
            "{e:?}"
        );
        assert!(e.verdict.to_string().contains("glued in front"));
        let other = doc(&dedup, "o", &words(300, 3));
        let e = dedup.explain(&a, &other);
        assert!(matches!(
            e.verdict,
            PairVerdict::Verification(VerifyRefusal::BelowThreshold { .. })
        ));
        let empty = doc(&dedup, "e", " ");
        assert_eq!(dedup.explain(&a, &empty).verdict, PairVerdict::Empty);
        let classic = Dedup::builder()
            .method("minhash".parse().unwrap())
            .verifier(None)
            .build();
        let (x, y) = (
            doc(&classic, "x", &body),
            doc(&classic, "y", &words(300, 3)),
        );
        let e = classic.explain(&x, &y);
        assert_eq!(
            (e.method, e.verdict.clone()),
            ("minhash", PairVerdict::Signature)
        );
        assert!(e.comparison.is_none() && e.signature_similarity.is_some());
    }

    #[test]
    fn a_pair_refused_by_a_corpus_rule_says_which() {
        let dedup = Dedup::new();
        // Half of a short article A glued to all of B, a copy of B, and A.
        let (a, b) = (words(100, 1), words(500, 2));
        let half_a: String = a.split(' ').take(50).collect::<Vec<_>>().join(" ");
        let texts = [format!("{half_a} {b}"), b.clone(), a];
        let mut docs: Vec<Fingerprinted> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| doc(&dedup, &format!("d{i}"), t))
            .collect();
        // On its own, verification accepts the composite and B.
        assert!(matches!(
            dedup.explain(&docs[0], &docs[1]).verdict,
            PairVerdict::Duplicate(_)
        ));
        let out = dedup.run(&mut docs).unwrap();
        let e = dedup.explain_in(&docs, &out, 1, 0);
        assert_eq!(e.verdict, PairVerdict::Rule("composite"));
        assert!(e.verdict.to_string().contains("composite"));
        assert!(matches!(
            dedup.explain_in(&docs, &out, 0, 2).verdict,
            PairVerdict::Verification(_)
        ));
    }
}

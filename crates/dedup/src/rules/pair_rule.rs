//! Corpus-level rules over verified pairs, behind one trait.
//!
//! Exact verification looks at two pages; a corpus-level rule looks at the
//! whole corpus to refuse a pair that verification accepted (a page glued
//! together from two articles, a truncated reprint). The batch engine runs
//! the rules in [`PairRule`] order over the verified pairs: a rule sees the
//! pairs its predecessors kept, and the suspects it asked for (through
//! [`PairRule::is_suspect`]) minus those already refused.
//!
//! Adding a rule: a file with its settings and `impl PairRule`, and one
//! line in [`crate::Dedup`]'s list of rules (`Config::pair_rules`). The site
//! template pass is the other kind of corpus-level rule: it runs before
//! candidate search and changes what is compared
//! ([`crate::Dedup::strip_site_templates`]).

use crate::rules::composite::{composite_pairs, CompositeCheck};
use crate::rules::partial::{partial_pairs, PartialCopyCheck};
use crate::verify::{Comparison, ShingleSeq};

/// What a rule reads: every distinct document's shingles (`None` for one
/// without) and the shingle length.
#[derive(Debug, Clone, Copy)]
pub struct RuleContext<'a> {
    /// Shingles by distinct document index.
    pub seqs: &'a [Option<&'a ShingleSeq>],
    /// Shingle length in tokens.
    pub k: usize,
}

/// A corpus-level rule that refuses verified pairs.
pub trait PairRule: Sync {
    /// The rule's name in explanations and reports (`composite`,
    /// `partial-copy`).
    fn name(&self) -> &'static str;

    /// Whether a verified pair with this comparison must be looked at.
    fn is_suspect(&self, c: &Comparison) -> bool;

    /// The pairs among `suspects` (sorted) that the rule refuses, sorted;
    /// `verified` holds every pair still accepted, with its similarity.
    fn refuse(
        &self,
        ctx: &RuleContext<'_>,
        suspects: &[(u32, u32)],
        verified: &[(u32, u32, f64)],
    ) -> Vec<(u32, u32)>;
}

impl PairRule for CompositeCheck {
    fn name(&self) -> &'static str {
        "composite"
    }

    fn is_suspect(&self, c: &Comparison) -> bool {
        self.applies_to(c)
    }

    fn refuse(
        &self,
        ctx: &RuleContext<'_>,
        suspects: &[(u32, u32)],
        _verified: &[(u32, u32, f64)],
    ) -> Vec<(u32, u32)> {
        composite_pairs(self, ctx.k, ctx.seqs, suspects)
    }
}

impl PairRule for PartialCopyCheck {
    fn name(&self) -> &'static str {
        "partial-copy"
    }

    fn is_suspect(&self, c: &Comparison) -> bool {
        self.applies_to(c)
    }

    fn refuse(
        &self,
        ctx: &RuleContext<'_>,
        suspects: &[(u32, u32)],
        verified: &[(u32, u32, f64)],
    ) -> Vec<(u32, u32)> {
        partial_pairs(self, ctx.seqs, suspects, verified)
    }
}

/// A pair refused by a corpus-level rule, in document indices of the
/// input: what explanations show.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Refusal {
    /// One page of the pair (the earlier in input order).
    pub a: u32,
    /// The other page.
    pub b: u32,
    /// Their exact Jaccard similarity: verification accepted them.
    pub similarity: f64,
    /// The rule that refused them ([`PairRule::name`]).
    pub rule: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_text::{seq, words};
    use crate::Verifier;

    #[test]
    fn each_rule_names_itself_and_picks_its_suspects() {
        let rules: [&dyn PairRule; 2] = [&CompositeCheck::default(), &PartialCopyCheck::default()];
        assert_eq!(rules.map(|r| r.name()), ["composite", "partial-copy"]);
        let body = words(300, 1);
        let full = seq(&body);
        let merged = seq(&format!("{} {body}", words(40, 2)));
        let half: String = body.split(' ').take(170).collect::<Vec<_>>().join(" ");
        let part = seq(&half);
        let v = Verifier::default();
        let m = v.check(&merged, &full).expect("a verified pair");
        assert!(rules[0].is_suspect(&m) && !rules[1].is_suspect(&m));
        let p = v.check(&part, &full).expect("a verified pair");
        assert!(rules[1].is_suspect(&p));
    }
}

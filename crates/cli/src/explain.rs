//! Rendering the engine's explanation of a pair ([`PairExplanation`]) as
//! JSON, for `compare` (its lines of text: [`PairExplanation::lines`]).

use neardup::dedup::{PairExplanation, PairVerdict};
use neardup::Verifier;
use serde_json::{json, Value};

/// The explanation as JSON: the verdict, the reason, and every number the
/// decision used.
pub fn to_json(e: &PairExplanation, verifier: Option<&Verifier>) -> Value {
    let (duplicate, similarity, reason, rule) = match &e.verdict {
        PairVerdict::Duplicate(s) => (true, Some(*s), None, None),
        PairVerdict::Rule(name) => (false, None, Some(e.verdict.to_string()), Some(*name)),
        other => (false, None, Some(other.to_string()), None),
    };
    let rule = rule.or(match &e.verdict {
        PairVerdict::Verification(_) => Some("verification"),
        PairVerdict::Signature => Some("signature"),
        PairVerdict::Empty => Some("empty"),
        _ => None,
    });
    json!({
        "method": e.method,
        "duplicate": duplicate,
        "similarity": similarity,
        "refused_by": rule,
        "reason": reason,
        "shingles": {"k": verifier.map(|v| v.k), "a": e.shingles.0, "b": e.shingles.1},
        "jaccard": e.comparison.map(|c| c.jaccard),
        "threshold": verifier.map(|v| v.threshold),
        "signature_similarity": e.signature_similarity,
        "runs": e.comparison.map(|c| json!({
            "a_longest": c.run_a, "b_longest": c.run_b,
            "a_head": c.head_a, "b_head": c.head_b,
            "max_foreign_run": verifier.map(|v| v.max_foreign_run),
            "max_head_run": verifier.map(|v| v.max_head_run),
        })),
        "containment": e.containment.map(|(ab, ba)| json!({"a_in_b": ab, "b_in_a": ba})),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup::Dedup;

    #[test]
    fn text_and_json_carry_the_verdict_and_numbers() {
        let dedup = Dedup::new();
        let body: String = (0..200).map(|i| format!("w{i} ")).collect();
        let a = dedup.fingerprint_doc("a".into(), None, &body, &[]);
        let b = dedup.fingerprint_doc("b".into(), None, &format!("{body} note"), &[]);
        let e = dedup.explain(&a, &b);
        let v = dedup.verifier();
        let j = to_json(&e, v);
        assert_eq!(j["method"], "default");
        assert_eq!(j["duplicate"], true);
        assert_eq!(j["shingles"]["k"], 3);
        assert!(j["reason"].is_null() && j["runs"]["max_head_run"] == 60);
        let text = e.lines(v).join("\n");
        assert!(text.starts_with("default method"), "{text}");
        assert!(text.contains("near-duplicate") && text.contains("exact Jaccard"));
        let c = dedup.fingerprint_doc("c".into(), None, "other words entirely here now", &[]);
        let j = to_json(&dedup.explain(&a, &c), v);
        assert_eq!(
            (j["duplicate"].clone(), j["refused_by"].clone()),
            (json!(false), json!("verification"))
        );
    }
}

//! Tests of the verification sketch.

use super::*;
use crate::verify::Verifier;

fn words(n: usize, seed: usize) -> String {
    (0..n)
        .map(|i| format!("w{}", (i * 7919 + seed * 104729) % 100_003))
        .collect::<Vec<_>>()
        .join(" ")
}

fn sketcher() -> Verifier {
    Verifier {
        sketch: Some(VerifySketch::default()),
        ..Verifier::default()
    }
}

fn sketch(text: &str) -> ShingleSeq {
    sketcher().sample(ShingleSeq::new(text, 3))
}

#[test]
fn levels_keep_about_min_samples() {
    let s = VerifySketch::default();
    assert_eq!(s.level(10), 0);
    assert_eq!(s.level(63), 0);
    assert_eq!(s.level(64), 1);
    assert_eq!(s.level(350), 3);
    assert_eq!(s.level(1_000_000), 3, "capped at max_level");
    let seq = sketch(&words(400, 1));
    assert!(seq.is_sketch());
    assert!((20..=90).contains(&seq.len()), "{}", seq.len());
    assert_eq!(seq.tokens(), 400);
}

#[test]
fn a_sketch_is_about_three_bytes_a_sample() {
    let seq = sketch(&words(350, 4));
    let bytes = seq.to_sketch_bytes().unwrap();
    assert!(
        bytes.len() <= 4 + 3 * seq.len() + seq.len() / 8,
        "{}",
        bytes.len()
    );
    assert_eq!(ShingleSeq::from_sketch_bytes(&bytes), Some(seq));
    assert_eq!(ShingleSeq::new("a b c", 3).to_sketch_bytes(), None);
    assert_eq!(
        ShingleSeq::from_sketch_bytes(&bytes[..bytes.len() - 1]),
        None
    );
    assert_eq!(ShingleSeq::from_sketch_bytes(&[]), None);
    assert_eq!(ShingleSeq::from_sketch_bytes(&[16, 0, 0]), None);
}

#[test]
fn the_run_rules_hold_on_the_sketch() {
    let v = sketcher();
    let body = words(400, 1);
    let original = sketch(&body);
    let noted = sketch(&format!("editor's note this story was updated {body}"));
    let merged = sketch(&format!("{} {body}", words(150, 9)));
    let tail = sketch(&format!("{body} {}", words(80, 7)));
    assert!(v.verify(&noted, &original).is_some());
    assert!(v.verify(&tail, &original).is_some(), "furniture after");
    assert_eq!(v.verify(&merged, &original), None, "a merged page");
    let mid = sketch(&format!(
        "{} {} {}",
        words(200, 1),
        words(200, 3),
        words(200, 2)
    ));
    let both = sketch(&format!("{} {}", words(200, 1), words(200, 2)));
    let c = compare_sampled(&mid, &both, 3);
    assert!((150..=250).contains(&c.run_a), "{c:?}");
}

#[test]
fn a_stretch_without_samples_is_no_foreign_run() {
    // A long run of one repeated token is one shingle, which the sample
    // keeps at every position or at none: for several such tokens, the
    // copy of a page ending (or starting) with the run still verifies.
    let v = sketcher();
    let head = words(70, 5);
    let mut unsampled = 0;
    for w in 0..16 {
        let run = vec![format!("r{w}"); 230].join(" ");
        let ending = sketch(&format!("{head} {run}"));
        let starting = sketch(&format!("{run} {head}"));
        unsampled += usize::from(ending.len() < 40);
        assert_eq!(v.verify(&ending, &ending), Some(1.0), "r{w} at the end");
        assert_eq!(
            v.verify(&starting, &starting),
            Some(1.0),
            "r{w} at the head"
        );
        let edited = sketch(&format!("{head} a short note {run}"));
        assert!(v.verify(&edited, &ending).is_some(), "r{w} edited");
    }
    assert!(
        unsampled > 0,
        "no run went unsampled: the test tests nothing"
    );
    // A foreign run of distinct tokens is still one.
    let body = words(300, 1);
    let glued = sketch(&format!("{body} {}", words(200, 3)));
    assert_eq!(v.verify(&glued, &sketch(&body)), None);
}

#[test]
fn the_jaccard_estimate_is_close() {
    // Documents sharing a varying part: the estimate within 0.2 of the
    // exact value.
    for shared in [100, 200, 300] {
        let a = format!("{} {}", words(shared, 1), words(400 - shared, 2));
        let b = format!("{} {}", words(shared, 1), words(400 - shared, 3));
        let exact = crate::verify::compare(&ShingleSeq::new(&a, 3), &ShingleSeq::new(&b, 3), 3);
        let est = compare_sampled(&sketch(&a), &sketch(&b), 3);
        assert!(
            (exact.jaccard - est.jaccard).abs() < 0.2,
            "{shared}: {} vs {}",
            exact.jaccard,
            est.jaccard
        );
    }
}

#[test]
fn levels_meet_at_the_coarser() {
    // A document and a shorter copy of its start sit at different levels;
    // a full sequence compares with a sketch too.
    let long = words(400, 5);
    let short: String = long.split(' ').take(120).collect::<Vec<_>>().join(" ");
    let (a, b) = (sketch(&long), sketch(&short));
    let (la, lb) = (level_of(&a), level_of(&b));
    assert!(la > lb, "{la} {lb}");
    let c = compare_sampled(&b, &a, 3);
    assert!(c.missing_a < 0.1, "{c:?}");
    assert!(c.jaccard > 0.15 && c.jaccard < 0.5, "{c:?}");
    let full = ShingleSeq::new(&long, 3);
    assert_eq!(compare_sampled(&full, &a, 3).jaccard, 1.0);
}

#[test]
fn the_sketch_changes_the_engine_identity() {
    let exact = Verifier::default();
    assert_ne!(sketcher().params_bytes(), exact.params_bytes());
    assert_eq!(exact.params_bytes()[4], Verifier::PARAMS_VERSION);
}

proptest::proptest! {
    #[test]
    fn identical_documents_verify_and_disjoint_ones_do_not(
        a in proptest::collection::vec(0u32..5000, 1..600),
        b in proptest::collection::vec(5000u32..10_000, 1..600),
    ) {
        let v = sketcher();
        let text = |ws: &[u32]| ws.iter().map(|w| format!("t{w}")).collect::<Vec<_>>().join(" ");
        let (ta, tb) = (text(&a), text(&b));
        let (sa, sb) = (sketch(&ta), sketch(&tb));
        proptest::prop_assert_eq!(v.verify(&sa, &sa), Some(1.0));
        proptest::prop_assert_eq!(v.verify(&sa, &sb), None);
        let back = ShingleSeq::from_sketch_bytes(&sa.to_sketch_bytes().unwrap());
        proptest::prop_assert_eq!(back.as_ref(), Some(&sa));
    }
}

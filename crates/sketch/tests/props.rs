//! Property tests of every estimator: bounds, symmetry, identity,
//! serialization round trips, MinHash accuracy against exact Jaccard.

mod common;

use neardup_sketch::{
    jaccard, DocText, Method, MethodKind, MinHash, OphMinHash, Signature, Sketcher,
};
use neardup_text::{normalize, NormalizeOptions, ShingleUnit, Shingler};
use proptest::prelude::*;

fn methods() -> Vec<Method> {
    let mut v: Vec<Method> = MethodKind::ALL
        .iter()
        .map(|&k| Method::with_defaults(k))
        .collect();
    v.push("simhash128".parse().unwrap());
    v
}

/// A document from a seed: paragraphs of English-like or Chinese-like text.
fn doc_strategy() -> impl Strategy<Value = Vec<String>> {
    (any::<u64>(), 1usize..4, any::<bool>()).prop_map(|(seed, n, zh)| {
        if zh {
            common::chinese(seed, n)
        } else {
            common::english(seed, n)
        }
    })
}

/// Arbitrary text mixing scripts, punctuation and whitespace.
fn text_strategy() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            "[a-zA-Z]{1,8}",
            "[\u{4E00}-\u{4E20}]{1,4}",
            "[ .,;!?。，\n\t]{1,2}",
            "[ａ-ｚ０-９]{1,3}",
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn similarity_is_bounded_symmetric_and_reflexive(a in doc_strategy(), b in doc_strategy()) {
        let (ta, tb) = (common::join(&a), common::join(&b));
        let (da, db) = (DocText::new(&ta, &a), DocText::new(&tb, &b));
        for m in methods() {
            let (sa, sb) = (m.sketch(&da), m.sketch(&db));
            let ab = m.similarity(&sa, &sb).unwrap();
            let ba = m.similarity(&sb, &sa).unwrap();
            prop_assert!((0.0..=1.0).contains(&ab), "{:?} {}", m.kind(), ab);
            prop_assert_eq!(ab, ba, "{:?} not symmetric", m.kind());
            prop_assert_eq!(m.is_duplicate(&sa, &sb).unwrap(), m.is_duplicate(&sb, &sa).unwrap());
            prop_assert_eq!(m.sketch(&da), sa.clone());
            prop_assert_eq!(m.similarity(&sa, &sa).unwrap(), 1.0);
            prop_assert!(m.is_duplicate(&sa, &sa).unwrap());
        }
    }

    #[test]
    fn arbitrary_text_sketches_round_trip(t in text_strategy()) {
        let doc = DocText::from_text(&t);
        for m in methods() {
            let s = m.sketch(&doc);
            let bytes = s.to_bytes();
            prop_assert_eq!(Signature::from_bytes(&bytes).unwrap(), s.clone());
            prop_assert_eq!(m.similarity(&s, &s).unwrap(), 1.0);
        }
    }

    #[test]
    fn raw_and_prenormalized_paths_agree(t in text_strategy()) {
        let doc = DocText::from_text(&t);
        let norm = normalize(&t, NormalizeOptions::default());
        let (mh, oph) = (MinHash::new(), OphMinHash::new());
        prop_assert_eq!(mh.signature(&doc), mh.signature_of_normalized(&norm));
        prop_assert_eq!(oph.signature(&doc), oph.signature_of_normalized(&norm));
        let ss = neardup_sketch::SuperShingle::new();
        prop_assert_eq!(ss.signature(&doc), ss.signature_of_normalized(&norm));
        let sh = neardup_sketch::SimHash::new();
        prop_assert_eq!(sh.signature(&doc), sh.signature_of_normalized(&norm));
    }

    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = Signature::from_bytes(&bytes);
        let mut framed = b"NDSG\x01".to_vec();
        framed.extend_from_slice(&bytes);
        prop_assert!(Signature::from_bytes(&framed).is_err());
    }

    #[test]
    fn corrupted_signatures_are_rejected(t in text_strategy(), at in any::<usize>(), bit in 0u8..8) {
        let doc = DocText::from_text(&t);
        for m in methods() {
            let mut bytes = m.sketch(&doc).to_bytes();
            let i = at % bytes.len();
            bytes[i] ^= 1 << bit;
            prop_assert!(Signature::from_bytes(&bytes).is_err());
            let cut = at % bytes.len();
            prop_assert!(Signature::from_bytes(&bytes[..cut]).is_err());
        }
    }

    #[test]
    fn normalization_is_idempotent(t in text_strategy()) {
        for o in [NormalizeOptions::default(), NormalizeOptions::STRIP_PUNCTUATION] {
            let once = normalize(&t, o);
            prop_assert_eq!(normalize(&once, o), once.clone());
            prop_assert!(!once.starts_with(' ') && !once.ends_with(' ') && !once.contains("  "));
        }
    }
}

/// Sets with a chosen overlap: `shared` common elements, `only` private ones each.
fn sets(seed: u64, shared: usize, only: usize) -> (Vec<u64>, Vec<u64>) {
    let mut rng = common::Rng(seed);
    let common_part: Vec<u64> = (0..shared).map(|_| rng.next()).collect();
    let mut a = common_part.clone();
    let mut b = common_part;
    a.extend((0..only).map(|_| rng.next()));
    b.extend((0..only).map(|_| rng.next()));
    (a, b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With 128 slots the estimate's standard deviation is at most
    /// sqrt(0.25 / 128) = 0.044; 5 sigma is 0.22, so a failure here means a
    /// biased or broken estimator, not bad luck.
    #[test]
    fn minhash_estimates_within_bounds(seed in any::<u64>(), shared in 0usize..400, only in 1usize..400) {
        let (a, b) = sets(seed, shared, only);
        let exact = shared as f64 / (shared + 2 * only) as f64;
        let mh = MinHash::new();
        let est = mh.signature_of_shingles(&a).jaccard(&mh.signature_of_shingles(&b)).unwrap();
        prop_assert!((est - exact).abs() <= 0.22, "classic {} vs {}", est, exact);
        let oph = OphMinHash::new();
        let est = oph.signature_of_shingles(&a).jaccard(&oph.signature_of_shingles(&b)).unwrap();
        prop_assert!((est - exact).abs() <= 0.22, "oph {} vs {}", est, exact);
    }
}

/// Mean absolute error of both MinHash schemes over many random pairs: the
/// estimators must be unbiased and close to the binomial error.
#[test]
fn minhash_accuracy_classic_vs_oph() {
    let (mh, oph) = (MinHash::new(), OphMinHash::new());
    let (mut err_c, mut err_o, mut bias_c, mut bias_o) = (0.0, 0.0, 0.0, 0.0);
    let trials = 400;
    for t in 0..trials {
        let (shared, only) = (50 + (t * 37) % 300, 20 + (t * 53) % 200);
        let (a, b) = sets(t as u64, shared, only);
        let exact = shared as f64 / (shared + 2 * only) as f64;
        let c = mh
            .signature_of_shingles(&a)
            .jaccard(&mh.signature_of_shingles(&b))
            .unwrap();
        let o = oph
            .signature_of_shingles(&a)
            .jaccard(&oph.signature_of_shingles(&b))
            .unwrap();
        err_c += (c - exact).abs();
        err_o += (o - exact).abs();
        bias_c += c - exact;
        bias_o += o - exact;
    }
    let n = trials as f64;
    // Binomial mean absolute error for J in [0.1, 0.9] with 128 slots is <= 0.036.
    assert!(err_c / n < 0.045, "classic mean abs error {}", err_c / n);
    assert!(err_o / n < 0.045, "oph mean abs error {}", err_o / n);
    assert!((bias_c / n).abs() < 0.01, "classic bias {}", bias_c / n);
    assert!((bias_o / n).abs() < 0.01, "oph bias {}", bias_o / n);
}

/// Estimated Jaccard of documents tracks the exact shingle Jaccard.
#[test]
fn minhash_tracks_exact_document_jaccard() {
    let mh = MinHash::new();
    let mut sh = Shingler::new(ShingleUnit::Token, 5);
    for seed in 0..20 {
        let base = common::english(seed, 4);
        let edited = common::edit(&base, 0.02 * (seed % 5) as f64, seed);
        let (ta, tb) = (common::join(&base), common::join(&edited));
        let (na, nb) = (
            normalize(&ta, NormalizeOptions::default()),
            normalize(&tb, NormalizeOptions::default()),
        );
        let exact = jaccard(&sh.shingle_set(&na), &sh.shingle_set(&nb));
        let est = mh
            .signature_of_normalized(&na)
            .jaccard(&mh.signature_of_normalized(&nb))
            .unwrap();
        assert!((est - exact).abs() < 0.2, "seed {seed}: {est} vs {exact}");
    }
}

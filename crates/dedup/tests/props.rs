//! Properties of the exact comparison and of the shingle sequences that
//! the corpus-level rules and the Spark path rely on.

use neardup_dedup::{compare_shingles, CompositeCheck, PartialCopyCheck, ShingleSeq};
use proptest::prelude::*;

/// A text of words drawn from a small vocabulary, so that two texts share
/// shingles often.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(0u8..24, 0..200).prop_map(|ws| {
        ws.iter()
            .map(|w| format!("w{w}"))
            .collect::<Vec<_>>()
            .join(" ")
    })
}

proptest! {
    #[test]
    fn comparison_is_symmetric_and_bounded(a in text(), b in text()) {
        let (x, y) = (ShingleSeq::new(&a, 3), ShingleSeq::new(&b, 3));
        let (p, q) = (compare_shingles(&x, &y, 3), compare_shingles(&y, &x, 3));
        prop_assert_eq!(p.jaccard, q.jaccard);
        prop_assert_eq!((p.run_a, p.head_a, p.missing_a), (q.run_b, q.head_b, q.missing_b));
        for v in [p.jaccard, p.missing_a, p.missing_b] {
            prop_assert!((0.0..=1.0).contains(&v), "{}", v);
        }
        // What one side lacks bounds the similarity.
        prop_assert!(p.jaccard <= 1.0 - p.missing_a.max(p.missing_b) + 1e-12);
        let same = compare_shingles(&x, &x, 3);
        prop_assert_eq!((same.missing_a, same.run_a), (0.0, 0));
    }

    #[test]
    fn shingle_bytes_round_trip(a in text(), k in 1usize..6) {
        let x = ShingleSeq::new(&a, k);
        prop_assert_eq!(ShingleSeq::from_bytes(&x.to_bytes(), k), Some(x));
    }

    #[test]
    fn foreign_runs_are_missing_from_the_other_page(a in text(), b in text()) {
        let (x, y) = (ShingleSeq::new(&a, 3), ShingleSeq::new(&b, 3));
        let check = CompositeCheck { min_run: 3, ..CompositeCheck::default() };
        for run in check.foreign_runs(&x, &y, 3) {
            prop_assert!(run.windows(2).all(|w| w[0] < w[1]), "sorted and distinct");
            prop_assert!(run.iter().all(|h| !y.hashes().contains(h)));
            prop_assert!(run.iter().all(|h| x.hashes().contains(h)));
        }
    }

    #[test]
    fn a_missing_part_is_what_the_part_lacks(a in text(), b in text()) {
        let (full, part) = (ShingleSeq::new(&a, 3), ShingleSeq::new(&b, 3));
        let check = PartialCopyCheck { missing_share: 0.0, ..PartialCopyCheck::default() };
        if let Some(missing) = check.missing_part(&full, &part) {
            prop_assert!(missing.iter().all(|h| !part.hashes().contains(h)));
            // The full page itself always has its missing part.
            prop_assert!(check.corroborates(&missing, &full));
        }
        prop_assert!(check.missing_part(&full, &full).is_none());
    }
}

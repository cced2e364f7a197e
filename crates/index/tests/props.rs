//! Property tests: indexes against brute force, clustering invariants,
//! determinism, metric identities.

use std::collections::{BTreeSet, HashSet};

use neardup_index::{
    Clusterer, Evaluator, InvertedIndex, LshParams, MemoryStorage, MinHashLsh, SimHashIndex,
};
use proptest::prelude::*;

fn lsh(bands: usize, rows: usize) -> MinHashLsh {
    let mut l = MinHashLsh::new();
    l.set_params(LshParams::new(bands, rows).unwrap());
    l
}

/// Signatures over a tiny alphabet so that bands collide often.
fn signatures() -> impl Strategy<Value = (usize, usize, Vec<Vec<u64>>)> {
    (1usize..5, 1usize..4).prop_flat_map(|(b, r)| {
        let sig = prop::collection::vec(0u64..3, b * r..b * r + 2);
        (Just(b), Just(r), prop::collection::vec(sig, 0..40))
    })
}

fn brute_band_pairs(b: usize, r: usize, sigs: &[Vec<u64>]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for i in 0..sigs.len() {
        for j in i + 1..sigs.len() {
            if (0..b).any(|k| sigs[i][k * r..(k + 1) * r] == sigs[j][k * r..(k + 1) * r]) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

proptest! {
    #[test]
    fn lsh_pairs_are_exactly_the_pairs_with_an_identical_band((b, r, sigs) in signatures()) {
        let l = lsh(b, r);
        let tables = l.build(&sigs).unwrap();
        let pairs = tables.candidate_pairs();
        let brute = brute_band_pairs(b, r, &sigs);
        // Superset of identical-band pairs (and, barring 64-bit hash
        // collisions, nothing else).
        let got: HashSet<_> = pairs.iter().copied().collect();
        prop_assert!(brute.iter().all(|p| got.contains(p)));
        prop_assert_eq!(&pairs, &brute);
        // The incremental index and the spill path agree with the batch.
        let mut idx = l.index();
        for (i, s) in sigs.iter().enumerate() {
            let q = idx.query(s).unwrap();
            let want: Vec<u32> = brute.iter().filter(|p| p.1 == i as u32).map(|p| p.0).collect();
            prop_assert_eq!(q, want);
            idx.insert(i as u32, s).unwrap();
        }
        prop_assert_eq!(&idx.candidate_pairs(), &pairs);
        let mut spilled = Vec::new();
        let mut store = MemoryStorage::new();
        let mut s = l.spill();
        s.set_run_records(3);
        s.candidate_pairs(&sigs, &mut store, |a, c| spilled.push((a, c))).unwrap();
        prop_assert_eq!(&spilled, &pairs);
    }

    #[test]
    fn capped_spill_equals_capped_batch((b, r, sigs) in signatures(), cap in 1usize..4, run in 1usize..50) {
        let mut l = lsh(b, r);
        l.set_max_bucket_len(Some(cap));
        let want = l.build(&sigs).unwrap().candidate_pairs();
        let mut got = Vec::new();
        let mut store = MemoryStorage::new();
        let mut s = l.spill();
        s.set_run_records(run);
        s.candidate_pairs(&sigs, &mut store, |a, c| got.push((a, c))).unwrap();
        prop_assert_eq!(got, want);
    }
}

/// Fingerprints clustered around a few centres, `flips` random bits away.
fn fingerprints() -> impl Strategy<Value = Vec<u64>> {
    (
        prop::collection::vec(any::<u64>(), 1..5),
        prop::collection::vec((0usize..5, prop::collection::vec(0u32..64, 0..6)), 0..60),
    )
        .prop_map(|(centres, docs)| {
            docs.into_iter()
                .map(|(c, bits)| {
                    bits.into_iter()
                        .fold(centres[c % centres.len()], |f, b| f ^ (1u64 << b))
                })
                .collect()
        })
}

proptest! {
    #[test]
    fn simhash_index_finds_every_pair_within_k(fps in fingerprints(), k in 0u32..7) {
        let mut brute = Vec::new();
        for i in 0..fps.len() {
            for j in i + 1..fps.len() {
                let d = (fps[i] ^ fps[j]).count_ones();
                if d <= k {
                    brute.push((i as u32, j as u32, d));
                }
            }
        }
        let mut idx = SimHashIndex::<u64>::new();
        idx.set_max_distance(k).unwrap();
        prop_assert_eq!(&idx.pairs(&fps).unwrap(), &brute);
        for (i, &f) in fps.iter().enumerate() {
            let want: Vec<(u32, u32)> = brute.iter().filter(|p| p.1 == i as u32).map(|p| (p.0, p.2)).collect();
            prop_assert_eq!(idx.query(f), want);
            idx.insert(i as u32, f).unwrap();
        }
        prop_assert_eq!(&idx.candidate_pairs(), &brute);
        // The same fingerprints widened to 128 bits.
        let wide: Vec<u128> = fps.iter().map(|&f| u128::from(f) << 32 | u128::from(f >> 40)).collect();
        let mut w = SimHashIndex::<u128>::new();
        w.set_max_distance(k).unwrap();
        let wide_brute = (0..wide.len()).flat_map(|i| (i + 1..wide.len()).map(move |j| (i, j)))
            .filter_map(|(i, j)| {
                let d = (wide[i] ^ wide[j]).count_ones();
                (d <= k).then_some((i as u32, j as u32, d))
            })
            .collect::<Vec<_>>();
        prop_assert_eq!(w.pairs(&wide).unwrap(), wide_brute);
    }

    #[test]
    fn inverted_index_counts_distinct_shared_features(
        sets in prop::collection::vec(prop::collection::vec(0u64..12, 0..6), 0..30),
        m in 1u32..4,
    ) {
        let mut idx = InvertedIndex::new();
        idx.set_min_shared(m).unwrap();
        idx.set_max_posting_len(None).unwrap();
        let mut brute = Vec::new();
        for i in 0..sets.len() {
            let a: BTreeSet<_> = sets[i].iter().collect();
            for (j, other) in sets.iter().enumerate().skip(i + 1) {
                let b: BTreeSet<_> = other.iter().collect();
                let c = a.intersection(&b).count() as u32;
                if c >= m {
                    brute.push((i as u32, j as u32, c));
                }
            }
        }
        prop_assert_eq!(&idx.pairs(&sets).unwrap(), &brute);
        for (i, s) in sets.iter().enumerate() {
            let want: Vec<(u32, u32)> = brute.iter().filter(|p| p.1 == i as u32).map(|p| (p.0, p.2)).collect();
            prop_assert_eq!(idx.query(s), want);
            idx.insert(i as u32, s).unwrap();
        }
    }
}

/// `n` documents and scored pairs among them (duplicates allowed).
fn scored_pairs() -> impl Strategy<Value = (usize, Vec<(u32, u32, f64)>)> {
    (1usize..25).prop_flat_map(|n| {
        let pair = (
            0..n as u32,
            0..n as u32,
            (0u32..=20).prop_map(|x| f64::from(x) / 20.0),
        );
        (Just(n), prop::collection::vec(pair, 0..80))
    })
}

proptest! {
    #[test]
    fn clusters_never_chain((n, pairs) in scored_pairs(), t in 0.3f64..0.9, rev in any::<bool>()) {
        let mut c = Clusterer::new();
        c.set_threshold(t).unwrap();
        let order: Vec<u32> = if rev { (0..n as u32).rev().collect() } else { (0..n as u32).collect() };
        let g = c.cluster(n, Some(&order), &pairs, None).unwrap();
        let sim = |a: u32, b: u32| pairs.iter()
            .filter(|p| (p.0 == a && p.1 == b) || (p.0 == b && p.1 == a))
            .map(|p| p.2)
            .fold(f64::NEG_INFINITY, f64::max);
        let asg = g.assignments();
        for (d, a) in asg.iter().enumerate() {
            let rep = a.representative;
            prop_assert!(asg[rep as usize].duplicate_of.is_none());
            prop_assert_eq!(asg[rep as usize].representative, rep);
            match a.duplicate_of {
                Some(k) => {
                    prop_assert_eq!(k, rep);
                    prop_assert!(sim(d as u32, rep) >= t);
                    prop_assert_eq!(sim(d as u32, rep), a.similarity);
                }
                None => prop_assert_eq!(rep, d as u32),
            }
        }
        // No two kept documents are similar enough to have merged.
        let kept: Vec<u32> = (0..n as u32).filter(|&d| asg[d as usize].duplicate_of.is_none()).collect();
        for &a in &kept {
            for &b in &kept {
                prop_assert!(a == b || sim(a, b) < t);
            }
        }
        // Union-find clusters are unions of greedy clusters' members' components.
        let u = c.connected_components(n, Some(&order), &pairs).unwrap();
        prop_assert!(u.num_clusters() <= g.num_clusters());
    }

    #[test]
    fn clustering_ignores_pair_order((n, pairs) in scored_pairs(), seed in any::<u64>()) {
        let c = Clusterer::new();
        let mut shuffled = pairs.clone();
        // Deterministic shuffle and flip of pair direction.
        let mut x = seed | 1;
        for i in (1..shuffled.len()).rev() {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            shuffled.swap(i, (x % (i as u64 + 1)) as usize);
        }
        for p in shuffled.iter_mut().step_by(2) {
            *p = (p.1, p.0, p.2);
        }
        let cont: Vec<(u32, u32, f64)> = pairs.iter().map(|p| (p.0, p.1, 1.0 - p.2)).collect();
        let mut cont_shuffled = cont.clone();
        cont_shuffled.reverse();
        prop_assert_eq!(
            c.cluster(n, None, &pairs, Some(&cont)).unwrap(),
            c.cluster(n, None, &shuffled, Some(&cont_shuffled)).unwrap()
        );
        prop_assert_eq!(
            c.connected_components(n, None, &pairs).unwrap().labels(),
            c.connected_components(n, None, &shuffled).unwrap().labels()
        );
    }

    #[test]
    fn metrics_equal_pair_enumeration(
        labels in prop::collection::vec((0u8..5, 0u8..5), 0..40),
    ) {
        let truth: Vec<u8> = labels.iter().map(|l| l.0).collect();
        let pred: Vec<u8> = labels.iter().map(|l| l.1).collect();
        let n = labels.len();
        let (mut tp, mut tt, mut pp) = (0u64, 0u64, 0u64);
        let (mut a, mut b, mut cc, mut d) = (0f64, 0f64, 0f64, 0f64);
        for i in 0..n {
            for j in i + 1..n {
                let st = truth[i] == truth[j];
                let sp = pred[i] == pred[j];
                tt += u64::from(st);
                pp += u64::from(sp);
                tp += u64::from(st && sp);
                match (st, sp) {
                    (true, true) => a += 1.0,
                    (true, false) => b += 1.0,
                    (false, true) => cc += 1.0,
                    (false, false) => d += 1.0,
                }
            }
        }
        let e = Evaluator::new();
        let s = e.pair_scores(&truth, &pred).unwrap();
        prop_assert_eq!((s.true_pairs, s.predicted_pairs, s.correct_pairs), (tt, pp, tp));
        // ARI from the pair-counting form (Hubert & Arabie).
        let ari = e.adjusted_rand_index(&truth, &pred).unwrap();
        let num = 2.0 * (a * d - b * cc);
        let den = (a + b) * (b + d) + (a + cc) * (cc + d);
        if den != 0.0 {
            prop_assert!((ari - num / den).abs() < 1e-9, "{} vs {}", ari, num / den);
        }
    }
}

//! End to end on synthetic shingle sets shaped like the benchmark: originals,
//! reprints (template noise, edits), partial reprints (truncated) and merged
//! pages. MinHash LSH candidates, exact Jaccard verification, greedy
//! clustering vs union-find, scored with the evaluator.

use std::collections::HashSet;

use neardup_index::{Clusterer, Evaluator, InvertedIndex, LshParams, MinHashLsh, Role};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn mix(x: u64, seed: u64) -> u64 {
    let mut z = x ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn minhash(set: &[u64]) -> Vec<u64> {
    (0..128u64)
        .map(|s| set.iter().map(|&x| mix(x, s)).min().unwrap_or(u64::MAX))
        .collect()
}

fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let a: HashSet<_> = a.iter().collect();
    let b: HashSet<_> = b.iter().collect();
    a.intersection(&b).count() as f64 / a.union(&b).count() as f64
}

fn containment(a: &[u64], b: &[u64]) -> f64 {
    let b: HashSet<_> = b.iter().collect();
    a.iter().filter(|x| b.contains(x)).count() as f64 / a.len() as f64
}

struct Corpus {
    docs: Vec<Vec<u64>>,
    truth: Vec<String>,
    roles: Vec<Role<&'static str>>,
}

/// Per source article: original, template reprint (5% extra shingles),
/// edited reprint (4% replaced), a truncated page (first 35%) and a merged
/// page (first half + the next article), the last two clusters of their own.
fn corpus(articles: usize, both_halves_merged: bool) -> Corpus {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let src: Vec<Vec<u64>> = (0..articles)
        .map(|_| (0..300).map(|_| rng.next()).collect())
        .collect();
    let mut c = Corpus {
        docs: Vec::new(),
        truth: Vec::new(),
        roles: Vec::new(),
    };
    for (a, s) in src.iter().enumerate() {
        let mut push = |d: Vec<u64>, t: String, r| {
            c.docs.push(d);
            c.truth.push(t);
            c.roles.push(r);
        };
        push(s.clone(), format!("c{a}"), Role::Original);
        let mut tpl = s.clone();
        tpl.extend((0..15).map(|_| rng.next()));
        push(tpl, format!("c{a}"), Role::Variant("template"));
        let mut ed = s.clone();
        for x in ed.iter_mut().step_by(25) {
            *x = rng.next();
        }
        push(ed, format!("c{a}"), Role::Variant("edited"));
        push(s[..105].to_vec(), format!("t{a}"), Role::Excluded);
        let other = &src[(a + 1) % articles];
        let mut m = if both_halves_merged {
            s.clone()
        } else {
            s[..150].to_vec()
        };
        m.extend_from_slice(other);
        push(m, format!("m{a}"), Role::Excluded);
    }
    c
}

/// Candidates from MinHash LSH (resemblance) and from an inverted index of
/// shingles (30 shared: containment), verified by exact Jaccard.
fn verified(c: &Corpus, params: LshParams) -> Vec<(u32, u32, f64)> {
    let sigs: Vec<Vec<u64>> = c.docs.iter().map(|d| minhash(d)).collect();
    let mut lsh = MinHashLsh::new();
    lsh.set_params(params);
    let mut cands = lsh.build(&sigs).unwrap().candidate_pairs();
    let mut inv = InvertedIndex::new();
    inv.set_min_shared(30).unwrap();
    cands.extend(inv.pairs(&c.docs).unwrap().iter().map(|p| (p.0, p.1)));
    cands.sort_unstable();
    cands.dedup();
    Clusterer::new().verify(&cands, |a, b| {
        Some(jaccard(&c.docs[a as usize], &c.docs[b as usize]))
    })
}

#[test]
fn reprints_found_partial_reprints_reported_not_merged() {
    let c = corpus(20, false);
    let pairs = verified(&c, LshParams::optimal(0.5, 128, 0.5, 0.5).unwrap());
    // Directed containment of every verified pair, both ways.
    let cont: Vec<(u32, u32, f64)> = pairs
        .iter()
        .flat_map(|&(a, b, _)| {
            let (da, db) = (&c.docs[a as usize], &c.docs[b as usize]);
            [(a, b, containment(da, db)), (b, a, containment(db, da))]
        })
        .collect();
    let mut cl = Clusterer::new();
    cl.set_threshold(0.7).unwrap();
    let g = cl.cluster(c.docs.len(), None, &pairs, Some(&cont)).unwrap();
    let labels = g.labels();
    let e = Evaluator::new();
    let s = e.pair_scores(&c.truth, &labels).unwrap();
    assert_eq!((s.precision, s.recall), (1.0, 1.0), "{s:?}");
    let kinds = e.recall_by_kind(&c.truth, &labels, &c.roles).unwrap();
    assert!(kinds.values().all(|k| k.hits == k.total && k.total == 20));
    // Each truncated page (index 5a + 3) is reported as contained in its
    // original, the template and the edited reprint; nothing else is.
    for a in 0..20u32 {
        let t = 5 * a + 3;
        let hits: Vec<u32> = g
            .contained()
            .iter()
            .filter(|x| x.contained == t)
            .map(|x| x.container)
            .collect();
        assert!(
            hits.contains(&(5 * a)) && hits.contains(&(5 * a + 1)),
            "{a}: {hits:?}"
        );
    }
    assert!(g
        .contained()
        .iter()
        .all(|x| x.resemblance.unwrap_or(0.0) < 0.7));
}

#[test]
fn a_page_holding_two_articles_bridges_only_under_union_find() {
    // Merged pages hold all of two articles: Jaccard 0.5 with each, so at
    // threshold 0.5 each one bridges two clusters. Every pair is verified.
    let c = corpus(10, true);
    let n = c.docs.len() as u32;
    let all: Vec<(u32, u32)> = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .collect();
    let mut cl = Clusterer::new();
    cl.set_threshold(0.5).unwrap();
    let pairs = cl.verify(&all, |a, b| {
        Some(jaccard(&c.docs[a as usize], &c.docs[b as usize]))
    });
    let e = Evaluator::new();
    let greedy = cl
        .cluster(c.docs.len(), None, &pairs, None)
        .unwrap()
        .labels();
    let uf = cl
        .connected_components(c.docs.len(), None, &pairs)
        .unwrap()
        .labels();
    let sg = e.pair_scores(&c.truth, &greedy).unwrap();
    let su = e.pair_scores(&c.truth, &uf).unwrap();
    // Greedy: each merged page joins its first article's cluster (3 false
    // pairs each; the last one, A9 + A0, ties and joins A0, whose cluster
    // already holds the merged page A0 + A1: 4), nothing else moves.
    assert_eq!(
        (sg.correct_pairs, sg.predicted_pairs, sg.recall),
        (30, 61, 1.0)
    );
    // Union-find collapses the ring of 10 articles into one cluster of 40.
    assert_eq!(su.predicted_pairs, 40 * 39 / 2);
    assert!(sg.f1 > 0.6 && su.f1 < 0.1, "{sg:?} {su:?}");
    let (ag, au) = (
        e.adjusted_rand_index(&c.truth, &greedy).unwrap(),
        e.adjusted_rand_index(&c.truth, &uf).unwrap(),
    );
    assert!(ag > 0.6 && au < 0.1, "{ag} {au}");
}

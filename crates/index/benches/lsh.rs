//! MinHash LSH build + candidate pairs on 100k synthetic signatures
//! (128 values, default parameters: 14 bands x 9 rows). A fifth of the
//! documents are near-copies (a few values changed) of an earlier one, so
//! the candidate stage has real work.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use neardup_index::MinHashLsh;

const DOCS: usize = 100_000;
const PERM: usize = 128;

fn signatures() -> Vec<Vec<u32>> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut sigs: Vec<Vec<u32>> = Vec::with_capacity(DOCS);
    for i in 0..DOCS {
        if i > 0 && next() % 5 == 0 {
            let src = (next() % i as u64) as usize;
            let mut s = sigs[src].clone();
            for _ in 0..8 {
                let k = (next() % PERM as u64) as usize;
                s[k] = next() as u32;
            }
            sigs.push(s);
        } else {
            sigs.push((0..PERM).map(|_| next() as u32).collect());
        }
    }
    sigs
}

fn bench(c: &mut Criterion) {
    let sigs = signatures();
    let lsh = MinHashLsh::new();
    let mut g = c.benchmark_group("lsh_100k");
    g.sample_size(10);
    g.bench_function("build", |b| b.iter(|| black_box(lsh.build(&sigs).unwrap())));
    g.bench_function("build+candidate_pairs", |b| {
        b.iter(|| black_box(lsh.build(&sigs).unwrap().candidate_pairs()))
    });
    let tables = lsh.build(&sigs).unwrap();
    g.bench_function("candidate_pairs", |b| {
        b.iter(|| black_box(tables.candidate_pairs()))
    });
    g.bench_function("incremental insert", |b| {
        b.iter(|| {
            let mut idx = lsh.index();
            idx.reserve(sigs.len());
            for (i, s) in sigs.iter().enumerate() {
                idx.insert(i as u32, s).unwrap();
            }
            black_box(idx.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

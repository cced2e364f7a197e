//! Extraction throughput over the fixture pages.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup_extract::Extractor;

const PAGES: &[(&str, &str)] = &[
    ("news", include_str!("../tests/data/news.html")),
    ("forum", include_str!("../tests/data/forum.html")),
    ("zh", include_str!("../tests/data/zh.html")),
];

fn bench(c: &mut Criterion) {
    let ex = Extractor::new();
    let mut group = c.benchmark_group("extract");
    for (name, html) in PAGES {
        group.throughput(Throughput::Bytes(html.len() as u64));
        group.bench_function(*name, |b| b.iter(|| ex.extract(html)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

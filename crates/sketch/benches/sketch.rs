//! Sketching throughput on ~1.5 KB English-like texts (about 250 words):
//! MinHash (classic vs one-permutation, 128 slots, word 5-grams) from
//! normalized text, from raw text, and on precomputed shingle hashes
//! (kernels); SimHash 64/128; super-shingles; normalization and shingling
//! alone. Throughput is in documents (signatures) per second.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup_sketch::{DocText, MinHash, OphMinHash, SimHash, SuperShingle};
use neardup_text::{normalize, NormalizeOptions, ShingleUnit, Shingler};

const SYLLABLES: [&str; 16] = [
    "ka", "lo", "mi", "ter", "an", "so", "rel", "vi", "pu", "den", "gra", "ot", "ble", "is", "mon",
    "ra",
];

fn corpus(n: usize) -> Vec<String> {
    let mut state = 0x1234_5678u64;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    (0..n)
        .map(|_| {
            let mut s = String::new();
            while s.len() < 1500 {
                // Zipf-like rank over 5000 words.
                let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
                let mut r = 5000f64.powf(u) as usize;
                loop {
                    s.push_str(SYLLABLES[r % 16]);
                    r /= 16;
                    if r == 0 {
                        break;
                    }
                }
                s.push(if next() % 12 == 0 { '.' } else { ' ' });
                if s.ends_with('.') {
                    s.push(' ');
                }
            }
            s
        })
        .collect()
}

fn each<T>(docs: &[String], f: impl Fn(&str) -> T) {
    for d in docs {
        black_box(f(d));
    }
}

fn bench(c: &mut Criterion) {
    let docs = corpus(200);
    let normalized: Vec<String> = docs
        .iter()
        .map(|d| normalize(d, NormalizeOptions::default()))
        .collect();
    let mut g = c.benchmark_group("sketch");
    g.throughput(Throughput::Elements(docs.len() as u64));

    g.bench_function("normalize", |b| {
        b.iter(|| each(&docs, |d| normalize(d, NormalizeOptions::default())))
    });
    let mut sh = Shingler::new(ShingleUnit::Token, 5);
    let mut out = Vec::new();
    g.bench_function("shingles_word5", |b| {
        b.iter(|| {
            for d in &normalized {
                out.clear();
                sh.extend(d, &mut out);
                black_box(&out);
            }
        })
    });

    let mh = MinHash::new();
    g.bench_function("minhash_classic_128", |b| {
        b.iter(|| each(&normalized, |d| mh.signature_of_normalized(d)))
    });
    g.bench_function("minhash_classic_128_from_raw_text", |b| {
        b.iter(|| each(&docs, |d| mh.signature(&DocText::from_text(d))))
    });
    let oph = OphMinHash::new();
    g.bench_function("minhash_oph_128", |b| {
        b.iter(|| each(&normalized, |d| oph.signature_of_normalized(d)))
    });
    g.bench_function("minhash_oph_128_from_raw_text", |b| {
        b.iter(|| each(&docs, |d| oph.signature(&DocText::from_text(d))))
    });
    // Kernels alone, on precomputed shingle hashes.
    let pre: Vec<Vec<u64>> = normalized.iter().map(|d| sh.shingles(d)).collect();
    g.bench_function("minhash_classic_128_kernel", |b| {
        b.iter(|| {
            for p in &pre {
                black_box(mh.signature_of_shingles(p));
            }
        })
    });
    g.bench_function("minhash_oph_128_kernel", |b| {
        b.iter(|| {
            for p in &pre {
                black_box(oph.signature_of_shingles(p));
            }
        })
    });
    let sim = SimHash::new();
    g.bench_function("simhash_64", |b| {
        b.iter(|| each(&normalized, |d| sim.signature_of_normalized(d)))
    });
    let mut sim128 = SimHash::new();
    sim128.wide(true);
    g.bench_function("simhash_128", |b| {
        b.iter(|| each(&normalized, |d| sim128.signature_of_normalized(d)))
    });
    let ss = SuperShingle::new();
    g.bench_function("supershingle_84", |b| {
        b.iter(|| each(&normalized, |d| ss.signature_of_normalized(d)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

#!/usr/bin/env python3
"""Fingerprints per second, one thread, side by side on the same texts:
neardup (MinHash classic and one-permutation, SimHash 64) against datasketch
MinHash, rensa RMinHash and the `simhash` package.

  bench/.venv/bin/python bench/sketch_compare.py CORPUS.jsonl [--limit 20000]

The Python tools get their shingles (word 5-grams, lower-cased) precomputed
and only the hashing is timed. neardup is timed three ways: from raw text
(its own normalization and shingling included), from the same precomputed
shingle strings as the Python tools (hashing each string, then the
permutations: what rensa's `RMinHash.update` does) and from the 64-bit
hashes of those shingles (the permutations alone).
"""
import argparse, json, os, subprocess, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.environ.get('NEARDUP_BENCH', os.path.join(ROOT, 'target', 'release', 'neardup-bench'))


def shingles(text, k=5):
    w = text.lower().split()
    return [' '.join(w[i:i + k]) for i in range(max(1, len(w) - k + 1))]


def best_rate(fn, items, rounds=3):
    best = 0.0
    for _ in range(rounds):
        t = time.perf_counter()
        for x in items:
            fn(x)
        best = max(best, len(items) / (time.perf_counter() - t))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('corpus')
    ap.add_argument('--limit', type=int, default=20000)
    a = ap.parse_args()
    texts = []
    with open(a.corpus) as f:
        for line in f:
            texts.append(json.loads(line)['text'])
            if len(texts) >= a.limit:
                break
    sh = [shingles(t) for t in texts]
    sh_bytes = [[s.encode() for s in x] for x in sh]
    rows = []
    out = subprocess.run([BENCH, 'sketch', a.corpus, '--limit', str(a.limit), '--precomputed'],
                         capture_output=True, text=True, check=True)
    inputs = {'raw-text': 'from raw text', 'shingle-strings': 'hashing of precomputed shingle strings',
              'shingle-hashes': 'on precomputed shingle hashes'}
    for line in out.stdout.splitlines():
        o = json.loads(line)
        rows.append((f"neardup {o['method']} ({inputs[o.get('input', 'raw-text')]})", o['per_second']))
    import rensa
    rows.append(('rensa RMinHash 128 (hashing of precomputed shingle strings)', best_rate(lambda s: rensa.RMinHash(128, 42).update(s), sh)))
    from datasketch import MinHash
    def ds(s):
        m = MinHash(num_perm=128, seed=42)
        m.update_batch(s)
    rows.append(('datasketch MinHash 128 (hashing only)', best_rate(ds, sh_bytes[:max(1, len(sh) // 10)], 1)))
    from simhash import Simhash
    rows.append(('simhash Simhash 64 (from word tokens)', best_rate(lambda t: Simhash(t.lower().split()), texts[:max(1, len(texts) // 10)], 1)))
    print(f'{len(texts)} documents of {a.corpus}, one thread')
    print('| tool | signatures/s |')
    print('|---|---|')
    for name, rate in rows:
        print(f'| {name} | {rate:,.0f} |')


if __name__ == '__main__':
    main()

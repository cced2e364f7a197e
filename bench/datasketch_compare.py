#!/usr/bin/env python3
"""neardup's datasketch-compatible API against datasketch itself, on the
same token sets, one thread: sketching speed (one `update` per element,
`update_batch`), LSH insert and query, estimate agreement and pickle sizes.

  python bench/datasketch_compare.py [--sets 2000] [--tokens 200] [--num-perm 128]

Needs `neardup` (the wheel of crates/python) and `datasketch` installed in
the interpreter that runs it. The sets are synthetic and deterministic:
groups of near-duplicate sets (10 % of the tokens changed) among unrelated
ones, tokens are bytes.
"""
import argparse
import pickle
import random
import statistics
import time

import datasketch
import neardup


def make_sets(n, tokens, seed=1):
    rng = random.Random(seed)
    sets = []
    while len(sets) < n:
        base = [f"t{rng.getrandbits(40)}".encode() for _ in range(tokens)]
        sets.append(base)
        for _ in range(3):
            s = list(base)
            for i in rng.sample(range(tokens), tokens // 10):
                s[i] = f"t{rng.getrandbits(40)}".encode()
            sets.append(s)
    return sets[:n]


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def sketches(lib, sets, num_perm, batch):
    out = []
    for s in sets:
        m = lib.MinHash(num_perm=num_perm)
        if batch:
            m.update_batch(s)
        else:
            for x in s:
                m.update(x)
        out.append(m)
    return out


def lsh_run(lib, ms, num_perm, threshold):
    lsh = lib.MinHashLSH(threshold=threshold, num_perm=num_perm)
    _, t_ins = timed(lambda: [lsh.insert(i, m) for i, m in enumerate(ms)])
    res, t_q = timed(lambda: [lsh.query(m) for m in ms])
    return res, t_ins, t_q


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", type=int, default=2000)
    ap.add_argument("--tokens", type=int, default=200)
    ap.add_argument("--num-perm", type=int, default=128)
    ap.add_argument("--threshold", type=float, default=0.5)
    a = ap.parse_args()
    sets = make_sets(a.sets, a.tokens)
    elements = a.sets * a.tokens
    print(f"{a.sets} sets of {a.tokens} tokens, num_perm={a.num_perm}, "
          f"datasketch {datasketch.__version__ if hasattr(datasketch, '__version__') else '?'}, "
          f"neardup {neardup.__version__}")
    print("| step | datasketch | neardup | speed-up |")
    print("|---|---|---|---|")
    got = {}
    for name, batch in [("update, one per element", False), ("update_batch", True)]:
        rates = {}
        for lib in (datasketch, neardup):
            ms, t = timed(lambda: sketches(lib, sets, a.num_perm, batch))
            got[lib.__name__] = ms
            rates[lib.__name__] = elements / t
        d, n = rates["datasketch"], rates["neardup"]
        print(f"| {name} (elements/s) | {d:,.0f} | {n:,.0f} | {n / d:.1f}x |")
    res = {}
    for lib in (datasketch, neardup):
        r, t_ins, t_q = lsh_run(lib, got[lib.__name__], a.num_perm, a.threshold)
        res[lib.__name__] = (r, t_ins, t_q)
    for i, step in [(1, "LSH insert"), (2, "LSH query")]:
        d = a.sets / res["datasketch"][i]
        n = a.sets / res["neardup"][i]
        print(f"| {step} (sketches/s) | {d:,.0f} | {n:,.0f} | {n / d:.1f}x |")
    # Agreement on pairs: every set against its near-duplicates and one
    # unrelated set.
    diffs, errs_d, errs_n = [], [], []
    ds, nd = got["datasketch"], got["neardup"]
    for i in range(0, a.sets - 4, 4):
        for j in (i + 1, i + 2, i + 4):
            true = len(set(sets[i]) & set(sets[j])) / len(set(sets[i]) | set(sets[j]))
            jd, jn = ds[i].jaccard(ds[j]), nd[i].jaccard(nd[j])
            diffs.append(abs(jd - jn))
            errs_d.append(abs(jd - true))
            errs_n.append(abs(jn - true))
    print()
    print(f"pairs: {len(diffs)}; mean |error| to the true Jaccard: datasketch "
          f"{statistics.mean(errs_d):.4f}, neardup {statistics.mean(errs_n):.4f}; "
          f"mean |datasketch - neardup| {statistics.mean(diffs):.4f}")
    same = sum(set(x) == set(y) for x, y in zip(res["datasketch"][0], res["neardup"][0]))
    print(f"LSH query results identical for {same} of {a.sets} queries")
    m_d, m_n = ds[0], nd[0]
    print(f"pickle bytes: datasketch MinHash {len(pickle.dumps(m_d))}, LeanMinHash "
          f"{len(pickle.dumps(datasketch.LeanMinHash(m_d)))}; neardup MinHash "
          f"{len(pickle.dumps(m_n))}, LeanMinHash {len(pickle.dumps(neardup.LeanMinHash(m_n)))}")


if __name__ == "__main__":
    main()

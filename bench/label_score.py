#!/usr/bin/env python3
"""Pairwise precision, recall and F1 of a `neardup dedup` output against
the labels of a `neardup-bench` corpus (its `cluster` field), streaming, for
corpora too large for `dedup_compare.py` (10^7 documents).

  python3 bench/label_score.py CORPUS.jsonl OUTPUT.jsonl
  zstdcat CORPUS.jsonl.zst | python3 bench/label_score.py - OUTPUT.jsonl

The two files hold the same ids in the same order (neardup writes one line
per input document, in input order). Ids and clusters of `realtext` are
`r` and a number. Standard library only.
"""
import json, sys
from collections import Counter

KEY = b'"cluster":"'


def number(s):
    return int(s.lstrip('r'))


def main():
    corpus, output = sys.argv[1:3]
    both, truth, pred = Counter(), Counter(), Counter()
    with (sys.stdin.buffer if corpus == '-' else open(corpus, 'rb')) as c, open(output) as o:
        for line, out in zip(c, o):
            at = line.rindex(KEY) + len(KEY)
            t = number(line[at:line.index(b'"', at)].decode())
            p = number(json.loads(out)['cluster'])
            truth[t] += 1
            pred[p] += 1
            both[t << 32 | p] += 1

    def pairs(counts):
        return sum(n * (n - 1) // 2 for n in counts.values())

    tp, tp_fp, tp_fn = pairs(both), pairs(pred), pairs(truth)
    p = tp / tp_fp if tp_fp else 1.0
    r = tp / tp_fn if tp_fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    print(json.dumps({'documents': sum(truth.values()), 'true_pairs': tp_fn, 'found_pairs': tp_fp,
                      'precision': round(p, 5), 'recall': round(r, 5), 'f1': round(f, 5)}))


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""Pairwise precision, recall and F1 of a `neardup dedup` output against
the labels of a `neardup-bench` corpus (its `cluster` field), streaming, for
corpora too large for `dedup_compare.py` (10^7 documents).

  python3 bench/label_score.py CORPUS.jsonl OUTPUT.jsonl
  zstdcat CORPUS.jsonl.zst | python3 bench/label_score.py - OUTPUT.jsonl

The two files hold the same ids in the same order (neardup writes one line
per input document, in input order). Ids and clusters of `realtext` are
`r` and a number. CORPUS may be the labels `neardup-bench realtext
--labels` writes. Counts are arrays of 4 bytes a cluster number (a dict
only for documents whose predicted and true clusters differ), so 10^8
documents take about 1.2 GB. Standard library only.
"""
import json, sys
from array import array
from collections import Counter


class Counts:
    """How many documents each cluster number has: 4 bytes a number."""

    def __init__(self):
        self.a = array('I')

    def add(self, k):
        if k >= len(self.a):
            self.a.extend(array('I', [0]) * max(k + 1 - len(self.a), len(self.a)))
        self.a[k] += 1

    def values(self):
        return (n for n in self.a if n > 1)

KEY = b'"cluster":"'


def number(s):
    return int(s.lstrip('r'))


def main():
    corpus, output = sys.argv[1:3]
    # Pairs in the same true and predicted cluster: by cluster number where
    # the two agree (nearly every document), by the pair of them elsewhere.
    agree, differ, truth, pred = Counts(), Counter(), Counts(), Counts()
    with (sys.stdin.buffer if corpus == '-' else open(corpus, 'rb')) as c, open(output) as o:
        for line, out in zip(c, o):
            at = line.rindex(KEY) + len(KEY)
            t = number(line[at:line.index(b'"', at)].decode())
            p = number(json.loads(out)['cluster'])
            truth.add(t)
            pred.add(p)
            if t == p:
                agree.add(t)
            else:
                differ[t << 32 | p] += 1

    def pairs(counts):
        return sum(n * (n - 1) // 2 for n in counts.values())

    tp, tp_fp, tp_fn = pairs(agree) + pairs(differ), pairs(pred), pairs(truth)
    p = tp / tp_fp if tp_fp else 1.0
    r = tp / tp_fn if tp_fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    print(json.dumps({'documents': sum(truth.a), 'true_pairs': tp_fn, 'found_pairs': tp_fp,
                      'precision': round(p, 5), 'recall': round(r, 5), 'f1': round(f, 5)}))


if __name__ == '__main__':
    main()

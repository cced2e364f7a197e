#!/usr/bin/env python3
"""Exact substring dedup: `neardup spans --unit substring` against Lee et al.'s
suffix-array tool (deduplicate-text-datasets, `../shared/anchors`), end to end
on the same JSON Lines corpus, in one run.

The anchor runs as its README and scripts say: Python glue writes the corpus
as one byte file with `\\xff\\xff` + document number separators (as its
`load_dataset.py` does), `scripts/make_suffix_array.py` builds the suffix
array (parallel `make-part` jobs and `merge`), then `self-similar` and
`collect` at `--length-threshold 100`, and the glue turns the byte ranges
back into per-document character ranges. Every step is timed, and the peak
memory is that of the whole process tree (sampled every 20 ms), for both
tools.

The anchor must be built from a writable copy first (its scripts call the
debug build, which its Cargo.toml compiles with opt-level 3):

    cp -r ../shared/anchors/deduplicate-text-datasets /tmp/anchor
    (cd /tmp/anchor && cargo build && cargo build --release)
    python3 bench/substr_compare.py --anchor /tmp/anchor --corpus corpus.jsonl

Make a corpus with `neardup-bench substrcorpus --docs 200000 -o corpus.jsonl`
(real paragraphs of ../shared/eval with planted copied runs, about 200 MB).
"""

import argparse
import bisect
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spans_compare import tree_rss  # noqa: E402  (resident memory of a process tree)


class Peak:
    """Samples the memory of this process's children while running."""

    def __init__(self):
        self.peak = 0
        self.stop = False
        self.t = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        me = os.getpid()
        while not self.stop:
            self.peak = max(self.peak, tree_rss(me))
            time.sleep(0.02)

    def __enter__(self):
        self.t.start()
        return self

    def __exit__(self, *a):
        self.stop = True
        self.t.join()


def sh(cmd, cwd=None, stdout=None):
    r = subprocess.run(cmd, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, shell=isinstance(cmd, str))
    if r.returncode != 0:
        sys.exit(f"failed: {cmd}\n{r.stderr.decode(errors='replace')[-2000:]}")


def read_corpus(path):
    docs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            docs.append((d["id"], d["text"]))
    return docs


def run_anchor(anchor, corpus, work, threads):
    """Lee et al.'s pipeline with its glue; returns {doc index: [(start, end)]}
    in characters, and the step times."""
    times = {}
    t0 = time.time()
    docs = read_corpus(corpus)
    data = os.path.join(work, "corpus.bin")
    offsets = []
    with open(data, "wb") as out:
        pos = 0
        for i, (_, text) in enumerate(docs):
            sep = b"\xff\xff" + struct.pack("<I", i + 1)
            b = text.encode("utf-8")
            out.write(sep)
            pos += len(sep)
            offsets.append(pos)
            out.write(b)
            pos += len(b)
    times["load"] = time.time() - t0
    t = time.time()
    os.makedirs(os.path.join(anchor, "tmp"), exist_ok=True)
    sh(f"ulimit -Sn $(ulimit -Hn); {sys.executable} scripts/make_suffix_array.py {data}", cwd=anchor, stdout=subprocess.DEVNULL)
    times["make"] = time.time() - t
    cache = os.path.join(work, "cache")
    os.makedirs(cache, exist_ok=True)
    exe = os.path.join(anchor, "target/debug/dedup_dataset")
    t = time.time()
    sh([exe, "self-similar", "--data-file", data, "--length-threshold", "100",
        "--cache-dir", cache, "--num-threads", str(threads)], stdout=subprocess.DEVNULL)
    times["self-similar"] = time.time() - t
    t = time.time()
    ranges_file = os.path.join(work, "ranges.txt")
    with open(ranges_file, "wb") as out:
        sh([exe, "collect", "--data-file", data, "--cache-dir", cache,
            "--length-threshold", "100"], stdout=out)
    times["collect"] = time.time() - t
    t = time.time()
    spans = {}
    with open(ranges_file) as f:
        for line in f:
            if line.strip() == "out":
                break
        for line in f:
            a, b = map(int, line.split())
            d = bisect.bisect_right(offsets, a) - 1
            if d < 0:
                d = 0
            while d < len(docs) and offsets[d] < b:
                raw = docs[d][1].encode("utf-8")
                s = max(a - offsets[d], 0)
                e = min(b - offsets[d], len(raw))
                if s < e:
                    # Byte offsets to characters (ranges may cut a character).
                    cs = len(raw[:s].decode("utf-8", errors="ignore"))
                    ce = len(raw[:e].decode("utf-8", errors="ignore"))
                    spans.setdefault(d, []).append((cs, ce))
                d += 1
    times["glue"] = time.time() - t
    times["total"] = time.time() - t0
    return spans, times


def run_neardup(neardup, corpus, work, keep, threads):
    out = os.path.join(work, f"neardup-{keep}.jsonl")
    t = time.time()
    sh([neardup, "spans", "--unit", "substring", "--keep", keep, "-j", str(threads),
        "--spill-dir", work, corpus, "-o", out])
    secs = time.time() - t
    spans = {}
    with open(out) as f:
        for i, line in enumerate(f):
            s = json.loads(line)["spans"]
            if s:
                spans[i] = [(x["start"], x["end"]) for x in s]
    return spans, secs


def merged(ranges):
    out = []
    for s, e in sorted(ranges):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def agreement(a, b):
    """Characters covered by `a`, by `b` and by both (per-document ranges)."""
    ca = cb = both = 0
    for d in set(a) | set(b):
        ra, rb = merged(a.get(d, [])), merged(b.get(d, []))
        ca += sum(e - s for s, e in ra)
        cb += sum(e - s for s, e in rb)
        i = j = 0
        while i < len(ra) and j < len(rb):
            lo, hi = max(ra[i][0], rb[j][0]), min(ra[i][1], rb[j][1])
            both += max(0, hi - lo)
            if ra[i][1] < rb[j][1]:
                i += 1
            else:
                j += 1
    return ca, cb, both


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--anchor", required=True, help="built copy of deduplicate-text-datasets")
    ap.add_argument("--corpus", required=True, help="JSON Lines {id, text}")
    ap.add_argument("--neardup", default="target/release/neardup")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--work", default=None, help="scratch directory (default: a temporary one)")
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="substr-bench-")
    os.makedirs(work, exist_ok=True)
    size = os.path.getsize(args.corpus)
    rows = []
    with Peak() as p:
        nd_none, nd_secs = run_neardup(args.neardup, args.corpus, work, "none", args.threads)
    rows.append(("neardup spans --unit substring --keep none", nd_secs, p.peak))
    with Peak() as p:
        nd_first, nd_first_secs = run_neardup(args.neardup, args.corpus, work, "first", args.threads)
    rows.append(("neardup spans --unit substring --keep first", nd_first_secs, p.peak))
    with Peak() as p:
        lee, times = run_anchor(os.path.abspath(args.anchor), os.path.abspath(args.corpus), work, args.threads)
    rows.append(("Lee et al. make + self-similar + collect (+ glue)", times["total"], p.peak))
    print(f"corpus: {args.corpus}, {size / 1e6:.0f} MB, threads {args.threads}")
    print("| tool | wall s | peak memory MB |")
    print("|---|---:|---:|")
    for name, secs, peak in rows:
        print(f"| {name} | {secs:.1f} | {peak / 1e6:.0f} |")
    print("anchor steps: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))
    print(f"speed: neardup (keep none) {times['total'] / nd_secs:.1f}x the anchor; "
          f"memory: {rows[0][2] / max(rows[2][2], 1):.2f} of the anchor's peak")
    ca, cb, both = agreement(nd_none, lee)
    print(f"repeated characters (keep none): neardup {ca}, anchor {cb}, both {both} "
          f"({both / max(cb, 1):.1%} of the anchor's, {both / max(ca, 1):.1%} of neardup's)")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

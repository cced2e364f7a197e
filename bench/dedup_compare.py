#!/usr/bin/env python3
"""Batch near-duplicate detection, side by side: neardup, rensa, datasketch.

  bench/.venv/bin/python bench/dedup_compare.py CORPUS [--tools neardup,rensa,...]
      [--threshold 0.8] [--threads N] [--docs 100000] [--repeat 3]

CORPUS is a JSONL file with {"id", "text", "cluster"} per line, or the name
of a generator of `neardup-bench`, run first into a temporary file:
`realtext` (real paragraphs of ../shared/eval/extraction with planted
near-duplicates: curly quotes, accents, 13% CJK documents; the corpus of
every dedup speed figure) or `synth` (pure ASCII synthetic text), with
--docs documents and the generator's defaults. Each tool runs in its own
process, end to end: read the JSONL,
tokenize, compute 128-permutation MinHash signatures, index them with LSH,
and assign every document to the first earlier document it is a
near-duplicate of (verified Jaccard >= threshold). Reported: wall time
from the start of the tool's process to its answer (neardup: its output
file written; rensa, datasketch: the list of duplicates in memory, Python's
start, imports and reading the corpus included), documents/s, CPU time
until then (user + system, all threads, the Python process that starts
neardup included), peak resident memory of the process doing the work, and
pairwise precision/recall/F1 against the corpus's `cluster` labels. What
the harness does after the answer to score it (reading neardup's output
file back into Python, writing every tool's predictions for the parent) is
not any tool's work; the last column gives the whole child process's wall
time with it, as earlier versions of this script reported. With --repeat N
the tools take turns N times and each one's best wall time is kept (the
machine is shared: timings are noisy).

Binaries: $NEARDUP and $NEARDUP_BENCH, else $CARGO_TARGET_DIR/release (or
target/release) of this repository.

Tools:
  neardup           `neardup dedup` (the release binary), all cores
  neardup-1t        the same with --threads 1
  neardup@PATH      a neardup tool with another binary (say, a build from
                    before a change, to compare both in one run)
  rensa             rensa RMinHash + RMinHashLSH, word tokens (text.split())
  rensa-shingles    the same with word 5-gram shingles, as neardup uses
  datasketch        datasketch MinHash + MinHashLSH, word tokens (slow: use small corpora)
"""
import argparse, json, os, resource, subprocess, sys, tempfile, time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(os.environ.get('CARGO_TARGET_DIR', os.path.join(ROOT, 'target')), 'release')
NEARDUP = os.environ.get('NEARDUP', os.path.join(RELEASE, 'neardup'))
NEARDUP_BENCH = os.environ.get('NEARDUP_BENCH', os.path.join(RELEASE, 'neardup-bench'))
GENERATORS = ('realtext', 'synth')


def read_corpus(path):
    ids, texts = [], []
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            ids.append(o['id'])
            texts.append(o['text'])
    return ids, texts


def shingles(text, k=5):
    w = text.lower().split()
    return [' '.join(w[i:i + k]) for i in range(max(1, len(w) - k + 1))]


def run_rensa(corpus, threshold, tokens):
    import rensa
    ids, texts = read_corpus(corpus)
    sets = [t.lower().split() if tokens == 'words' else shingles(t) for t in texts]
    mhs = rensa.RMinHash.from_token_sets(sets, 128, 42)
    lsh = rensa.RMinHashLSH(threshold, 128, 16)
    lsh.insert_many(mhs)
    out = []
    for i, m in enumerate(mhs):
        dup = None
        for c in sorted(lsh.query(m)):
            if c < i and mhs[c].jaccard(m) >= threshold:
                dup = c
                break
        out.append(dup)
    return ids, out


def run_datasketch(corpus, threshold):
    from datasketch import MinHash, MinHashLSH
    ids, texts = read_corpus(corpus)
    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    mhs, out = [], []
    for i, t in enumerate(texts):
        m = MinHash(num_perm=128, seed=42)
        m.update_batch([w.encode() for w in t.lower().split()])
        dup = None
        for c in sorted(lsh.query(m)):
            if mhs[c].jaccard(m) >= threshold:
                dup = c
                break
        lsh.insert(i, m)
        mhs.append(m)
        out.append(dup)
    return ids, out


def clusters_from_dups(ids, dups):
    root = list(range(len(ids)))
    for i, d in enumerate(dups):
        if d is not None:
            root[i] = root[d]
    return {ids[i]: ids[root[i]] for i in range(len(ids))}


def pairwise(truth, pred):
    def pairs(c):
        return sum(n * (n - 1) // 2 for n in Counter(c.values()).values())
    both = Counter((truth[i], pred[i]) for i in truth)
    tp = sum(n * (n - 1) // 2 for n in both.values())
    tp_fp, tp_fn = pairs(pred), pairs(truth)
    p = tp / tp_fp if tp_fp else 1.0
    r = tp / tp_fn if tp_fn else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def child(tool, corpus, threshold, threads, result_file):
    if tool.startswith('neardup'):
        name, _, binary = tool.partition('@')
        out = os.path.join(os.path.dirname(result_file), 'neardup.jsonl')
        t = '1' if name == 'neardup-1t' else str(threads)
        subprocess.run([binary or NEARDUP, 'dedup', '--quiet', '--threads', t, '--threshold', str(threshold),
                        corpus, '-o', out], check=True)
        done, cpu_done = time.time(), cpu_so_far()
        pred = {}
        with open(out) as f:
            for line in f:
                o = json.loads(line)
                pred[o['id']] = o['cluster']
    else:
        runs = {
            'rensa': lambda: run_rensa(corpus, threshold, 'words'),
            'rensa-shingles': lambda: run_rensa(corpus, threshold, 'shingles'),
            'datasketch': lambda: run_datasketch(corpus, threshold),
        }
        if tool not in runs:
            sys.exit(f'unknown tool {tool}')
        ids, dups = runs[tool]()
        done, cpu_done = time.time(), cpu_so_far()
        pred = clusters_from_dups(ids, dups)
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    rss = max(me.ru_maxrss, kids.ru_maxrss)
    json.dump({'rss_kb': rss, 'cpu_s': cpu_done, 'done': done, 'pred': pred}, open(result_file, 'w'))


def cpu_so_far():
    """User + system time of this process and its finished children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def generate(kind, docs, path):
    """Writes a `neardup-bench` corpus; the generator's summary goes to stderr."""
    if not os.path.exists(NEARDUP_BENCH):
        sys.exit(f'{NEARDUP_BENCH} not found: cargo build --release -p neardup-bench, or set NEARDUP_BENCH')
    cmd = [NEARDUP_BENCH, kind, '--docs', str(docs), '-o', path]
    if kind == 'realtext':
        cmd += ['--eval', os.path.join(os.path.dirname(ROOT), 'shared', 'eval', 'extraction')]
    if subprocess.run(cmd).returncode != 0:
        sys.exit(f'{" ".join(cmd)} failed (realtext needs ../shared/eval/extraction)')


def corpus_stats(path):
    """Share of documents with a non-ASCII character and with a CJK one."""
    n = non_ascii = cjk = 0
    with open(path) as f:
        for line in f:
            t = json.loads(line)['text']
            n += 1
            non_ascii += not t.isascii()
            cjk += any('\u3040' <= c <= '\u9fff' or '\uac00' <= c <= '\ud7a3' for c in t)
    return n, non_ascii / max(n, 1), cjk / max(n, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('corpus', help='a JSONL corpus, or realtext / synth to generate one')
    ap.add_argument('--docs', type=int, default=100_000, help='documents of a generated corpus')
    ap.add_argument('--repeat', type=int, default=1, help='rounds; the best wall time of each tool is reported')
    ap.add_argument('--tools', default='neardup,neardup-1t,rensa,rensa-shingles')
    ap.add_argument('--threshold', type=float, default=0.8)
    ap.add_argument('--threads', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--child', help=argparse.SUPPRESS)
    ap.add_argument('--result', help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child, a.corpus, a.threshold, a.threads, a.result)
        return
    if a.corpus in GENERATORS:
        tmp = tempfile.mkdtemp(prefix='dedup_compare_')
        path = os.path.join(tmp, f'{a.corpus}{a.docs}.jsonl')
        generate(a.corpus, a.docs, path)
        try:
            compare(path, a)
        finally:
            os.remove(path)
            os.rmdir(tmp)
    else:
        compare(a.corpus, a)


def compare(corpus, a):
    truth = {}
    with open(corpus) as f:
        for line in f:
            o = json.loads(line)
            truth[o['id']] = o.get('cluster', o['id'])
    size = os.path.getsize(corpus) / 1e6
    _, non_ascii, cjk = corpus_stats(corpus)
    print(f'corpus: {corpus}, {len(truth)} documents, {size:.0f} MB, {non_ascii:.0%} with non-ASCII '
          f'characters, {cjk:.0%} with CJK; threshold {a.threshold}')
    if a.repeat > 1:
        print(f'best of {a.repeat} rounds; the tools take turns within each round')
    print('| tool | wall s | docs/s | CPU s | peak RSS MB | precision | recall | F1 | wall s with read-back |')
    print('|---|---|---|---|---|---|---|---|---|')
    tools = a.tools.split(',')
    best = {}
    for _ in range(a.repeat):
        for tool in tools:
            with tempfile.TemporaryDirectory() as tmp:
                res = os.path.join(tmp, 'pred.json')
                start = time.time()
                subprocess.run([sys.executable, __file__, corpus, '--child', tool, '--result', res,
                                '--threshold', str(a.threshold), '--threads', str(a.threads)], check=True)
                whole = time.time() - start
                result = json.load(open(res))
                dt = result['done'] - start
            if tool not in best or dt < best[tool][0]:
                best[tool] = (dt, result, whole)
    for tool in tools:
        dt, result, whole = best[tool]
        pred, rss, cpu = result['pred'], result['rss_kb'], result['cpu_s']
        p, r, f1 = pairwise(truth, pred)
        print(f'| {tool} | {dt:.2f} | {len(truth) / dt:,.0f} | {cpu:.2f} | {rss / 1024:.0f} | {p:.3f} | {r:.3f} | {f1:.3f} '
              f'| {whole:.2f} |', flush=True)
    if 'rensa' in best:
        for tool in tools:
            if tool.startswith('neardup'):
                wall = best['rensa'][0] / best[tool][0]
                cpu = best['rensa'][1]['cpu_s'] / best[tool][1]['cpu_s']
                whole = best['rensa'][2] / best[tool][2]
                print(f'{tool}: {wall:.2f}x rensa (word tokens) in wall time, {cpu:.2f}x in CPU time '
                      f'({whole:.2f}x in wall time with the read-back)')


if __name__ == '__main__':
    main()

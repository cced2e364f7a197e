#!/usr/bin/env python3
"""The seed paper's experiment on real pages: every fingerprinting method of
`neardup dedup` on the labelled near-duplicate benchmark, with precision,
recall, F1 (the shared scorer), wall time and peak memory.

  python3 bench/methods_table.py [--bench ../shared/eval/neardup/dev] [--threads N]

Needs `cargo build --release` first (or NEARDUP=path/to/neardup). Standard
library only. Prints a Markdown table.
"""
import argparse, json, os, resource, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NEARDUP = os.environ.get('NEARDUP', os.path.join(ROOT, 'target', 'release', 'neardup'))
METHODS = ['default', 'minhash', 'minhash-oph', 'simhash', 'simhash128', 'exact', 'supershingle',
           'imatch', 'long-sentence', 'feature-code', 'paragraph']


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bench', default=os.path.join(os.path.dirname(ROOT), 'shared', 'eval', 'neardup', 'dev'))
    ap.add_argument('--threads', type=int, default=0)
    ap.add_argument('--methods', default=','.join(METHODS))
    ap.add_argument('--extra', default='', help='extra arguments for neardup dedup')
    a = ap.parse_args()
    scorer = os.path.join(os.path.dirname(os.path.dirname(a.bench)), 'score_neardup.py')
    warc = os.path.join(a.bench, 'pages.warc.gz')
    print(f'benchmark: {a.bench}')
    print('| method | precision | recall | F1 | ARI | wall s | peak RSS MB |')
    print('|---|---|---|---|---|---|---|')
    for m in a.methods.split(','):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, 'out.jsonl')
            t = time.perf_counter()
            p = subprocess.Popen([NEARDUP, 'dedup', '-q', '--threads', str(a.threads), '--method', m,
                                  *a.extra.split(), warc, '-o', out])
            _, status, usage = os.wait4(p.pid, 0)
            dt = time.perf_counter() - t
            if status != 0:
                print(f'| {m} | failed with status {status} | | | | | |')
                continue
            res = subprocess.run([sys.executable, scorer, a.bench, out], capture_output=True, text=True, check=True)
            s = json.loads(res.stdout.strip().splitlines()[-1])
            print(f"| {m} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} | {s['ari']:.3f} | "
                  f"{dt:.2f} | {usage.ru_maxrss / 1024:.0f} |", flush=True)


if __name__ == '__main__':
    main()

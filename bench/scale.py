#!/usr/bin/env python3
"""Scale curve of `neardup dedup`: time and peak memory for 10^4 .. 10^6
synthetic documents (1-2 KB each, 20% near-duplicates).

  python3 bench/scale.py [--sizes 10000,100000,1000000] [--dir /tmp/neardup-scale] [--extra ARGS]

Needs `cargo build --release` (neardup and neardup-bench). Standard library
only; prints a Markdown table with documents/s and memory per document.
"""
import argparse, os, subprocess, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get('NEARDUP_BIN', os.path.join(ROOT, 'target', 'release'))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sizes', default='10000,100000,1000000')
    ap.add_argument('--dir', default='/tmp/neardup-scale')
    ap.add_argument('--extra', default='')
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    print('| documents | input MB | wall s | docs/s | peak RSS MB | RSS bytes/doc |')
    print('|---|---|---|---|---|---|')
    for n in map(int, a.sizes.split(',')):
        corpus = os.path.join(a.dir, f'synth{n}.jsonl')
        if not os.path.exists(corpus):
            subprocess.run([os.path.join(BIN, 'neardup-bench'), 'synth', '--docs', str(n), '-o', corpus], check=True)
        out = os.path.join(a.dir, f'out{n}.jsonl')
        t = time.perf_counter()
        p = subprocess.Popen([os.path.join(BIN, 'neardup'), 'dedup', '-q', corpus, '-o', out, *a.extra.split()])
        _, status, usage = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t
        if status:
            raise SystemExit(f'neardup failed on {corpus}')
        rss = usage.ru_maxrss * 1024
        print(f'| {n:,} | {os.path.getsize(corpus) / 1e6:.0f} | {dt:.1f} | {n / dt:,.0f} | '
              f'{rss / 1e6:.0f} | {rss / n:,.0f} |', flush=True)


if __name__ == '__main__':
    main()

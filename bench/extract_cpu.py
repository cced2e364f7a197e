#!/usr/bin/env python3
"""CPU time of main text extraction, side by side: neardup builds and resiliparse.

  bench/.venv/bin/python bench/extract_cpu.py [--dataset wcxb-dev] [--repeat N] BINARY...

Wall-clock speed on a shared machine moves with the load; CPU time much
less. Each neardup BINARY runs `extract --threads 1` on the pages
(decompressed once into a temporary directory) and is charged its user +
system time, reader thread, process start and JSON output included;
resiliparse is charged the process time of its extraction calls alone.
The tools take turns N times; each one's least and median CPU time are
reported, the ratios to resiliparse of both, and the median of the ratios
taken round by round (a machine that slows down or speeds up between
rounds moves it least).
"""
import argparse, os, resource, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extract_compare import load  # noqa: E402


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--dataset', default='wcxb-dev')
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('binaries', nargs='+')
    args = ap.parse_args()
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import bytes_to_str, detect_encoding
    from resiliparse.parse.html import HTMLTree
    pages = load(args.dataset)
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in pages:
            open(os.path.join(tmp, name), 'wb').write(data)
        for _ in range(args.repeat):
            for b in args.binaries:
                c, w = children_cpu(), time.perf_counter()
                subprocess.run([b, 'extract', '-q', '--threads', '1', tmp, '-o', os.devnull],
                               check=True)
                runs.setdefault(b, []).append((children_cpu() - c, time.perf_counter() - w))
            c, w = time.process_time(), time.perf_counter()
            for _, data in pages:
                tree = HTMLTree.parse(bytes_to_str(data, detect_encoding(data)))
                extract_plain_text(tree, main_content=True)
            runs.setdefault('resiliparse', []).append(
                (time.process_time() - c, time.perf_counter() - w))
    best = {t: min(r) for t, r in runs.items()}
    median = {t: statistics.median(c for c, _ in r) for t, r in runs.items()}
    ref, ref_median = best['resiliparse'][0], median['resiliparse']
    print(f'{args.dataset}: {len(pages)} pages, {args.repeat} runs each, taking turns')
    rounds = {t: statistics.median(r[0] / c[0] for r, c in zip(runs['resiliparse'], cs))
              for t, cs in runs.items()}
    print('| tool | least CPU s | pages per CPU s | × resiliparse (least) '
          '| median CPU s | × resiliparse (median) | × resiliparse (median of rounds) '
          '| wall s (least run) |')
    print('|---|---|---|---|---|---|---|---|')
    for tool, (cpu, wall) in best.items():
        m = median[tool]
        print(f'| {tool} | {cpu:.2f} | {len(pages) / cpu:.0f} | {ref / cpu:.2f} '
              f'| {m:.2f} | {ref_median / m:.2f} | {rounds[tool]:.2f} | {wall:.2f} |')


if __name__ == '__main__':
    main()

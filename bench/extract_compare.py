#!/usr/bin/env python3
"""Main text extraction, side by side: neardup, trafilatura, resiliparse.

  bench/.venv/bin/python bench/extract_compare.py [--datasets zyte,wcxb-dev,zh] [--tools ...] [--repeat N]

For each dataset of ../shared/eval/extraction, every tool extracts the same
pages (decompressed once into a temporary directory), one process, one
thread; neardup is also run with every core. `neardup@PATH` runs the binary
at PATH on one thread (an older build, say). With `--repeat N` the tools
take turns N times and each one's best time is kept. Quality is scored by
the shared scorer, speed is pages/s and MB/s of HTML. Prints a Markdown
table.
Run `bench/setup.sh` first, and `cargo build --release` at the root.
"""
import argparse, gzip, json, os, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), 'shared', 'eval')
NEARDUP = os.environ.get('NEARDUP', os.path.join(ROOT, 'target', 'release', 'neardup'))


def load(dataset):
    d = os.path.join(SHARED, 'extraction', dataset, 'html')
    pages = []
    for name in sorted(os.listdir(d)):
        data = open(os.path.join(d, name), 'rb').read()
        if name.endswith('.gz'):
            data = gzip.decompress(data)
            name = name[:-3]
        pages.append((name, data))
    return pages


def score(dataset, preds):
    out = subprocess.run([sys.executable, os.path.join(SHARED, 'score_extract.py'),
                          os.path.join(SHARED, 'extraction', dataset), preds],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])['f1']


def run_neardup(pages, tmp, threads, binary=NEARDUP, label=''):
    d = os.path.join(tmp, 'pages')
    if not os.path.isdir(d):
        os.makedirs(d)
        for name, data in pages:
            open(os.path.join(d, name), 'wb').write(data)
    preds = os.path.join(tmp, f'neardup-{threads}{label}.jsonl')
    t = time.perf_counter()
    subprocess.run([binary, 'extract', '-q', '--threads', str(threads), d, '-o', preds], check=True)
    return time.perf_counter() - t, preds


def run_python(pages, tmp, tool):
    if tool == 'trafilatura':
        import trafilatura
        def ex(data):
            return trafilatura.extract(data) or ''
    else:
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.encoding import bytes_to_str, detect_encoding
        from resiliparse.parse.html import HTMLTree
        def ex(data):
            tree = HTMLTree.parse(bytes_to_str(data, detect_encoding(data)))
            return extract_plain_text(tree, main_content=True)
    preds = os.path.join(tmp, f'{tool}.jsonl')
    rows = []
    t = time.perf_counter()
    for name, data in pages:
        try:
            text = ex(data)
        except Exception as e:  # a tool's own failure counts as empty text
            print(f'{tool}: {name}: {e}', file=sys.stderr)
            text = ''
        rows.append({'id': name, 'text': text})
    dt = time.perf_counter() - t
    with open(preds, 'w') as f:
        for r in rows:
            f.write(json.dumps(r) + '\n')
    return dt, preds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--datasets', default='zyte,wcxb-dev,zh')
    ap.add_argument('--tools', default='neardup,neardup-all-cores,trafilatura,resiliparse')
    ap.add_argument('--repeat', type=int, default=1)
    a = ap.parse_args()
    tools = a.tools.split(',')
    print('| dataset | tool | F1 | pages/s | MB/s |')
    print('|---|---|---|---|---|')
    for ds in a.datasets.split(','):
        pages = load(ds)
        mb = sum(len(p[1]) for p in pages) / 1e6
        with tempfile.TemporaryDirectory() as tmp:
            best = {}
            for _ in range(a.repeat):
                for i, tool in enumerate(tools):
                    if tool == 'neardup':
                        dt, preds = run_neardup(pages, tmp, 1)
                    elif tool == 'neardup-all-cores':
                        dt, preds = run_neardup(pages, tmp, os.cpu_count() or 1)
                    elif tool.startswith('neardup@'):
                        dt, preds = run_neardup(pages, tmp, 1, tool[len('neardup@'):], f'-{i}')
                    else:
                        dt, preds = run_python(pages, tmp, tool)
                    if tool not in best or dt < best[tool][0]:
                        best[tool] = (dt, score(ds, preds))
            for tool in tools:
                dt, f1 = best[tool]
                print(f'| {ds} ({len(pages)} pages, {mb:.1f} MB) | {tool} | {f1:.3f} | '
                      f'{len(pages) / dt:.0f} | {mb / dt:.1f} |', flush=True)


if __name__ == '__main__':
    main()

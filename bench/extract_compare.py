#!/usr/bin/env python3
"""Main text extraction, side by side: neardup, trafilatura, readability-lxml, resiliparse.

  bench/.venv/bin/python bench/extract_compare.py [--datasets zyte,wcxb-dev,zh] [--tools ...] [--repeat N] [--by-type]

For each dataset of ../shared/eval/extraction, every tool extracts the same
pages (decompressed once into a temporary directory), one process, one
thread; neardup is also run with every core. `neardup@PATH` runs the binary
at PATH on one thread (an older build, say). With `--repeat N` the tools
take turns N times and each one's best time is kept. Quality is scored by
the shared scorer, speed is pages/s and MB/s of HTML. Prints a Markdown
table; with `--by-type`, also one of F1 per page type (the `page_type` of
a dataset's ground truth, wcxb-dev's seven kinds) with the tools side by
side, so that a change shows where it helps and where it hurts.
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
    """F1 of the predictions, and F1 per page type (empty when the dataset
    has no `page_type`), as the shared scorer prints them."""
    out = subprocess.run([sys.executable, os.path.join(SHARED, 'score_extract.py'),
                          os.path.join(SHARED, 'extraction', dataset), preds, '--by', 'page_type'],
                         capture_output=True, text=True, check=True).stdout
    lines = out.strip().splitlines()
    by_type = {}
    for line in lines:
        parts = line.split()
        if parts and parts[0].startswith('page_type=') and parts[-2] == 'F1':
            name = parts[0][len('page_type='):]
            if name not in ('None', '?'):
                by_type[name] = (int(parts[1][len('n='):]), float(parts[-1]))
    return json.loads(lines[-1])['f1'], by_type


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
    elif tool == 'readability':
        import lxml.html
        from readability import Document
        from resiliparse.parse.encoding import bytes_to_str, detect_encoding
        def ex(data):
            summary = Document(bytes_to_str(data, detect_encoding(data))).summary(html_partial=True)
            return lxml.html.fromstring(summary).text_content() if summary.strip() else ''
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
    ap.add_argument('--tools', default='neardup,neardup-all-cores,trafilatura,readability,resiliparse')
    ap.add_argument('--repeat', type=int, default=1)
    ap.add_argument('--by-type', action='store_true', help='also print F1 per page type')
    a = ap.parse_args()
    tools = a.tools.split(',')
    typed = {}
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
                dt, (f1, by_type) = best[tool]
                print(f'| {ds} ({len(pages)} pages, {mb:.1f} MB) | {tool} | {f1:.3f} | '
                      f'{len(pages) / dt:.0f} | {mb / dt:.1f} |', flush=True)
                if by_type:
                    typed.setdefault(ds, {})[tool] = by_type
    if a.by_type:
        print_by_type(typed, tools)


def print_by_type(typed, tools):
    """F1 per page type, one table per dataset, the tools side by side
    (the multi-core run scores as the one-thread run does, so it is left
    out)."""
    shown = [t for t in tools if t != 'neardup-all-cores']
    for ds, per_tool in typed.items():
        kinds = sorted({k for by in per_tool.values() for k in by})
        print()
        print(f'F1 per page type, {ds}:')
        print()
        print('| page type | pages | ' + ' | '.join(shown) + ' |')
        print('|---|---|' + '---|' * len(shown))
        for k in kinds:
            n = next(by[k][0] for by in per_tool.values() if k in by)
            cells = [f'{per_tool[t][k][1]:.3f}' if k in per_tool.get(t, {}) else '' for t in shown]
            print(f'| {k} | {n} | ' + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    main()

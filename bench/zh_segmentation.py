#!/usr/bin/env python3
"""Chinese: character bigrams, jieba words and single characters as tokens,
on the Chinese part of the labelled near-duplicate benchmark.

  python3 bench/zh_segmentation.py [--bench ../shared/eval/neardup/dev] [--threads N] [--texts FILE]

The Chinese part is the pages whose label's source starts with `zh-` or
`sogou-` (504 pages, 216 clusters). `neardup dedup` runs on the whole
pages.warc.gz (word segmentation changes nothing else); its predictions
and a copy of labels.jsonl and relations.jsonl are filtered to those pages
in a temporary directory, which the shared scorer then scores as it is.

With --texts, also writes the main texts of the Chinese pages (`neardup
extract`), one document per line, for the tokenizer speed example
(`cargo run --release -p neardup-text --features jieba --example
cjk_tokens -- FILE`).

Needs a release build with the feature first:
`cargo build --release --features jieba` (or NEARDUP=path/to/neardup).
Standard library only. Prints a Markdown table.
"""
import argparse, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NEARDUP = os.environ.get('NEARDUP', os.path.join(ROOT, 'target', 'release', 'neardup'))
PREFIXES = ('zh-', 'sogou-')
# (method, shingle length, segmentation)
RUNS = [
    ('default', 3, 'bigrams'), ('default', 2, 'bigrams'), ('default', 4, 'bigrams'),
    ('default', 3, 'chars'), ('default', 3, 'jieba'),
    ('default', 2, 'jieba'),
    ('default', 4, 'chars'), ('default', 4, 'jieba'),
    ('default', 5, 'chars'), ('default', 5, 'jieba'),
    ('minhash', 3, 'chars'), ('minhash', 2, 'jieba'),
    ('minhash', 5, 'chars'), ('minhash', 3, 'jieba'),
    ('minhash', 5, 'bigrams'),
]
UNITS = {'chars': 'characters', 'bigrams': 'character bigrams', 'jieba': 'jieba words'}


def subset(bench, out):
    """Writes the Chinese labels and relations to `out`; returns their urls."""
    labels = [json.loads(l) for l in open(os.path.join(bench, 'labels.jsonl'))]
    zh = [l for l in labels if l['source'].startswith(PREFIXES)]
    urls = {l['url'] for l in zh}
    with open(os.path.join(out, 'labels.jsonl'), 'w') as f:
        f.writelines(json.dumps(l, ensure_ascii=False) + '\n' for l in zh)
    with open(os.path.join(out, 'relations.jsonl'), 'w') as f:
        for line in open(os.path.join(bench, 'relations.jsonl')):
            r = json.loads(line)
            if r['a'] in urls and r['b'] in urls:
                f.write(line)
    return urls


def score(scorer, bench, preds):
    out = subprocess.run([sys.executable, scorer, bench, preds], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bench', default=os.path.join(os.path.dirname(ROOT), 'shared', 'eval', 'neardup', 'dev'))
    ap.add_argument('--threads', type=int, default=0)
    ap.add_argument('--texts', help='write the Chinese main texts here, one per line')
    a = ap.parse_args()
    scorer = os.path.join(os.path.dirname(os.path.dirname(a.bench)), 'score_neardup.py')
    warc = os.path.join(a.bench, 'pages.warc.gz')
    with tempfile.TemporaryDirectory() as tmp:
        zh_bench = os.path.join(tmp, 'zh')
        os.mkdir(zh_bench)
        urls = subset(a.bench, zh_bench)
        print(f'benchmark: {a.bench}, Chinese part: {len(urls)} pages')
        if a.texts:
            extracted = os.path.join(tmp, 'extract.jsonl')
            subprocess.run([NEARDUP, 'extract', '-o', extracted, warc], check=True,
                           stderr=subprocess.DEVNULL)
            with open(a.texts, 'w') as f:
                for line in open(extracted):
                    d = json.loads(line)
                    if d['id'] in urls and d.get('text'):
                        f.write(' '.join(d['text'].split()) + '\n')
        print('| method | shingles | precision | recall | F1 | ARI | F1 whole dev |')
        print('|---|---|---|---|---|---|---|')
        for method, k, cjk in RUNS:
            full = os.path.join(tmp, 'full.jsonl')
            zh = os.path.join(tmp, 'zh.jsonl')
            subprocess.run([NEARDUP, 'dedup', '-q', '--threads', str(a.threads), '--method', method,
                            '--shingle', str(k), '--cjk', cjk, '-o', full, warc], check=True)
            with open(zh, 'w') as f:
                f.writelines(l for l in open(full) if l.strip() and json.loads(l)['id'] in urls)
            s, whole = score(scorer, zh_bench, zh), score(scorer, a.bench, full)
            unit = UNITS[cjk]
            print(f"| {method} | {k}-grams of {unit} | {s['precision']:.3f} | {s['recall']:.3f} "
                  f"| {s['f1']:.3f} | {s['ari']:.3f} | {whole['f1']:.3f} |")


if __name__ == '__main__':
    main()

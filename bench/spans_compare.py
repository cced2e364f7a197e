#!/usr/bin/env python3
"""Repeated passages, side by side: `neardup spans` against `dolma dedupe`
(paragraphs) and datatrove's SentenceDedup (sentences), on the same
documents, in one run.

  bench/.venv/bin/python bench/spans_compare.py [--docs 100000] [--threads 2]
      [--corpus FILE.jsonl] [--work DIR] [--tools neardup,dolma,neardup-sentence,datatrove]

The corpus is `neardup-bench realtext` (real paragraphs of
../shared/eval/extraction, 1-2 KB documents, curly quotes, accents, 13% CJK,
20% near-duplicate reprints that share paragraphs), unless --corpus names a
JSONL file of {"id", "text"}. It is written once as dolma lays out
documents (DIR/documents/part-N.jsonl.gz, one part per thread, with
`source`, `added` and `created`), and every tool reads those files.

- `dolma dedupe` with `dedupe.paragraphs` (exact paragraphs split on
  "\\n"), a Bloom filter sized for the corpus's paragraphs at a false
  positive rate of 1e-4, `processes` = --threads; it writes its attribute
  files.
- `neardup spans` (paragraphs, keep first, --threads), writing its spans
  and the same dolma attribute files (`--attributes`).
- datatrove: SentenceSignature, SentenceFindDedups, SentenceDedupFilter
  (its three stages, `LocalPipelineExecutor` with --threads tasks; 3-sentence
  windows, its default) writing the cleaned documents; English sentence
  splitting is NLTK's Punkt, whose trained model is a download this machine
  cannot make: the harness gives NLTK an untrained Punkt model (empty
  parameter files in NLTK_DATA: the same algorithm, no abbreviation list).
- `neardup spans --unit sentence --clean` writing the cleaned documents.

Each tool runs in its own process (wall time from start to its files
written, CPU time user + system of the process and its children, peak
resident memory of the largest); reported with the characters each marks
as repeated.

Binaries: $NEARDUP and $NEARDUP_BENCH, else target/release.
"""
import argparse, gzip, json, os, shutil, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(os.environ.get('CARGO_TARGET_DIR', os.path.join(ROOT, 'target')), 'release')
NEARDUP = os.environ.get('NEARDUP', os.path.join(RELEASE, 'neardup'))
NEARDUP_BENCH = os.environ.get('NEARDUP_BENCH', os.path.join(RELEASE, 'neardup-bench'))
BIN = os.path.dirname(sys.executable)

DATATROVE = r'''
import sys
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter
from datatrove.pipeline.dedup.sentence_dedup import (
    SentenceDedupSignature, SentenceFindDedups, SentenceDedupFilter, SentDedupConfig)
docs, work, tasks = sys.argv[1], sys.argv[2], int(sys.argv[3])
config = SentDedupConfig()
LocalPipelineExecutor(pipeline=[JsonlReader(docs, glob_pattern="*.jsonl*"),
    SentenceDedupSignature(output_folder=work + "/sigs", config=config, finder_workers=1)],
    tasks=tasks, workers=tasks, logging_dir=work + "/logs1").run()
LocalPipelineExecutor(pipeline=[SentenceFindDedups(data_folder=work + "/sigs", output_folder=work + "/dups", config=config)],
    tasks=1, logging_dir=work + "/logs2").run()
LocalPipelineExecutor(pipeline=[JsonlReader(docs, glob_pattern="*.jsonl*"),
    SentenceDedupFilter(data_folder=work + "/dups", config=config),
    JsonlWriter(work + "/out")], tasks=tasks, workers=tasks, logging_dir=work + "/logs3").run()
'''


def tree_rss(root):
    """Resident memory (bytes) of a process and all its descendants."""
    kids, rss = {}, {}
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            with open(f'/proc/{pid}/stat') as f:
                parts = f.read().rsplit(')', 1)[1].split()
            kids.setdefault(int(parts[1]), []).append(int(pid))
            rss[int(pid)] = int(parts[21]) * os.sysconf('SC_PAGE_SIZE')
        except (OSError, IndexError, ValueError):
            continue
    total, todo = 0, [root]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo.extend(kids.get(p, []))
    return total


def timed(cmd, env=None):
    """Runs cmd; returns wall seconds, CPU seconds (user + system of it and
    its descendants) and the peak of the summed resident memory of its
    process tree (MB), sampled every 20 ms."""
    t = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    peak = 0
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, tree_rss(p.pid))
        time.sleep(0.02)
    wall = time.time() - t
    err = p.stderr.read().decode(errors='replace')
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{cmd[0]} failed ({code}):\n{err[-3000:]}")
    return wall, usage.ru_utime + usage.ru_stime, peak / 2**20


def layout(corpus, work, parts, plain):
    docs = os.path.join(work, 'documents')
    shutil.rmtree(docs, ignore_errors=True)
    os.makedirs(docs)
    if plain:
        outs = [open(os.path.join(docs, f'part-{i}.jsonl'), 'w', encoding='utf-8') for i in range(parts)]
    else:
        outs = [gzip.open(os.path.join(docs, f'part-{i}.jsonl.gz'), 'wt', encoding='utf-8', compresslevel=1)
                for i in range(parts)]
    n = paras = chars = 0
    with open(corpus, encoding='utf-8') as f:
        lines = f.readlines()
    per = (len(lines) + parts - 1) // parts
    for i, line in enumerate(lines):
        o = json.loads(line)
        rec = {'id': o['id'], 'text': o['text'], 'source': 'realtext',
               'added': '2026-11-26T00:00:00Z', 'created': '2026-11-26T00:00:00Z', 'metadata': {}}
        outs[i // per].write(json.dumps(rec, ensure_ascii=False) + '\n')
        n += 1
        paras += o['text'].count('\n') + 1
        chars += len(o['text'])
    for o in outs:
        o.close()
    return docs, n, paras, chars


def attribute_chars(folder):
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            opener = gzip.open if name.endswith('.gz') else open
            with opener(path, 'rt', encoding='utf-8') as f:
                for line in f:
                    for spans in json.loads(line)['attributes'].values():
                        total += sum(e - s for s, e, *_ in spans)
    return total


def out_chars(folder):
    total = 0
    walk = [(os.path.dirname(folder), [], [os.path.basename(folder)])] if os.path.isfile(folder) else os.walk(folder)
    for root, _, files in walk:
        for name in files:
            opener = gzip.open if name.endswith('.gz') else open
            with opener(os.path.join(root, name), 'rt', encoding='utf-8') as f:
                total += sum(len(json.loads(l)['text']) for l in f)
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--docs', type=int, default=100000)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--corpus')
    ap.add_argument('--work', default=os.path.join(ROOT, 'bench', 'out', 'spans'))
    ap.add_argument('--tools', default='neardup,dolma,neardup-sentence,datatrove')
    ap.add_argument('--plain', action='store_true', help='documents as plain .jsonl (default .jsonl.gz, as dolma lays them out)')
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    corpus = a.corpus
    if not corpus:
        corpus = os.path.join(a.work, f'realtext-{a.docs}.jsonl')
        if not os.path.exists(corpus):
            subprocess.run([NEARDUP_BENCH, 'realtext', '--docs', str(a.docs), '-o', corpus], check=True)
    docs, n, paras, chars = layout(corpus, a.work, a.threads, a.plain)
    parts = sorted(os.path.join(docs, p) for p in os.listdir(docs))
    print(f'{n} documents, {paras} lines, {chars} characters, {"plain" if a.plain else "gzip"} JSON Lines; {a.threads} threads each')
    rows = []
    tools = a.tools.split(',')
    if 'neardup' in tools:
        out = os.path.join(a.work, 'neardup-attributes')
        shutil.rmtree(out, ignore_errors=True)
        w, c, m = timed([NEARDUP, 'spans', *parts, '-j', str(a.threads), '-q',
                         '-o', os.path.join(a.work, 'neardup-spans.jsonl'), '--attributes', out])
        rows.append(('neardup spans (paragraph)', w, c, m, attribute_chars(out)))
    if 'dolma' in tools:
        shutil.rmtree(os.path.join(a.work, 'attributes'), ignore_errors=True)
        bloom = os.path.join(a.work, 'bloom.bin')
        if os.path.exists(bloom):
            os.remove(bloom)
        w, c, m = timed([os.path.join(BIN, 'dolma'), 'dedupe', '--documents', *parts,
                         '--dedupe.name', 'dedupe_paragraphs',
                         '--dedupe.paragraphs.attribute_name', 'bff_duplicate_paragraph_spans',
                         '--dedupe.skip_empty', '--bloom_filter.file', bloom,
                         '--no-bloom_filter.read_only',
                         '--bloom_filter.estimated_doc_count', str(paras),
                         '--bloom_filter.desired_false_positive_rate', '0.0001',
                         '--processes', str(a.threads)])
        rows.append(('dolma dedupe (paragraphs)', w, c, m,
                     attribute_chars(os.path.join(a.work, 'attributes', 'dedupe_paragraphs'))))
    if 'neardup-sentence' in tools:
        clean = os.path.join(a.work, 'neardup-sentence-clean.jsonl')
        w, c, m = timed([NEARDUP, 'spans', *parts, '--unit', 'sentence', '-j', str(a.threads), '-q',
                         '-o', os.path.join(a.work, 'neardup-sentence.jsonl'), '--clean', clean])
        rows.append(('neardup spans --unit sentence --clean', w, c, m, chars - out_chars(clean)))
    if 'datatrove' in tools:
        dt = os.path.join(a.work, 'datatrove')
        shutil.rmtree(dt, ignore_errors=True)
        # An untrained Punkt model (empty parameter files) where NLTK looks.
        punkt = os.path.join(a.work, 'nltk_data', 'tokenizers', 'punkt_tab', 'english')
        os.makedirs(punkt, exist_ok=True)
        for name in ('collocations.tab', 'sent_starters.txt', 'abbrev_types.txt', 'ortho_context.tab'):
            open(os.path.join(punkt, name), 'w').close()
        env = dict(os.environ, NLTK_DATA=os.path.join(a.work, 'nltk_data'))
        w, c, m = timed([sys.executable, '-c', DATATROVE, docs, dt, str(a.threads)], env=env)
        rows.append(('datatrove SentenceDedup (3 stages)', w, c, m, chars - out_chars(os.path.join(dt, 'out'))))
    print(f"| tool | wall s | docs/s | CPU s | peak RSS MB | characters marked or removed |")
    print("|---|---|---|---|---|---|")
    for name, w, c, m, k in rows:
        print(f"| {name} | {w:.2f} | {n / w:,.0f} | {c:.2f} | {m:,.0f} | {k:,} ({100 * k / chars:.1f}%) |")
    base = {r[0]: r[1] for r in rows}
    if 'neardup spans (paragraph)' in base and 'dolma dedupe (paragraphs)' in base:
        print(f"dolma / neardup (paragraphs): {base['dolma dedupe (paragraphs)'] / base['neardup spans (paragraph)']:.2f}x")
    if 'neardup spans --unit sentence --clean' in base and 'datatrove SentenceDedup (3 stages)' in base:
        print(f"datatrove / neardup (sentences): {base['datatrove SentenceDedup (3 stages)'] / base['neardup spans --unit sentence --clean']:.2f}x")


if __name__ == '__main__':
    main()

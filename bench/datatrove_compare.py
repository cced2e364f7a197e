#!/usr/bin/env python3
"""A datatrove pipeline with neardup's blocks beside the same pipeline with
datatrove's own Trafilatura and MinHash stages, on the neardup dev WARC
(../shared/eval/neardup/dev/pages.warc.gz), one task each:

  extract   WarcReader -> extractor -> JsonlWriter (the extracted corpus)
  dedup     JsonlReader -> dedup stage(s) -> JsonlWriter

with, for neardup, ``NeardupExtractor`` and ``NeardupDedup`` (one block),
and for datatrove, ``Trafilatura`` (its defaults, as in FineWeb; run
in-process like NeardupExtractor, see ``in_process_trafilatura``) and
``MinhashDedupSignature`` / ``Buckets`` / ``Cluster`` / ``Filter`` (its
default MinhashConfig: 14 buckets of 8 hashes, 5-grams). One more row:
neardup's whole pipeline with ``NeardupReader`` (neardup's WARC reading and
charset decoding) instead of datatrove's ``WarcReader``.

Each stage runs in a fresh interpreter; wall time and CPU time (user +
system, the stage's child processes included: datatrove's extractor sandbox)
are measured from outside. Kept documents are counted, and duplicates are
marked (neardup: ``mode="mark"``; datatrove: cluster ids, removed documents
written by the filter's exclusion writer) so that every page gets a
predicted cluster, scored with ../shared/eval/score_neardup.py (pairwise
F1; pages datatrove's reader drops count as clusters of their own).

  python bench/datatrove_compare.py [--out bench/out/datatrove] [--repeat 1]

Needs neardup (the wheel of crates/python), datatrove, trafilatura (with
lxml_html_clean), warcio,
faust-cchardet, python-magic, orjson, spacy, nltk, tokenizers and
``xxhash<4`` (datatrove 0.10's MinHash hashes str, which xxhash 4 refuses)
in the interpreter that runs it.
"""

import argparse
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEV = ROOT.parent / "shared" / "eval" / "neardup" / "dev"
SCORER = ROOT.parent / "shared" / "eval" / "score_neardup.py"


def stage(name, out):
    """Runs one stage in this interpreter (the child side)."""
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import JsonlReader, WarcReader
    from datatrove.pipeline.writers import JsonlWriter

    out = pathlib.Path(out)

    def run(pipeline, logs, tasks=1):
        LocalPipelineExecutor(pipeline=pipeline, tasks=tasks, workers=1, logging_dir=str(out / "logs" / logs)).run()

    warc = lambda: WarcReader(str(DEV), glob_pattern="*.warc.gz")  # noqa: E731
    if name == "neardup-extract":
        from neardup.datatrove import NeardupExtractor

        run([warc(), NeardupExtractor(), JsonlWriter(str(out / "nd-text"), compression=None)], name)
    elif name == "neardup-reader-extract":
        from neardup.datatrove import NeardupExtractor, NeardupReader

        run([NeardupReader(str(DEV), glob_pattern="*.warc.gz"), NeardupExtractor(),
             JsonlWriter(str(out / "ndr-text"), compression=None)], name)
    elif name == "trafilatura-extract":
        run([warc(), in_process_trafilatura(), JsonlWriter(str(out / "tr-text"), compression=None)], name)
    elif name in ("neardup-dedup", "neardup-reader-dedup"):
        from neardup.datatrove import NeardupDedup

        src = "nd-text" if name == "neardup-dedup" else "ndr-text"
        run([JsonlReader(str(out / src)), NeardupDedup(mode="mark"),
             JsonlWriter(str(out / (src + "-dedup")), compression=None)], name)
    elif name == "minhash-dedup":
        from datatrove.pipeline.dedup import (
            MinhashDedupBuckets,
            MinhashDedupCluster,
            MinhashDedupFilter,
            MinhashDedupSignature,
        )

        from datatrove.pipeline.dedup.minhash import MinhashConfig

        mh = out / "minhash"
        run([JsonlReader(str(out / "tr-text")), MinhashDedupSignature(output_folder=str(mh / "sigs"))], "mh1")
        # One task per bucket, as datatrove requires (run one after another).
        run([MinhashDedupBuckets(input_folder=str(mh / "sigs"), output_folder=str(mh / "buckets"))], "mh2",
            tasks=MinhashConfig().num_buckets)
        run([MinhashDedupCluster(input_folder=str(mh / "buckets"), output_folder=str(mh / "remove"),
                                 save_cluster_id=True)], "mh3")
        run([JsonlReader(str(out / "tr-text")),
             MinhashDedupFilter(input_folder=str(mh / "remove"), load_cluster_ids=True,
                                exclusion_writer=JsonlWriter(str(mh / "removed"), compression=None)),
             JsonlWriter(str(out / "tr-text-dedup"), compression=None)], "mh4")
    else:
        raise SystemExit(f"unknown stage {name}")


def in_process_trafilatura():
    """datatrove's Trafilatura block (its defaults) with extraction in this
    process: its per-document sandbox process (a fork) hangs on this
    machine, and in-process extraction is what NeardupExtractor does (it
    also spares Trafilatura the pipe to the sandbox)."""
    from datatrove.pipeline.extractors import Trafilatura
    from datatrove.utils.typeshelper import StatHints

    class InProcessTrafilatura(Trafilatura):
        def run(self, data, rank=0, world_size=1):
            for doc in data:
                self.stat_update(StatHints.total)
                with self.track_time():
                    try:
                        doc.text = self.extract(doc.text)
                    except ImportError:
                        raise
                    except Exception:
                        self.stat_update("clean_error")
                        continue
                if doc.text:
                    self.stat_update(StatHints.forwarded)
                    yield doc
                else:
                    self.stat_update(StatHints.dropped)

    return InProcessTrafilatura()


def timed(name, out):
    """Wall and CPU seconds of one stage run in a fresh interpreter."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--stage", name, "--out", str(out)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def docs(folder):
    for f in sorted(pathlib.Path(folder).glob("*.jsonl")):
        for line in f.open():
            yield json.loads(line)


def predictions(out, kind):
    """One ``{"id": url, "cluster": ...}`` per page the pipeline read."""
    rows = []
    if kind == "minhash":
        for d in list(docs(out / "tr-text-dedup")) + list(docs(out / "minhash" / "removed")):
            cid = d["metadata"].get("minhash_cluster_id", -1)
            rows.append({"id": d["metadata"]["url"], "cluster": f"mh{cid}" if cid != -1 else d["id"]})
        kept = sum(1 for _ in docs(out / "tr-text-dedup"))
    else:
        src = {"neardup": "nd-text-dedup", "neardup-reader": "ndr-text-dedup"}[kind]
        url = {}
        all_docs = list(docs(out / src))
        for d in all_docs:
            url[d["id"]] = d["metadata"]["url"]
        kept = 0
        for d in all_docs:
            dup = d["metadata"].get("duplicate_of")
            kept += dup is None
            rows.append({"id": d["metadata"]["url"], "cluster": url.get(dup, dup) if dup else d["metadata"]["url"]})
    return rows, kept


def score(rows, path):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    res = subprocess.run([sys.executable, str(SCORER), str(DEV), str(path)], capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "datatrove"))
    ap.add_argument("--stage")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    if a.stage:
        return stage(a.stage, a.out)
    if not (DEV / "pages.warc.gz").exists():
        raise SystemExit(f"dev benchmark absent: {DEV}")
    out = pathlib.Path(a.out)
    plans = {
        "neardup (WarcReader)": ("neardup-extract", "neardup-dedup", "neardup"),
        "neardup (NeardupReader)": ("neardup-reader-extract", "neardup-reader-dedup", "neardup-reader"),
        "datatrove Trafilatura + MinHash": ("trafilatura-extract", "minhash-dedup", "minhash"),
    }
    print(f"{'pipeline':34} {'extract wall/CPU s':>19} {'dedup wall/CPU s':>17} {'read':>5} {'kept':>5} {'P':>6} {'R':>6} {'F1':>6}")
    for label, (ex, dd, kind) in plans.items():
        best = None
        for _ in range(a.repeat):
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            e = timed(ex, out)
            d = timed(dd, out)
            if best is None or e[0] + d[0] < best[0][0] + best[1][0]:
                best = (e, d)
        rows, kept = predictions(out, kind)
        s = score(rows, out / f"{kind}.pred.jsonl")
        (e, d) = best
        print(f"{label:34} {e[0]:8.1f} /{e[1]:8.1f} {d[0]:7.1f} /{d[1]:7.1f} {len(rows):5d} {kept:5d} "
              f"{s.get('precision', 0):6.3f} {s.get('recall', 0):6.3f} {s.get('f1', 0):6.3f}", flush=True)


if __name__ == "__main__":
    main()

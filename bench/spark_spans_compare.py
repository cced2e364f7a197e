#!/usr/bin/env python3
"""`neardup.spark.spans` against `neardup spans` on the same cores and the
same Parquet input (issue 35).

    python3 bench/spark_spans_compare.py --work DIR --docs 1000000 --unit paragraph [--unit substring]

DIR holds (or gets) `rt{N}.parquet`, the real-text corpus that
`bench/spark_compare.py --work DIR --docs N` writes (`id`, `text`, `n`
the input order). For each unit: the release CLI (`neardup spans --unit
U`), then `neardup.spark.spans(..., unit=U, order_col="n")` in Spark
local[2] written as Parquet; wall time, CPU seconds and peak RSS of each
process tree (as `spark_compare.py` measures them), the documents with
spans and the spans found, and whether Spark's rows equal the CLI's
lines. One JSON line per run, then a table.
"""

import argparse
import importlib.util
import json
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("spark_compare", REPO / "bench" / "spark_compare.py")
spark_compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(spark_compare)

SPARK_RUN = r"""
import sys, time, json
from pyspark.sql import SparkSession
import neardup.spark as nds
src, dst, unit = sys.argv[1], sys.argv[2], sys.argv[3]
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").config("spark.driver.memory", "8g")
         .getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
t = time.perf_counter()
nds.spans(spark.read.parquet(src), unit=unit, order_col="n").write.mode("overwrite").parquet(dst)
print(json.dumps({"spans_seconds": round(time.perf_counter() - t, 2)}))
"""


def cli_rows(path: pathlib.Path):
    """The CLI's lines by id: (chars, spans as tuples, error)."""
    out = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            spans = tuple((s["start"], s["end"], s["kind"], s.get("first", s.get("reference"))) for s in r["spans"])
            out[r["id"]] = (r["chars"] if "error" not in r else 0, spans, r.get("error"))
    return out


def spark_rows(path: pathlib.Path):
    """Spark's rows by id, in the CLI's terms (see `neardup.spark.span_rows`)."""
    import pyarrow.parquet as pq

    out = {}
    for r in pq.read_table(path).to_pylist():
        spans = tuple((s["start"], s["end"], s["kind"], s["source"]) for s in r["spans"] or [])
        out[r["id"]] = (r["chars"] if r["error"] is None else 0, spans, r["error"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--docs", type=int, required=True)
    ap.add_argument("--unit", action="append", required=True)
    ap.add_argument("--python", default=str(REPO / "target" / "pyenv" / "bin" / "python"))
    args = ap.parse_args()
    work = pathlib.Path(args.work)
    src = work / f"rt{args.docs}.parquet"
    if not src.exists():
        sys.exit(f"{src} is missing: run bench/spark_compare.py --work {work} --docs {args.docs} first")
    binary = REPO / "target" / "release" / "neardup"
    table = []
    for unit in args.unit:
        cli_out = work / f"spans-{unit}-{args.docs}.jsonl"
        wall, peak, _, cpu = spark_compare.measured([str(binary), "spans", "-q", "--unit", unit, str(src), "-o", str(cli_out)])
        cli = cli_rows(cli_out)
        found = sum(len(s) for _, s, _ in cli.values())
        rows = [{"docs": args.docs, "unit": unit, "tool": "neardup spans (CLI)", "seconds": round(wall, 2),
                 "cpu_seconds": round(cpu, 1), "peak_mb": round(peak / 1e6),
                 "docs_with_spans": sum(1 for _, s, _ in cli.values() if s), "spans": found}]
        spark_out = work / f"spark-spans-{unit}-{args.docs}.parquet"
        env = dict(os.environ, PYSPARK_PYTHON=args.python)
        wall, peak, out, cpu = spark_compare.measured([args.python, "-c", SPARK_RUN, str(src), str(spark_out), unit], env=env)
        got = spark_rows(spark_out)
        rows.append({"docs": args.docs, "unit": unit, "tool": "neardup.spark.spans local[2]", "seconds": round(wall, 2),
                     "spans_seconds": json.loads(out.strip().splitlines()[-1])["spans_seconds"],
                     "cpu_seconds": round(cpu, 1), "peak_mb": round(peak / 1e6),
                     "docs_with_spans": sum(1 for _, s, _ in got.values() if s),
                     "spans": sum(len(s) for _, s, _ in got.values()), "equal_to_cli": got == cli})
        del cli, got
        for r in rows:
            print(json.dumps(r), flush=True)
        table.extend(rows)
    print()
    print("| documents | unit | tool | wall s | CPU s | peak MB | spans | equal |")
    print("|---|---|---|---|---|---|---|---|")
    for r in table:
        print(f"| {r['docs']:,} | {r['unit']} | {r['tool']} | {r['seconds']} | {r['cpu_seconds']} | "
              f"{r['peak_mb']:,} | {r['spans']:,} | {r.get('equal_to_cli', '')} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""neardup on Spark against the CLI and text-dedup's minhash_spark.py, on
the same cores and the same Parquet input (issue 35).

    python3 bench/spark_compare.py --docs 100000 [--docs 1000000] [--no-peer] [--distributed] [--warm]

For each size: a real-text corpus from `neardup-bench realtext` (planted
near-duplicates, the originals' ids in `cluster`), written as Parquet
(`id`, `text`, `n` the input order); then

- `neardup dedup` on it (the release binary);
- `neardup.spark.dedup` in Spark local[2] (target/pyenv's Python, where
  the wheel is installed), its groups checked equal to the CLI's;
- text-dedup's `minhash_spark.py` (commit 266bc10, ../shared/anchors),
  through pyspark's `spark-submit --master local[2]`, in bench/.venv
  (`pip install pyspark numpy scipy` there).

Each run's wall time (the whole process: a Spark user pays for the JVM
too; the dedup call alone is printed for neardup.spark; with `--warm`,
the call alone in a session that has run one before, whose wall time is
that call's, and Spark's floor: the whole process of a job that only
passes the texts through Python once and writes their ids), the CPU seconds
of its process tree (the figure to compare when other work shares the
cores), its peak memory
(the process tree's RSS, sampled every 0.2 s: JVM and Python workers
included) and the planted-duplicate precision and recall (whichever copy
a tool keeps: a planted group of k documents has k - 1 to remove). One JSON line per
run, then a table.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
ANCHOR = REPO.parent / "shared" / "anchors" / "text-dedup" / "minhash_spark.py"

SPARK_RUN = r"""
import sys, time, json
from pyspark.sql import SparkSession
import neardup.spark as nds
src, dst, path = sys.argv[1], sys.argv[2], sys.argv[3]
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").config("spark.driver.memory", "8g")
         .getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
if path == "warm":
    # A session that has run before (a notebook, a long-lived driver): a
    # first call on the first 2,000 documents, its output not kept.
    first = nds.dedup(spark.read.parquet(src).limit(2000), text_col="text", order_col="n")
    first.write.format("noop").mode("overwrite").save()
t = time.perf_counter()
if path == "floor":
    # What any PySpark job pays that reads the texts once through Python
    # and writes a row a document: no fingerprints, no decision.
    def ids(batches):
        for b in batches:
            yield b.select(["id"])
    spark.read.parquet(src).select("id", "text").mapInArrow(ids, "id string").write.mode("overwrite").parquet(dst)
else:
    # "distributed": the distributed path whatever the cores (docs_in_one_task=0).
    extra = {"docs_in_one_task": 0} if path == "distributed" else {}
    nds.dedup(spark.read.parquet(src), text_col="text", order_col="n", **extra).write.mode("overwrite").parquet(dst)
print(json.dumps({"dedup_seconds": round(time.perf_counter() - t, 2)}))
"""

TOOLS = {
    "default": "neardup.spark.dedup local[2]",
    "distributed": "neardup.spark.dedup local[2] (distributed path)",
    "warm": "neardup.spark.dedup local[2], a warm session (the call alone)",
    "floor": "Spark's floor local[2]: the texts through Python once, no dedup",
}


def tree_usage(pid: int):
    """Resident bytes of ``pid`` and its descendants, and the CPU seconds
    they have used (their own and their reaped children's)."""
    children = {}
    for p in pathlib.Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                stat = (p / "stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(p.name))
            except (OSError, ValueError, IndexError):
                pass
    total, ticks, todo = 0, 0, [pid]
    while todo:
        q = todo.pop()
        try:
            for line in pathlib.Path(f"/proc/{q}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
            # utime, stime, cutime, cstime
            ticks += sum(int(x) for x in (pathlib.Path(f"/proc/{q}/stat").read_text().rsplit(")", 1)[1].split()[11:15]))
        except (OSError, ValueError):
            pass
        todo.extend(children.get(q, []))
    return total, ticks / os.sysconf("SC_CLK_TCK")


def measured(cmd, env=None):
    """Runs ``cmd``: (wall seconds, peak tree RSS bytes, stdout, CPU
    seconds of the process tree). CPU time is the figure to compare on a
    machine shared with other work, where wall time swings with the load:
    the most seen while sampling, or the reaped children's total when
    that is more."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak, cpu = [0], [0.0]

    def sample():
        while proc.poll() is None:
            rss, used = tree_usage(proc.pid)
            peak[0], cpu[0] = max(peak[0], rss), max(cpu[0], used)
            time.sleep(0.2)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t
    th.join()
    if proc.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({proc.returncode}):\n{err[-3000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    reaped = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, peak[0], out, max(cpu[0], reaped)


def score(removed, truth) -> dict:
    """Planted-duplicate precision and recall of the removed documents
    (ids, an iterable), whichever copy a tool keeps: a planted group of
    k documents (an original and its near-duplicates) has k - 1
    documents to remove; up to that many of its removed documents are
    right. ``truth`` is a table of ``id`` and ``cluster`` (and ``n``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    sizes = truth.group_by("cluster").aggregate([("id", "count")])
    planted = pc.sum(pc.subtract(sizes.column("id_count"), 1)).as_py() or 0
    removed = pa.array(list(removed), pa.string())
    hit = truth.filter(pc.is_in(truth.column("id"), value_set=removed))
    hits = hit.group_by("cluster").aggregate([("id", "count")]).join(sizes, "cluster", right_suffix="_all")
    right = pc.sum(pc.min_element_wise(hits.column("id_count"), pc.subtract(hits.column("id_count_all"), 1))).as_py() or 0
    n = len(removed)
    return {
        "precision": round(right / n, 4) if n else 1.0,
        "recall": round(right / planted, 4) if planted else 1.0,
    }


def output_schema():
    """The columns of a dedup output, as both tools write them."""
    import pyarrow as pa

    return pa.schema([("id", pa.string()), ("cluster", pa.string()), ("duplicate_of", pa.string()),
                      ("similarity", pa.float64())])


def groups_of(table):
    """The rows ``(id, cluster, duplicate_of, similarity)`` of an output,
    sorted by id: two tools agree when these tables are equal."""
    schema = output_schema()
    return table.select(schema.names).cast(schema).sort_by("id")


def removed_of(groups):
    """The ids an output makes duplicates of another."""
    import pyarrow.compute as pc

    return groups.filter(pc.is_valid(groups.column("duplicate_of"))).column("id").to_pylist()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, action="append", required=True)
    ap.add_argument("--no-peer", action="store_true", help="skip text-dedup")
    ap.add_argument("--distributed", action="store_true",
                    help="also run neardup.spark.dedup on its distributed path (docs_in_one_task=0)")
    ap.add_argument("--warm", action="store_true",
                    help="also time the call in a session that has run one before, and Spark's floor "
                         "(the texts through Python once, no dedup)")
    ap.add_argument("--python", default=str(REPO / "target" / "pyenv" / "bin" / "python"))
    ap.add_argument("--peer-python", default=str(REPO / "bench" / ".venv" / "bin" / "python"))
    ap.add_argument("--work", default=None, help="directory for corpora and outputs (default: a temporary one)")
    ap.add_argument("--cli-args", default="", help="more options of `neardup dedup`, e.g. '--memory 4G' at 10^7")
    args = ap.parse_args()
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj
    import pyarrow.parquet as pq

    binary = REPO / "target" / "release"
    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="neardup-spark-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    table = []
    for n in args.docs:
        jsonl, src = work / f"rt{n}.jsonl", work / f"rt{n}.parquet"
        if not src.exists():
            subprocess.run([str(binary / "neardup-bench"), "realtext", "--docs", str(n), "-o", str(jsonl)],
                           check=True, cwd=REPO, stderr=subprocess.DEVNULL)
            # Block by block: 10^7 documents do not fit in memory as one table.
            reader, writer, at = pj.open_json(jsonl, read_options=pj.ReadOptions(block_size=1 << 26)), None, 0
            for batch in reader:
                batch = pa.RecordBatch.from_arrays(
                    batch.columns + [pa.array(range(at, at + batch.num_rows), pa.int64())],
                    names=batch.schema.names + ["n"],
                )
                at += batch.num_rows
                writer = writer or pq.ParquetWriter(src, batch.schema)
                writer.write_batch(batch, row_group_size=50_000)
            writer.close()
            jsonl.unlink()
        # Tables, not Python objects: at 10^7 documents the dicts would
        # take memory from the Spark run measured next to them.
        truth = pq.read_table(src, columns=["id", "cluster", "n"])

        cli_out = work / f"cli{n}.jsonl"
        wall, peak, _, cpu = measured([str(binary / "neardup"), "dedup", "-q", str(src), "-o", str(cli_out),
                                       *args.cli_args.split()])
        cli = groups_of(pj.read_json(cli_out, read_options=pj.ReadOptions(block_size=1 << 26),
                                     parse_options=pj.ParseOptions(explicit_schema=output_schema(),
                                                                   unexpected_field_behavior="ignore")))
        rows = [{"docs": n, "tool": "neardup dedup (CLI)", "seconds": round(wall, 2),
                 "cpu_seconds": round(cpu, 1), "peak_mb": round(peak / 1e6), **score(removed_of(cli), truth)}]

        env = dict(os.environ, PYSPARK_PYTHON=args.python)
        paths = ["default"] + ["distributed"] * args.distributed + ["warm", "floor"] * args.warm
        for path in paths:
            spark_out = work / f"spark{n}.parquet"
            wall, peak, out, cpu = measured([args.python, "-c", SPARK_RUN, str(src), str(spark_out), path], env=env)
            called = json.loads(out.strip().splitlines()[-1])["dedup_seconds"]
            row = {"docs": n, "tool": TOOLS[path], "seconds": called if path == "warm" else round(wall, 2),
                   "dedup_seconds": called, "cpu_seconds": round(cpu, 1), "peak_mb": round(peak / 1e6)}
            if path == "floor":
                row.update(precision="-", recall="-")
            else:
                got = groups_of(pq.read_table(spark_out))
                row.update(equal_to_cli=got.equals(cli), **score(removed_of(got), truth))
                del got
            rows.append(row)
        del cli

        if not args.no_peer:
            peer_out = work / f"peer{n}"
            spark_submit = pathlib.Path(args.peer_python).parent / "spark-submit"
            env = dict(os.environ, PYSPARK_PYTHON=args.peer_python)
            wall, peak, _, cpu = measured([str(spark_submit), "--master", "local[2]", "--driver-memory", "8g",
                                      str(ANCHOR), "--input", str(src), "--output", str(peer_out),
                                      "--column", "text", "--index_column", "n", "--threshold", "0.7"], env=env)
            # Its output is partitioned by `__pid__=K` folders (which
            # pyarrow's discovery would skip as hidden).
            kept = pa.concat_arrays([pq.read_table(part, columns=["n"]).column("n").combine_chunks()
                                     for part in sorted(peer_out.glob("__pid__=*/*.parquet"))])
            removed = truth.filter(pc.invert(pc.is_in(truth.column("n"), value_set=kept))).column("id").to_pylist()
            rows.append({"docs": n, "tool": "text-dedup minhash_spark.py local[2]", "seconds": round(wall, 2),
                         "cpu_seconds": round(cpu, 1), "peak_mb": round(peak / 1e6), **score(removed, truth)})
        for r in rows:
            print(json.dumps(r), flush=True)
        table.extend(rows)
    print("\n| documents | tool | wall s | CPU s | peak MB | precision | recall |\n|---|---|---|---|---|---|---|")
    for r in table:
        print(f"| {r['docs']:,} | {r['tool']} | {r['seconds']} | {r['cpu_seconds']} | {r['peak_mb']:,} "
              f"| {r['precision']} | {r['recall']} |")


if __name__ == "__main__":
    main()

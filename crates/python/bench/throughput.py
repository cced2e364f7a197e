#!/usr/bin/env python3
"""Throughput of the Python bindings and of neardup.spark on one corpus.

    python bench/throughput.py python PATH...        # Deduplicator.add, dedup_files
    python bench/throughput.py spark N PATH...       # neardup.spark in local[N]
    NEARDUP_BENCH_COPIES=K ...                       # the corpus K times (ids suffixed;
                                                     # exact copies: extraction K times)

Prints one JSON line per measurement (documents, seconds, docs/s).
"""

import functools
import json
import sys
import time


def python_bench(paths):
    import neardup

    t = time.perf_counter()
    recs = [(r.id, r.html, r.text) for r in neardup.read_documents(paths) if r.error is None]
    read = time.perf_counter() - t
    print(json.dumps({"what": "read_documents", "docs": len(recs), "seconds": round(read, 2)}))
    d = neardup.Deduplicator()
    t = time.perf_counter()
    for i, html, text in recs:
        if html is not None:
            d.add(i, html)
        else:
            d.add(i, text=text)
    s = time.perf_counter() - t
    print(json.dumps({"what": "Deduplicator.add (extract+minhash+index, 1 thread)", "docs": len(recs),
                      "seconds": round(s, 2), "docs_per_s": round(len(recs) / s)}))
    for threads in (1, 2):
        t = time.perf_counter()
        rows = neardup.dedup_files(paths, threads=threads)
        s = time.perf_counter() - t
        print(json.dumps({"what": f"dedup_files threads={threads}", "docs": len(rows),
                          "seconds": round(s, 2), "docs_per_s": round(len(rows) / s)}))


def spark_bench(n, paths):
    from pyspark.sql import SparkSession

    import neardup.spark as nds

    spark = (
        SparkSession.builder.master(f"local[{n}]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(2 * n))
        .config("spark.default.parallelism", str(2 * n))
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    import os

    from pyspark.sql import functions as F

    copies = int(os.environ.get("NEARDUP_BENCH_COPIES", "1"))
    t = time.perf_counter()
    base = nds.read_documents(spark, paths)
    parts = [
        base.withColumn("id", F.concat(F.col("id"), F.lit(f"#{k}"))).withColumn("ord", F.col("ord") + F.lit(k << 44))
        for k in range(copies)
    ]
    df = functools.reduce(lambda a, b: a.unionByName(b), parts) if copies > 1 else base
    out = nds.dedup(df, html_col="html", text_col="text", order_col="ord")
    rows = out.count()
    s = time.perf_counter() - t
    print(json.dumps({"what": f"neardup.spark local[{n}] copies={copies}", "docs": rows, "seconds": round(s, 2),
                      "docs_per_s": round(rows / s)}))
    spark.stop()


if __name__ == "__main__":
    if sys.argv[1] == "python":
        python_bench(sys.argv[2:])
    else:
        spark_bench(int(sys.argv[2]), sys.argv[3:])

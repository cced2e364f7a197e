"""The job test_spark_cluster.py submits to its standalone cluster:
`spark-submit ... spark_cluster_job.py OUT.json WARC SPANS_JSONL`.

It reads the inputs on the executors (`neardup.spark.read_documents`), runs
`neardup.spark.dedup` on the WARC's pages and `neardup.spark.spans` on the
span corpus, and writes every result, with
where each executor imported neardup from, into OUT.json for the test to
compare with the engine's own results.
"""

import json
import sys

from pyspark.sql import SparkSession


def where(_):
    import os
    import sys as _sys

    import neardup

    yield (_sys.executable, os.path.realpath(neardup.__file__), os.getcwd())


def main(out, warc, spans_jsonl):
    import neardup.spark as nds

    spark = SparkSession.builder.appName("neardup-cluster-test").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    sc = spark.sparkContext
    result = {"master": sc.master}
    result["executors"] = sorted(set(sc.parallelize(range(8), 8).mapPartitions(where).collect()))

    pages = nds.read_documents(spark, [warc])
    groups = nds.dedup(pages.select("ord", "id", "html"), html_col="html", order_col="ord")
    result["warc"] = [r.asDict() for r in groups.collect()]
    # The distributed decision too (the corpus is small enough for one task).
    distributed = nds.dedup(pages.select("ord", "id", "html"), html_col="html", order_col="ord", docs_in_one_task=0)
    result["warc_distributed"] = [r.asDict() for r in distributed.collect()]

    docs = nds.read_documents(spark, [spans_jsonl]).select("ord", "id", "text")
    result["spans"] = nds.span_rows(nds.spans(docs, order_col="ord"))

    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f)
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:4])

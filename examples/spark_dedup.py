#!/usr/bin/env python3
"""Deduplicate a web corpus on Spark with neardup.

    spark-submit examples/spark_dedup.py INPUT... --output OUT [options]

INPUT is WARC / JSON Lines / HTML files (read by neardup's readers in
executor tasks, one task per file) or, with --parquet, Parquet data with an
id column and an HTML (binary or string) or text column. OUT receives
Parquet rows (id, cluster, duplicate_of, similarity): the groups of
`neardup dedup --keep first`, computed by executors (see neardup.spark).

Every executor needs the neardup Python package (pip install
./crates/python on each node, or a packed virtualenv passed with
--archives and PYSPARK_PYTHON).

Examples:
    spark-submit --master local[2] examples/spark_dedup.py \\
        ../shared/eval/neardup/dev/pages.warc.gz --output /tmp/groups
    spark-submit --master yarn --num-executors 50 --executor-cores 4 \\
        --executor-memory 8g --conf spark.sql.shuffle.partitions=2000 \\
        examples/spark_dedup.py --parquet s3://bucket/crawl/ --html-col html \\
        --output s3://bucket/groups/
"""

import argparse
import sys
import time


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("inputs", nargs="+", help="WARC/JSONL/HTML files, or Parquet paths with --parquet")
    p.add_argument("--output", required=True, help="Parquet output directory")
    p.add_argument("--parquet", action="store_true", help="inputs are Parquet data")
    p.add_argument("--id-col", default="id")
    p.add_argument("--html-col", default=None)
    p.add_argument("--text-col", default=None)
    p.add_argument("--order-col", default=None, help="seniority column (default: input order)")
    p.add_argument("--method", default="default")
    p.add_argument("--threshold", type=float, default=None)
    p.add_argument("--max-distance", type=int, default=None)
    p.add_argument("--partitions", type=int, default=None, help="partitions for extraction")
    p.add_argument("--all-text", action="store_true", help="fingerprint all visible text")
    p.add_argument("--no-site-templates", action="store_true", help="keep site template text (default method)")
    p.add_argument("--no-composite-check", action="store_true", help="accept composite pages (default method)")
    p.add_argument("--no-partial-check", action="store_true", help="accept partial copies (default method)")
    p.add_argument(
        "--docs-in-one-task",
        type=int,
        default=None,
        help="decide corpora of at most this many documents in one executor call "
        "(default: any on at most 4 cores, else 200,000; 0: never)",
    )
    args = p.parse_args(argv)

    from pyspark.sql import SparkSession

    import neardup.spark as nds

    spark = SparkSession.builder.appName("neardup-dedup").getOrCreate()
    start = time.time()
    if args.parquet:
        df = spark.read.parquet(*args.inputs)
        if args.partitions:
            df = df.repartition(args.partitions)
        html_col, text_col, order_col = args.html_col, args.text_col, args.order_col
        if html_col is None and text_col is None:
            sys.exit("--parquet needs --html-col and/or --text-col")
    else:
        df = nds.read_documents(spark, args.inputs, num_partitions=args.partitions)
        html_col, text_col, order_col = "html", "text", "ord"
    groups = nds.dedup(
        df,
        id_col=args.id_col,
        html_col=html_col,
        text_col=text_col,
        threshold=args.threshold,
        method=args.method,
        max_distance=args.max_distance,
        order_col=order_col,
        all_text=args.all_text,
        site_templates=not args.no_site_templates,
        composite_check=not args.no_composite_check,
        partial_check=not args.no_partial_check,
        docs_in_one_task=args.docs_in_one_task,
    )
    groups.write.mode("overwrite").parquet(args.output)
    out = spark.read.parquet(args.output)
    n = out.count()
    dups = out.where("duplicate_of IS NOT NULL").count()
    secs = time.time() - start
    print(
        f"neardup spark: {n} documents, {n - dups} kept, {dups} duplicates; "
        f"{secs:.1f}s ({n / max(secs, 1e-9):.0f} docs/s)",
        file=sys.stderr,
    )
    spark.stop()


if __name__ == "__main__":
    main()

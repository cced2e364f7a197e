"""Reading documents on Spark executors with neardup's readers."""

from __future__ import annotations

from typing import Iterator, Optional, Sequence

_DOC_SCHEMA = "ord long, id string, url string, html binary, text string, error string"


def read_documents(spark, paths: Sequence[str], num_partitions: Optional[int] = None):
    """Reads HTML, WARC and JSON Lines files into a DataFrame
    ``(ord long, id string, url string, html binary, text string, error
    string)`` with neardup's readers, each file in an executor task. ``ord``
    is the input order (file, then record), for ``dedup(order_col="ord")``;
    the result is repartitioned into ``num_partitions`` (default: the
    context's default parallelism) so that extraction runs in parallel even
    from one large file. Paths must be readable from the executors.
    """
    import pyarrow as pa  # noqa: F401  (fail early on the driver when absent)

    paths = [str(p) for p in paths]
    if not paths:
        raise ValueError("no input paths")
    sc = spark.sparkContext
    n = num_partitions or sc.defaultParallelism

    def read(index: int, it: Iterator[str]):
        from neardup import read_documents as _read

        for path in it:
            for r, rec in enumerate(_read([path])):
                # File index in the high bits, record number in the low 40.
                yield (
                    (index << 40) | r,
                    rec.id,
                    rec.url,
                    rec.html,
                    rec.text,
                    rec.error,
                )

    rdd = sc.parallelize(paths, len(paths)).mapPartitionsWithIndex(read)
    return spark.createDataFrame(rdd, _DOC_SCHEMA).repartition(n)

"""Reading documents on Spark executors with neardup's readers, as
``neardup dedup`` reads them.

The driver lists the sources the way the CLI expands its inputs (files in
the order given, directories in byte order of paths) and cuts them into
parts; each part is one executor task:

- a plain JSON Lines file: byte ranges of about ``split_bytes``, moved to
  line starts (a first job counts the newlines of each range, so that every
  part knows how many lines come before it: ids ``PATH:LINE`` and errors
  name the file's line numbers);
- a Parquet file: runs of row groups of about ``split_bytes`` (row numbers
  from the footer);
- anything else (WARC, ARC, WET, HTML, compressed JSON Lines): the whole
  file in one task. A gzip WARC is a stream of members whose boundaries are
  only known by decompressing, so it is not split; its records are spread
  by the shuffle that follows.

``ord`` is ``file index << 40 | record position`` (position: lines, rows or
records before the record in its file), so sorting by ``ord`` gives the
CLI's file-then-record order. Ids are then made unique over all inputs as
the CLI makes them (``ids.rs``): a repeated archive URI becomes ``URI#2``,
a repeated JSON Lines or Parquet id an error ``DuplicateId``. Only the ids
whose stem (the id without ``#N`` suffixes) repeats are renamed, a stem per
group in input order; their new ids are joined back by ``ord`` (a broadcast
of the renamed rows, usually none).
"""

from __future__ import annotations

import os
from typing import Iterator, Optional, Sequence

_DOC_SCHEMA = "ord long, id string, url string, html binary, text string, error string"
_RAW_SCHEMA = _DOC_SCHEMA + ", strict boolean"
_FIX_SCHEMA = "ord long, new_id string, duplicate_of string"
_FILE_BITS = 40


def _plan(sources, split_bytes: int):
    """Parts ``(file index, path, part, start, end, before)``, ``part``
    ``lines``, ``groups`` or the kind of a file read whole; JSON Lines
    ranges get their line starts and ``before`` later (``_line_starts``)."""
    parts = []
    for i, (path, kind, plain) in enumerate(sources):
        if kind == "jsonl" and plain:
            size = os.path.getsize(path)
            for start in range(0, max(size, 1), split_bytes):
                parts.append([i, path, "lines", start, min(start + split_bytes, size), 0])
            continue
        if kind == "parquet":
            groups = _parquet_groups(path, split_bytes)
            if groups:
                parts.extend([i, path, "groups", a, b, before] for a, b, before in groups)
                continue
        if kind == "stdin":
            raise ValueError("read_documents: standard input cannot be read on executors")
        if kind != "other":  # passed over, as the CLI counts and skips them
            parts.append([i, path, kind, 0, 0, 0])
    return parts


def _parquet_groups(path: str, split_bytes: int):
    """Runs of row groups ``(first, end, rows before)`` of about
    ``split_bytes``; ``None`` when pyarrow cannot read the footer (the
    reader then reports the file's error in one task)."""
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(path).metadata
    except Exception:  # noqa: BLE001  (the engine's reader names the error)
        return None
    runs, first, rows, size, before = [], 0, 0, 0, 0
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        rows, size = rows + rg.num_rows, size + rg.total_byte_size
        if size >= split_bytes or g == meta.num_row_groups - 1:
            runs.append((first, g + 1, before))
            first, before, rows, size = g + 1, before + rows, 0, 0
    return runs or None


def _count_lines(part):
    """``(aligned start, newlines in [start, end))`` of a raw byte range:
    the aligned start is the first line start at or after ``start``."""
    _, path, _, start, end, _ = part
    with open(path, "rb") as f:
        aligned = start
        if start > 0:
            f.seek(start - 1)
            f.readline()
            aligned = f.tell()
        f.seek(start)
        newlines, left = 0, end - start
        while left > 0:
            chunk = f.read(min(left, 8 << 20))
            if not chunk:
                break
            newlines += chunk.count(b"\n")
            left -= len(chunk)
    return aligned, newlines


def _line_starts(sc, parts) -> None:
    """Turns the raw byte ranges of JSON Lines parts into line ranges with
    the number of lines before each (one small job over the ranges)."""
    lines = [p for p in parts if p[2] == "lines"]
    if not lines:
        return
    counts = sc.parallelize(lines, len(lines)).map(_count_lines).collect()
    by_file: dict = {}
    for p, c in zip(lines, counts):
        by_file.setdefault(p[0], []).append((p, c))
    for ranges in by_file.values():
        seen = 0
        for p, (aligned, newlines) in ranges:
            raw_start = p[3]
            # One newline lies between a range's start and its first line
            # start when the range does not begin on one.
            p[5] = seen + (1 if aligned > raw_start else 0)
            p[3] = aligned
            seen += newlines
        for k, (p, _) in enumerate(ranges):
            p[4] = ranges[k + 1][0][3] if k + 1 < len(ranges) else max(p[4], p[3])


def _read_part(it: Iterator):
    from neardup._neardup import read_part

    for index, path, part, start, end, before, strict in it:
        for r, rec in enumerate(read_part(path, part, start, end, before)):
            yield ((index << _FILE_BITS) | (before + r), rec.id, rec.url, rec.html, rec.text, rec.error, strict)


def _rust_debug(s: str) -> str:
    """``format!("{s:?}")`` of a Rust string, as the CLI's errors quote ids."""
    out = ['"']
    for ch in s:
        esc = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}.get(ch)
        if esc is None and (ord(ch) < 0x20 or ord(ch) == 0x7F):
            esc = "\\u{%x}" % ord(ch)
        out.append(esc or ch)
    out.append('"')
    return "".join(out)


def _rename(pdf):
    """The ids of one stem's documents made unique in input order, as
    ``IdRegistry::assign`` does: rows ``(ord, new id, duplicate of)`` for
    the documents whose id changes."""
    import pandas as pd

    seen: dict = {}
    rows = []
    for o, id_, strict, error in pdf.sort_values("ord")[["ord", "id", "strict", "error"]].itertuples(index=False):
        n = seen.get(id_, 0) + 1
        seen[id_] = n
        if n == 1:
            continue
        k = n
        while f"{id_}#{k}" in seen:
            k += 1
        new = f"{id_}#{k}"
        seen[new], seen[id_] = 1, k
        rows.append((o, new, id_ if strict and error is None else None))
    return pd.DataFrame(rows, columns=["ord", "new_id", "duplicate_of"])


def _unique_ids(raw):
    from pyspark.sql import functions as F

    ids = raw.select("ord", "id", "strict", "error").withColumn(
        "stem", F.regexp_replace("id", r"(#[0-9]+)+$", "")
    )
    stems = ids.groupBy("id").count().where("count > 1").select(
        F.regexp_replace("id", r"(#[0-9]+)+$", "").alias("stem")
    ).distinct()
    fixes = ids.join(stems, "stem").groupBy("stem").applyInPandas(_rename, _FIX_SCHEMA)
    out = raw.join(F.broadcast(fixes), "ord", "left")
    dup = F.col("duplicate_of").isNotNull()
    message = F.udf(lambda i: None if i is None else f"document id {_rust_debug(i)} occurs more than once in the input")
    return out.select(
        "ord",
        F.coalesce("new_id", "id").alias("id"),
        F.when(dup, None).otherwise(F.col("url")).alias("url"),
        F.when(dup, None).otherwise(F.col("html")).alias("html"),
        F.when(dup, None).otherwise(F.col("text")).alias("text"),
        F.when(dup, message("duplicate_of")).otherwise(F.col("error")).alias("error"),
    )


def read_documents(
    spark,
    paths: Sequence[str],
    num_partitions: Optional[int] = None,
    split_bytes: int = 64 << 20,
):
    """Reads HTML, WARC, ARC, WET, JSON Lines and Parquet inputs (files or
    directories) into a DataFrame ``(ord long, id string, url string, html
    binary, text string, error string)`` with neardup's readers, in
    executor tasks: the records, ids and errors of ``neardup dedup`` on the
    same paths. ``ord`` is the CLI's input order (file, then record), for
    ``dedup(order_col="ord")``. Plain JSON Lines and Parquet files are read
    in parts of about ``split_bytes``, other files one per task; the result
    is repartitioned into ``num_partitions`` (default: the context's default
    parallelism) for the extraction that follows. Paths must be readable
    from the driver (which lists them) and from the executors.
    """
    import pyarrow as pa  # noqa: F401  (fail early on the driver when absent)

    from neardup._neardup import input_sources

    paths = [str(p) for p in paths]
    if not paths:
        raise ValueError("no input paths")
    if split_bytes < 1:
        raise ValueError("split_bytes must be positive")
    sc = spark.sparkContext
    n = num_partitions or sc.defaultParallelism
    sources = input_sources(paths)
    parts = _plan(sources, split_bytes)
    _line_starts(sc, parts)
    strict = {i: kind in ("jsonl", "parquet") for i, (_, kind, _) in enumerate(sources)}
    tasks = [tuple(p) + (strict[p[0]],) for p in parts]
    if not tasks:
        return spark.createDataFrame([], _DOC_SCHEMA)
    rdd = sc.parallelize(tasks, len(tasks)).mapPartitions(_read_part)
    raw = spark.createDataFrame(rdd, _RAW_SCHEMA).repartition(n)
    return _unique_ids(raw)

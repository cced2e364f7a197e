"""Repeated passages on Spark: ``neardup spans`` over a DataFrame."""

from __future__ import annotations

from typing import List, Optional, Sequence

from .. import _neardup as _nd
from ._common import _col, _materialize, _utf8

_SPAN_KEY_SCHEMA = "ord long, kidx int, unit int, key long"
_WINDOW_SCHEMA = "ord long, pos int, len int, h0 long, h1 long"
_SPAN_ROW_SCHEMA = (
    "ord long, id string, chars long, "
    "spans array<struct<start:long,end:long,kind:string,source:string>>, error string"
)


def spans(
    df,
    id_col: str = "id",
    text_col: Optional[str] = "text",
    html_col: Optional[str] = None,
    unit: Optional[str] = "paragraph",
    *,
    keep: str = "first",
    fuzzy: bool = False,
    overlap: float = 0.8,
    ngram: int = 13,
    min_chars: int = 20,
    reference: Optional[Sequence[tuple]] = None,
    ref_ngram: int = 13,
    min_tokens: Optional[int] = None,
    min_bytes: Optional[int] = None,
    order_col: Optional[str] = None,
    all_text: bool = False,
    hot_key_rows: int = 10_000,
):
    """Repeated passages inside documents, as ``neardup spans`` finds them:
    a DataFrame ``id, chars, spans, error`` (``spans`` an array of
    ``start, end, kind, source``: code point offsets, and the id of the
    document of the first occurrence, or of the reference item).

    1. **Keys** — executors read each document (``text_col`` as it is, or
       ``html_col`` decoded and extracted) and give its units' keys
       (``mapInArrow``), exploded to ``ord, key index, unit, key``; with
       ``unit="substring"``, its windows (from each token, the shortest
       run of at least ``min_tokens`` tokens and ``min_bytes`` bytes) keyed
       by a 122-bit fingerprint of their tokens and their length.
    2. **First occurrences** — a combinable aggregation by key: the
       earliest ``(ord, unit)`` (or ``(ord, token)``) of each key and its
       count; keys seen more than once get the id of their first document
       (a join bounded by that document's keys). A key counts as seen in
       every other occurrence (``keep="none"``) or every later one
       (``keep="first"``). Keys with more than ``hot_key_rows``
       occurrences (boilerplate) are broadcast to the occurrences where
       they are, the others joined by key, so that no task gets more than
       ``hot_key_rows`` occurrences of one key. Seen keys are gathered per
       document.
    3. **Spans** — executors decide each document's spans from its seen
       keys (or copied windows) with the library's rule (the CLI's, so the
       spans are the CLI's).

    The number of Spark jobs and stages does not depend on the corpus.
    Input order is ``order_col`` ascending, else the DataFrame's order.
    ``reference`` is a list of ``(id, text)`` items, shipped to the
    executors.
    """
    import pyarrow as pa
    from pyspark.sql import functions as F

    if html_col is None and text_col is None:
        raise ValueError("give text_col= or html_col= (or both)")
    opts = {
        "unit": unit,
        "keep": keep,
        "fuzzy": fuzzy,
        "overlap": overlap,
        "ngram": ngram,
        "min_chars": min_chars,
        "reference": [tuple(r) for r in reference] if reference is not None else None,
        "ref_ngram": ref_ngram,
        "min_tokens": min_tokens,
        "min_bytes": min_bytes,
        "all_text": all_text,
    }
    # Checks the options on the driver, with a clear message.
    finder = _nd.SpanFinder(unit, keep=keep, fuzzy=fuzzy, overlap=overlap, ngram=ngram,
                            min_chars=min_chars, min_tokens=min_tokens, min_bytes=min_bytes,
                            reference=opts["reference"], ref_ngram=ref_ngram)
    if hot_key_rows < 1:
        raise ValueError("hot_key_rows must be at least 1")
    order = F.col(order_col) if order_col else F.monotonically_increasing_id()
    cols = [order.cast("long").alias("ord"), F.col(id_col).cast("string").alias("id")]
    cols.append(F.col(html_col).alias("html") if html_col else F.lit(None).cast("binary").alias("html"))
    cols.append(F.col(text_col).cast("string").alias("text") if text_col else F.lit(None).cast("string").alias("text"))
    docs = _materialize(df.select(*cols))
    use_html, use_text = html_col is not None, text_col is not None

    def contents(b):
        return {
            "htmls": _col(b, "html").to_pylist() if use_html else None,
            "texts": _utf8(b, "text") if use_text else None,
        }

    ids = docs.select(F.col("ord").alias("first_ord"), F.col("id").alias("first_id"))
    if finder.decides_by_keys:
        tasks = docs.join(_seen_keys(docs, opts, contents, ids, keep, hot_key_rows), "ord", "left")
        kernel = _nd.span_rows_batch

        def found(x):
            return [(r["kidx"], r["first_ord"], r["first_id"]) for r in x]
    else:
        tasks = docs.join(_copied_windows(docs, opts, contents, ids, keep, hot_key_rows), "ord", "left")
        kernel = _nd.substring_rows_batch

        def found(x):
            return [(r["pos"], r["len"], r["first_ord"], r["first_id"]) for r in x]

    def rows(batches):
        for b in batches:
            m = [None if x is None else found(x) for x in _col(b, "m").to_pylist()]
            out = kernel(opts, _col(b, "id").to_pylist(), m, **contents(b))
            yield pa.RecordBatch.from_arrays(
                [
                    _col(b, "ord"),
                    _col(b, "id"),
                    pa.array([r[0] for r in out], pa.int64()),
                    pa.array(
                        [[{"start": s, "end": e, "kind": k, "source": src} for s, e, k, src in r[1]] for r in out],
                        pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                                            ("kind", pa.string()), ("source", pa.string())])),
                    ),
                    pa.array([r[2] for r in out], pa.string()),
                ],
                names=["ord", "id", "chars", "spans", "error"],
            )

    return tasks.mapInArrow(rows, _SPAN_ROW_SCHEMA).orderBy("ord").drop("ord")


def _join_hot(occ, per_key, keys, count, hot_key_rows):
    """``occ`` joined with ``per_key`` (one row per key, ``count`` its
    occurrences) on ``keys``: keys with more than ``hot_key_rows``
    occurrences are broadcast to the occurrences where they are, the others
    joined by a shuffle, so that no task of the join gets more than
    ``hot_key_rows`` occurrences of one key. The broadcast holds at most
    ``occurrences / hot_key_rows`` keys."""
    from pyspark.sql import functions as F

    hot = per_key.where(F.col(count) > hot_key_rows)
    at_hot = occ.join(F.broadcast(hot), keys)
    cold = occ.join(F.broadcast(hot.select(*keys)), keys, "left_anti")
    return at_hot.unionByName(cold.join(per_key.where(F.col(count) <= hot_key_rows), keys))


def _occurrences(docs, opts, contents, kernel, schema: str):
    """Each document's occurrences as ``kernel`` gives them (its first
    list the row within the batch, the others one column each of
    ``schema`` after ``ord``), with the document's ``ord``; materialized."""
    import pyarrow as pa

    fields = [f.strip().split(" ") for f in schema.split(",")]
    types = {"long": pa.int64(), "int": pa.int32()}

    def run(batches):
        for b in batches:
            pos, *cols = kernel(opts, _col(b, "id").to_pylist(), **contents(b))
            ords = _col(b, "ord").to_pylist()
            yield pa.RecordBatch.from_arrays(
                [pa.array([ords[p] for p in pos], pa.int64())]
                + [pa.array(c, types[t]) for c, (_, t) in zip(cols, fields[1:])],
                names=[name for name, _ in fields],
            )

    return _materialize(docs.mapInArrow(run, schema))


def _copies_per_doc(occ, ids, keys, within: str, count, keep, hot_key_rows, fields):
    """Per document (``ord``) its occurrences that another occurrence of
    the same ``keys`` has (with ``keep="first"``: that are not the earliest
    in ``(ord, within)`` order), with the first one's document: ``m``, a
    list of ``fields`` plus ``first_ord, first_id``. ``count`` counts a
    key's occurrences."""
    from pyspark.sql import functions as F

    per_key = (
        occ.groupBy(*keys)
        .agg(F.min(F.struct("ord", within)).alias("first"), count.alias("n"))
        .where(F.col("n") > 1)
        .join(ids, F.col("first.ord") == F.col("first_ord"))
    )
    joined = _join_hot(occ, per_key, keys, "n", hot_key_rows)
    if keep == "first":
        joined = joined.where((F.col("ord") != F.col("first.ord")) | (F.col(within) != F.col(f"first.{within}")))
    return joined.groupBy("ord").agg(F.collect_list(F.struct(*fields, "first_ord", "first_id")).alias("m"))


def _seen_keys(docs, opts, contents, ids, keep, hot_key_rows):
    """Per document (``ord``) the seen keys of its units: ``m``, a list of
    ``kidx, first_ord, first_id``. A key's count is of the distinct units
    that have it."""
    from pyspark.sql import functions as F

    occ = _occurrences(docs, opts, contents, _nd.span_keys_batch, _SPAN_KEY_SCHEMA)
    units = F.countDistinct("ord", "unit")
    return _copies_per_doc(occ, ids, ["key"], "unit", units, keep, hot_key_rows, ["kidx"])


def _copied_windows(docs, opts, contents, ids, keep, hot_key_rows):
    """Per document (``ord``) its copied windows (the substring unit):
    ``m``, a list of ``pos, len, first_ord, first_id``. A window is copied
    when another window has the same fingerprint and length and, with
    ``keep="first"``, the earliest of them in ``(ord, pos)`` order is
    another: the copies ``neardup spans --unit substring`` finds with its
    suffix array."""
    from pyspark.sql import functions as F

    occ = _occurrences(docs, opts, contents, _nd.substring_windows_batch, _WINDOW_SCHEMA)
    keys = ["h0", "h1", "len"]
    return _copies_per_doc(occ, ids, keys, "pos", F.count(F.lit(1)), keep, hot_key_rows, ["pos", "len"])


def span_rows(df) -> List[dict]:
    """The rows of ``spans(...)`` as ``neardup spans`` writes them:
    ``{"id", "chars", "spans": [{"start", "end", "kind", "first" |
    "reference"}]}`` (and ``"error"``), in input order. Collects to the
    driver: for tests and small results."""
    out = []
    for r in df.collect():
        row = {"id": r["id"], "chars": r["chars"], "spans": []}
        for s in r["spans"] or []:
            key = "reference" if s["kind"] == "reference" else "first"
            row["spans"].append({"start": s["start"], "end": s["end"], "kind": s["kind"], key: s["source"]})
        if r["error"] is not None:
            row["error"] = r["error"]
            row["chars"] = 0
        out.append(row)
    return out

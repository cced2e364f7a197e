"""Repeated passages on Spark: ``neardup spans`` over a DataFrame."""

from __future__ import annotations

from typing import List, Optional, Sequence

from .. import _neardup as _nd
from ._common import _col, _materialize

_SPAN_KEY_SCHEMA = "ord long, kidx int, unit int, key long"
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
    order_col: Optional[str] = None,
    all_text: bool = False,
):
    """Repeated passages inside documents, as ``neardup spans`` finds them:
    a DataFrame ``id, chars, spans, error`` (``spans`` an array of
    ``start, end, kind, source``: code point offsets, and the id of the
    document of the first occurrence, or of the reference item).

    1. **Keys** — executors read each document (``text_col`` as it is, or
       ``html_col`` decoded and extracted) and give its units' keys
       (``mapInArrow``), exploded to ``ord, key index, unit, key``.
    2. **First occurrences** — a shuffle by key: the earliest
       ``(ord, unit)`` of each key and the number of units that have it.
       A key counts as seen in every other unit (``keep="none"``) or every
       later unit (``keep="first"``); seen keys are joined with the id of
       their first document and gathered per document.
    3. **Spans** — executors decide each document's spans from its seen
       keys with the library's rule (the CLI's, so the spans are the
       CLI's).

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
        "all_text": all_text,
    }
    # Checks the options on the driver, with a clear message.
    finder = _nd.SpanFinder(unit, keep=keep, fuzzy=fuzzy, overlap=overlap, ngram=ngram,
                            min_chars=min_chars, reference=opts["reference"], ref_ngram=ref_ngram)
    if not finder.decides_by_keys:
        raise _nd.NeardupError(
            "unit='substring' needs the whole corpus in one suffix array: Spark's shuffle by key "
            "does not apply (collect the texts and use neardup.spans or `neardup spans`)")
    order = F.col(order_col) if order_col else F.monotonically_increasing_id()
    cols = [order.cast("long").alias("ord"), F.col(id_col).cast("string").alias("id")]
    cols.append(F.col(html_col).alias("html") if html_col else F.lit(None).cast("binary").alias("html"))
    cols.append(F.col(text_col).cast("string").alias("text") if text_col else F.lit(None).cast("string").alias("text"))
    docs = _materialize(df.select(*cols))
    use_html, use_text = html_col is not None, text_col is not None

    def contents(b):
        return {
            "htmls": _col(b, "html").to_pylist() if use_html else None,
            "texts": _col(b, "text").to_pylist() if use_text else None,
        }

    def keys(batches):
        for b in batches:
            pos, kidx, units, ks = _nd.span_keys_batch(opts, _col(b, "id").to_pylist(), **contents(b))
            ords = _col(b, "ord").to_pylist()
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array([ords[p] for p in pos], pa.int64()),
                    pa.array(kidx, pa.int32()),
                    pa.array(units, pa.int32()),
                    pa.array(ks, pa.int64()),
                ],
                names=["ord", "kidx", "unit", "key"],
            )

    occ = _materialize(docs.mapInArrow(keys, _SPAN_KEY_SCHEMA))
    per_key = occ.groupBy("key").agg(
        F.min(F.struct("ord", "unit")).alias("first"),
        F.countDistinct("ord", "unit").alias("units"),
    )
    joined = occ.join(per_key, "key")
    if keep == "first":
        seen = (F.col("ord") != F.col("first.ord")) | (F.col("unit") != F.col("first.unit"))
    else:
        seen = F.col("units") > 1
    ids = docs.select(F.col("ord").alias("first_ord"), F.col("id").alias("first_id"))
    matched = (
        joined.where(seen)
        .select("ord", "kidx", F.col("first.ord").alias("first_ord"))
        .join(ids, "first_ord")
        .groupBy("ord")
        .agg(F.collect_list(F.struct("kidx", "first_ord", "first_id")).alias("m"))
    )
    tasks = docs.join(matched, "ord", "left")

    def rows(batches):
        for b in batches:
            m = [None if x is None else [(r["kidx"], r["first_ord"], r["first_id"]) for r in x]
                 for x in _col(b, "m").to_pylist()]
            out = _nd.span_rows_batch(opts, _col(b, "id").to_pylist(), m, **contents(b))
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

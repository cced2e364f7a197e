"""neardup.spark.spans in Spark local mode (local[2]): the spans of
`neardup spans`, by a shuffle on unit keys."""

import json
import pathlib

import pytest

import neardup

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")

from neardup import spark as nds  # noqa: E402

DATA = pathlib.Path(__file__).resolve().parents[2] / "cli" / "tests" / "data" / "spans"


def corpus(n):
    lines = [
        "Subscribe to our newsletter — the latest stories every morning.",
        "本网站所有内容均受版权保护，未经许可不得转载。",
        "Share this article with your friends and family today.",
    ]
    docs = []
    for d in range(n):
        body = [f"Story {d}: the council met on day {d} and talked about item {d * 7} at length."]
        if d % 3 == 0:
            body.append(lines[d % len(lines)])
        if d % 5 == 2 and d > 5:
            body.append(f"Story {d - 5}: the council met on day {d - 5} and talked about item {(d - 5) * 7} at length.")
        body.append(f"A sentence that only document {d} has, number {d}. {lines[(d + 1) % 3]}")
        docs.append((f"d{d}", "\n".join(body)))
    return docs


@pytest.mark.parametrize(
    "kw",
    [{}, {"keep": "none"}, {"unit": "sentence"}, {"fuzzy": True, "ngram": 5}],
)
def test_spark_spans_equal_the_command(spark, kw):
    docs = corpus(300)
    df = spark.createDataFrame(docs, ["id", "text"]).repartition(3)
    ordered = spark.createDataFrame([(i, d, t) for i, (d, t) in enumerate(docs)], ["o", "id", "text"])
    got = nds.span_rows(nds.spans(ordered.repartition(3), order_col="o", **kw))
    want = neardup.SpanFinder(**kw).spans([t for _, t in docs], ids=[d for d, _ in docs])
    assert got == want
    assert sum(len(r["spans"]) for r in want) > 100
    del df


def test_spark_spans_of_the_fixture_and_a_reference(spark):
    docs = [json.loads(l) for l in (DATA / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    df = spark.createDataFrame([(i, d["id"], d["text"]) for i, d in enumerate(docs)], ["o", "id", "text"])
    want = [json.loads(l) for l in (DATA / "paragraph.jsonl").read_text(encoding="utf-8").splitlines()]
    assert nds.span_rows(nds.spans(df, order_col="o")) == want
    ref = [json.loads(l) for l in (DATA / "reference.jsonl").read_text(encoding="utf-8").splitlines()]
    got = nds.span_rows(nds.spans(df, unit=None, order_col="o", ref_ngram=8,
                                  reference=[(r["id"], r["text"]) for r in ref]))
    want = [json.loads(l) for l in (DATA / "reference-out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert got == want
    with pytest.raises(neardup.NeardupError, match="unit"):
        nds.spans(df, unit="word")
    with pytest.raises(neardup.NeardupError, match="min-tokens"):
        nds.spans(df, unit="paragraph", min_tokens=5)


def substring_corpus():
    """Edited copies, merged pages and exact copies of articles (English
    and Chinese), with passages repeated inside one document, case and
    width variants, an empty document and one without text."""
    from corpus import corpus as articles

    docs = [(f"en-{i}", t) for i, t in articles(seed=11, n_articles=12)]
    docs += [(f"zh-{i}", t) for i, t in articles(seed=5, n_articles=6, chinese=True)]
    docs += corpus(60)
    loop = " ".join(["the tide comes in and the tide goes out again"] * 4)
    docs.insert(3, ("loop", loop + ". " + loop.upper()))
    docs.insert(7, ("wide", "ＴＨＥ ＴＩＤＥ ＣＯＭＥＳ ＩＮ and the tide goes out again, says the harbour master."))
    docs.insert(9, ("blank", " ... "))
    return docs


@pytest.mark.parametrize(
    "kw",
    [{"min_tokens": 10}, {"min_tokens": 10, "keep": "none"}, {"min_tokens": 3, "min_bytes": 40}],
)
def test_spark_substring_spans_equal_the_command(spark, kw):
    docs = substring_corpus()
    df = spark.createDataFrame([(i, d, t) for i, (d, t) in enumerate(docs)], ["o", "id", "text"])
    got = nds.span_rows(nds.spans(df.repartition(3), unit="substring", order_col="o", **kw))
    want = neardup.SpanFinder("substring", **kw).spans([t for _, t in docs], ids=[d for d, _ in docs])
    assert got == want
    spans = [s for r in want for s in r["spans"]]
    assert len(spans) > 100
    # Spans continuing one another (the first document changes) and spans
    # inside the document they repeat in.
    assert any(a["end"] == b["start"] for r in want for a, b in zip(r["spans"], r["spans"][1:]))
    assert any(s["first"] == r["id"] for r in want for s in r["spans"])


def test_spark_substring_spans_with_a_reference(spark):
    docs = corpus(40)
    ref = [("ref-1", "Share this article with your friends and family today."),
           ("ref-2", "the council met on day 12 and talked about item 84 at length")]
    df = spark.createDataFrame([(i, d, t) for i, (d, t) in enumerate(docs)], ["o", "id", "text"])
    kw = {"min_tokens": 6, "reference": ref, "ref_ngram": 6}
    got = nds.span_rows(nds.spans(df, unit="substring", order_col="o", **kw))
    want = neardup.SpanFinder("substring", **kw).spans([t for _, t in docs], ids=[d for d, _ in docs])
    assert got == want
    assert any(s["kind"] == "reference" for r in want for s in r["spans"])


def boilerplate_corpus(n):
    """`n` documents, each with the same footer paragraph (boilerplate)
    and a paragraph of its own, some repeated once later."""
    footer = "Copyright 2024 The Harbour Gazette. All rights reserved. Terms of use apply."
    docs = []
    for d in range(n):
        k = d if d < n - 50 else d - (n - 50)
        own = f"Report {k}: the harbour master counted {k} boats in the morning."
        docs.append((f"b{d}", f"{own}\n{footer}"))
    return docs


@pytest.mark.parametrize("unit", ["paragraph", "line"])
def test_boilerplate_in_every_document_is_joined_where_it_is(spark, unit):
    """A paragraph (a line) in every document: its key is broadcast to the
    occurrences (no task gets them all), and the spans stay the CLI's."""
    from neardup.spark._spans import _join_hot
    from pyspark.sql import functions as F

    docs = boilerplate_corpus(3000)
    df = spark.createDataFrame([(i, d, t) for i, (d, t) in enumerate(docs)], ["o", "id", "text"])
    got = nds.span_rows(nds.spans(df.repartition(4), unit=unit, order_col="o", hot_key_rows=500))
    want = neardup.SpanFinder(unit).spans([t for _, t in docs], ids=[d for d, _ in docs])
    assert got == want
    # The footer 2999 times, and Report 0 again in b2950.
    assert sum(1 for r in want for s in r["spans"] if s["first"] == "b0") == 2999 + 1
    assert sum(1 for r in want if len(r["spans"]) == 2) == 50

    # The join itself: 2900 occurrences of one key and 100 others, over 6
    # partitions.
    key = F.when(F.col("id") < 2900, F.lit(-1)).otherwise(F.col("id"))
    occ = spark.range(3000).select(F.col("id").alias("ord"), key.alias("key")).repartition(6)
    per_key = occ.groupBy("key").agg(F.min("ord").alias("first"), F.count(F.lit(1)).alias("n"))

    def largest_task(hot_key_rows):
        joined = _join_hot(occ, per_key, ["key"], "n", hot_key_rows)
        assert joined.count() == 3000
        return max(r["c"] for r in joined.groupBy(F.spark_partition_id().alias("p")).agg(F.count(F.lit(1)).alias("c")).collect())

    # (Without broadcasting small tables on its own, as at scale.)
    before = spark.conf.get("spark.sql.autoBroadcastJoinThreshold")
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    try:
        assert largest_task(500) <= 600
        # Below the threshold the key goes by shuffle to one task.
        assert largest_task(5000) >= 2900
    finally:
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", before)

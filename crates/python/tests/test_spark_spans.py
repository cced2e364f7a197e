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
    with pytest.raises(neardup.NeardupError, match="substring"):
        nds.spans(df, unit="substring")

"""neardup.spark in Spark local mode (local[2]): the distributed pipeline
gives the same groups as the batch engine (`neardup dedup`)."""

import json
import os
import subprocess
import sys

import pytest

import neardup
from corpus import corpus

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")

from neardup import spark as nds  # noqa: E402


def normalize(rows):
    out = []
    for r in rows:
        out.append((r["id"], r["cluster"], r["duplicate_of"], r["similarity"]))
    return sorted(out)


@pytest.mark.parametrize(
    "method,kw",
    [
        ("default", {}),
        ("minhash", {}),
        ("simhash", {"max_distance": 8}),
        ("supershingle", {}),
        ("paragraph", {}),
    ],
)
@pytest.mark.parametrize("one_task", [True, False], ids=["corpus in one task", "distributed"])
def test_spark_equals_batch_engine_on_synthetic_corpus(spark, tmp_path, method, kw, one_task):
    docs = corpus(seed=11, n_articles=40)
    path = tmp_path / "docs.jsonl"
    with open(path, "w") as f:
        for i, t in docs:
            f.write(json.dumps({"id": i, "text": t}) + "\n")
    want = neardup.dedup_files([str(path)], method, **kw)
    # Several partitions, input order in a column.
    df = spark.createDataFrame([(n, i, t) for n, (i, t) in enumerate(docs)], "n long, id string, body string")
    df = df.repartition(3)
    path = {} if one_task else {"docs_in_one_task": 0}
    got = nds.dedup(df, text_col="body", method=method, order_col="n", **path, **kw)
    assert got.columns == ["id", "cluster", "duplicate_of", "similarity"]
    got_rows = [r.asDict() for r in got.collect()]
    assert normalize(got_rows) == normalize(want)
    assert any(r["duplicate_of"] for r in got_rows)


@pytest.mark.parametrize("lookup", ["broadcast", "hashes joined", "postings joined"])
def test_spark_composite_pass_equals_engine_either_lookup_path(spark, tmp_path, monkeypatch, lookup):
    # The merged pages of the corpus (half of one article, all of another)
    # are what the composite page check refuses: the pass must matter here.
    from neardup.spark import _passes

    if lookup == "hashes joined":
        # Past the broadcast's size: the looked-up hashes are joined instead.
        monkeypatch.setattr(_passes, "BROADCAST_HASHES", 0)
    if lookup == "postings joined":
        # Past the earliest postings' bound: grouped and joined with the runs.
        monkeypatch.setattr(_passes, "EARLIEST_ROWS", 0)
    docs = corpus(seed=5, n_articles=40)
    path = tmp_path / "docs.jsonl"
    with open(path, "w") as f:
        for i, t in docs:
            f.write(json.dumps({"id": i, "text": t}) + "\n")
    df = spark.createDataFrame([(n, i, t) for n, (i, t) in enumerate(docs)], "n long, id string, body string")
    # The distributed path's composite pass is what this checks.
    got = normalize(r.asDict() for r in nds.dedup(df, text_col="body", order_col="n", docs_in_one_task=0).collect())
    assert got == normalize(neardup.dedup_files([str(path)], "default"))
    without = nds.dedup(
        df, text_col="body", order_col="n", composite_check=False, partial_check=False, docs_in_one_task=0
    )
    assert normalize(r.asDict() for r in without.collect()) == normalize(
        neardup.dedup_files([str(path)], "default", composite_check=False, partial_check=False)
    )
    assert normalize(r.asDict() for r in without.collect()) != got


def test_spark_rejects_bad_arguments(spark):
    df = spark.createDataFrame([("a", "text")], "id string, body string")
    with pytest.raises(ValueError, match="html_col"):
        nds.dedup(df)
    with pytest.raises(neardup.NeardupError, match="method"):
        nds.dedup(df, text_col="body", method="nope")
    with pytest.raises(ValueError, match="docs_in_one_task"):
        nds.dedup(df, text_col="body", docs_in_one_task=-1)


def test_spark_one_task_refuses_repeated_ids(spark):
    # The batch engine names the repeated ids, as `neardup dedup` does.
    df = spark.createDataFrame(
        [(0, "a", "the council approved the new cycle lanes"), (1, "a", "work on the bridge starts in spring")],
        "n long, id string, body string",
    )
    with pytest.raises(Exception, match="occur more than once"):
        nds.dedup(df, text_col="body", order_col="n")


def cli_binary():
    """The `neardup` binary to compare with, when NEARDUP_BIN names one
    built from the same sources (a stale binary would differ by design)."""
    b = os.environ.get("NEARDUP_BIN")
    return b if b and os.path.exists(b) else None


@pytest.mark.parametrize("one_task", [True, False], ids=["corpus in one task", "distributed"])
@pytest.mark.parametrize("method", ["minhash", "default"])
def test_spark_on_dev_benchmark_matches_cli(spark, dev_dir, tmp_path, method, one_task):
    warc = dev_dir / "pages.warc.gz"
    df = nds.read_documents(spark, [str(warc)])
    assert df.columns == ["ord", "id", "url", "html", "text", "error"]
    path = {} if one_task else {"docs_in_one_task": 0}
    got = nds.dedup(df.select("ord", "id", "html"), html_col="html", order_col="ord", method=method, **path)
    got_rows = [r.asDict() for r in got.collect()]
    want = neardup.dedup_files([str(warc)], method)
    assert len(got_rows) == len(want) > 1000
    assert normalize(got_rows) == normalize(want)
    # The CLI itself, when NEARDUP_BIN names a binary of the same sources.
    binary = cli_binary()
    if binary:
        out = tmp_path / "cli.jsonl"
        subprocess.run([binary, "dedup", "-q", "--method", method, str(warc), "-o", str(out)], check=True)
        cli = [json.loads(line) for line in out.read_text().splitlines()]
        assert normalize(got_rows) == normalize(cli)
    # Pairwise F1 against the labels: printed, and held to the target for
    # the default method.
    scorer = dev_dir.parent.parent / "score_neardup.py"
    if scorer.exists():
        pred = tmp_path / "pred.jsonl"
        pred.write_text("".join(json.dumps({"id": r["id"], "cluster": r["cluster"]}) + "\n" for r in got_rows))
        res = subprocess.run(
            [sys.executable, str(scorer), str(dev_dir), str(pred), "--json"],
            capture_output=True,
            text=True,
            check=True,
        )
        score = json.loads(res.stdout.strip().splitlines()[-1])
        print(f"neardup.spark dev score ({method}):", score)
        if method == "default":
            # The bar for the distributed path, with defaults.
            assert score["f1"] >= 0.95, score

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


@pytest.fixture
def one_calls(monkeypatch):
    """The calls of ``dedup`` that fingerprinted and decided in one
    executor call (the local-mode variant of the one-task path)."""
    from neardup.spark import _dedup

    calls = []
    one_call = _dedup.fingerprinted_and_decided_in_one_task
    monkeypatch.setattr(
        _dedup, "fingerprinted_and_decided_in_one_task", lambda *a: calls.append(1) or one_call(*a)
    )
    return calls


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
@pytest.mark.parametrize("decision", ["corpus in one call", "corpus in one task", "distributed"])
def test_spark_equals_batch_engine_on_synthetic_corpus(spark, tmp_path, one_calls, method, kw, decision):
    docs = corpus(seed=11, n_articles=40)
    path = tmp_path / "docs.jsonl"
    with open(path, "w") as f:
        for i, t in docs:
            f.write(json.dumps({"id": i, "text": t}) + "\n")
    want = neardup.dedup_files([str(path)], method, **kw)
    # Several partitions, input order in a column.
    df = spark.createDataFrame([(n, i, t) for n, (i, t) in enumerate(docs)], "n long, id string, body string")
    if decision == "corpus in one call":
        # Partitions that come in order: fingerprinted in the call that decides.
        df = df.coalesce(3)
    else:
        # Shuffled: the executors fingerprint, the call reads them sorted.
        df = df.repartition(3)
    path = {"docs_in_one_task": 0} if decision == "distributed" else {}
    got = nds.dedup(df, text_col="body", method=method, order_col="n", **path, **kw)
    assert len(one_calls) == (decision == "corpus in one call")
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


@pytest.mark.parametrize(
    "cores, n_docs, given, want",
    [
        # By default: any size on few cores, small corpora on many.
        (2, 10**7, None, True),
        (4, 10**6, None, True),
        (5, 200_000, None, True),
        (5, 200_001, None, False),
        (64, 10**8, None, False),
        # Given: the bound, whatever the cores.
        (2, 1, 0, False),
        (2, 1_000, 999, False),
        (64, 10**6, 10**6, True),
    ],
)
def test_spark_decides_in_one_task_on_few_cores_or_small_corpora(cores, n_docs, given, want):
    from neardup.spark._one_task import in_one_task

    counts = []

    def count():
        counts.append(n_docs)
        return n_docs

    assert in_one_task(cores, count, given) is want
    # The corpus is counted (a Spark job) only when the answer depends on
    # its size: never on few cores by default.
    assert len(counts) == (0 if given is None and cores <= 4 else 1)


@pytest.mark.parametrize(
    "local_free, pyspark_mb, want",
    [
        # The worker's limit, when Spark sets one: half of it.
        (None, "2048", 1 << 30),
        (16 << 30, "512", 256 << 20),
        # Local mode: half of what the JVM's heap leaves of the machine,
        # at least 1 GiB.
        (16 << 30, None, 8 << 30),
        (1 << 30, None, 1 << 30),
        # A cluster without a limit on Python workers: 1 GiB.
        (None, None, 1 << 30),
        (None, "", 1 << 30),
    ],
)
def test_spark_one_task_memory_budget(local_free, pyspark_mb, want):
    from neardup.spark._one_task import one_task_memory

    assert one_task_memory(local_free, pyspark_mb) == want


def test_spark_one_task_memory_in_local_mode_leaves_the_jvm_its_heap(spark):
    import os

    from neardup.spark._one_task import local_free_memory

    machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    free = local_free_memory(spark)
    assert 0 < free < machine


@pytest.mark.parametrize(
    "conf, parallelism, want",
    [
        # Local mode: the default parallelism.
        ({"spark.master": "local[2]"}, 2, 2),
        ({"spark.master": "local[2]", "spark.dynamicAllocation.enabled": "true"}, 2, 2),
        # Executors not all registered yet: what the configuration asks.
        ({"spark.executor.instances": "50", "spark.executor.cores": "4"}, 4, 200),
        ({"spark.cores.max": "64"}, 2, 64),
        ({"spark.executor.instances": "2"}, 8, 8),
        # Dynamic allocation: its most executors, no bound when unset.
        ({"spark.dynamicAllocation.enabled": "true"}, 2, float("inf")),
        (
            {
                "spark.dynamicAllocation.enabled": "true",
                "spark.dynamicAllocation.maxExecutors": "2",
                "spark.executor.cores": "2",
            },
            2,
            4,
        ),
    ],
)
def test_spark_counts_the_cores_the_configuration_promises(conf, parallelism, want):
    from neardup.spark._one_task import cluster_cores, in_one_task

    assert cluster_cores(conf, parallelism) == want
    # Many cores promised: a large corpus is not decided in one task.
    assert in_one_task(cluster_cores(conf, parallelism), lambda: 10**7, None) is (want <= 4)


def test_fingerprint_groups_read_ids_back_a_page_at_a_time():
    # The one-task path keeps no id list of its own: the engine's pages.
    texts = [f"report {i} on the harbour works and the new ferry timetable" for i in range(23)]
    ids = [f"doc-{i}" for i in range(23)]
    sigs, errs, lens, shingles, _ = neardup._neardup.fingerprint_batch("default", None, None, ids, texts=texts)
    groups = neardup._neardup.FingerprintGroups("default")
    groups.add(ids[:10], [None] * 10, lens[:10], sigs[:10], shingles[:10], errs[:10])
    groups.add(ids[10:], [None] * 13, lens[10:], sigs[10:], shingles[10:], errs[10:])
    groups.run()
    assert [i for lo in range(0, len(groups), 7) for i in groups.ids(lo, lo + 7)] == ids
    assert groups.ids(20, 99) == ids[20:]
    assert groups.ids(30, 40) == []


@pytest.mark.parametrize(
    "values, slices, want",
    [
        ([0, 1, 2, 3, 4, 5], 1, True),
        ([0, 1, 2, 3, 4, 5], 3, True),
        # Ties keep the order they come in.
        ([0, 1, 1, 1, 2, 2], 3, True),
        # Each partition in order, the partitions not.
        ([3, 4, 5, 0, 1, 2], 2, False),
        # A step back inside a partition.
        ([0, 2, 1, 3, 4, 5], 2, False),
        # No order at all for a document.
        ([0, 1, None, 3], 2, False),
        # Empty partitions in between.
        ([0, 1], 5, True),
        ([], 2, True),
    ],
)
def test_spark_finds_whether_documents_come_in_order(spark, values, slices, want):
    from neardup.spark._one_task import arrives_in_order

    rdd = spark.sparkContext.parallelize([(v,) for v in values], slices)
    assert arrives_in_order(spark.createDataFrame(rdd, "ord long")) is want


def test_spark_dedup_of_no_documents_in_one_call(spark, one_calls):
    # No partition at all: decided in one call, no rows.
    empty = spark.createDataFrame(spark.sparkContext.emptyRDD(), "n long, id string, body string")
    assert empty.rdd.getNumPartitions() == 0
    assert nds.dedup(empty, text_col="body", order_col="n").collect() == []
    assert len(one_calls) == 1


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


@pytest.mark.parametrize("decision", ["corpus in one call", "corpus in one task", "distributed"])
@pytest.mark.parametrize("method", ["minhash", "default"])
def test_spark_on_dev_benchmark_matches_cli(spark, dev_dir, tmp_path, one_calls, method, decision):
    warc = dev_dir / "pages.warc.gz"
    df = nds.read_documents(spark, [str(warc)])
    assert df.columns == ["ord", "id", "url", "html", "text", "error"]
    pages = df.select("ord", "id", "html")
    if decision == "corpus in one call":
        # Sorted partitions: read in order by the call that decides.
        pages = pages.orderBy("ord")
    path = {"docs_in_one_task": 0} if decision == "distributed" else {}
    got = nds.dedup(pages, html_col="html", order_col="ord", method=method, **path)
    assert len(one_calls) == (decision == "corpus in one call")
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

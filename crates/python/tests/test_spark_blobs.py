"""The packed rows that carry records between neardup.spark.dedup's steps
(``neardup.spark._blobs``): each destination label lands in its own
partition, and records cross in bounded rows, unchanged."""

import numpy as np
import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")

from neardup.spark import _blobs  # noqa: E402


@pytest.mark.parametrize("parts", [1, 2, 3, 7, 64])
def test_each_destination_label_gets_its_own_partition(spark, parts):
    labels = _blobs.dest_labels(parts)
    assert len(set(labels)) == parts
    df = spark.createDataFrame([(x,) for x in labels], "dest int").repartition(parts, "dest")
    got = [sorted(r["dest"] for r in p) for p in df.rdd.glom().collect()]
    assert got == [[x] for x in labels]


def test_records_cross_in_bounded_rows_unchanged(spark, monkeypatch):
    monkeypatch.setattr(_blobs, "CHUNK_BYTES", 200)
    rng = np.random.default_rng(4)
    rec = np.empty(1000, _blobs.POSTING)
    rec["ord"] = rng.integers(-(2**62), 2**62, 1000)
    rec["t"] = rng.integers(0, 40, 1000)
    rec["k"] = rng.integers(-(2**63), 2**63 - 1, 1000)
    labels = _blobs.dest_labels(3)
    dest = rng.integers(0, 3, 1000)
    batch = _blobs.blob_batch(rec, dest, labels)
    sizes = [len(x) for x in batch.column(1).to_pylist()]
    assert max(sizes) <= 200 and sum(sizes) == 20 * 1000
    df = spark.createDataFrame(batch.to_pandas()).repartition(3, "dest")
    for p in df.rdd.glom().collect():
        x = np.concatenate([np.frombuffer(r["payload"], _blobs.POSTING) for r in p])
        want = rec[dest == labels.index(p[0]["dest"])]
        assert sorted(x.tolist()) == sorted(want.tolist())
    assert _blobs.blob_batch(rec[:0], dest[:0], labels) is None


def test_spark_hash_matches_sparks_own(spark):
    from pyspark.sql import functions as F

    values = [0, 1, -1, 7, 2**31 - 1, -(2**31), 123456789]
    got = spark.createDataFrame([(v,) for v in values], "x int").select("x", F.hash("x").alias("h")).collect()
    assert {r["x"]: r["h"] for r in got} == {v: _blobs._spark_hash_int(v) for v in values}

"""neardup.spark.dedup on boilerplate (issue 35, skew): a paragraph in
every document, and a band key shared by most documents. No kernel call
gets more than about ``2 * hot_key_rows`` postings of one key, the
packed rows that carry postings are bounded, and the groups stay the
engine's (`neardup dedup`)."""

import json
import random

import numpy as np
import pytest

import neardup
from corpus import WORDS, edit

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")

from neardup import _neardup as _nd  # noqa: E402
from neardup import spark as nds  # noqa: E402
from neardup.spark import _blobs, _candidates  # noqa: E402

FOOTER = "Copyright 2024 The Harbour Gazette. All rights reserved. Terms of use apply to every page."


def boilerplate_corpus(n, own=40, shared=60, seed=3):
    """`n` documents: a paragraph of their own (every seventh a one-word
    edit of an earlier one: near-duplicates), a long paragraph shared by
    all (60% of a document's words: many documents share a band key,
    without being near-duplicates) and the footer."""
    rng = random.Random(seed)
    body = " ".join(rng.choice(WORDS) for _ in range(shared))
    owns = []
    for d in range(n):
        if d % 7 == 6:
            owns.append(edit(rng, WORDS, owns[rng.randrange(d)], 1))
        else:
            owns.append([rng.choice(WORDS) for _ in range(own)])
    return [(f"d{d:05d}", f"{' '.join(w)}\n\n{body}\n\n{FOOTER}") for d, w in enumerate(owns)]


def normalize(rows):
    return sorted((r["id"], r["cluster"], r["duplicate_of"], r["similarity"]) for r in rows)


def engine_and_spark(spark, tmp_path, docs, method, **kw):
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in docs))
    want = normalize(neardup.dedup_files([str(path)], method))
    df = spark.createDataFrame([(n, i, t) for n, (i, t) in enumerate(docs)], "n long, id string, body string")
    # The distributed path: its hot keys are what this checks.
    got = nds.dedup(df.repartition(3), text_col="body", order_col="n", method=method, docs_in_one_task=0, **kw)
    return normalize(r.asDict() for r in got.collect()), want


def postings_of(spark, docs, method, hot_key_rows):
    """The candidate keys ``(ord, t, k)`` of ``docs`` (each signature
    once, as in ``dedup``) as blobs made by ``dedup``'s own step from 3
    partitions of signatures, and as a list."""
    sigs, _, _, _, _ = _nd.fingerprint_batch(method, None, None, [i for i, _ in docs], texts=[t for _, t in docs])
    first = {}
    for o, s in enumerate(sigs):
        first.setdefault(s, o)
    ords = sorted(first.values())
    rows, t, k = _nd.candidate_keys_batch(method, None, None, [sigs[o] for o in ords])
    rows = np.frombuffer(rows, np.uint32)
    t, k = np.frombuffer(t, np.int32), np.frombuffer(k, np.int64)
    postings = [(ords[r], int(a), int(b)) for r, a, b in zip(rows, t, k)]
    reps = spark.createDataFrame([(o, sigs[o]) for o in ords], "ord long, sig binary").repartition(3)
    return _candidates.key_blobs(reps, method, None, None, 2, hot_key_rows), postings


def blobs_of(spark, postings, parts, hot_key_rows):
    """``postings`` ``(ord, t, k)`` over 3 partitions, packed as ``dedup``
    packs each partition's."""
    labels = _blobs.dest_labels(parts)
    df = spark.createDataFrame(postings, "ord long, t int, k long").repartition(3)

    def pack(batches):
        got = [b for b in batches if b.num_rows]
        if got:
            rec = np.empty(sum(b.num_rows for b in got), _blobs.POSTING)
            for name in ("ord", "t", "k"):
                rec[name] = np.concatenate([b.column(name).to_numpy() for b in got])
            yield from _candidates.packed_postings(rec, labels, hot_key_rows / 3)

    return df.mapInArrow(pack, _blobs.BLOB_SCHEMA)


def most_rows_of_one_key(cold, tiles):
    """The most postings of one key that one pair kernel call gets: a
    partition of ``cold`` (one ``mapInArrow`` call over its blobs), a tile
    of ``tiles`` (one ``applyInPandas`` call)."""
    most = 0
    for p in cold.rdd.glom().collect():
        rec = [np.frombuffer(r["payload"], _blobs.POSTING) for r in p]
        if rec:
            rec = np.concatenate(rec)
            _, counts = np.unique(rec[["t", "k"]].astype(_blobs.KEY), return_counts=True)
            most = max(most, int(counts.max()))
    if tiles is not None:
        most = max(most, max(r["count"] for r in tiles.groupBy("t", "k", "a", "c").count().collect()))
    return most


def pairs_of(cold, tiles, max_posting):
    """The pairs ``(u, v) -> shared keys`` made from the kernels' inputs."""
    got = {}
    pairs = cold.mapInArrow(_candidates.blob_pairs(max_posting), _candidates.PAIR_SCHEMA)
    if tiles is not None:
        pairs = pairs.unionByName(
            tiles.groupBy("t", "k", "a", "c").applyInPandas(_candidates.tile_pairs, _candidates.PAIR_SCHEMA)
        )
    for r in pairs.collect():
        got[(r["u"], r["v"])] = got.get((r["u"], r["v"]), 0) + r["n"]
    return got


def brute_pairs(postings, max_posting):
    keys = {}
    for o, t, k in postings:
        keys.setdefault((t, k), []).append(o)
    got = {}
    for docs in keys.values():
        if max_posting is not None and len(docs) > max_posting:
            continue
        docs.sort()
        for i, u in enumerate(docs):
            for v in docs[i + 1:]:
                got[(u, v)] = got.get((u, v), 0) + 1
    return got


def test_a_hot_band_key_is_split_into_tiles(spark, tmp_path):
    """Most documents share a band key (the shared paragraph): with
    ``hot_key_rows=32`` each of its pair tiles is one call of about 64
    postings, not one call of all of them, and the pairs are the
    engine's."""
    docs = boilerplate_corpus(250)
    blobs, postings = postings_of(spark, docs, "default", 32)
    sizes = {}
    for _, t, k in postings:
        sizes[(t, k)] = sizes.get((t, k), 0) + 1
    assert max(sizes.values()) > 100
    cold, tiles = _candidates.pair_inputs(blobs, 2, None, 32)
    most = most_rows_of_one_key(cold, tiles)
    print("most postings of one key in one call:", most, "of", max(sizes.values()))
    assert most <= 3 * 32
    # The tiles and the ordinary keys make every pair of a shared band
    # key once, with its number of shared keys: the pairs the engine's
    # LSH tables make (which have no bucket cap). The whole pipeline over
    # tiles is compared with the engine below, with the key methods.
    assert pairs_of(cold, tiles, None) == brute_pairs(postings, None)


@pytest.mark.parametrize("method", ["paragraph", "supershingle"])
def test_keys_over_the_engines_cap_are_dropped_before_the_shuffle(spark, method):
    """A paragraph in every document, with the methods that ignore keys of
    more than the engine's cap (10,000 documents, from the method's rule):
    past it, the key's postings never cross a shuffle (its documents would
    all go to one task); a hot key under the cap is split into tiles, and
    the pairs and their shared keys are the engine's."""
    _, max_posting = _nd.candidate_rule(method)
    rng = random.Random(5)
    n = max_posting + 200
    postings = [(o, 0, -1) for o in range(n)]  # the footer's key, in every document
    postings += [(o, 0, rng.randrange(3000)) for o in range(n)]  # a few documents a key
    postings += [(o, 0, 10_000 + o // 3) for o in range(0, n, 2)]
    postings += [(o, 1, -1) for o in range(0, n, 37)]  # a hot key under the cap: tiles
    cold, tiles = _candidates.pair_inputs(blobs_of(spark, postings, 2, 50), 2, max_posting, 50)
    assert most_rows_of_one_key(cold, tiles) <= 3 * 50
    assert pairs_of(cold, tiles, max_posting) == brute_pairs(postings, max_posting)


@pytest.mark.parametrize("method", ["paragraph", "supershingle"])
def test_boilerplate_in_every_document_keeps_the_engines_groups(spark, tmp_path, method):
    """The whole pipeline with the key methods, the shared paragraphs' keys
    split into tiles (``hot_key_rows=24``, below the cap): the pairs'
    shared keys are counted once per key (super-shingles need two)."""
    docs = boilerplate_corpus(300, seed=8)
    got, want = engine_and_spark(spark, tmp_path, docs, method, hot_key_rows=24)
    assert got == want
    assert any(r[2] is not None for r in want)


# The packed rows that carry postings between the steps (`_blobs`): each
# destination label lands in its own partition, and records cross in
# bounded rows, unchanged.


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

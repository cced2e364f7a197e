"""Candidate pairs on Spark: band-key postings to pairs, as packed blobs.

Each distinct signature's candidate keys (LSH band keys for MinHash,
pigeonhole blocks for SimHash, index keys for the other methods) are
made where the signatures are, packed as 20-byte postings ``(ord, t, k)``
per destination partition (a mix of table and key: every posting of a key
has one destination) and moved as a few binary rows (``_blobs``); each
destination's postings become pairs ``(u, v, n)``, ``u`` earlier than
``v``, ``n`` the keys they share there, in one call to the engine's
inverted index (Rust: over-long postings dropped as the engine drops
them). The counts of a pair's destinations are summed by Spark.

Boilerplate: a key of more than ``hot_key_rows`` documents (hot) is not
sent whole to one task. A key that hot has more than ``hot_key_rows / S``
of its postings in one of the ``S`` partitions of signatures (pigeonhole),
so each partition also gives its keys that common (counted in Rust where
the postings are packed). Only when some partition has one are those keys
counted exactly; the hot ones (at most postings / ``hot_key_rows``) are
broadcast, their postings taken out of the blobs, and their documents
split into blocks, each pair of blocks one task (``_tile_pairs``).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .. import _neardup as _nd
from ._blobs import BLOB_SCHEMA, CHUNK_BYTES, KEY, POSTING, blob_batch, dest_labels, mix_keys, records_of, unpacked
from ._common import _col

PAIR_SCHEMA = "u long, v long, n long"

COMMON = -1
"""The ``dest`` of the rows that carry a partition's locally common keys
(``KEY`` records) instead of postings."""


def key_blobs(reps, m, threshold, md, parts: int, hot_key_rows: int):
    """The postings of ``reps`` (``ord``, ``sig``) as blobs ``(dest,
    payload)``, kept (memory, then disk) and computed: ``parts``
    destinations, and rows of ``dest == COMMON`` for keys with more than
    ``hot_key_rows / S`` postings in one of the ``S`` partitions."""
    from pyspark import StorageLevel

    labels = dest_labels(parts)
    n_src = reps.rdd.getNumPartitions()

    def run(batches):
        got = []
        for b in batches:
            rows, tables, values = _nd.candidate_keys_batch(m, threshold, md, _col(b, "sig").to_pylist())
            ords = _col(b, "ord").to_numpy()
            got.append(
                (ords[np.frombuffer(rows, np.uint32)], np.frombuffer(tables, np.int32), np.frombuffer(values, np.int64))
            )
        if got:
            rec = np.empty(sum(len(o) for o, _, _ in got), POSTING)
            for name, i in (("ord", 0), ("t", 1), ("k", 2)):
                rec[name] = np.concatenate([g[i] for g in got])
            yield from packed_postings(rec, labels, hot_key_rows / n_src)

    blobs = reps.select("ord", "sig").mapInArrow(run, BLOB_SCHEMA).persist(StorageLevel.MEMORY_AND_DISK)
    blobs.count()
    return blobs


def packed_postings(rec, labels, common_above: float):
    """The blobs of one partition's postings ``rec`` (``POSTING``
    records), a destination each by a mix of table and key, then a blob
    of ``dest == COMMON`` with the keys it holds more than
    ``common_above`` times (packed and counted in one Rust call)."""
    import pyarrow as pa

    dest, payloads, common = _nd.pack_postings_batch(
        rec["ord"].tobytes(), rec["t"].tobytes(), rec["k"].tobytes(), len(labels), common_above, CHUNK_BYTES
    )
    if payloads:
        yield pa.RecordBatch.from_arrays(
            [pa.array([labels[d] for d in dest], pa.int32()), pa.array(payloads, pa.binary())],
            names=["dest", "payload"],
        )
    if common:
        keys = np.frombuffer(common, KEY)
        yield blob_batch(keys, np.zeros(len(keys), np.int64), [COMMON])


def pair_inputs(blobs, parts: int, max_posting: Optional[int], hot_key_rows: int):
    """The postings of ``blobs`` (from ``key_blobs``) as the pair kernels
    get them, so that no call gets more than about ``2 * hot_key_rows``
    postings of one key:

    - ``cold``: blobs ``(dest, payload)`` of the keys of at most
      ``hot_key_rows`` documents, one destination a partition;
    - ``tiles`` (``None`` when no key is hot): the hot keys' postings
      ``(ord, t, k, b, a, c)``, a document in block ``b`` (a hash of the
      document, ``ceil(n / hot_key_rows)`` blocks) repeated for each tile
      ``(a, c)``, ``a <= c``, that holds its block; one tile, one call.
      Keys of more than ``max_posting`` documents (the engine's cap, when
      the method has one) make no pairs in the engine: they are dropped
      here, before any shuffle."""
    from pyspark.sql import functions as F

    postings = blobs.where(F.col("dest") != COMMON)
    common_rows = blobs.where(F.col("dest") == COMMON)
    if common_rows.isEmpty():
        return postings.repartition(parts, "dest"), None
    common = common_rows.mapInArrow(unpacked(KEY), "t int, k long").distinct()
    if common.count() <= BROADCAST_KEYS:
        common = F.broadcast(common)
    n = F.col("n")
    blocks = F.ceil(n / F.lit(hot_key_rows))
    if max_posting is not None:
        # The engine ignores the key: no block, no pair.
        blocks = F.when(n > max_posting, F.lit(0)).otherwise(blocks)
    rows = postings.mapInArrow(unpacked(POSTING), "ord long, t int, k long")
    hot = (
        rows.join(common, ["t", "k"])
        .groupBy("t", "k")
        .agg(F.count(F.lit(1)).alias("n"))
        .where(n > hot_key_rows)
        .select("t", "k", blocks.cast("long").alias("nb"))
        .collect()
    )
    if not hot:
        return postings.repartition(parts, "dest"), None
    # At most postings / hot_key_rows keys, 20 bytes each.
    table = np.array([(r["t"], r["k"], r["nb"]) for r in hot], np.dtype([("t", "<i4"), ("k", "<i8"), ("nb", "<i8")]))
    table = table[np.argsort(mix_keys(table["t"], table["k"]), kind="stable")]
    sc = blobs.sparkSession.sparkContext
    shared = sc.broadcast(table.tobytes())
    labels = dest_labels(parts)
    cold = postings.mapInArrow(_split_hot(shared, parts, labels, cold=True), BLOB_SCHEMA)
    b = F.col("b")
    tiles = (
        postings.mapInArrow(_split_hot(shared, parts, labels, cold=False), "ord long, t int, k long, nb long")
        .where(F.col("nb") > 0)
        .withColumn("b", F.pmod(F.xxhash64("ord"), F.col("nb")))
        .withColumn("j", F.explode(F.sequence(F.lit(0).cast("long"), F.col("nb") - 1)))
        .select("ord", "t", "k", "b", F.least(b, F.col("j")).alias("a"), F.greatest(b, F.col("j")).alias("c"))
    )
    return cold.repartition(parts, "dest"), tiles


BROADCAST_KEYS = 4_000_000
"""The most locally common keys (candidates for hot keys) broadcast to
the postings for their exact count (12 bytes each); past it, joined by a
shuffle."""


def _split_hot(shared, parts, labels, cold: bool):
    """A ``mapInArrow`` function over posting blobs: with ``cold``, the
    blobs again without the postings of the broadcast hot keys; else
    those postings as rows ``(ord, t, k, nb)``. A key is hot or not as a
    whole (by its table and key), so its postings all go one way."""

    def run(batches):
        import pyarrow as pa

        hot = np.frombuffer(shared.value, np.dtype([("t", "<i4"), ("k", "<i8"), ("nb", "<i8")]))
        hot_mix = mix_keys(hot["t"], hot["k"])
        rec = records_of(batches, POSTING)
        if not len(rec):
            return
        mixed = mix_keys(rec["t"], rec["k"])
        at = np.minimum(np.searchsorted(hot_mix, mixed), len(hot) - 1)
        is_hot = (hot_mix[at] == mixed) & (hot["t"][at] == rec["t"]) & (hot["k"][at] == rec["k"])
        if cold:
            keep = ~is_hot
            out = blob_batch(rec[keep], (mixed[keep] % np.uint64(parts)).astype(np.int64), labels)
            if out is not None:
                yield out
        elif is_hot.any():
            h = rec[is_hot]
            yield pa.RecordBatch.from_arrays(
                [pa.array(h["ord"]), pa.array(h["t"]), pa.array(h["k"]), pa.array(hot["nb"][at[is_hot]])],
                names=["ord", "t", "k", "nb"],
            )

    return run


def blob_pairs(max_posting: Optional[int]):
    """A ``mapInArrow`` function: the pairs ``(u, v, n)`` of a partition's
    posting blobs (every posting of a key is in the same partition), made
    by the engine's inverted index, shared keys counted."""

    def run(batches):
        import pyarrow as pa

        rec = records_of(batches, POSTING)
        if not len(rec):
            return
        u, v, n = _nd.bucket_pairs_batch(
            rec["ord"].tobytes(), rec["t"].tobytes(), rec["k"].tobytes(), max_posting
        )
        yield pa.RecordBatch.from_arrays(
            [pa.array(np.frombuffer(x, np.int64)) for x in (u, v, n)], names=["u", "v", "n"]
        )

    return run


def tile_pairs(key, pdf):
    """The pairs ``(u, v, 1)``, ``u < v``, of one tile of a hot key (an
    ``applyInPandas`` function over ``(t, k, a, c)``): every pair of its
    one block when ``a == c``, else every pair across its two blocks (the
    pairs inside each are the tiles ``(a, a)`` and ``(c, c)``'s). The
    tiles of a key give each pair of its documents once."""
    import pandas as pd

    a, c = key[2], key[3]
    ords = pdf["ord"].to_numpy(np.int64)
    if a == c:
        ords = np.sort(ords)
        i, j = np.triu_indices(len(ords), 1)
        u, v = ords[i], ords[j]
    else:
        side = pdf["b"].to_numpy() == a
        x, y = np.meshgrid(ords[side], ords[~side], indexing="ij")
        u, v = np.minimum(x, y).ravel(), np.maximum(x, y).ravel()
    return pd.DataFrame({"u": u, "v": v, "n": np.ones(len(u), np.int64)})


def candidate_pairs(reps, m, threshold, md, parts: int, hot_key_rows: int):
    """The candidate pairs ``(u, v)`` of ``reps`` (``ord``, ``sig``),
    each once, and the kept blobs (unpersist them once the pairs are
    computed)."""
    from pyspark.sql import functions as F

    min_shared, max_posting = _nd.candidate_rule(m, threshold, md)
    blobs = key_blobs(reps, m, threshold, md, parts, hot_key_rows)
    cold, tiles = pair_inputs(blobs, parts, max_posting, hot_key_rows)
    pairs = cold.mapInArrow(blob_pairs(max_posting), PAIR_SCHEMA)
    if tiles is not None:
        pairs = pairs.unionByName(tiles.groupBy("t", "k", "a", "c").applyInPandas(tile_pairs, PAIR_SCHEMA))
    # A pair's keys may be in several partitions: its counts are summed.
    if min_shared > 1:
        pairs = pairs.groupBy("u", "v").agg(F.sum("n").alias("n")).where(F.col("n") >= min_shared).select("u", "v")
    else:
        pairs = pairs.select("u", "v").distinct()
    return pairs, blobs

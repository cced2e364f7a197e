"""The corpus-level passes of the default method on Spark: site templates,
composite pages and partial copies, each the engine's rule in executors."""

from __future__ import annotations

from .. import _neardup as _nd
from ._common import _col, _materialize

_STRIP_SCHEMA = "ord long, sig2 binary, sh2 binary"
_RUN_SCHEMA = "u long, v long, side int, r int, run binary"
_QUERY_SCHEMA = "u long, v long, side int, r int, h long"
_POSTING_SCHEMA = "z long, h long"
_VETO_SCHEMA = "u long, v long"
_THIRD_SCHEMA = "u long, v long, side int, run binary, z long"


def _strip_site_templates(fp, m, threshold, md):
    """The site template pass: each host's pages, in input order, in one
    executor call; ``fp`` with the changed pages' new signature and
    shingles (not computed yet), or ``None`` when no page has a host."""
    from pyspark.sql import functions as F

    def strip(pdf):
        import pandas as pd

        pdf = pdf.sort_values("ord")
        sigs, shingles = _nd.strip_templates_batch(m, threshold, md, list(pdf["sh"]))
        out = pd.DataFrame({"ord": pdf["ord"].to_numpy(), "sig2": sigs, "sh2": shingles})
        return out[out["sig2"].notna()]

    pages = fp.where(F.col("sh").isNotNull() & F.col("host").isNotNull()).select("ord", "host", "sh")
    if pages.isEmpty():
        # No page has a host (ids that are not URLs): nothing to strip.
        return None
    changed = pages.groupBy("host").applyInPandas(strip, _STRIP_SCHEMA)
    return (
        fp.join(changed, "ord", "left")
        .withColumn("sig", F.coalesce(F.col("sig2"), F.col("sig")))
        .withColumn("sh", F.coalesce(F.col("sh2"), F.col("sh")))
        .drop("sig2", "sh2")
    )


def _kept_pairs(kernel, m, threshold, md, cols):
    """A ``mapInArrow`` function: the pairs ``(u, v)`` of each batch for
    which ``kernel`` (an exact step of a corpus-level rule) holds on the
    columns ``cols``."""

    def run(batches):
        import pyarrow as pa

        for b in batches:
            ok = pa.array(kernel(m, threshold, md, *[_col(b, c).to_pylist() for c in cols]), pa.bool_())
            yield pa.RecordBatch.from_arrays([_col(b, "u").filter(ok), _col(b, "v").filter(ok)], names=["u", "v"])

    return run


def _composite_pairs(edges, reps, m, threshold, md):
    """Verified pairs ``(u, v)`` that the composite page check refuses: a
    foreign run of one page is looked up among the sampled shingles of
    every document (the earliest documents of each sampled shingle: each
    partition keeps its own, then they go to every executor, or past
    ``EARLIEST_ROWS`` are grouped by one shuffle and joined with the
    runs), the engine chooses the third documents of each run
    (``CompositeCheck::third_candidates``, in one executor call per batch
    of runs), and each is checked exactly, as the engine's index does."""
    import pyarrow as pa
    from pyspark.sql import functions as F

    keep, _ = _nd.composite_rule()
    keys = ["u", "v", "side", "r"]

    def split(batches):
        for b in batches:
            rows, sides, nums, runs = _nd.split_runs_batch(_col(b, "runs").to_pylist())
            take = pa.array(rows, pa.uint32())
            yield pa.RecordBatch.from_arrays(
                [
                    _col(b, "u").take(take),
                    _col(b, "v").take(take),
                    pa.array(sides, pa.int32()),
                    pa.array(nums, pa.int32()),
                    pa.array(runs, pa.binary()),
                ],
                names=["u", "v", "side", "r", "run"],
            )

    def sampled(seq_col, key_cols):
        def run(batches):
            for b in batches:
                rows, hashes = _nd.sampled_hashes_batch(_col(b, seq_col).to_pylist())
                take = pa.array(rows, pa.uint32())
                yield pa.RecordBatch.from_arrays(
                    [_col(b, c).take(take) for c in key_cols] + [pa.array(hashes, pa.int64())],
                    names=key_cols + ["h"],
                )

        return run

    runs = _materialize(edges.where(F.col("runs").isNotNull()).select("u", "v", "runs").mapInArrow(split, _RUN_SCHEMA))
    queries = runs.mapInArrow(sampled("run", keys), _QUERY_SCHEMA)
    docs = reps.select(F.col("ord").alias("z"), "sh")
    wanted = queries.select("h").distinct()
    looked_up = _broadcast_hashes(wanted)
    if looked_up is None:
        postings = docs.mapInArrow(sampled("sh", ["z"]), _POSTING_SCHEMA).join(wanted, "h")
    else:
        postings = docs.mapInArrow(_sampled_among(looked_up), _POSTING_SCHEMA)
    # The earliest documents of each looked-up hash (the pair may be among
    # them: `keep` is two more than the engine reads); each partition
    # keeps its own earliest, which hold the corpus's.
    postings = _materialize(postings.mapInArrow(_kept_earliest(), _POSTING_SCHEMA))
    table = _broadcast_earliest(postings)
    if table is not None:
        # Few enough to go to every executor: each run's hits are looked
        # up where the run is.
        candidates = runs.mapInArrow(_thirds_among(table), _THIRD_SCHEMA)
    else:
        earliest = postings.groupBy("h").agg(F.slice(F.array_sort(F.collect_list("z")), 1, keep).alias("zs"))
        lists = queries.join(earliest, "h").groupBy(*keys).agg(F.collect_list(F.struct("h", "zs")).alias("hits"))

        def thirds(batches):
            for b in batches:
                hits = _col(b, "hits").to_pylist()
                yield _thirds_batch(
                    b, [[x["h"] for x in row] for row in hits], [[x["zs"] for x in row] for row in hits]
                )

        candidates = lists.join(runs, keys).mapInArrow(thirds, _THIRD_SCHEMA)

    # The engine's own choice of third documents for each run, then each
    # one checked exactly against the run and the other page.
    shingles = reps.select(F.col("ord").alias("z"), F.col("sh").alias("zsh"))
    others = reps.select(F.col("ord").alias("o"), F.col("sh").alias("osh"))
    tasks = (
        candidates.withColumn("o", F.when(F.col("side") == 0, F.col("v")).otherwise(F.col("u")))
        .join(shingles, "z")
        .join(others, "o")
        .select("u", "v", "run", "zsh", "osh")
    )
    check = _kept_pairs(_nd.composite_check_batch, m, threshold, md, ["run", "zsh", "osh"])
    vetoed = _materialize(tasks.mapInArrow(check, _VETO_SCHEMA).distinct())
    for shared in (looked_up, table):
        if shared is not None:
            shared.unpersist()
    return vetoed


def _thirds_batch(b, hashes, docs):
    """The third documents of the runs of batch ``b`` (``u``, ``v``,
    ``side``, ``run``) as rows ``(u, v, side, run, z)``: the engine's
    choice (``composite_thirds_batch``) among ``docs[i][j]``, the earliest
    documents of ``hashes[i][j]``, the looked-up hashes of run ``i``."""
    import pyarrow as pa

    rows, zs = _nd.composite_thirds_batch(
        _col(b, "u").to_pylist(), _col(b, "v").to_pylist(), _col(b, "run").to_pylist(), hashes, docs
    )
    take = pa.array(rows, pa.uint32())
    return pa.RecordBatch.from_arrays(
        [_col(b, c).take(take) for c in ("u", "v", "side", "run")] + [pa.array(zs, pa.int64())],
        names=["u", "v", "side", "run", "z"],
    )


EARLIEST_ROWS = 4_000_000
"""The most postings ``(hash, document)`` of the looked-up hashes, each
partition's earliest documents of each hash, brought to the driver (16
bytes each, 64 MB at most) and sent to every executor as the earliest
documents of each hash; past it, they are grouped by hash and joined with
the runs in Spark."""


def _earliest_per_hash(h, z):
    """Postings ``(h, z)`` (NumPy, 64-bit) sorted by hash then document,
    the earliest documents of each hash the composite check may read only
    (the engine's rule, ``CompositeCheck::keep_earliest_per_hash``)."""
    import numpy as np

    h, z = _nd.earliest_per_hash_batch(h.astype("<i8").tobytes(), z.astype("<i8").tobytes())
    return np.frombuffer(h, "<i8"), np.frombuffer(z, "<i8")


def _kept_earliest():
    """A ``mapInArrow`` function: a partition's postings ``(z, h)``, the
    earliest documents of each hash only (held as NumPy columns, 16 bytes
    a posting)."""
    import numpy as np

    def run(batches):
        import pyarrow as pa

        zs, hs = [], []
        for b in batches:
            zs.append(_col(b, "z").to_numpy())
            hs.append(_col(b, "h").to_numpy())
        if zs:
            h, z = _earliest_per_hash(np.concatenate(hs), np.concatenate(zs))
            yield pa.RecordBatch.from_arrays([pa.array(z), pa.array(h)], names=["z", "h"])

    return run


def _broadcast_earliest(postings):
    """The earliest documents of each hash of ``postings``
    (computed, ``(z, h)``) broadcast as packed little-endian 64-bit
    ``(hashes, starts, documents)``: the hashes sorted, the documents of
    ``hashes[i]`` from ``starts[i]``; ``None`` past ``EARLIEST_ROWS``."""
    import numpy as np

    if postings.count() > EARLIEST_ROWS:
        return None
    h, z = _int64_columns(postings, "h", "z")
    h, z = _earliest_per_hash(h, z)
    hashes, starts = np.unique(h, return_index=True)
    packed = [a.astype("<i8").tobytes() for a in (hashes, starts, z)]
    return postings.sparkSession.sparkContext.broadcast(packed)


def _thirds_among(table):
    """A ``mapInArrow`` function over runs ``(u, v, side, r, run)``: their
    third documents (``_thirds_batch``), each run's sampled hashes looked
    up in the broadcast earliest documents ``table``."""
    import numpy as np

    def run(batches):
        hashes, starts, docs = (np.frombuffer(x, "<i8") for x in table.value)
        ends = np.r_[starts[1:], len(docs)].astype(np.int64)
        for b in batches:
            rows, hs = _nd.sampled_hashes_batch(_col(b, "run").to_pylist())
            rows, hs = np.asarray(rows, np.int64), np.asarray(hs, np.int64)
            at = np.minimum(np.searchsorted(hashes, hs), max(len(hashes) - 1, 0))
            hit = (hashes[at] == hs) if len(hashes) else np.zeros(len(hs), bool)
            got_h = [[] for _ in range(b.num_rows)]
            got_z = [[] for _ in range(b.num_rows)]
            for i, h, p in zip(rows[hit].tolist(), hs[hit].tolist(), at[hit].tolist()):
                got_h[i].append(h)
                got_z[i].append(docs[starts[p]:ends[p]].tolist())
            yield _thirds_batch(b, got_h, got_z)

    return run


BROADCAST_HASHES = 4_000_000
"""The most distinct shingle hashes the composite check's runs may look up
for them to go to every executor (8 bytes each, 32 MB at most), so that
each document's sampled shingles are filtered where they are made; past
it, every document's sampled shingles are joined with them in Spark."""


def _broadcast_hashes(wanted):
    """The sorted hashes of ``wanted`` (one column ``h``) broadcast as
    packed little-endian 64-bit integers, or ``None`` when there are more than
    ``BROADCAST_HASHES``."""
    import numpy as np

    # One job: at most one hash past the bound comes to the driver.
    (hashes,) = _int64_columns(wanted.limit(BROADCAST_HASHES + 1), "h")
    if len(hashes) > BROADCAST_HASHES:
        return None
    # As packed little-endian bytes: the kernel filters with them as they are.
    return wanted.sparkSession.sparkContext.broadcast(np.sort(hashes).astype("<i8").tobytes())


def _int64_columns(df, *names):
    """The 64-bit integer columns ``names`` of the small DataFrame ``df``
    on the driver, as NumPy arrays: through Arrow where Spark has
    ``toArrow`` (4.0 and later), else from its rows."""
    import numpy as np

    if hasattr(df, "toArrow"):
        t = df.toArrow()
        return tuple(t.column(c).to_numpy() for c in names)
    rows = df.collect()
    return tuple(np.array([r[c] for r in rows], np.int64) for c in names)


def _sampled_among(looked_up):
    """A ``mapInArrow`` function: each document's sampled shingle hashes
    ``(z, h)``, only those in the broadcast sorted hashes ``looked_up``
    (filtered by the kernel: the others never become Python objects)."""

    def run(batches):
        import pyarrow as pa

        wanted = looked_up.value
        for b in batches:
            rows, hashes = _nd.sampled_hashes_batch(_col(b, "sh").to_pylist(), among=wanted)
            yield pa.RecordBatch.from_arrays(
                [_col(b, "z").take(pa.array(rows, pa.uint32())), pa.array(hashes, pa.int64())],
                names=["z", "h"],
            )

    return run


def _partial_pairs(edges, reps, m, threshold, md):
    """Verified pairs ``(u, v)`` that the partial copy check refuses: for a
    pair flagged by verification, each side in turn is the full page, and
    its other verified near-duplicates (the earliest ``neighbours_read``)
    are checked for the part the other side lacks, as the engine does."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    neighbours_read = _nd.partial_rule()

    suspects = edges.where(F.col("psus")).select("u", "v")
    sides = suspects.select("u", "v", F.col("u").alias("full"), F.col("v").alias("part")).unionByName(
        suspects.select("u", "v", F.col("v").alias("full"), F.col("u").alias("part"))
    )
    links = edges.select(F.col("u").alias("full"), F.col("v").alias("z")).unionByName(
        edges.select(F.col("v").alias("full"), F.col("u").alias("z"))
    )
    earliest = Window.partitionBy("u", "v", "full").orderBy("z")
    tasks = (
        sides.join(links, "full")
        .where(F.col("z") != F.col("part"))
        .withColumn("nr", F.row_number().over(earliest))
        .where(F.col("nr") <= neighbours_read)
        .join(reps.select(F.col("ord").alias("full"), F.col("sh").alias("fsh")), "full")
        .join(reps.select(F.col("ord").alias("part"), F.col("sh").alias("psh")), "part")
        .join(reps.select(F.col("ord").alias("z"), F.col("sh").alias("zsh")), "z")
        .select("u", "v", "fsh", "psh", "zsh")
    )
    check = _kept_pairs(_nd.partial_check_batch, m, threshold, md, ["fsh", "psh", "zsh"])
    return _materialize(tasks.mapInArrow(check, _VETO_SCHEMA).distinct())

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
    every document (the earliest documents of each sampled shingle, by
    one shuffle), the engine chooses the third documents of each run
    (``CompositeCheck::third_candidates``, in one executor call per batch
    of runs), and each is checked exactly, as the engine's index does."""
    import pyarrow as pa
    from pyspark.sql import functions as F

    postings_read, _ = _nd.composite_rule()
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
    # them: two more than the engine reads), gathered per run.
    earliest = postings.groupBy("h").agg(F.slice(F.array_sort(F.collect_list("z")), 1, postings_read + 2).alias("zs"))
    lists = queries.join(earliest, "h").groupBy(*keys).agg(F.collect_list(F.struct("h", "zs")).alias("hits"))

    def thirds(batches):
        for b in batches:
            hits = _col(b, "hits").to_pylist()
            rows, zs = _nd.composite_thirds_batch(
                _col(b, "u").to_pylist(),
                _col(b, "v").to_pylist(),
                _col(b, "run").to_pylist(),
                [[x["h"] for x in row] for row in hits],
                [[x["zs"] for x in row] for row in hits],
            )
            take = pa.array(rows, pa.uint32())
            yield pa.RecordBatch.from_arrays(
                [_col(b, c).take(take) for c in ("u", "v", "side", "run")] + [pa.array(zs, pa.int64())],
                names=["u", "v", "side", "run", "z"],
            )

    # The engine's own choice of third documents for each run, then each
    # one checked exactly against the run and the other page.
    shingles = reps.select(F.col("ord").alias("z"), F.col("sh").alias("zsh"))
    others = reps.select(F.col("ord").alias("o"), F.col("sh").alias("osh"))
    tasks = (
        lists.join(runs, keys)
        .mapInArrow(thirds, _THIRD_SCHEMA)
        .withColumn("o", F.when(F.col("side") == 0, F.col("v")).otherwise(F.col("u")))
        .join(shingles, "z")
        .join(others, "o")
        .select("u", "v", "run", "zsh", "osh")
    )
    check = _kept_pairs(_nd.composite_check_batch, m, threshold, md, ["run", "zsh", "osh"])
    vetoed = _materialize(tasks.mapInArrow(check, _VETO_SCHEMA).distinct())
    if looked_up is not None:
        looked_up.unpersist()
    return vetoed


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
    first = wanted.limit(BROADCAST_HASHES + 1)
    if hasattr(first, "toArrow"):
        hashes = first.toArrow().column("h").to_numpy()
    else:
        hashes = np.array([r.h for r in first.collect()], dtype=np.int64)
    if len(hashes) > BROADCAST_HASHES:
        return None
    # As packed little-endian bytes: the kernel filters with them as they are.
    return wanted.sparkSession.sparkContext.broadcast(np.sort(hashes).astype("<i8").tobytes())


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

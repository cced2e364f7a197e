"""Connected components of the verified graph, and the engine's keep-first
decision inside each, on Spark.

The engine makes each document, in input order, a duplicate of its most
similar earlier *kept* neighbour. That fate depends on nothing outside the
document's connected component of verified pairs, so the decision is
exactly the engine's when each component is decided whole, in one executor
call, by the engine's own rule (``keep_first_batch`` calls
``neardup_dedup::keep_first_by_component``).

Up to ``EDGES_IN_ONE_TASK`` verified pairs (ten million: far more than
the duplicates of most corpora a cluster holds), there is no need to find
components first: one executor call decides the whole graph
(``keep_first_packed_batch``), which is the engine's decision itself, in a
constant number of stages. Past it, Spark finds the components.

Components come from the alternating large-star / small-star rounds of
Kiveris et al. ("Connected Components in MapReduce and Beyond", SoCC
2014) on edges ``(a, b)``, ``a < b``:

- *large-star*: each node ``x`` links every larger neighbour to
  ``m = min(x, N(x))``;
- *small-star*: each node ``x`` links its smaller neighbours and itself
  to the smallest of them.

Both keep the components and never raise a node's smallest link; they end
when the graph is a set of stars (every node has at most one smaller
neighbour, and no centre is a leaf), each centred at its component's
smallest node. A round is a fixed set of stages (3 shuffles and one
convergence check); the number of rounds grows with the logarithm of the
components' size (the paper proves O(log^2 n), and measures about log n),
never with the corpus or the length of a chain of near-duplicates.
``max_rounds`` bounds it anyway.
"""

from __future__ import annotations

from ._common import _materialize

MAX_ROUNDS = 64
"""Large-star / small-star rounds allowed before ``dedup`` gives up: far
more than a component of 2^32 documents needs."""

STAGES_PER_ROUND = 12
"""Spark stages one round may run: its 7 shuffles, the materialization of
its edges and the convergence check (10 measured with Spark 4.3's adaptive
execution; stages listed again as skipped do not run)."""


def round_bound(n: int) -> int:
    """Rounds allowed for a component of ``n`` nodes in the tests and the
    documentation: 2 log2(n) + 2. (The proven bound is O(log^2 n); paths,
    chains and random graphs take about log2(n).)"""
    import math

    return 2 * math.ceil(math.log2(max(n, 2))) + 2


_DECIDED_SCHEMA = "doc long, dup_of long, sim double"


def components(pairs, max_rounds: int = MAX_ROUNDS):
    """``(node, comp)`` for every node of ``pairs`` (columns ``u < v``):
    ``comp`` is the smallest node of its connected component."""
    from pyspark.sql import functions as F

    edges = _materialize(pairs.select(F.col("u").alias("a"), F.col("v").alias("b")).distinct())
    for _ in range(max_rounds):
        edges = _materialize(_small_star(_large_star(edges)))
        if _stars(edges):
            break
    else:
        raise RuntimeError(f"neardup.spark.dedup: components not found in {max_rounds} rounds")
    return edges.select(F.col("b").alias("node"), F.col("a").alias("comp")).unionByName(
        edges.select(F.col("a").alias("node"), F.col("a").alias("comp")).distinct()
    )


def _large_star(edges):
    """Each node's larger neighbours linked to its smallest neighbourhood
    member (itself included)."""
    from pyspark.sql import functions as F

    both = edges.unionByName(edges.select(F.col("b").alias("a"), F.col("a").alias("b")))
    low = both.groupBy("a").agg(F.min("b").alias("m"))
    return (
        both.where(F.col("b") > F.col("a"))
        .join(low, "a")
        .select(F.least(F.col("m"), F.col("a")).alias("a"), F.col("b"))
        .distinct()
    )


def _small_star(edges):
    """Each node and its smaller neighbours linked to the smallest of
    them."""
    from pyspark.sql import functions as F

    low = edges.groupBy("b").agg(F.min("a").alias("m"))
    leaves = (
        edges.join(low, "b")
        .where(F.col("a") != F.col("m"))
        .select(F.col("m").alias("a"), F.col("a").alias("b"))
    )
    return leaves.unionByName(low.select(F.col("m").alias("a"), F.col("b"))).distinct()


def _stars(edges) -> bool:
    """Whether ``edges`` is a set of stars: every node has at most one
    smaller neighbour and no node with one is another's smaller neighbour."""
    from pyspark.sql import functions as F

    ends = edges.select(F.col("a").alias("x"), F.lit(1).alias("centre"), F.lit(0).alias("leaf")).unionByName(
        edges.select(F.col("b").alias("x"), F.lit(0).alias("centre"), F.lit(1).alias("leaf"))
    )
    bad = (
        ends.groupBy("x")
        .agg(F.max("centre").alias("centre"), F.sum("leaf").alias("leaf"))
        .where((F.col("leaf") > 1) | ((F.col("leaf") > 0) & (F.col("centre") > 0)))
    )
    return bad.isEmpty()


EDGES_IN_ONE_TASK = 10_000_000
"""The most verified pairs decided in one executor call, with no
connected-components rounds: 24 bytes a pair as it arrives, about 100
bytes a pair while the engine decides (1 GB at the bound). Past it, the
components are found by Spark (large-star / small-star rounds) and each
is decided in the task of its partition."""


def keep_first(edges, num_partitions: int):
    """The engine's decision on verified ``edges`` (``u < v``, ``sim``;
    computed, as a checkpoint): ``(doc, dup_of, sim)`` for every document
    that becomes a duplicate.

    Up to ``EDGES_IN_ONE_TASK`` pairs, one task decides them all (a
    constant number of stages, whatever the chains: the decision over the
    whole graph is the engine's own). Past it, each component's pairs go
    to one task (``repartition`` by component); a task holds its pairs in
    memory, 24 bytes each."""
    if edges.limit(EDGES_IN_ONE_TASK + 1).count() <= EDGES_IN_ONE_TASK:
        return _decided_whole(edges)
    return _decided_by_component(edges, num_partitions)


def _decided_whole(edges):
    """All of ``edges`` decided in one executor call."""
    import numpy as np
    import pyarrow as pa

    from .. import _neardup as _nd

    def decide(batches):
        t = pa.Table.from_batches(list(batches), schema=pa.schema(
            [("u", pa.int64()), ("v", pa.int64()), ("sim", pa.float64())]))
        packed = [np.ascontiguousarray(t.column(c).to_numpy(), dtype=dt).tobytes()
                  for c, dt in (("u", "<i8"), ("v", "<i8"), ("sim", "<f8"))]
        docs, kept, sims = _nd.keep_first_packed_batch(*packed)
        yield pa.RecordBatch.from_arrays(
            [pa.array(np.frombuffer(docs, "<i8")), pa.array(np.frombuffer(kept, "<i8")),
             pa.array(np.frombuffer(sims, "<f8"))],
            names=["doc", "dup_of", "sim"],
        )

    return edges.select("u", "v", "sim").coalesce(1).mapInArrow(decide, _DECIDED_SCHEMA)


def _decided_by_component(edges, num_partitions: int):
    """Each connected component of ``edges`` decided in one executor call."""
    import pyarrow as pa
    from pyspark.sql import functions as F

    from .. import _neardup as _nd

    comp = components(edges.select("u", "v"))
    tagged = edges.join(comp.select(F.col("node").alias("v"), "comp"), "v").select("comp", "u", "v", "sim")

    def decide(batches):
        batches = list(batches)
        if not batches:
            return
        t = pa.Table.from_batches(batches)
        docs, kept, sims = _nd.keep_first_batch(
            t.column("comp").to_pylist(),
            t.column("u").to_pylist(),
            t.column("v").to_pylist(),
            t.column("sim").to_pylist(),
        )
        yield pa.RecordBatch.from_arrays(
            [pa.array(docs, pa.int64()), pa.array(kept, pa.int64()), pa.array(sims, pa.float64())],
            names=["doc", "dup_of", "sim"],
        )

    return tagged.repartition(num_partitions, "comp").mapInArrow(decide, _DECIDED_SCHEMA)

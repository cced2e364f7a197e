"""Verification on Spark: candidate pairs meet their documents as packed
blobs, not by sort-merge joins of one row per document.

Each document (``ord``, signature, shingle sequence) belongs to a
partition of its order (``doc_partitions_batch``, a hash of ``ord``); a
partition's documents travel as a few binary rows of at most
``CHUNK_BYTES`` (``pack_docs_batch``), moved to their partition once and
kept there (memory, then disk). Verification then moves only pairs (and
the documents a partition lacks), never the kept documents again: each
step is a ``cogroup`` by partition whose document side is already
partitioned so.

1. The pairs ``(u, v)``, packed 16 bytes a pair by the partition of
   ``v``, meet the documents of that partition in one call, which
   forwards each pair to the partition of ``u`` with the documents ``v``
   that partition lacks, each once (``export_docs_batch``);
2. there they meet that partition's own documents, and one call verifies
   every pair by the rule of ``verify_batch`` (the CLI's:
   ``verify_blobs_batch``).

Memory of a task: its partition's documents (at most about
``DOCS_PER_PARTITION`` documents, 1.7 KB each for real text: 85 MB) and,
in step 2, one more document per pair at most (the distinct ``v`` it
lacks), with its pairs (16 bytes each). The kernels read blobs from
Python ``bytes``: a damaged blob (a record longer than its blob, a pair
blob not of 16-byte pairs, a pair naming a document of no blob) is a
``NeardupError`` that says so.
"""

from __future__ import annotations

import numpy as np

from .. import _neardup as _nd
from ._blobs import dest_labels
from ._common import _col

BLOB_SCHEMA = "dest int, payload binary"
ROUTED_SCHEMA = "dest int, kind int, payload binary"
EDGE_SCHEMA = "u long, v long, sim double, runs binary, psus boolean"

PAIRS, IMPORTED = 1, 2
"""The ``kind`` of a routed row (``export_docs_batch``'s): pairs, or
documents of another partition that its pairs name."""

PAIR = np.dtype([("u", "<i8"), ("v", "<i8")])

CHUNK_BYTES = 1 << 20
"""The most bytes of documents or pairs one row carries (1 MB; a longer
document alone): 170 rows for 10^5 real-text documents, and no row the
JVM must place as a humongous object (over half a G1 heap region), which
with 16 MB rows doubled the peak memory of a run."""


def _blob_rows(labels, dests, payloads):
    """The Arrow batch of rows ``(dest, payload)``, partitions mapped to
    their labels."""
    import pyarrow as pa

    return pa.RecordBatch.from_arrays(
        [pa.array([labels[d] for d in dests], pa.int32()), pa.array(payloads, pa.binary())],
        names=["dest", "payload"],
    )


def doc_blobs(reps, parts: int):
    """The documents of ``reps`` (``ord``, ``sig``, ``sh``) as rows
    ``(dest, payload)`` in the partitions of their ``dest``, kept (memory,
    then disk; computed where first used)."""
    from pyspark import StorageLevel

    labels = dest_labels(parts)

    def pack(batches):
        for b in batches:
            if b.num_rows == 0:
                continue
            ords = _col(b, "ord").to_numpy().astype("<i8").tobytes()
            dests, payloads = _nd.pack_docs_batch(
                ords, _col(b, "sig").to_pylist(), _col(b, "sh").to_pylist(), parts, CHUNK_BYTES
            )
            yield _blob_rows(labels, dests, payloads)

    blobs = reps.select("ord", "sig", "sh").mapInArrow(pack, BLOB_SCHEMA)
    return blobs.repartition(parts, "dest").persist(StorageLevel.MEMORY_AND_DISK)


def _pair_blobs(parts: int):
    """A ``mapInArrow`` function: pairs ``(u, v)`` as rows ``(dest,
    payload)`` by the partition of ``v``, at most ``CHUNK_BYTES`` a row."""
    labels = dest_labels(parts)

    def run(batches):
        for b in batches:
            if b.num_rows == 0:
                continue
            rec = np.empty(b.num_rows, PAIR)
            rec["u"] = _col(b, "u").to_numpy()
            rec["v"] = _col(b, "v").to_numpy()
            dest = np.frombuffer(_nd.doc_partitions_batch(rec["v"].tobytes(), parts), "<u4")
            order = np.argsort(dest, kind="stable")
            rec, dest = rec[order], dest[order]
            bounds = np.searchsorted(dest, np.arange(parts + 1))
            per = max(1, CHUNK_BYTES // PAIR.itemsize)
            dests, payloads = [], []
            for p in range(parts):
                for lo in range(bounds[p], bounds[p + 1], per):
                    dests.append(p)
                    payloads.append(rec[lo : min(lo + per, bounds[p + 1])].tobytes())
            yield _blob_rows(labels, dests, payloads)

    return run


def _export(parts: int):
    """A ``cogroup`` function over one partition's pair blobs (by ``v``)
    and its documents: the pairs and the documents they need, routed to
    the partitions of ``u``."""
    labels = dest_labels(parts)

    def run(key, pairs, docs):
        import pandas as pd

        if pairs.empty:
            return pd.DataFrame({"dest": [], "kind": [], "payload": []})
        dests, kinds, out = _nd.export_docs_batch(list(docs["payload"]), list(pairs["payload"]), parts, CHUNK_BYTES)
        return pd.DataFrame(
            {
                "dest": np.array([labels[d] for d in dests], np.int32),
                "kind": np.frombuffer(bytes(kinds), np.uint8).astype(np.int32),
                "payload": pd.Series(out, dtype=object),
            }
        )

    return run


def _verify(m, threshold, md, composite: bool, partial: bool):
    """A ``cogroup`` function over the pairs routed to one partition (by
    ``u``, with the documents it lacks) and its documents: the confirmed
    pairs."""

    def run(key, routed, docs):
        import pandas as pd

        pairs = list(routed["payload"][routed["kind"] == PAIRS])
        if not pairs:
            return pd.DataFrame({"u": [], "v": [], "sim": [], "runs": [], "psus": []})
        docs = list(docs["payload"]) + list(routed["payload"][routed["kind"] == IMPORTED])
        u, v, sims, runs, psus = _nd.verify_blobs_batch(
            m, threshold, md, docs, pairs, composite=composite, partial=partial
        )
        return pd.DataFrame(
            {
                "u": np.frombuffer(u, "<i8"),
                "v": np.frombuffer(v, "<i8"),
                "sim": np.frombuffer(sims, "<f8"),
                "runs": pd.Series(runs, dtype=object),
                "psus": np.array(psus, bool),
            }
        )

    return run


def verified_edges(pairs, docs, m, threshold, md, parts: int, composite: bool, partial: bool):
    """The confirmed pairs of ``pairs`` (``u``, ``v``) as rows ``(u, v,
    sim, runs, psus)`` (``runs``: foreign runs for the composite page
    check; ``psus``: the partial copy check must look), given the document
    blobs ``docs`` of ``doc_blobs`` for ``parts`` partitions."""
    by_v = pairs.select("u", "v").mapInArrow(_pair_blobs(parts), BLOB_SCHEMA)
    by_u = by_v.groupBy("dest").cogroup(docs.groupBy("dest")).applyInPandas(_export(parts), ROUTED_SCHEMA)
    check = _verify(m, threshold, md, composite, partial)
    return by_u.groupBy("dest").cogroup(docs.groupBy("dest")).applyInPandas(check, EDGE_SCHEMA)

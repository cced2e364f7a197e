"""Verification on Spark: candidate pairs meet their documents as packed
blobs, not by sort-merge joins of one row per document.

Each document (``ord``, signature, shingle sequence) belongs to a
partition of its order (``doc_partitions_batch``, a hash of ``ord``); a
partition's documents travel as a few binary rows of at most
``CHUNK_BYTES`` (``pack_docs_batch``), made once and kept. Verification is
then two shuffles of a few rows each:

1. the pairs ``(u, v)``, packed 16 bytes a pair by the partition of ``v``,
   meet the document blobs of that partition in one task, which forwards
   each pair to the partition of ``u`` with the documents ``v`` that
   partition lacks, each once (``export_docs_batch``);
2. there they meet that partition's own document blobs, and one call
   verifies every pair by the rule of ``verify_batch`` (the CLI's:
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
from ._blobs import CHUNK_BYTES, dest_labels
from ._common import _col

ROUTED_SCHEMA = "dest int, kind int, payload binary"
EDGE_SCHEMA = "u long, v long, sim double, runs binary, psus boolean"

DOCS, PAIRS, IMPORTED = 0, 1, 2
"""The ``kind`` of a routed row: the partition's own documents, pairs,
documents of another partition that its pairs name."""

PAIR = np.dtype([("u", "<i8"), ("v", "<i8")])


def _rows(labels, dests, kinds, payloads):
    """The Arrow batch of routed rows (partitions mapped to their labels)."""
    import pyarrow as pa

    return pa.RecordBatch.from_arrays(
        [
            pa.array([labels[d] for d in dests], pa.int32()),
            pa.array(kinds, pa.int32()),
            pa.array(payloads, pa.binary()),
        ],
        names=["dest", "kind", "payload"],
    )


def doc_blobs(reps, parts: int):
    """The documents of ``reps`` (``ord``, ``sig``, ``sh``) as routed rows
    ``(dest, DOCS, payload)`` of their partitions, kept (memory, then
    disk; computed where first used)."""
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
            yield _rows(labels, dests, [DOCS] * len(dests), payloads)

    return reps.select("ord", "sig", "sh").mapInArrow(pack, ROUTED_SCHEMA).persist(StorageLevel.MEMORY_AND_DISK)


def _pair_blobs(parts: int):
    """A ``mapInArrow`` function: pairs ``(u, v)`` as routed rows
    ``(dest, PAIRS, payload)`` by the partition of ``v``."""
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
            yield _rows(labels, dests, [PAIRS] * len(dests), payloads)

    return run


def _by_kind(batches):
    """The payloads of a partition's routed rows: its documents (own and
    imported) and its pair blobs."""
    docs, pairs = [], []
    for b in batches:
        kinds = _col(b, "kind").to_pylist()
        for k, x in zip(kinds, _col(b, "payload").to_pylist()):
            (pairs if k == PAIRS else docs).append(x)
    return docs, pairs


def _export(parts: int):
    """A ``mapInArrow`` function over one partition's documents and the
    pairs of its ``v``: the pairs and the documents they need, routed to
    the partitions of ``u``."""
    labels = dest_labels(parts)

    def run(batches):
        docs, pairs = _by_kind(batches)
        if not pairs:
            return
        dests, kinds, payloads = _nd.export_docs_batch(docs, pairs, parts, CHUNK_BYTES)
        if dests:
            yield _rows(labels, dests, [PAIRS if k == 1 else IMPORTED for k in kinds], payloads)

    return run


def _verify(m, threshold, md, composite: bool, partial: bool):
    """A ``mapInArrow`` function over one partition's documents, imported
    documents and the pairs of its ``u``: the confirmed pairs."""

    def run(batches):
        import pyarrow as pa

        docs, pairs = _by_kind(batches)
        if not pairs:
            return
        u, v, sims, runs, psus = _nd.verify_blobs_batch(
            m, threshold, md, docs, pairs, composite=composite, partial=partial
        )
        yield pa.RecordBatch.from_arrays(
            [
                pa.array(np.frombuffer(u, "<i8")),
                pa.array(np.frombuffer(v, "<i8")),
                pa.array(np.frombuffer(sims, "<f8")),
                pa.array(runs, pa.binary()),
                pa.array(psus, pa.bool_()),
            ],
            names=["u", "v", "sim", "runs", "psus"],
        )

    return run


def verified_edges(pairs, docs, m, threshold, md, parts: int, composite: bool, partial: bool):
    """The confirmed pairs of ``pairs`` (``u``, ``v``) as rows ``(u, v,
    sim, runs, psus)`` (``runs``: foreign runs for the composite page
    check; ``psus``: the partial copy check must look), given the document
    blobs ``docs`` of ``doc_blobs`` for ``parts`` partitions."""
    routed = pairs.select("u", "v").mapInArrow(_pair_blobs(parts), ROUTED_SCHEMA)
    exported = docs.unionByName(routed).repartition(parts, "dest").mapInArrow(_export(parts), ROUTED_SCHEMA)
    return (
        docs.unionByName(exported)
        .repartition(parts, "dest")
        .mapInArrow(_verify(m, threshold, md, composite, partial), EDGE_SCHEMA)
    )

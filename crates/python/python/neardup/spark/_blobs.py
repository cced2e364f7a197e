"""Per-document records between Spark steps as a few large binary rows.

Spark's cost is per row and per shuffle, not per byte: 3.2 million band-key
postings moved as 3.2 million rows cost seconds of row handling in the JVM
and of Arrow conversion in Python, where the same 64 MB moved as a few
dozen byte strings cost a fraction of that. So a step that sends records
to the task of another step packs them where they are made: a
``mapInArrow`` function gives, for each destination partition, a few rows
``(dest int, payload binary)``, each payload at most ``CHUNK_BYTES`` of
fixed-size little-endian records (NumPy structured arrays, read and
written without a Python object per record). ``repartition`` by ``dest``
moves those rows (a shuffle of a few hundred rows), and the consumer
concatenates its payloads back into columns.

Destinations are labels chosen so that Spark's hash partitioning sends
label ``p`` to partition ``p`` (``dest_labels``): each destination gets a
task of its own, none shares one with another while a core idles.
"""

from __future__ import annotations

from typing import Dict, Iterator, List

import numpy as np

BLOB_SCHEMA = "dest int, payload binary"

CHUNK_BYTES = 16 << 20
"""The most bytes of records one payload row holds (16 MB): a destination
with more gets several rows, so no row nears Arrow's 2 GB limit for a
binary column and a batch of rows stays a bounded size."""

POSTING = np.dtype([("ord", "<i8"), ("t", "<i4"), ("k", "<i8")])
"""A band-key posting: document (input order), candidate table, key."""

KEY = np.dtype([("t", "<i4"), ("k", "<i8")])
"""A candidate key: table and key."""

_M = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M


def _spark_hash_int(value: int, seed: int = 42) -> int:
    """Spark's ``hash`` of an ``int`` (Murmur3_x86_32.hashInt, seed 42:
    what ``repartition(n, col)`` partitions an ``int`` column by), signed."""
    k1 = (value & _M) * 0xCC9E2D51 & _M
    k1 = _rotl(k1, 15) * 0x1B873593 & _M
    h1 = _rotl(seed ^ k1, 13)
    h1 = (h1 * 5 + 0xE6546B64) & _M
    h1 ^= 4
    h1 ^= h1 >> 16
    h1 = h1 * 0x85EBCA6B & _M
    h1 ^= h1 >> 13
    h1 = h1 * 0xC2B2AE35 & _M
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 >= 1 << 31 else h1


def dest_labels(parts: int) -> List[int]:
    """``labels[p]``: an ``int`` that ``repartition(parts, "dest")`` sends
    to partition ``p`` (the smallest such non-negative number)."""
    labels: Dict[int, int] = {}
    value = 0
    while len(labels) < parts:
        labels.setdefault(_spark_hash_int(value) % parts, value)
        value += 1
    return [labels[p] for p in range(parts)]


def blob_batch(records: np.ndarray, dest: np.ndarray, labels: List[int]):
    """The Arrow batch of rows ``(dest, payload)`` that carries
    ``records`` (a structured array) to their destinations (``dest[i]`` in
    ``0..len(labels)``): records of one destination together, at most
    ``CHUNK_BYTES`` a row; ``None`` when there is nothing to send."""
    import pyarrow as pa

    if len(records) == 0:
        return None
    order = np.argsort(dest, kind="stable")
    records, dest = records[order], dest[order]
    bounds = np.searchsorted(dest, np.arange(len(labels) + 1))
    per_chunk = max(1, CHUNK_BYTES // records.dtype.itemsize)
    out_dest, out_payload = [], []
    for p in range(len(labels)):
        for lo in range(bounds[p], bounds[p + 1], per_chunk):
            out_dest.append(labels[p])
            out_payload.append(records[lo : min(lo + per_chunk, bounds[p + 1])].tobytes())
    return pa.RecordBatch.from_arrays(
        [pa.array(out_dest, pa.int32()), pa.array(out_payload, pa.binary())], names=["dest", "payload"]
    )


def records_of(batches: Iterator, dtype: np.dtype) -> np.ndarray:
    """The records of every payload of ``batches`` (Arrow batches with a
    ``payload`` column), concatenated into one structured array."""
    parts = []
    for b in batches:
        col = b.column(b.schema.get_field_index("payload"))
        parts.extend(np.frombuffer(x, dtype) for x in col.to_pylist() if x)
    if not parts:
        return np.empty(0, dtype)
    return np.concatenate(parts)


def unpacked(dtype):
    """A ``mapInArrow`` function: the records of a partition's blobs (a
    structured ``dtype``) as rows, one column a field."""

    def run(batches):
        import pyarrow as pa

        rec = records_of(batches, dtype)
        if len(rec):
            yield pa.RecordBatch.from_arrays([pa.array(rec[f]) for f in dtype.names], names=list(dtype.names))

    return run


def mix_keys(t: np.ndarray, k: np.ndarray) -> np.ndarray:
    """One 64-bit mix of table and key (unsigned), the one the posting
    kernel sends keys to destinations by (``mix_keys_batch``, Rust): the
    postings re-packed here go where the kernel sends them."""
    from .. import _neardup as _nd

    t = np.ascontiguousarray(t, "<u4")
    k = np.ascontiguousarray(k, "<i8")
    return np.frombuffer(_nd.mix_keys_batch(t.tobytes(), k.tobytes()), "<u8")

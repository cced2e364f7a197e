"""neardup.spark's verification on document blobs: the pairs meet their
documents as packed rows by partition (``_verify``) and get exactly what
``verify_batch`` (the CLI's rule) gives them; damaged blobs are refused
with a message that says what is wrong."""

import random

import numpy as np
import pytest

import neardup
from corpus import WORDS, edit

pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")

from neardup import _neardup as _nd  # noqa: E402


def corpus(n=60, seed=11):
    """(id, text): articles, each with a few slight edits of it."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        words = [rng.choice(WORDS) for _ in range(120)]
        for _ in range(rng.randint(1, 4)):
            out.append((f"d{len(out):04d}", " ".join(words)))
            words = edit(rng, WORDS, words, rng.randint(1, 12))
    return out[:n]


def fingerprints(docs, method):
    ids = [i for i, _ in docs]
    sigs, _, _, shingles, _ = _nd.fingerprint_batch(method, None, None, ids, texts=[t for _, t in docs])
    return np.arange(len(docs), dtype="<i8"), sigs, shingles


def all_pairs(n):
    return [(u, v) for u in range(n) for v in range(u + 1, n)]


def pair_bytes(pairs):
    return np.array(pairs, dtype="<i8").reshape(-1).tobytes()


def by_blobs(method, ords, sigs, shingles, pairs, parts, chunk, composite=False, partial=False):
    """Pack, export by partition of v, verify by partition of u: the
    confirmed pairs as ``verify_blobs_batch`` gives them, all partitions."""
    dests, payloads = _nd.pack_docs_batch(ords.tobytes(), sigs, shingles, parts, chunk)
    docs = {p: [b for d, b in zip(dests, payloads) if d == p] for p in range(parts)}
    vs = np.array([v for _, v in pairs], "<i8")
    part_of_v = np.frombuffer(_nd.doc_partitions_batch(vs.tobytes(), parts), "<u4")
    inbox = {p: ([], []) for p in range(parts)}
    for p in range(parts):
        mine = [pair for pair, q in zip(pairs, part_of_v) if q == p]
        if not mine:
            continue
        qs, kinds, out = _nd.export_docs_batch(docs[p], [pair_bytes(mine)], parts, chunk)
        for q, k, x in zip(qs, kinds, out):
            inbox[q][0 if k == 2 else 1].append(x)
    got = []
    for p in range(parts):
        imported, routed = inbox[p]
        if not routed:
            continue
        u, v, s, runs, psus = _nd.verify_blobs_batch(
            method, None, None, docs[p] + imported, routed, composite=composite, partial=partial
        )
        u, v, s = (np.frombuffer(x, t) for x, t in ((u, "<i8"), (v, "<i8"), (s, "<f8")))
        got.extend(zip(u.tolist(), v.tolist(), s.tolist(), runs, psus))
    return sorted(got)


def by_verify_batch(method, sigs, shingles, pairs, composite=False, partial=False):
    a = [sigs[u] for u, _ in pairs]
    b = [sigs[v] for _, v in pairs]
    sa = [shingles[u] for u, _ in pairs]
    sb = [shingles[v] for _, v in pairs]
    sims, runs, psus = _nd.verify_batch(method, None, None, a, b, sa, sb, composite=composite, partial=partial)
    return sorted((u, v, s, r, p) for (u, v), s, r, p in zip(pairs, sims, runs, psus) if s is not None)


@pytest.mark.parametrize("method", ["default", "minhash", "simhash"])
@pytest.mark.parametrize("parts,chunk", [(1, 16 << 20), (3, 16 << 20), (4, 2_000)])
def test_blob_verification_is_verify_batch(method, parts, chunk):
    docs = corpus()
    ords, sigs, shingles = fingerprints(docs, method)
    pairs = all_pairs(len(docs))
    extra = {"composite": True, "partial": True} if method == "default" else {}
    want = by_verify_batch(method, sigs, shingles, pairs, **extra)
    got = by_blobs(method, ords, sigs, shingles, pairs, parts, chunk, **extra)
    assert got == want
    # The corpus has near-duplicates and pairs that are not.
    assert 0 < len(want) < len(pairs)


def test_documents_cross_in_payloads_of_bounded_size():
    docs = corpus()
    ords, sigs, shingles = fingerprints(docs, "default")
    sizes = [len(s) + len(h) + 16 for s, h in zip(sigs, shingles)]
    chunk = 3 * max(sizes)
    dests, payloads = _nd.pack_docs_batch(ords.tobytes(), sigs, shingles, 2, chunk)
    assert len(payloads) > 2
    assert all(len(p) <= chunk for p in payloads)
    assert sum(len(p) for p in payloads) == sum(sizes)
    # A bound below one document: each document alone.
    _, alone = _nd.pack_docs_batch(ords.tobytes(), sigs, shingles, 2, 1)
    assert sorted(len(p) for p in alone) == sorted(sizes)


def test_damaged_and_oversized_blobs_are_refused_clearly():
    docs = corpus(n=4)
    ords, sigs, shingles = fingerprints(docs, "default")
    _, (blob,) = _nd.pack_docs_batch(ords.tobytes(), sigs, shingles, 1, 16 << 20)
    pairs = [pair_bytes([(0, 1)])]
    with pytest.raises(neardup.NeardupError, match="longer than the blob"):
        _nd.verify_blobs_batch("default", None, None, [blob[:-1]], pairs)
    # A record that claims a signature of 4 GB.
    big = bytearray(blob)
    big[8:12] = (2**32 - 2).to_bytes(4, "little")
    with pytest.raises(neardup.NeardupError, match="document 0 longer than the blob"):
        _nd.export_docs_batch([bytes(big)], pairs, 1, 16 << 20)
    with pytest.raises(neardup.NeardupError, match="not 16-byte pairs"):
        _nd.verify_blobs_batch("default", None, None, [blob], [pairs[0][:-1]])
    with pytest.raises(neardup.NeardupError, match=r"pair \(0, 9\): document 9 is not among"):
        _nd.verify_blobs_batch("default", None, None, [blob], [pair_bytes([(0, 9)])])
    with pytest.raises(neardup.NeardupError, match="twice"):
        _nd.verify_blobs_batch("default", None, None, [blob, blob], pairs)
    # Damaged shingles inside a whole record: the pair is named.
    sh = list(shingles)
    sh[1] = b"\x01\x02\x03"
    _, (odd,) = _nd.pack_docs_batch(ords.tobytes(), sigs, sh, 1, 16 << 20)
    with pytest.raises(neardup.NeardupError, match=r"pair \(0, 1\): shingle bytes"):
        _nd.verify_blobs_batch("default", None, None, [odd], pairs)


def test_verified_edges_on_spark_are_verify_batch(spark):
    from neardup.spark import _verify

    docs = corpus(n=80, seed=4)
    ords, sigs, shingles = fingerprints(docs, "default")
    pairs = all_pairs(len(docs))
    want = by_verify_batch("default", sigs, shingles, pairs, composite=True, partial=True)
    reps = spark.createDataFrame(
        [(int(o), s, h) for o, s, h in zip(ords, sigs, shingles)], "ord long, sig binary, sh binary"
    ).repartition(3)
    pdf = spark.createDataFrame(pairs, "u long, v long").repartition(2)
    blobs = _verify.doc_blobs(reps, 3)
    edges = _verify.verified_edges(pdf, blobs, "default", None, None, 3, True, True)
    got = sorted((r.u, r.v, r.sim, r.runs, r.psus) for r in edges.collect())
    blobs.unpersist()
    assert got == want

"""Deduplication on Spark: the whole pipeline on a DataFrame.

``dedup(df, ...)`` gives the groups of ``neardup dedup`` (``--keep first``)
without collecting the corpus anywhere:

1. **Fingerprints** — executors decode, extract and fingerprint each
   document with the Rust core (``mapInArrow``, one Arrow batch per call,
   the GIL released). The result is partitioned by document as it is
   made and kept (memory, then local disk), once: every later step reads
   the columns it needs where they are, and the joins on a document
   shuffle only their other side. (The input is counted first to size the
   partitions: free for Parquet; persist an input that is costly to
   compute.) With the ``default`` method the main text travels on as its
   shingle sequence (4 bytes a token), which exact verification reads.
   **Site templates** (``default`` method): the pages of each host, in
   input order, go to one executor call (``groupBy(host).applyInPandas``)
   that removes the text the host repeats on unrelated pages and
   recomputes their signatures, as ``neardup dedup`` does. A host's pages
   must fit in one executor's memory (about 1.2 KB a page).
2. **Exact copies** — documents with byte-identical signatures are grouped
   (by a 128-bit digest of the signature, as the Rust engine groups them);
   the earliest one stands for the others, as in the engine.
3. **Candidates** — each distinct signature's candidate keys (LSH band keys
   for MinHash, pigeonhole blocks for SimHash, index keys for the other
   methods) are made where the signatures are and packed, 20 bytes a
   posting, into a few binary rows per destination partition (a hash of
   table and key); Spark moves those rows, and each destination's
   postings become pairs ``(u, v)``, ``u`` earlier than ``v``, in one call
   to the engine's inverted index (Rust): over-long postings dropped and
   shared keys counted as the engine does, the counts of a pair summed
   across partitions. Hot keys (boilerplate: more than ``hot_key_rows``
   documents) are taken out of the packed rows and split into blocks,
   each pair of blocks a task; keys over the engine's cap are dropped
   before any shuffle (``_candidates``, ``_blobs``).
4. **Verification** — executors check each pair with the method's own rule
   and keep its similarity. **Composite pages** (``default`` method): a
   verified pair in which one page has a long run the other lacks gets
   that run looked up among a sample of every document's shingles (joins on
   the sampled hash, the first documents of each shingle, the documents
   with most hits), and the pair is dropped when a third document, another
   article, makes up the run: the engine's composite page check. **Partial
   copies** (``default`` method): a verified pair in which one side lacks
   a large part of the other is joined with the other side's verified
   near-duplicates, and dropped when one of them has that part: the
   engine's partial copy check.
5. **Clusters, without chaining** — the engine visits documents in order
   and makes each one a duplicate of the most similar earlier *kept*
   document. Up to ten million verified pairs, one executor call makes
   that decision over the whole graph (the engine's own). Past that, as a
   document's fate depends only on its connected component of verified
   pairs, the components are found (large-star / small-star rounds, a
   logarithmic number: ``_components``) and each one is decided whole, in
   one executor call, by the engine's own rule. The number of Spark jobs
   is a constant (plus a few per round past the bound), whatever the size
   of the corpus or the length of chains of near-duplicates.

By default, a corpus of at most 200,000 documents, or any corpus on at
most 4 cores (``local[2]``, a small cluster), is decided in one executor
call, the batch engine of ``neardup dedup`` (``_one_task``): the site
template pass and steps 2 to 5, where Spark's stages cost more than the
decision they would divide. On a cluster the executors fingerprint the
documents as in step 1 first; in local mode that call also fingerprints
them, on the session's cores, when they come in input order (always
without ``order_col``; else when one pass over that column finds them
so): no shuffle at all. ``docs_in_one_task=`` sets the bound by hand.

Executors need the ``neardup`` package installed (``pip install`` on every
node, or ship the wheel with ``--py-files``/an archive).
"""
from __future__ import annotations

import functools
from typing import List, Optional

from .. import _neardup as _nd
from ._candidates import candidate_pairs
from ._common import _col, _materialize, _utf8
from ._components import keep_first
from ._one_task import (
    FULL_FP_SCHEMA,
    arrives_in_order,
    cluster_cores,
    decided_in_one_task,
    fingerprinted_and_decided_in_one_task,
    in_one_call,
    in_one_task,
)
from ._passes import _composite_pairs, _partial_pairs, _strip_site_templates

_FP_SCHEMA = "ord long, id string, sig binary, sh binary, host string"
_EDGE_SCHEMA = "u long, v long, sim double, runs binary, psus boolean"

HOT_KEY_ROWS = 2_000
"""A candidate key (a band bucket) with more documents than this is hot:
its documents are split into blocks of about this many, and each pair of
blocks is made into pairs by a task of its own (about 2 x 2,000 rows and
4 million pairs, 96 MB as pandas columns, a task)."""


def dedup(
    df,
    id_col: str = "id",
    html_col: Optional[str] = None,
    text_col: Optional[str] = None,
    threshold: Optional[float] = None,
    method: Optional[str] = None,
    *,
    max_distance: Optional[int] = None,
    order_col: Optional[str] = None,
    all_text: bool = False,
    site_templates: bool = True,
    composite_check: bool = True,
    partial_check: bool = True,
    hot_key_rows: int = HOT_KEY_ROWS,
    docs_in_one_task: Optional[int] = None,
):
    """Finds near-duplicate documents of ``df`` and returns a DataFrame
    ``(id string, cluster string, duplicate_of string, similarity double)``,
    one row per document: ``cluster`` is the id of the kept document of its
    group, ``duplicate_of`` the kept document it duplicates (``None`` when
    kept), ``similarity`` the method's similarity to it, rounded to 4
    decimals like the CLI (``None`` when kept).

    ``method="default"`` (also what ``None`` means) is the CLI's default
    method (MinHash over word 3-grams, 3-grams of character bigrams in CJK
    text, candidates verified exactly on the
    main texts' shingles, which then travel with the candidate pairs);
    ``minhash`` and the other names are the literature's methods, decided on
    signatures as in the CLI.

    Documents come from ``html_col`` (binary or string HTML; decoded and
    extracted) and/or ``text_col`` (plain main text); with both, the HTML is
    used where it is not null. ``method`` (default ``default``),
    ``threshold`` and ``max_distance`` are the CLI's options. Seniority
    (which copy is kept) is ``order_col`` ascending, else the DataFrame's
    order (``monotonically_increasing_id``), as ``neardup dedup --keep
    first`` does with input order. Documents without text or that fail to
    extract are groups of their own. Ids must be unique.

    With the ``default`` method, the CLI's two corpus-level passes run too
    (see the module documentation): the site template pass, per host (the
    host is read from the id when it is a URL, as the CLI does for WARC
    records; ``site_templates=False`` is ``--no-site-templates``), the
    composite page check (``composite_check=False`` is
    ``--no-composite-check``) and the partial copy check
    (``partial_check=False`` is ``--no-partial-check``).

    A candidate key of more than ``hot_key_rows`` documents (a band
    bucket of boilerplate) is not shuffled whole to one task: its
    documents are split into blocks of about that many, and each pair of
    blocks is one task; keys over the method's cap on postings (the key
    methods') are dropped before the shuffle, as the engine ignores them.
    Same pairs, same groups.

    A corpus of at most ``docs_in_one_task`` documents is decided by the
    batch engine in one executor call (within
    ``_one_task.one_task_memory``, spilling past it): a few stages
    instead of the distributed path's constant 40 to 65, which cost more
    than such a decision. On a cluster every executor fingerprints the
    documents for that call; in local mode the call fingerprints them
    itself, on the session's cores, when they come in input order as
    its partitions are read one after the other (always without
    ``order_col``; with it, one pass over that column checks), and
    else the session's tasks fingerprint them and the call reads them
    sorted. By default (``None``) that is any
    corpus on at most ``ONE_TASK_CORES`` (4) cores, where the distributed
    path's extra work outweighs what it divides, and up to
    ``DOCS_IN_ONE_TASK`` (200,000) documents on more. The cores are the
    session's default parallelism, or what its configuration promises
    (``spark.executor.instances`` times ``spark.executor.cores``,
    ``spark.cores.max``; with dynamic allocation,
    ``spark.dynamicAllocation.maxExecutors`` executors, no bound when
    unset). ``0`` always distributes the decision. Same groups either
    way.

    The Spark jobs it runs are described ``neardup.spark.dedup: <step>``
    in the Spark UI. While it runs, the session's
    ``spark.sql.shuffle.partitions`` is one partition per 50,000 documents
    (at least the default parallelism): each task is a call into Python,
    and 200 tiny ones cost more than their work.
    """
    spark = df.sparkSession
    before = spark.sparkContext.getLocalProperty("spark.job.description")
    shuffle = spark.conf.get("spark.sql.shuffle.partitions")
    try:
        return _dedup(
            df, id_col, html_col, text_col, threshold, method, max_distance, order_col,
            all_text, site_templates, composite_check, partial_check, hot_key_rows,
            docs_in_one_task,
        )
    finally:
        spark.sparkContext.setLocalProperty("spark.job.description", before)
        spark.conf.set("spark.sql.shuffle.partitions", shuffle)


def _step(df, what: str):
    """Names the Spark jobs that follow in the Spark UI."""
    df.sparkSession.sparkContext.setJobDescription(f"neardup.spark.dedup: {what}")


def _dedup(
    df, id_col, html_col, text_col, threshold, method, max_distance, order_col,
    all_text, site_templates, composite_check, partial_check, hot_key_rows,
    docs_in_one_task,
):
    """The body of :func:`dedup`."""
    import pyarrow as pa
    from pyspark.sql import functions as F

    if html_col is None and text_col is None:
        raise ValueError("give html_col= or text_col= (or both)")
    if hot_key_rows < 1:
        raise ValueError("hot_key_rows must be at least 1")
    if docs_in_one_task is not None and docs_in_one_task < 0:
        raise ValueError("docs_in_one_task must be at least 0")
    m = method or "default"
    # Checks the method and options on the driver, with a clear message.
    _nd.candidate_rule(m, threshold, max_distance)
    md = max_distance

    order = F.col(order_col) if order_col else F.monotonically_increasing_id()
    cols = [order.cast("long").alias("ord"), F.col(id_col).cast("string").alias("id")]
    cols.append(F.col(html_col).alias("html") if html_col else F.lit(None).cast("binary").alias("html"))
    cols.append(F.col(text_col).cast("string").alias("text") if text_col else F.lit(None).cast("string").alias("text"))
    docs = df.select(*cols)
    use_html, use_text = html_col is not None, text_col is not None
    exact = m == "default"

    def fingerprint(b, full: bool):
        """The fingerprints of the documents of Arrow batch ``b``; with
        ``full``, the errors and text lengths too (the batch engine reads
        them)."""
        ids = _col(b, "id").to_pylist()
        sigs, errs, lens, shingles, hosts = _nd.fingerprint_batch(
            m,
            threshold,
            md,
            ids,
            htmls=_col(b, "html").to_pylist() if use_html else None,
            texts=_utf8(b, "text") if use_text else None,
            all_text=all_text,
        )
        cols = [_col(b, "ord"), _col(b, "id"), pa.array(sigs, pa.binary()), pa.array(shingles, pa.binary())]
        if full:
            cols += [pa.array(errs, pa.string()), pa.array(lens, pa.int64())]
            names = ["ord", "id", "sig", "sh", "err", "text_len"]
        else:
            # Errors and text lengths are not read on: a document that
            # fails is a group of its own, as it has no signature.
            cols.append(pa.array(hosts, pa.string()))
            names = ["ord", "id", "sig", "sh", "host"]
        return pa.RecordBatch.from_arrays(cols, names=names)

    def fingerprinted(full: bool):
        """The ``mapInArrow`` function of the fingerprints (see
        ``fingerprint``)."""

        def run(batches):
            for b in batches:
                yield fingerprint(b, full)

        return run

    spark = df.sparkSession
    # The input is counted (from the metadata alone for Parquet) when the
    # path depends on its size, and before the distributed path, so that
    # the fingerprints are partitioned by document as they are made: the
    # steps below read them where they are, with no checkpoint and no
    # second copy.
    _step(df, "fingerprints")
    count = functools.cache(docs.count)
    cores = cluster_cores(dict(spark.sparkContext.getConf().getAll()), spark.sparkContext.defaultParallelism)
    if in_one_task(cores, count, docs_in_one_task):
        engine = (m, threshold, md, site_templates, composite_check, partial_check)
        one_call = in_one_call(spark)
        if one_call and order_col is not None:
            _step(df, "the order of the input")
            one_call = arrives_in_order(docs)
        if one_call:
            # One machine's cores, the documents in order as they come:
            # fingerprinted and decided in the same call.
            _step(df, "fingerprints and the decision in one task")
            decided = fingerprinted_and_decided_in_one_task(
                docs, lambda b: fingerprint(b, True), spark.sparkContext.defaultParallelism, *engine
            )
        else:
            _step(df, "fingerprints, then the decision in one task")
            fps = docs.mapInArrow(fingerprinted(True), FULL_FP_SCHEMA)
            decided = decided_in_one_task(fps, *engine)
        # Computed here, like the distributed path's steps: the result is
        # one row a document.
        return _materialize(decided)
    parts = _partitions_for(spark, count())
    # The shuffles of the steps below, sized like the data (restored when
    # dedup returns: the DataFrame it returns runs with the session's).
    spark.conf.set("spark.sql.shuffle.partitions", str(parts))
    fp = _partitioned_by(docs.mapInArrow(fingerprinted(False), _FP_SCHEMA), "ord", parts)
    if exact and site_templates:
        _step(df, "site templates")
        stripped = _strip_site_templates(fp, m, threshold, md)
        if stripped is not None:
            # Joined where the pages are: still partitioned by document.
            stripped = _kept(stripped)
            fp.unpersist()
            fp = stripped

    _step(df, "exact copies")
    # Exact copies: the earliest document of each signature stands for all.
    with_sig = fp.where(F.col("sig").isNotNull()).select("ord", "sig", "sh")
    # Signatures grouped by a 128-bit digest of their bytes (as the engine
    # groups them by one), not by the bytes: 16 bytes a row in the shuffle.
    # Only the copies travel on (a few documents, not the corpus): each
    # one with the document that stands for it.
    groups = (
        with_sig.groupBy(F.unhex(F.md5("sig")).alias("key"))
        .agg(F.min("ord").alias("rep"), F.collect_list("ord").alias("ords"))
        .where(F.size("ords") > 1)
    )
    copies = _materialize(
        groups.select("rep", F.explode("ords").alias("ord")).where(F.col("ord") != F.col("rep")).select("ord", "rep")
    )
    # Few copies (the usual case) are broadcast, so that leaving them out
    # shuffles nothing and keeps the documents' partitioning: the joins on
    # either side of a pair below shuffle the pairs, never the shingles.
    # The `default` method verifies on shingle sequences alone: its
    # signatures make candidate keys (from `with_sig`, where they are) and
    # are not read again.
    left_out = F.broadcast(copies) if copies.count() <= BROADCAST_COPIES else copies
    kept = ["ord", "sh"] if exact else ["ord", "sig", "sh"]
    reps = with_sig.select(*kept).join(left_out, "ord", "left_anti")

    _step(df, "candidates and verification")
    signed = with_sig.select("ord", "sig").join(left_out, "ord", "left_anti")
    pairs, blobs = candidate_pairs(signed, m, threshold, md, parts, hot_key_rows)

    # Shingle sequences travel only for the `default` method (exact
    # verification), signatures only for the others.
    def side(o, s, h):
        cols = [F.col("ord").alias(o), F.col("sh").alias(h)]
        return cols if exact else cols + [F.col("sig").alias(s)]

    su = reps.select(*side("u", "su", "hu"))
    sv = reps.select(*side("v", "sv", "hv"))
    candidates = pairs.join(su, "u").join(sv, "v")
    with_runs = exact and composite_check
    with_partial = exact and partial_check

    def verify(batches):
        for b in batches:
            sims, runs, psus = _nd.verify_batch(
                m,
                threshold,
                md,
                None if exact else _col(b, "su").to_pylist(),
                None if exact else _col(b, "sv").to_pylist(),
                _col(b, "hu").to_pylist(),
                _col(b, "hv").to_pylist(),
                composite=with_runs,
                partial=with_partial,
            )
            sims = pa.array(sims, pa.float64())
            keep = sims.is_valid()
            yield pa.RecordBatch.from_arrays(
                [
                    _col(b, "u").filter(keep),
                    _col(b, "v").filter(keep),
                    sims.filter(keep),
                    pa.array(runs, pa.binary()).filter(keep),
                    pa.array(psus, pa.bool_()).filter(keep),
                ],
                names=["u", "v", "sim", "runs", "psus"],
            )

    edges = _materialize(candidates.mapInArrow(verify, _EDGE_SCHEMA))
    blobs.unpersist()
    if with_runs or with_partial:
        # One pass over the pairs: does any have a long foreign run (else
        # the composite check has nothing to veto), does any lack a large
        # part of the other (else the partial copy check has nothing)?
        flags = edges.agg(
            F.max(F.col("runs").isNotNull().cast("int")).alias("runs"),
            F.max(F.col("psus").cast("int")).alias("psus"),
        ).first()
        with_runs = with_runs and flags["runs"] == 1
        with_partial = with_partial and flags["psus"] == 1
    if with_runs:
        _step(df, "composite pages")
        vetoed = _composite_pairs(edges, reps, m, threshold, md)
        edges = _materialize(edges.join(vetoed, ["u", "v"], "left_anti"))
    if with_partial:
        _step(df, "partial copies")
        partial = _partial_pairs(edges, reps, m, threshold, md)
        edges = edges.join(partial, ["u", "v"], "left_anti")
    edges = _materialize(edges.select("u", "v", "sim"))

    _step(df, "connected components")
    # The no-chaining decision, one connected component per executor call
    # (see the module documentation).
    # Computed once here (one row per duplicate): the output reads it twice.
    decided = _materialize(
        keep_first(edges, parts).select(
            F.col("doc").alias("rep"), F.col("dup_of").alias("r_dup"), F.col("sim").alias("r_sim")
        )
    )

    # Copies follow the document that stands for them: the rep's kept
    # document, or the rep itself (similarity 1) when it is kept.
    copied = copies.join(decided, "rep", "left").select(
        "ord",
        F.coalesce(F.col("r_dup"), F.col("rep")).alias("dup"),
        F.when(F.col("r_dup").isNull(), F.lit(1.0)).otherwise(F.col("r_sim")).alias("s"),
    )
    # Only duplicates are joined with names; every other document is kept,
    # its own cluster.
    dups = decided.select(F.col("rep").alias("ord"), F.col("r_dup").alias("dup"), F.col("r_sim").alias("s"))
    dups = dups.unionByName(copied).join(
        fp.select(F.col("ord").alias("dup"), F.col("id").alias("duplicate_of")), "dup"
    )
    out = fp.select("ord", "id").join(dups, "ord", "left").select(
        "id",
        F.coalesce(F.col("duplicate_of"), F.col("id")).alias("cluster"),
        "duplicate_of",
        F.when(F.col("dup").isNotNull(), F.round(F.col("s"), 4)).alias("similarity"),
    )
    return out


BROADCAST_COPIES = 4_000_000
"""The most exact copies (``(ord, rep)``, 16 bytes each, 64 MB at most)
sent to every executor to be left out of the other steps' input where it
is; past it, they are left out by a shuffled join."""


DOCS_PER_PARTITION = 50_000
"""Documents a partition of per-document data (signatures and shingle
sequences, about 1.7 KB a real-text document) holds at most: about 85 MB,
one task's share of an executor's memory."""


def _partitions_for(spark, n_docs: int) -> int:
    """Partitions for ``n_docs`` documents: at least the default
    parallelism, at most ``DOCS_PER_PARTITION`` documents each. (Not the
    200 shuffle partitions of a default session: each task is a Python
    call, and tiny tasks cost more than their work.)"""
    return max(spark.sparkContext.defaultParallelism, -(-n_docs // DOCS_PER_PARTITION))


def _partitioned_by(df, column: str, n: int):
    """``df`` hash-partitioned by ``column`` into ``n`` partitions and kept
    (see :func:`_kept`): joins on that column, under any alias, then
    shuffle only their other side. (A checkpoint would forget the
    partitioning.)"""
    return _kept(df.repartition(n, column))


def _kept(df):
    """``df`` computed once and kept (memory, then local disk; columns
    read apart), its partitioning known to the joins that read it."""
    from pyspark import StorageLevel

    out = df.persist(StorageLevel.MEMORY_AND_DISK)
    out.count()
    return out


def _rows(df) -> List[dict]:
    """The rows of a (small) result as dicts; for tests and examples."""
    return [r.asDict() for r in df.collect()]

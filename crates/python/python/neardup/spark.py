"""neardup on Spark: the whole deduplication pipeline on a DataFrame.

``dedup(df, ...)`` gives the groups of ``neardup dedup`` (``--keep first``)
without collecting the corpus anywhere:

1. **Fingerprints** — executors decode, extract and fingerprint each
   document with the Rust core (``mapInArrow``, one Arrow batch per call,
   the GIL released). The result is materialized once (checkpoint). With
   the ``default`` method the main text travels on as its shingle sequence
   (4 bytes a token), which exact verification reads.
   **Site templates** (``default`` method): the pages of each host, in
   input order, go to one executor call (``groupBy(host).applyInPandas``)
   that removes the text the host repeats on unrelated pages and
   recomputes their signatures, as ``neardup dedup`` does. A host's pages
   must fit in one executor's memory (about 1.2 KB a page).
2. **Exact copies** — documents with byte-identical signatures are grouped
   (``groupBy(signature)``); the earliest one stands for the others, as in
   the Rust engine.
3. **Candidates** — each distinct signature's candidate keys (LSH band keys
   for MinHash, pigeonhole blocks for SimHash, index keys for the other
   methods) are exploded, joined on ``(table, key)`` and reduced to pairs
   ``(u, v)`` with ``u`` earlier than ``v``; inverted-index methods drop
   over-long postings and count shared keys like the engine.
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
   document. This is computed in rounds: for each undecided document ``v``,
   its earlier verified neighbours are ranked by (similarity desc, order
   asc). If the first neighbour that is not known to be a duplicate is known
   to be kept, ``v`` is its duplicate; if every neighbour is a duplicate,
   ``v`` is kept; otherwise ``v`` waits. Equivalence with the sequential
   rule: once a document's earlier neighbours' fates are final, the best
   kept one is exactly the first non-duplicate in that ranking, so the
   decision is the sequential one; a decided document is never revisited;
   and every round decides at least the earliest undecided document (all
   its earlier neighbours are decided), so the rounds end. In practice the
   number of rounds is the depth of dependency chains, a handful.

Executors need the ``neardup`` package installed (``pip install`` on every
node, or ship the wheel with ``--py-files``/an archive).
"""

from __future__ import annotations

from typing import Iterator, List, Optional, Sequence

from . import _neardup as _nd

__all__ = ["dedup", "read_documents"]

_FP_SCHEMA = "ord long, id string, sig binary, error string, text_len long, sh binary, host string"
_KEY_SCHEMA = "ord long, t int, k long"
_EDGE_SCHEMA = "u long, v long, sim double, runs binary, psus boolean"
_STRIP_SCHEMA = "ord long, sig2 binary, sh2 binary"
_RUN_SCHEMA = "u long, v long, side int, r int, run binary"
_QUERY_SCHEMA = "u long, v long, side int, r int, h long"
_POSTING_SCHEMA = "z long, h long"
_VETO_SCHEMA = "u long, v long"
_DOC_SCHEMA = "ord long, id string, url string, html binary, text string, error string"


def _col(batch, name: str):
    return batch.column(batch.schema.get_field_index(name))


def _materialize(df):
    """Computes ``df`` once and cuts its lineage: a reliable checkpoint when
    the SparkContext has a checkpoint directory, else a local checkpoint."""
    if df.sparkSession.sparkContext.getCheckpointDir():
        return df.checkpoint(eager=True)
    return df.localCheckpoint(eager=True)


def read_documents(spark, paths: Sequence[str], num_partitions: Optional[int] = None):
    """Reads HTML, WARC and JSON Lines files into a DataFrame
    ``(ord long, id string, url string, html binary, text string, error
    string)`` with neardup's readers, each file in an executor task. ``ord``
    is the input order (file, then record), for ``dedup(order_col="ord")``;
    the result is repartitioned into ``num_partitions`` (default: the
    context's default parallelism) so that extraction runs in parallel even
    from one large file. Paths must be readable from the executors.
    """
    import pyarrow as pa  # noqa: F401  (fail early on the driver when absent)

    paths = [str(p) for p in paths]
    if not paths:
        raise ValueError("no input paths")
    sc = spark.sparkContext
    n = num_partitions or sc.defaultParallelism

    def read(index: int, it: Iterator[str]):
        from neardup import read_documents as _read

        for path in it:
            for r, rec in enumerate(_read([path])):
                # File index in the high bits, record number in the low 40.
                yield (
                    (index << 40) | r,
                    rec.id,
                    rec.url,
                    rec.html,
                    rec.text,
                    rec.error,
                )

    rdd = sc.parallelize(paths, len(paths)).mapPartitionsWithIndex(read)
    return spark.createDataFrame(rdd, _DOC_SCHEMA).repartition(n)


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
    max_rounds: int = 10_000,
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
    """
    import pyarrow as pa
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if html_col is None and text_col is None:
        raise ValueError("give html_col= or text_col= (or both)")
    m = method or "default"
    # Checks the method and options on the driver, with a clear message.
    min_shared, max_posting = _nd.candidate_rule(m, threshold, max_distance)
    md = max_distance

    order = F.col(order_col) if order_col else F.monotonically_increasing_id()
    cols = [order.cast("long").alias("ord"), F.col(id_col).cast("string").alias("id")]
    cols.append(F.col(html_col).alias("html") if html_col else F.lit(None).cast("binary").alias("html"))
    cols.append(F.col(text_col).cast("string").alias("text") if text_col else F.lit(None).cast("string").alias("text"))
    docs = df.select(*cols)
    use_html, use_text = html_col is not None, text_col is not None
    exact = m == "default"

    def fingerprint(batches):
        for b in batches:
            ids = _col(b, "id").to_pylist()
            sigs, errors, lens, shingles, hosts = _nd.fingerprint_batch(
                m,
                threshold,
                md,
                ids,
                htmls=_col(b, "html").to_pylist() if use_html else None,
                texts=_col(b, "text").to_pylist() if use_text else None,
                all_text=all_text,
            )
            yield pa.RecordBatch.from_arrays(
                [
                    _col(b, "ord"),
                    _col(b, "id"),
                    pa.array(sigs, pa.binary()),
                    pa.array(errors, pa.string()),
                    pa.array(lens, pa.int64()),
                    pa.array(shingles, pa.binary()),
                    pa.array(hosts, pa.string()),
                ],
                names=["ord", "id", "sig", "error", "text_len", "sh", "host"],
            )

    fp = _materialize(docs.mapInArrow(fingerprint, _FP_SCHEMA))
    if exact and site_templates:
        fp = _strip_site_templates(fp, m, threshold, md)

    # Exact copies: the earliest document of each signature stands for all.
    with_sig = fp.where(F.col("sig").isNotNull()).select("ord", "sig", "sh")
    firsts = with_sig.groupBy("sig").agg(F.min("ord").alias("rep"))
    copies = with_sig.join(firsts, "sig").select("ord", "rep")
    reps = with_sig.join(firsts.select(F.col("rep").alias("ord")), "ord")

    def keys(batches):
        for b in batches:
            rows, tables, values = _nd.candidate_keys_batch(m, threshold, md, _col(b, "sig").to_pylist())
            yield pa.RecordBatch.from_arrays(
                [
                    _col(b, "ord").take(pa.array(rows, pa.uint32())),
                    pa.array(tables, pa.int32()),
                    pa.array(values, pa.int64()),
                ],
                names=["ord", "t", "k"],
            )

    postings = reps.mapInArrow(keys, _KEY_SCHEMA)
    if max_posting is not None:
        sizes = postings.groupBy("t", "k").count().where(F.col("count") <= max_posting)
        postings = postings.join(sizes.select("t", "k"), ["t", "k"])
    a, b = postings.alias("a"), postings.alias("b")
    pairs = a.join(
        b,
        (F.col("a.t") == F.col("b.t")) & (F.col("a.k") == F.col("b.k")) & (F.col("a.ord") < F.col("b.ord")),
    ).select(F.col("a.ord").alias("u"), F.col("b.ord").alias("v"))
    if min_shared > 1:
        pairs = pairs.groupBy("u", "v").count().where(F.col("count") >= min_shared).select("u", "v")
    else:
        pairs = pairs.distinct()

    # Shingle sequences travel only for the `default` method (exact
    # verification).
    su = reps.select(F.col("ord").alias("u"), F.col("sig").alias("su"), F.col("sh").alias("hu"))
    sv = reps.select(F.col("ord").alias("v"), F.col("sig").alias("sv"), F.col("sh").alias("hv"))
    candidates = pairs.join(su, "u").join(sv, "v")
    with_runs = exact and composite_check
    with_partial = exact and partial_check

    def verify(batches):
        for b in batches:
            sims, runs, psus = _nd.verify_batch(
                m,
                threshold,
                md,
                _col(b, "su").to_pylist(),
                _col(b, "sv").to_pylist(),
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
    if with_runs:
        vetoed = _composite_pairs(edges, reps, m, threshold, md)
        edges = _materialize(edges.join(vetoed, ["u", "v"], "left_anti"))
    if with_partial:
        partial = _partial_pairs(edges, reps, m, threshold, md)
        edges = edges.join(partial, ["u", "v"], "left_anti")
    edges = _materialize(edges.select("u", "v", "sim"))

    # Rounds of the no-chaining rule (see the module documentation).
    rank = Window.partitionBy("v").orderBy(F.col("sim").desc(), F.col("u").asc())
    pending = _materialize(edges.withColumn("rk", F.row_number().over(rank)))
    targets = pending.select(F.col("v").alias("ord")).distinct()
    decided = _materialize(
        reps.select("ord")
        .join(targets, "ord", "left_anti")
        .select(
            F.col("ord").alias("doc"),
            F.lit(None).cast("long").alias("dup_of"),
            F.lit(1.0).alias("sim"),
        )
    )
    rounds = 0
    while not pending.isEmpty():
        rounds += 1
        if rounds > max_rounds:
            raise RuntimeError(f"neardup.spark.dedup: no convergence after {max_rounds} rounds")
        status = decided.select(F.col("doc").alias("u"), F.col("dup_of").isNull().alias("u_kept"))
        live = pending.join(status, "u", "left").where(F.col("u_kept").isNull() | F.col("u_kept"))
        first = live.groupBy("v").agg(F.min(F.struct("rk", "u_kept", "u", "sim")).alias("f"))
        waiting = pending.select("v").distinct()
        newly_kept = waiting.join(first, "v", "left_anti").select(
            F.col("v").alias("doc"),
            F.lit(None).cast("long").alias("dup_of"),
            F.lit(1.0).alias("sim"),
        )
        newly_dup = first.where(F.col("f.u_kept")).select(
            F.col("v").alias("doc"),
            F.col("f.u").alias("dup_of"),
            F.col("f.sim").alias("sim"),
        )
        new = _materialize(newly_kept.unionByName(newly_dup))
        if new.isEmpty():
            raise RuntimeError("neardup.spark.dedup: a round decided nothing (inconsistent order)")
        decided = _materialize(decided.unionByName(new))
        pending = _materialize(pending.join(new.select(F.col("doc").alias("v")), "v", "left_anti"))

    # Copies follow the document that stands for them.
    r = decided.select(F.col("doc").alias("rep"), F.col("dup_of").alias("r_dup"), F.col("sim").alias("r_sim"))
    assigned = copies.join(r, "rep").select(
        "ord",
        F.when(F.col("ord") == F.col("rep"), F.col("r_dup"))
        .when(F.col("r_dup").isNull(), F.col("rep"))
        .otherwise(F.col("r_dup"))
        .alias("dup"),
        F.when(F.col("ord") == F.col("rep"), F.col("r_sim"))
        .when(F.col("r_dup").isNull(), F.lit(1.0))
        .otherwise(F.col("r_sim"))
        .alias("s"),
    )
    names = fp.select("ord", "id")
    out = (
        fp.select("ord", "id")
        .join(assigned, "ord", "left")
        .withColumn("c", F.coalesce(F.col("dup"), F.col("ord")))
        .join(names.select(F.col("ord").alias("c"), F.col("id").alias("cluster")), "c")
        .join(names.select(F.col("ord").alias("dup"), F.col("id").alias("duplicate_of")), "dup", "left")
        .select(
            "id",
            "cluster",
            "duplicate_of",
            F.when(F.col("dup").isNotNull(), F.round(F.col("s"), 4)).alias("similarity"),
        )
    )
    return out


def _strip_site_templates(fp, m, threshold, md):
    """The site template pass: each host's pages, in input order, in one
    executor call; changed pages get their new signature and shingles."""
    from pyspark.sql import functions as F

    def strip(pdf):
        import pandas as pd

        pdf = pdf.sort_values("ord")
        sigs, shingles = _nd.strip_templates_batch(m, threshold, md, list(pdf["sh"]))
        out = pd.DataFrame({"ord": pdf["ord"].to_numpy(), "sig2": sigs, "sh2": shingles})
        return out[out["sig2"].notna()]

    pages = fp.where(F.col("sh").isNotNull() & F.col("host").isNotNull()).select("ord", "host", "sh")
    changed = pages.groupBy("host").applyInPandas(strip, _STRIP_SCHEMA)
    return _materialize(
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
    every document (earliest documents first, at most ``postings_read``
    per shingle, the pair left out), the ``per_run`` documents with the
    most hits (ties to the earliest) are checked exactly, as the engine's
    index does."""
    import pyarrow as pa
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    postings_read, per_run = _nd.composite_rule()
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
    postings = docs.mapInArrow(sampled("sh", ["z"]), _POSTING_SCHEMA).join(queries.select("h").distinct(), "h")
    # The pair itself may be among the first documents of a shingle.
    early = Window.partitionBy("h").orderBy("z")
    postings = postings.withColumn("pr", F.row_number().over(early)).where(F.col("pr") <= postings_read + 2)
    hits = queries.join(postings.drop("pr"), "h").where((F.col("z") != F.col("u")) & (F.col("z") != F.col("v")))
    per_shingle = Window.partitionBy(*keys, "h").orderBy("z")
    hits = hits.withColumn("hr", F.row_number().over(per_shingle)).where(F.col("hr") <= postings_read)
    counts = hits.groupBy(*keys, "z").count()
    best = Window.partitionBy(*keys).orderBy(F.col("count").desc(), F.col("z").asc())
    top = counts.withColumn("cr", F.row_number().over(best)).where(F.col("cr") <= per_run)
    shingles = reps.select(F.col("ord").alias("z"), F.col("sh").alias("zsh"))
    others = reps.select(F.col("ord").alias("o"), F.col("sh").alias("osh"))
    tasks = (
        top.join(runs, keys)
        .join(shingles, "z")
        .withColumn("o", F.when(F.col("side") == 0, F.col("v")).otherwise(F.col("u")))
        .join(others, "o")
        .select("u", "v", "run", "zsh", "osh")
    )
    check = _kept_pairs(_nd.composite_check_batch, m, threshold, md, ["run", "zsh", "osh"])
    return _materialize(tasks.mapInArrow(check, _VETO_SCHEMA).distinct())


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


def _rows(df) -> List[dict]:
    """The rows of a (small) result as dicts; for tests and examples."""
    return [r.asDict() for r in df.collect()]


_SPAN_KEY_SCHEMA = "ord long, kidx int, unit int, key long"
_SPAN_ROW_SCHEMA = (
    "ord long, id string, chars long, "
    "spans array<struct<start:long,end:long,kind:string,source:string>>, error string"
)


def spans(
    df,
    id_col: str = "id",
    text_col: Optional[str] = "text",
    html_col: Optional[str] = None,
    unit: Optional[str] = "paragraph",
    *,
    keep: str = "first",
    fuzzy: bool = False,
    overlap: float = 0.8,
    ngram: int = 13,
    min_chars: int = 20,
    reference: Optional[Sequence[tuple]] = None,
    ref_ngram: int = 13,
    order_col: Optional[str] = None,
    all_text: bool = False,
):
    """Repeated passages inside documents, as ``neardup spans`` finds them:
    a DataFrame ``id, chars, spans, error`` (``spans`` an array of
    ``start, end, kind, source``: code point offsets, and the id of the
    document of the first occurrence, or of the reference item).

    1. **Keys** — executors read each document (``text_col`` as it is, or
       ``html_col`` decoded and extracted) and give its units' keys
       (``mapInArrow``), exploded to ``ord, key index, unit, key``.
    2. **First occurrences** — a shuffle by key: the earliest
       ``(ord, unit)`` of each key and the number of units that have it.
       A key counts as seen in every other unit (``keep="none"``) or every
       later unit (``keep="first"``); seen keys are joined with the id of
       their first document and gathered per document.
    3. **Spans** — executors decide each document's spans from its seen
       keys with the library's rule (the CLI's, so the spans are the
       CLI's).

    Input order is ``order_col`` ascending, else the DataFrame's order.
    ``reference`` is a list of ``(id, text)`` items, shipped to the
    executors.
    """
    import pyarrow as pa
    from pyspark.sql import functions as F

    if html_col is None and text_col is None:
        raise ValueError("give text_col= or html_col= (or both)")
    opts = {
        "unit": unit,
        "keep": keep,
        "fuzzy": fuzzy,
        "overlap": overlap,
        "ngram": ngram,
        "min_chars": min_chars,
        "reference": [tuple(r) for r in reference] if reference is not None else None,
        "ref_ngram": ref_ngram,
        "all_text": all_text,
    }
    # Checks the options on the driver, with a clear message.
    finder = _nd.SpanFinder(unit, keep=keep, fuzzy=fuzzy, overlap=overlap, ngram=ngram,
                            min_chars=min_chars, reference=opts["reference"], ref_ngram=ref_ngram)
    if not finder.decides_by_keys:
        raise _nd.NeardupError(
            "unit='substring' needs the whole corpus in one suffix array: Spark's shuffle by key "
            "does not apply (collect the texts and use neardup.spans or `neardup spans`)")
    order = F.col(order_col) if order_col else F.monotonically_increasing_id()
    cols = [order.cast("long").alias("ord"), F.col(id_col).cast("string").alias("id")]
    cols.append(F.col(html_col).alias("html") if html_col else F.lit(None).cast("binary").alias("html"))
    cols.append(F.col(text_col).cast("string").alias("text") if text_col else F.lit(None).cast("string").alias("text"))
    docs = _materialize(df.select(*cols))
    use_html, use_text = html_col is not None, text_col is not None

    def contents(b):
        return {
            "htmls": _col(b, "html").to_pylist() if use_html else None,
            "texts": _col(b, "text").to_pylist() if use_text else None,
        }

    def keys(batches):
        for b in batches:
            pos, kidx, units, ks = _nd.span_keys_batch(opts, _col(b, "id").to_pylist(), **contents(b))
            ords = _col(b, "ord").to_pylist()
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array([ords[p] for p in pos], pa.int64()),
                    pa.array(kidx, pa.int32()),
                    pa.array(units, pa.int32()),
                    pa.array(ks, pa.int64()),
                ],
                names=["ord", "kidx", "unit", "key"],
            )

    occ = _materialize(docs.mapInArrow(keys, _SPAN_KEY_SCHEMA))
    per_key = occ.groupBy("key").agg(
        F.min(F.struct("ord", "unit")).alias("first"),
        F.countDistinct("ord", "unit").alias("units"),
    )
    joined = occ.join(per_key, "key")
    if keep == "first":
        seen = (F.col("ord") != F.col("first.ord")) | (F.col("unit") != F.col("first.unit"))
    else:
        seen = F.col("units") > 1
    ids = docs.select(F.col("ord").alias("first_ord"), F.col("id").alias("first_id"))
    matched = (
        joined.where(seen)
        .select("ord", "kidx", F.col("first.ord").alias("first_ord"))
        .join(ids, "first_ord")
        .groupBy("ord")
        .agg(F.collect_list(F.struct("kidx", "first_ord", "first_id")).alias("m"))
    )
    tasks = docs.join(matched, "ord", "left")

    def rows(batches):
        for b in batches:
            m = [None if x is None else [(r["kidx"], r["first_ord"], r["first_id"]) for r in x]
                 for x in _col(b, "m").to_pylist()]
            out = _nd.span_rows_batch(opts, _col(b, "id").to_pylist(), m, **contents(b))
            yield pa.RecordBatch.from_arrays(
                [
                    _col(b, "ord"),
                    _col(b, "id"),
                    pa.array([r[0] for r in out], pa.int64()),
                    pa.array(
                        [[{"start": s, "end": e, "kind": k, "source": src} for s, e, k, src in r[1]] for r in out],
                        pa.list_(pa.struct([("start", pa.int64()), ("end", pa.int64()),
                                            ("kind", pa.string()), ("source", pa.string())])),
                    ),
                    pa.array([r[2] for r in out], pa.string()),
                ],
                names=["ord", "id", "chars", "spans", "error"],
            )

    return tasks.mapInArrow(rows, _SPAN_ROW_SCHEMA).orderBy("ord").drop("ord")


def span_rows(df) -> List[dict]:
    """The rows of ``spans(...)`` as ``neardup spans`` writes them:
    ``{"id", "chars", "spans": [{"start", "end", "kind", "first" |
    "reference"}]}`` (and ``"error"``), in input order. Collects to the
    driver: for tests and small results."""
    out = []
    for r in df.collect():
        row = {"id": r["id"], "chars": r["chars"], "spans": []}
        for s in r["spans"] or []:
            key = "reference" if s["kind"] == "reference" else "first"
            row["spans"].append({"start": s["start"], "end": s["end"], "kind": s["kind"], key: s["source"]})
        if r["error"] is not None:
            row["error"] = r["error"]
            row["chars"] = 0
        out.append(row)
    return out

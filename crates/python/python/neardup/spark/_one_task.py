"""Small corpora and few cores on Spark: the decision in one executor call.

The distributed path of ``dedup`` runs 40 to 65 Spark stages whatever the
corpus; each is a round of tasks, Python calls and shuffle files. Below
``DOCS_IN_ONE_TASK`` documents, or on at most ``ONE_TASK_CORES`` cores,
those stages cost more than the decision they distribute (``in_one_task``
is the rule): there, one executor call runs the batch engine of
``neardup dedup`` on the documents' fingerprints, in input order
(``FingerprintGroups``, the engine of ``neardup.datatrove``'s cross-rank
stage): same site template pass, verification, composite and partial
checks, no chaining. Who fingerprints (``in_one_call``):

- in local mode, the same call, on as many threads as the session has
  cores, reading the partitions one after the other
  (``fingerprinted_and_decided_in_one_task``): no shuffle, no sort. It
  needs the documents to come in order that way: always without
  ``order_col`` (the order is the DataFrame's), else when one pass over
  the order column finds it so (``arrives_in_order``);
- else every executor, as on the distributed path; the fingerprints
  (about 1.7 KB a real-text document) go, sorted, to the one call
  (``decided_in_one_task``).

The call holds the engine within a memory budget (``one_task_memory``),
past which it spills to the executor's temporary directory as ``neardup
dedup --memory`` does.
"""

from __future__ import annotations

from typing import Callable, Mapping, Optional

from .. import _neardup as _nd
from ._common import _col

DOCS_IN_ONE_TASK = 200_000
"""The most documents ``dedup`` decides in one executor call by default on
more than ``ONE_TASK_CORES`` cores (``docs_in_one_task=``): about 340 MB
of real-text fingerprints, which one executor holds and the engine decides
in about a second, where the distributed path's constant number of stages
costs tens of seconds. Past it, the decision is distributed (see
``_dedup``)."""

ONE_TASK_CORES = 4
"""On at most this many cores (``cluster_cores``: the session's default
parallelism, or what its configuration promises),
``dedup`` decides in one executor call by default whatever the corpus
size. Measured on ``local[2]`` at 10^6 real-text documents: past the
fingerprints (about the same on both paths), the distributed path's tasks
ran 114 s in all, the one executor call 11 s, so the distributed path
catches up only from about 10 cores, even if it divided perfectly; this
bound is well under that. The one call's memory is the engine's, as
under ``neardup dedup --memory``: past its budget (``one_task_memory``)
the fingerprints go to disk, and what stays is at most about 200 bytes a
document (ids and the decision); Spark's sort of the fingerprints spills
past its own budget. Its local disk is a few KB a document (the shuffled
fingerprints, the sort's and the engine's spills)."""


def in_one_task(cores: float, count: Callable[[], int], docs_in_one_task) -> bool:
    """Whether ``dedup`` decides the corpus in one executor call on
    ``cores`` cores (``cluster_cores``): up to ``docs_in_one_task``
    documents when given; by default, at any size on at most
    ``ONE_TASK_CORES`` cores, else up to ``DOCS_IN_ONE_TASK``.
    ``count()`` gives the corpus's documents; it is called only when the
    answer depends on them (a count is a Spark job: on few cores by
    default there is none)."""
    if docs_in_one_task is not None:
        return count() <= docs_in_one_task
    return cores <= ONE_TASK_CORES or count() <= DOCS_IN_ONE_TASK


def cluster_cores(conf: Mapping[str, str], default_parallelism: int) -> float:
    """The cores ``dedup`` counts on when it chooses a path: the session's
    default parallelism (in local mode, its threads; on a cluster, the
    cores of the executors registered so far), or on a cluster more when
    the configuration promises more. With dynamic allocation on, as many
    as ``spark.dynamicAllocation.maxExecutors`` executors of
    ``spark.executor.cores`` (no bound when unset: a cluster that grows
    with the work is never taken for a small one); else
    ``spark.executor.instances`` executors of ``spark.executor.cores``,
    or ``spark.cores.max``, when set. ``conf`` holds the session's
    settings (``SparkConf.getAll``)."""
    cores = float(default_parallelism)
    if str(conf.get("spark.master", "")).startswith("local"):
        # One process: its threads are all the cores there are.
        return cores
    per_executor = int(conf.get("spark.executor.cores") or 1)
    if str(conf.get("spark.dynamicAllocation.enabled", "false")).lower() == "true":
        most = conf.get("spark.dynamicAllocation.maxExecutors")
        return float("inf") if not most else max(cores, int(most) * per_executor)
    if conf.get("spark.executor.instances"):
        cores = max(cores, int(conf["spark.executor.instances"]) * per_executor)
    if conf.get("spark.cores.max"):
        cores = max(cores, int(conf["spark.cores.max"]))
    return cores


ONE_TASK_MEMORY = 1 << 30
"""The engine's memory budget in the one executor call on a cluster whose
Python workers have no memory limit set (1 GiB): past it, the
fingerprints go to the executor's temporary directory."""


def one_task_memory(local_free: Optional[int], pyspark_memory_mb: Optional[str]) -> int:
    """The engine's memory budget in the one executor call, in bytes:

    - half of ``spark.executor.pyspark.memory`` when it is set (Spark
      passes it to the worker as ``PYSPARK_EXECUTOR_MEMORY_MB``,
      ``pyspark_memory_mb`` here, and limits the worker's address space
      to it; the other half is left to Python, Arrow and the batches);
    - else, in local mode, half of ``local_free``, the machine's memory
      less the JVM's largest heap (the executor is the driver's process,
      on the driver's machine: ``neardup dedup`` takes half of the
      machine's by default);
    - else ``ONE_TASK_MEMORY``, so as not to overrun an executor
      container whose size does not count the Python worker."""
    if pyspark_memory_mb:
        return int(pyspark_memory_mb) * (1 << 20) // 2
    if local_free is not None:
        return max(local_free // 2, ONE_TASK_MEMORY)
    return ONE_TASK_MEMORY


def local_free_memory(spark) -> Optional[int]:
    """In local mode, the machine's memory less the JVM's largest heap
    (``spark.driver.memory``); ``None`` on a cluster."""
    import os

    sc = spark.sparkContext
    if not sc.master.startswith("local"):
        return None
    machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    heap = sc._jvm.java.lang.Runtime.getRuntime().maxMemory()
    return max(machine - heap, 0)


OUTPUT_ROWS = 50_000
"""Output rows per Arrow batch from the one executor call."""

FULL_FP_SCHEMA = "ord long, id string, sig binary, sh binary, err string, text_len long"
OUTPUT_SCHEMA = "id string, cluster string, duplicate_of string, similarity double"


def in_one_call(spark) -> bool:
    """Whether the one executor call also fingerprints the documents, on
    threads of its own (``fingerprinted_and_decided_in_one_task``): in
    local mode, where that call's process has all the session's cores.
    On a cluster one executor's cores would fingerprint what every
    executor can, so the executors fingerprint and one call decides
    (``decided_in_one_task``)."""
    return spark.sparkContext.master.startswith("local")


def arrives_in_order(docs) -> bool:
    """Whether the documents ``docs`` (``ord``, any partitioning) come in
    ``ord`` order (ties as they come) when their partitions are read one
    after the other, as the one call reads them (``coalesce(1)``). One
    task reads the ``ord`` column alone (Parquet reads nothing else); a
    null ``ord`` is out of order."""

    def check(batches):
        import pyarrow as pa

        last, ordered = None, True
        for b in batches:
            o = _col(b, "ord")
            if not len(o):
                continue
            if not _follows(o, last):
                ordered = False
                break
            last = o[-1].as_py()
        yield pa.RecordBatch.from_arrays([pa.array([ordered])], names=["ordered"])

    # A plan that ran no task would give no row: nothing out of order.
    row = docs.select("ord").coalesce(1).mapInArrow(check, "ordered boolean").first()
    return row is None or row["ordered"]


def _follows(o, last) -> bool:
    """Whether the ``ord`` values ``o`` (a non-empty Arrow array) never
    step back, nor from ``last`` (the ``ord`` before them, ``None`` at the
    start); a null is out of order."""
    import pyarrow.compute as pc

    if o.null_count or (last is not None and o[0].as_py() < last):
        return False
    return len(o) < 2 or not pc.any(pc.less(o.slice(1), o.slice(0, len(o) - 1))).as_py()


def _engine(local_free, m, threshold, md, site_templates, composite_check, partial_check):
    """The batch engine of the one executor call, within its budget."""
    import os

    return _nd.FingerprintGroups(
        m,
        threshold,
        max_distance=md,
        keep="first",
        site_templates=site_templates,
        composite_check=composite_check,
        partial_check=partial_check,
        memory=one_task_memory(local_free, os.environ.get("PYSPARK_EXECUTOR_MEMORY_MB")),
    )


def _add(groups, b):
    """Adds the fingerprinted documents of batch ``b`` (``FULL_FP_SCHEMA``)."""
    ids = _col(b, "id").to_pylist()
    groups.add(
        ids,
        # The host is read from the id, as on the distributed path.
        [None] * len(ids),
        _col(b, "text_len").to_pylist(),
        _col(b, "sig").to_pylist(),
        _col(b, "sh").to_pylist(),
        _col(b, "err").to_pylist(),
    )


def _decided(groups):
    """Runs the engine and yields its groups (``OUTPUT_SCHEMA``), a page of
    ids at a time read back from the engine: no list a document here
    besides the engine's own."""
    import pyarrow as pa

    groups.run()
    for lo in range(0, len(groups), OUTPUT_ROWS):
        hi = min(lo + OUTPUT_ROWS, len(groups))
        dup = [None] * (hi - lo)
        sim = [None] * (hi - lo)
        for at, kept, s in groups.duplicates(lo, hi):
            dup[at - lo], sim[at - lo] = kept, s
        page = groups.ids(lo, hi)
        yield pa.RecordBatch.from_arrays(
            [
                pa.array(page, pa.string()),
                pa.array([d if d is not None else i for i, d in zip(page, dup)], pa.string()),
                pa.array(dup, pa.string()),
                pa.array(sim, pa.float64()),
            ],
            names=["id", "cluster", "duplicate_of", "similarity"],
        )


def decided_in_one_task(fps, m, threshold, md, site_templates, composite_check, partial_check):
    """The groups of the fingerprinted documents ``fps`` (``FULL_FP_SCHEMA``,
    any partitioning) as ``dedup`` returns them, decided by the batch
    engine in one executor call that reads them in ``ord`` order."""
    local_free = local_free_memory(fps.sparkSession)

    def run(batches):
        groups = _engine(local_free, m, threshold, md, site_templates, composite_check, partial_check)
        for b in batches:
            _add(groups, b)
        yield from _decided(groups)

    # One partition, in order of seniority: the engine's input order.
    return fps.repartition(1).sortWithinPartitions("ord").mapInArrow(run, OUTPUT_SCHEMA)


def fingerprinted_and_decided_in_one_task(
    docs, fingerprint, threads, m, threshold, md, site_templates, composite_check, partial_check
):
    """The groups of ``docs`` (``ord``, ``id``, ``html``, ``text``), whose
    partitions read one after the other come in ``ord`` order
    (``arrives_in_order``), as ``dedup`` returns them: one executor call
    reads every partition, fingerprints each batch with ``fingerprint``
    (a batch of ``docs`` to one of ``FULL_FP_SCHEMA``) on ``threads``
    threads (the kernels release the GIL) while Spark reads the next
    batches, and adds them in order to the batch engine. No shuffle and
    no sort: the fingerprints go from the threads to the engine."""
    local_free = local_free_memory(docs.sparkSession)

    def run(batches):
        from collections import deque
        from concurrent.futures import ThreadPoolExecutor

        groups = _engine(local_free, m, threshold, md, site_templates, composite_check, partial_check)
        last = [None]

        def add(done):
            b = done.result()
            o = _col(b, "ord")
            if len(o):
                if not _follows(o, last[0]):
                    raise ValueError(
                        "neardup.spark.dedup: documents came out of order (the input changed between "
                        "the order check and the pass: persist it)"
                    )
                last[0] = o[-1].as_py()
            _add(groups, b)

        # At most a batch ahead for each thread: memory stays a few batches.
        workers = max(1, threads)
        with ThreadPoolExecutor(workers) as pool:
            pending = deque()
            for b in batches:
                pending.append(pool.submit(fingerprint, b))
                if len(pending) > workers:
                    add(pending.popleft())
            while pending:
                add(pending.popleft())
        yield from _decided(groups)

    return docs.coalesce(1).mapInArrow(run, OUTPUT_SCHEMA)

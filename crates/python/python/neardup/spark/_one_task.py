"""Small corpora on Spark: fingerprints made in parallel, the decision in
one executor call.

The distributed path of ``dedup`` runs 40 to 65 Spark stages whatever the
corpus; each is a round of tasks, Python calls and shuffle files. Below
``DOCS_IN_ONE_TASK`` documents, those stages cost far more than the
decision they distribute: there, the documents are fingerprinted by every
executor as on the distributed path, and their fingerprints (about 1.7 KB
a real-text document) go, in input order, to one executor call that runs
the batch engine of ``neardup dedup`` on them (``FingerprintGroups``, the
engine of ``neardup.datatrove``'s cross-rank stage): same site template
pass, verification, composite and partial checks, no chaining. The call
holds the engine within ``ONE_TASK_MEMORY`` bytes, past which it spills
to the executor's temporary directory as ``neardup dedup --memory`` does.
"""

from __future__ import annotations

from .. import _neardup as _nd
from ._common import _col

DOCS_IN_ONE_TASK = 200_000
"""The most documents ``dedup`` decides in one executor call by default
(``docs_in_one_task=``): about 340 MB of real-text fingerprints, which one
executor holds and the engine decides in about a second, where the
distributed path's constant number of stages costs tens of seconds. Past
it, the decision is distributed (see ``_dedup``)."""

ONE_TASK_MEMORY = 1 << 30
"""The engine's memory budget in the one executor call (1 GiB): past it,
the fingerprints go to the executor's temporary directory."""

OUTPUT_ROWS = 50_000
"""Output rows per Arrow batch from the one executor call."""

FULL_FP_SCHEMA = "ord long, id string, sig binary, sh binary, err string, text_len long"
OUTPUT_SCHEMA = "id string, cluster string, duplicate_of string, similarity double"


def decided_in_one_task(fps, m, threshold, md, site_templates, composite_check, partial_check):
    """The groups of the fingerprinted documents ``fps`` (``FULL_FP_SCHEMA``,
    any partitioning) as ``dedup`` returns them, decided by the batch
    engine in one executor call that reads them in ``ord`` order."""
    import pyarrow as pa

    def run(batches):
        groups = _nd.FingerprintGroups(
            m,
            threshold,
            max_distance=md,
            keep="first",
            site_templates=site_templates,
            composite_check=composite_check,
            partial_check=partial_check,
            memory=ONE_TASK_MEMORY,
        )
        ids = []
        for b in batches:
            got = _col(b, "id").to_pylist()
            ids.extend(got)
            groups.add(
                got,
                # The host is read from the id, as on the distributed path.
                [None] * len(got),
                _col(b, "text_len").to_pylist(),
                _col(b, "sig").to_pylist(),
                _col(b, "sh").to_pylist(),
                _col(b, "err").to_pylist(),
            )
        groups.run()
        for lo in range(0, len(ids), OUTPUT_ROWS):
            hi = min(lo + OUTPUT_ROWS, len(ids))
            dup = [None] * (hi - lo)
            sim = [None] * (hi - lo)
            for at, kept, s in groups.duplicates(lo, hi):
                dup[at - lo], sim[at - lo] = kept, s
            page = ids[lo:hi]
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array(page, pa.string()),
                    pa.array([d if d is not None else i for i, d in zip(page, dup)], pa.string()),
                    pa.array(dup, pa.string()),
                    pa.array(sim, pa.float64()),
                ],
                names=["id", "cluster", "duplicate_of", "similarity"],
            )

    # One partition, in order of seniority: the engine's input order.
    return fps.repartition(1).sortWithinPartitions("ord").mapInArrow(run, OUTPUT_SCHEMA)

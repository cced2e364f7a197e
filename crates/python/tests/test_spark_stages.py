"""neardup.spark.dedup runs in a bounded number of Spark stages: a chain of
1,000 near-duplicates (each a slight edit of the one before, so that the
no-chaining decision depends on the whole chain) needs at most the stages
of a chain of 10 plus the connected-components rounds that its size adds
(a logarithmic number, each of a fixed set of stages), and gives the
engine's groups."""

import json
import random

import pytest

import neardup
from corpus import WORDS, edit

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")

from neardup import spark as nds  # noqa: E402
from neardup.spark import _components  # noqa: E402


def chain(n: int, seed: int = 5) -> list:
    """(id, text): an article, then ``n - 1`` documents each with one word
    of the one before replaced."""
    rng = random.Random(seed)
    words = [rng.choice(WORDS) for _ in range(150)]
    out = []
    for i in range(n):
        out.append((f"c{i:05d}", " ".join(words)))
        words = edit(rng, WORDS, words, 1)
    return out


def run_counting(spark, docs, group, shuffled=True, **kw):
    """The rows of ``dedup`` over ``docs`` (in 2 partitions, ``shuffled``
    or in input order), the stages its jobs ran and its rounds of
    connected components."""
    sc = spark.sparkContext
    df = spark.createDataFrame([(n, i, t) for n, (i, t) in enumerate(docs)], "n long, id string, body string")
    df = df.repartition(2) if shuffled else df.coalesce(2)
    count = {"rounds": 0}
    original = _components._stars

    def counting(edges):
        count["rounds"] += 1
        return original(edges)

    _components._stars = counting
    sc.setJobGroup(group, group)
    try:
        rows = [r.asDict() for r in nds.dedup(df, text_col="body", order_col="n", **kw).collect()]
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        _components._stars = original
    # Stages that ran (with adaptive execution each shuffle is also a job
    # of its own, and later jobs list it again as skipped).
    tracker = sc.statusTracker()
    ran = set()
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        assert info is not None, "a job's information was dropped (spark.ui.retainedJobs)"
        for stage in info.stageIds:
            s = tracker.getStageInfo(stage)
            if s is not None and s.numCompletedTasks > 0:
                ran.add(stage)
    return rows, len(ran), count["rounds"]


def normalize(rows):
    return sorted((r["id"], r["cluster"], r["duplicate_of"], r["similarity"]) for r in rows)


ONE_CALL_STAGES = 4
"""The most stages of a corpus in input order fingerprinted and decided in
one executor call, as the test counts them: the check of the order, the
call, and the test's read of the result (3 measured)."""

ONE_TASK_STAGES = 7
"""The most stages of a shuffled corpus decided in one executor call, as
the test counts them: the input's own shuffle (``repartition(2)``) and
the check that finds it out of order, the input's shuffle again with the
fingerprints, the call that reads them sorted, and the test's read of the
result (6 measured). The corpus is not counted on the test session's 2
cores: the path does not depend on its size there."""

ADAPTIVE_SLACK = 2
"""Stages adaptive execution may add or save on its own: it plans each
join when its inputs are known (a broadcast instead of a shuffle for
small ones), so two corpora of different sizes can differ by a stage or
two in the same steps. A round per link would add many rounds of
``STAGES_PER_ROUND`` stages each."""


@pytest.mark.parametrize(
    "decision",
    ["corpus in one call", "corpus in one task", "edges in one task", "components rounds"],
)
def test_a_long_chain_adds_only_logarithmic_rounds(spark, tmp_path, monkeypatch, decision):
    # Small corpora are decided whole by the batch engine in one executor
    # call (which in local mode also fingerprints a corpus that comes in
    # order); the distributed path (docs_in_one_task=0) decides the
    # verified edges in one call up to a bound, and by components past it.
    whole = decision.startswith("corpus")
    kw = {} if whole else {"docs_in_one_task": 0}
    kw["shuffled"] = decision != "corpus in one call"
    if decision == "components rounds":
        # Past the bound, components are found by Spark in rounds.
        monkeypatch.setattr(_components, "EDGES_IN_ONE_TASK", 0)
    one_task = decision != "components rounds"
    short, long_ = chain(10), chain(1000)
    path = tmp_path / "chain.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in long_))
    want = neardup.dedup_files([str(path)], "default")
    got, stages_long, rounds_long = run_counting(spark, long_, f"chain-1000-{decision}", **kw)
    assert normalize(got) == normalize(want)
    # Several documents are kept along the chain: the decision did depend
    # on the documents before.
    assert 3 <= sum(r["duplicate_of"] is None for r in got) < 1000
    _, stages_short, rounds_short = run_counting(spark, short, f"chain-10-{decision}", **kw)
    print(f"chain of 10: {stages_short} stages, {rounds_short} rounds; "
          f"chain of 1000: {stages_long} stages, {rounds_long} rounds")
    if decision == "corpus in one call":
        # One call: a handful of stages.
        assert stages_long <= ONE_CALL_STAGES, stages_long
    if decision == "corpus in one task":
        # The fingerprints, then one call: a handful of stages.
        assert stages_long <= ONE_TASK_STAGES, stages_long
    if one_task:
        # One executor call decides the whole graph: no rounds at all.
        assert rounds_long == rounds_short == 0
    else:
        # Rounds: logarithmic in the component's size (documented bound).
        assert 1 <= rounds_long <= _components.round_bound(1000)
    # Each round is a fixed set of stages; nothing else grows.
    per_round = _components.STAGES_PER_ROUND
    assert stages_long <= stages_short + per_round * (rounds_long - rounds_short) + ADAPTIVE_SLACK, (
        stages_long,
        stages_short,
        rounds_long,
        rounds_short,
    )

"""neardup.spark on a real Spark standalone cluster: a master and two
workers on 127.0.0.1 (spark_cluster.py), the package shipped to the
executors as a packed virtualenv through `spark.archives`, and a job
submitted with `spark-submit --master spark://127.0.0.1:PORT`
(spark_cluster_job.py) whose dedup and spans must equal the engine's."""

import json
import os
import pathlib
import shutil
import sys

import pytest

import neardup

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")
pytest.importorskip("venv_pack", reason="venv-pack is not installed (pip install venv-pack)")
if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
    pytest.skip("Spark needs Java (17+): no java on PATH and no JAVA_HOME", allow_module_level=True)

import spark_cluster  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]
SPANS = REPO / "crates" / "cli" / "tests" / "data" / "spans"


def normalize(rows):
    return sorted((r["id"], r["cluster"], r["duplicate_of"], r["similarity"]) for r in rows)


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """Starts the cluster, packs the executors' environment, submits the
    job and gives its results; the cluster is stopped whatever happens."""
    tmp = tmp_path_factory.mktemp("cluster")
    cluster = spark_cluster.Cluster(tmp, workers=2, memory="1g")
    try:
        with open(tmp / "logs" / "pack.log", "w") as log:
            archive = spark_cluster.packed_env(tmp / "pack", log)
        cluster.wait_ready()
        out = tmp / "result.json"
        spark_cluster.spark_submit(
            cluster, archive, HERE / "spark_cluster_job.py",
            [str(out), str(REPO / "examples" / "crawl.warc.gz"), str(SPANS / "corpus.jsonl")],
            tmp / "logs" / "submit.log",
        )
        state = cluster.state()
        result = json.loads(out.read_text(encoding="utf-8"))
    finally:
        cluster.stop()
    yield {"result": result, "state": state, "tmp": tmp}


def test_the_job_ran_on_the_cluster_with_the_packed_environment(job):
    result, tmp = job["result"], job["tmp"]
    assert result["master"].startswith("spark://127.0.0.1:")
    # The application ran on the two workers (the master's record of it).
    apps = job["state"]["completedapps"] + job["state"]["activeapps"]
    assert [a["name"] for a in apps] == ["neardup-cluster-test"]
    assert len(job["state"]["workers"]) == 2
    # Every executor's Python and neardup came from the archive unpacked
    # in its work directory, not from this virtualenv.
    work = os.path.realpath(tmp / "work")
    prefix = os.path.realpath(sys.prefix)
    assert result["executors"]
    for exe, module, cwd in result["executors"]:
        assert os.path.realpath(cwd).startswith(work)
        assert exe.startswith("./environment/") or exe.startswith(cwd)
        assert module.startswith(os.path.realpath(cwd)), module
        assert "/environment/" in module and not module.startswith(prefix)
    # Both workers ran executors.
    assert len({os.path.relpath(cwd, work).split(os.sep)[0] for _, _, cwd in result["executors"]}) == 2


def test_dedup_on_the_cluster_equals_the_engine(job):
    result = job["result"]
    warc = str(REPO / "examples" / "crawl.warc.gz")
    want = neardup.dedup_files([warc])
    assert normalize(result["warc"]) == normalize(want)
    assert normalize(result["warc_distributed"]) == normalize(want)
    assert sum(1 for r in want if r["duplicate_of"]) == 3


def test_spans_on_the_cluster_equal_the_command(job):
    # paragraph.jsonl is `neardup spans` on corpus.jsonl (the CLI's tests).
    want = [json.loads(l) for l in (SPANS / "paragraph.jsonl").read_text(encoding="utf-8").splitlines()]
    assert job["result"]["spans"] == want
    assert sum(len(r["spans"]) for r in want) > 0

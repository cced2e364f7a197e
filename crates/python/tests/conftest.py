import os
import shutil
import sys
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
DEV = REPO.parent / "shared" / "eval" / "neardup" / "dev"

# datasketch's own test modules, run through a shim by
# test_datasketch_upstream.py, never collected as they are.
collect_ignore = ["datasketch_upstream"]


@pytest.fixture(scope="session")
def repo() -> pathlib.Path:
    return REPO


@pytest.fixture(scope="session")
def dev_dir() -> pathlib.Path:
    if not (DEV / "pages.warc.gz").exists():
        pytest.skip(f"dev benchmark absent: {DEV} (../shared/eval/neardup/dev beside the repo)")
    return DEV


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """A real redis-server on a free local port for the session
    (``real_redis.RedisServer``); skipped without redis-server or redis-py."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not on PATH (Debian: apt-get install redis-server)")
    pytest.importorskip("redis", reason="redis-py is not installed (pip install redis)")
    from real_redis import RedisServer

    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def redis_config(redis_server):
    """The ``redis`` part of a ``storage_config`` for an emptied server."""
    redis_server.flushall()
    return redis_server.config


@pytest.fixture(scope="session")
def spark():
    pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
    from pyspark.sql import SparkSession

    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        pytest.skip("Spark needs Java (17+): no java on PATH and no JAVA_HOME")

    # Executors run this interpreter, where neardup is installed.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("neardup-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "3g")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "256")
        .getOrCreate()
    )
    del pyspark
    yield session
    session.stop()

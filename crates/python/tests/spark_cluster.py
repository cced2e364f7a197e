"""A Spark standalone cluster on 127.0.0.1 for tests, and the packed
virtualenv its executors run (test_spark_cluster.py).

The cluster is pyspark's own: a master and workers started with
`spark-class org.apache.spark.deploy.master.Master` / `...worker.Worker`
(the pip package ships `spark-class`, not `sbin/start-master.sh`), each a
process group of its own so that stopping a worker stops its executors.

The executors' Python is the one Spark's "Python Package Management" page
describes for native packages: a virtualenv with the packages installed,
packed by venv-pack, shipped with `spark.archives=ENV.tar.gz#environment`
and run as `PYSPARK_PYTHON=./environment/bin/python`. The virtualenv is made
here offline: each distribution it needs (neardup and the pyarrow and pandas
that `neardup.spark` calls) is written back into a wheel from the files its
RECORD lists in this interpreter, and pip installs those wheels into a fresh
virtualenv, so executors never import from the tests' own environment.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from importlib import metadata

# What executors import: neardup, and what neardup.spark needs beside it.
EXECUTOR_PACKAGES = ["neardup", "pyarrow", "pandas"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_home() -> pathlib.Path:
    import pyspark

    return pathlib.Path(pyspark.__file__).resolve().parent


def _requirements(dist: metadata.Distribution) -> list[str]:
    """Names of the distributions `dist` requires (extras left out)."""
    names = []
    for req in dist.requires or []:
        if "extra ==" in req.replace('"', "").replace("'", "") or "extra==" in req:
            continue
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        if m:
            names.append(m.group(1))
    return names


def dependency_closure(names: list[str]) -> list[metadata.Distribution]:
    """The installed distributions of `names` and of what they require
    (requirements not installed here, like ones under a marker for another
    platform, are left out)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen[key] = dist
        todo.extend(_requirements(dist))
    return list(seen.values())


def wheel_of(dist: metadata.Distribution, out: pathlib.Path) -> pathlib.Path:
    """A wheel of an installed distribution: the files its RECORD lists
    under site-packages (not scripts, bytecode, test suites or headers),
    with a new RECORD."""
    info = next(f for f in dist.files if f.parent.name.endswith(".dist-info"))
    info_dir = info.parent.as_posix()
    wheel_meta = dist.read_text("WHEEL") or ""
    tags = [l.split(":", 1)[1].strip().split("-") for l in wheel_meta.splitlines() if l.startswith("Tag:")]
    # The compressed tag set of the file name (py2.py3-none-any).
    tag = "-".join(".".join(dict.fromkeys(t[i] for t in tags)) for i in range(3))
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"])
    path = out / f"{name}-{dist.version}-{tag}.whl"
    record = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for f in dist.files:
            arc = f.as_posix()
            if arc.startswith("..") or "__pycache__" in arc or arc == f"{info_dir}/RECORD":
                continue
            if "/tests/" in arc or arc.startswith("pyarrow/include/"):
                continue  # test suites and C++ headers: a third of the size
            src = pathlib.Path(dist.locate_file(f))
            if not src.is_file():
                continue
            data = src.read_bytes()
            z.writestr(arc, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{arc},sha256={digest},{len(data)}")
        record.append(f"{info_dir}/RECORD,,")
        z.writestr(f"{info_dir}/RECORD", "\n".join(record) + "\n")
    return path


def packed_env(work: pathlib.Path, log) -> pathlib.Path:
    """`work/environment.tar.gz`: a fresh virtualenv with neardup, pyarrow
    and pandas installed, packed by venv-pack."""
    wheels = work / "wheels"
    wheels.mkdir(parents=True)
    built = [wheel_of(d, wheels) for d in dependency_closure(EXECUTOR_PACKAGES)]
    env = work / "env"
    run([sys.executable, "-m", "venv", "--without-pip", str(env)], log)
    # The tests' pip installs into the new environment (it has no pip).
    run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
         "--no-index", "--no-deps", "--no-compile", "--ignore-installed",
         "--prefix", str(env), *map(str, built)], log)
    out = work / "environment.tar.gz"
    import venv_pack

    venv_pack.pack(prefix=str(env), output=str(out), compress_level=1)
    shutil.rmtree(wheels)
    return out


def run(cmd: list[str], log, timeout: float = 300, env: dict | None = None) -> None:
    log.write(f"$ {' '.join(cmd)}\n")
    log.flush()
    subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, check=True, timeout=timeout, env=env)


def spark_env(tmp: pathlib.Path) -> dict:
    """The environment of the cluster's processes: bound to 127.0.0.1
    (SPARK_LOCAL_IP also binds the web UIs), scratch and logs under tmp."""
    env = dict(os.environ)
    for k in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "SPARK_HOME", "PYTHONPATH"):
        env.pop(k, None)
    env.update({
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_LOCAL_HOSTNAME": "127.0.0.1",
        "SPARK_LOCAL_DIRS": str(tmp / "local"),
        "SPARK_LOG_DIR": str(tmp / "logs"),
        "SPARK_WORKER_DIR": str(tmp / "work"),
        "SPARK_NO_DAEMONIZE": "1",
        # No REST submission server (its fixed port 6066 would be shared).
        "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",
    })
    return env


class Cluster:
    """A master and `workers` workers (1 core, `memory` each) on
    127.0.0.1; `stop()` ends every process it started."""

    def __init__(self, tmp: pathlib.Path, workers: int = 2, memory: str = "1g"):
        self.tmp = tmp
        self.env = spark_env(tmp)
        for d in ("local", "logs", "work"):
            (tmp / d).mkdir(parents=True, exist_ok=True)
        self.procs: list[subprocess.Popen] = []
        self.logs = []
        self.port, self.ui_port = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self._start("master", "org.apache.spark.deploy.master.Master",
                    "--host", "127.0.0.1", "--port", str(self.port), "--webui-port", str(self.ui_port))
        for i in range(workers):
            self._start(f"worker-{i}", "org.apache.spark.deploy.worker.Worker",
                        "--host", "127.0.0.1", "--port", str(free_port()),
                        "--webui-port", str(free_port()), "--cores", "1", "--memory", memory,
                        "--work-dir", str(tmp / "work" / f"worker-{i}"), self.url)
        self.workers = workers

    def _start(self, name: str, cls: str, *args: str) -> None:
        log = open(self.tmp / "logs" / f"{name}.log", "w")
        self.logs.append(log)
        cmd = [str(spark_home() / "bin" / "spark-class"), cls, *args]
        self.procs.append(subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                           env=self.env, start_new_session=True))

    def state(self) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=5) as r:
            return json.load(r)

    def wait_ready(self, timeout: float = 120) -> None:
        """Until the master counts every worker alive; raises with the
        logs' names when it does not within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for p in self.procs:
                if p.poll() is not None:
                    raise RuntimeError(f"a cluster process exited ({p.args[1]}); logs in {self.tmp / 'logs'}")
            try:
                if self.state().get("aliveworkers") == self.workers:
                    return
            except OSError:
                pass
            time.sleep(1)
        raise TimeoutError(f"the cluster did not start in {timeout}s; logs in {self.tmp / 'logs'}")

    def stop(self) -> None:
        # Workers first (their executors are in their process groups).
        for p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in reversed(self.procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=20)
        for log in self.logs:
            log.close()


def spark_submit(cluster: Cluster, archive: pathlib.Path, script: pathlib.Path, args: list[str],
                 log_path: pathlib.Path, timeout: float = 420) -> None:
    """`spark-submit --master spark://... --archives ENV#environment` with
    the executors' Python in the archive and the driver's this one."""
    env = dict(cluster.env)
    env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    env["PYSPARK_PYTHON"] = "./environment/bin/python"
    cmd = [
        str(spark_home() / "bin" / "spark-submit"),
        "--master", cluster.url,
        "--archives", f"{archive}#environment",
        "--driver-memory", "1g",
        "--executor-memory", "768m",
        "--total-executor-cores", str(cluster.workers),
        "--conf", "spark.ui.enabled=false",
        "--conf", "spark.driver.host=127.0.0.1",
        "--conf", "spark.driver.bindAddress=127.0.0.1",
        "--conf", "spark.sql.shuffle.partitions=2",
        "--conf", "spark.default.parallelism=2",
        str(script), *args,
    ]
    with open(log_path, "w") as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=20)
            raise
    if rc != 0:
        tail = log_path.read_text(errors="replace")[-4000:]
        raise AssertionError(f"spark-submit exited with {rc}; log {log_path}:\n{tail}")

#!/usr/bin/env python3
"""The ContentSeen service over a shared Redis Cluster store, at scale.

Starts a Redis Cluster of 3 primaries on free loopback ports (each with a
replica unless `--replicas 0`), made with `redis-cli --cluster create` as
the tests make theirs, and 2 `neardup serve --store redis+cluster://...`
instances over it. Then it posts `--documents` documents with `neardup-load
text` (the generator of bench/serve_scale.py: distinct 2 KB texts, every
tenth a near-duplicate of the one before), split over both instances: in
every slice the first half of the slice's documents goes to instance A
and the second half to instance B, from `--clients` clients in all
(half per instance), both at once.

After every `--slice` documents it reports, per instance and in total:
requests/s, p50/p99/max latency, the resident memory of each instance;
and from Redis: the memory per document (`INFO memory` used_memory of
the primary that holds the `{neardup}` slot, minus that of the empty
cluster, divided by the documents posted; also the sum over all
primaries), and the calls per verdict on that primary (`INFO
commandstats`: script calls, which carry one pipelined `WAIT` each when
replicas must confirm; the other commands it lists are mostly those the
script runs, which commandstats counts too, not round trips).

With `--baseline` (the default) the same documents then go to one
`neardup serve --data-dir` with all `--clients` clients: the
single-node figures of the same run. At the end, a sample of the log's
entries is read back and taken apart (id, URL, signature, text) to show
what the Redis memory per document is made of.

Everything is bounded by `--max-seconds` (the whole run); every process
started is killed at exit (also on Ctrl-C or an error) and the temporary
directories are removed. One JSON line per measurement; Markdown tables
at the end.

    cargo build --release -p neardup-cli -p neardup-server
    python3 bench/serve_store_scale.py --documents 1000000 --slice 250000
"""

import argparse
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

# The single-node benchmark's helpers (this script runs from bench/).
from serve_scale import free_port, hwm_bytes, rss_bytes

SLOT = 3979  # CLUSTER KEYSLOT {neardup}
LOG = b"{neardup}:log"
BASE_DOCS = b"{neardup}:base:docs"

PROCS = []  # every process started, killed at exit
DIRS = []  # every temporary directory, removed at exit


def bindable(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def free_cluster_port(taken):
    """A free port at most 55535 whose cluster bus port (+10000) is free too."""
    rng = random.Random()
    while True:
        port = rng.randrange(20000, 55536)
        if port not in taken and port + 10000 not in taken and bindable(port) and bindable(port + 10000):
            taken.update((port, port + 10000))
            return port


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


class LoadSampler:
    """The 1-minute load average every 10 s, in a background thread."""

    def __init__(self):
        self.samples = []
        self.stop = threading.Event()
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while not self.stop.is_set():
            self.samples.append((time.time(), loadavg()[0]))
            self.stop.wait(10)

    def between(self, t0, t1):
        v = [l for t, l in self.samples if t0 <= t <= t1]
        return (min(v), max(v)) if v else (None, None)


def cpu_seconds(pid):
    """utime + stime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ---- a minimal RESP client (binary safe), for INFO and reading the log ----


class Redis:
    def __init__(self, port, timeout=120):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""

    def close(self):
        self.sock.close()

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("redis closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(max(1 << 16, n + 2 - len(self.buf)))
            if not chunk:
                raise ConnectionError("redis closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def _reply(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest.decode()
        if t == b"-":
            raise RuntimeError(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise RuntimeError(f"unexpected reply {line[:40]!r}")

    def cmd(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))
        return self._reply()

    def info(self, section):
        text = self.cmd("INFO", section)
        text = text.decode() if isinstance(text, bytes) else text
        return dict(
            l.split(":", 1) for l in text.splitlines() if ":" in l and not l.startswith("#")
        )


def ask(port, *args):
    r = Redis(port)
    try:
        return r.cmd(*args)
    finally:
        r.close()


def info(port, section):
    r = Redis(port)
    try:
        return r.info(section)
    finally:
        r.close()


def commandstats(port):
    """{command: calls} on one node."""
    out = {}
    for k, v in info(port, "commandstats").items():
        if k.startswith("cmdstat_"):
            calls = v.split("calls=")[1].split(",")[0]
            out[k[len("cmdstat_"):]] = int(calls)
    return out


# Calls on the slot's primary that are not the instances': this script's
# INFO, and the replicas' acknowledgements.
OWN = {"info", "replconf", "psync"}


def wait_until(secs, what, done):
    t0 = time.monotonic()
    while not done():
        if time.monotonic() - t0 > secs:
            raise RuntimeError(f"{what}: not within {secs} s")
        time.sleep(0.1)


def spawn(cmd, log_path, **kw):
    p = subprocess.Popen(cmd, stdout=open(log_path, "ab"), stderr=subprocess.STDOUT, **kw)
    PROCS.append(p)
    return p


def stop(p, term_secs=30):
    """SIGTERM, then SIGKILL after `term_secs`."""
    if p.poll() is not None:
        return
    try:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=term_secs)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def cleanup():
    for p in reversed(PROCS):
        if p.poll() is None:
            try:
                p.kill()
                p.wait(timeout=10)
            except Exception:
                pass
    for d in DIRS:
        shutil.rmtree(d, ignore_errors=True)


class Cluster:
    """3 primaries (with a replica each when `replicas`), on free ports."""

    def __init__(self, root, replicas, node_timeout_ms):
        self.nodes = []  # (port, process)
        n = 6 if replicas else 3
        taken = set()
        for i in range(n):
            port = free_cluster_port(taken)
            d = os.path.join(root, f"redis-{i}")
            os.makedirs(d)
            p = spawn(
                [
                    "redis-server", "--port", str(port), "--bind", "127.0.0.1",
                    "--dir", d, "--save", "", "--appendonly", "no",
                    "--daemonize", "no", "--protected-mode", "no",
                    "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", str(node_timeout_ms),
                ],
                os.path.join(d, "redis.log"),
            )
            self.nodes.append((port, p))
        for port, p in self.nodes:
            wait_until(10, f"redis-server on {port}", lambda: self._pong(port, p))
        cmd = ["redis-cli", "--cluster", "create"]
        cmd += [f"127.0.0.1:{port}" for port, _ in self.nodes]
        cmd += ["--cluster-replicas", "1" if replicas else "0", "--cluster-yes"]
        out = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             timeout=120)
        if out.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create: {out.stdout}{out.stderr}")
        wait_until(60, "cluster_state:ok on every node", lambda: all(
            b"cluster_state:ok" in ask(port, "CLUSTER", "INFO") for port, _ in self.nodes))
        self.replicas = replicas
        if replicas:
            wait_until(60, "the slot's primary has a replica in sync", lambda: "state=online" in
                       info(self.owner(), "replication").get("slave0", ""))

    @staticmethod
    def _pong(port, p):
        if p.poll() is not None:
            raise RuntimeError(f"redis-server on {port} exited")
        try:
            return ask(port, "PING") == "PONG"
        except OSError:
            return False

    def url(self):
        return "redis+cluster://" + ",".join(f"127.0.0.1:{port}" for port, _ in self.nodes)

    def primaries(self):
        """Ports of the nodes that own slots (CLUSTER SLOTS)."""
        slots = ask(self.nodes[0][0], "CLUSTER", "SLOTS")
        return sorted({int(s[2][1]) for s in slots})

    def owner(self):
        """Port of the primary of the {neardup} slot."""
        for s in ask(self.nodes[0][0], "CLUSTER", "SLOTS"):
            if s[0] <= SLOT <= s[1]:
                return int(s[2][1])
        raise RuntimeError("no node owns the slot")


def healthz(port, proc, log_path, secs):
    url = f"http://127.0.0.1:{port}/healthz"
    t0 = time.monotonic()
    while True:
        if proc.poll() is not None:
            with open(log_path, errors="replace") as f:
                raise RuntimeError(f"serve exited: {f.read()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            if time.monotonic() - t0 > secs:
                raise RuntimeError(f"serve on {port} did not answer /healthz in {secs} s")
            time.sleep(0.05)


def start_serve(binary, data, extra, secs):
    os.makedirs(data, exist_ok=True)
    port = free_port()
    log = data.rstrip("/") + ".serve.log"
    proc = spawn([binary, "serve", "--data-dir", data, "--listen", f"127.0.0.1:{port}"] + extra, log)
    healthz(port, proc, log, secs)
    return proc, port, log


def stats(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/stats", timeout=60) as r:
        return json.load(r)


def start_load(loader, port, requests, size, clients, offset, max_seconds):
    cmd = [
        loader, "text", "--addr", f"127.0.0.1:{port}",
        "--requests", str(requests), "--report-every", str(requests),
        "--size", str(size), "--clients", str(clients),
        "--max-seconds", str(max(1, int(max_seconds))), "--offset", str(offset),
    ]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    PROCS.append(p)
    return p


def finish_load(p):
    out = None
    for line in p.stdout:
        line = line.strip()
        if line.startswith("{"):
            v = json.loads(line)
            if "duplicates" in v:
                out = v
    if p.wait() != 0 or out is None:
        raise RuntimeError("neardup-load failed")
    return out


def run_slices(a, targets, deadline, on_slice):
    """Posts documents 0..a.documents in slices of a.slice; in each slice
    target i of n takes the i-th n-th of the slice's documents, all at
    once, with a.clients // n clients each."""
    n = len(targets)
    done = 0
    while done < a.documents:
        if time.monotonic() >= deadline:
            print(json.dumps({"stopped": "--max-seconds reached", "posted": done}), flush=True)
            return done
        size = min(a.slice, a.documents - done)
        parts = [size * i // n for i in range(n + 1)]
        t0 = time.monotonic()
        w0 = time.time()
        loads = [
            start_load(a.load, port, parts[i + 1] - parts[i], a.size, a.clients // n,
                       done + parts[i], deadline - time.monotonic())
            for i, port in enumerate(targets)
        ]
        results = [finish_load(p) for p in loads]
        wall = time.monotonic() - t0
        done += size
        on_slice(done, results, wall, (w0, time.time()))
    return done


def verdicts(results):
    return sum(r["requests"] - r["errors"] for r in results)


def slot_calls(before, after):
    d = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    return {k: v for k, v in d.items() if v and k not in OWN}


def decode_entry(e):
    """The fields of a log entry (crates/server/src/redis/entry.rs)."""
    out = {"entry": len(e), "kind": e[0], "head": 17}
    i = 17

    def field(i):
        if e[i] == 0:
            return 1, 0, i + 1
        n = struct.unpack_from("<I", e, i + 1)[0]
        return 5 + n, n, i + 5 + n

    out["id_field"], _, i = field(i)
    if e[0] not in (1, 3):
        return out
    out["url_field"], _, i = field(i)
    # Kind 3 (sketch mode): the signature key and band keys in its place.
    out["signature_field"], out["signature"], i = field(i)
    out["text_len"] = struct.unpack_from("<I", e, i)[0]
    i += 4
    total, n, j = field(i)
    out["text_field"] = total
    out["zstd"] = max(n - 4, 0)
    out["raw_text"] = struct.unpack_from("<I", e, i + 5)[0] if n >= 4 else 0
    # With --store-verify sketch: the sketch's bytes in a last field.
    out["sketch_field"] = field(j)[0] if j < len(e) else 0
    return out


def entry_sample(port, windows=20, width=100):
    """Entries read back from windows spread over the log, decoded."""
    r = Redis(port, timeout=600)
    try:
        n = r.cmd("LLEN", LOG)
        rows = []
        rng = random.Random(7)
        for _ in range(windows):
            s = rng.randrange(max(n - width, 1))
            for e in r.cmd("LRANGE", LOG, s, s + width - 1):
                rows.append(decode_entry(e))
        t = time.monotonic()
        usage = r.cmd("MEMORY", "USAGE", LOG, "SAMPLES", "0")
        usage_s = time.monotonic() - t
        # Under eviction limits, the compacted log's base (one record a
        # live document) and where the log starts.
        base_usage = r.cmd("MEMORY", "USAGE", BASE_DOCS, "SAMPLES", "0")
        base_docs = r.cmd("LLEN", BASE_DOCS)
        base_first = r.cmd("HGET", b"{neardup}:base", b"first")
        enc = r.cmd("OBJECT", "ENCODING", LOG)
        lp = r.cmd("CONFIG", "GET", "list-max-listpack-size")
        dbsize = r.cmd("DBSIZE")
    finally:
        r.close()
    ins = [x for x in rows if x["kind"] in (1, 3)]
    avg = lambda k: round(sum(x.get(k, 0) for x in ins) / max(len(ins), 1), 1)
    return {
        "log_entries": n,
        "sampled": len(rows),
        "insertions_sampled": len(ins),
        "band_key_insertions_sampled": sum(1 for x in ins if x["kind"] == 3),
        "avg_entry_bytes": avg("entry"),
        "avg_head_bytes": 17,
        "avg_id_field": avg("id_field"),
        "avg_url_field": avg("url_field"),
        "avg_signature_field": avg("signature_field"),
        "avg_signature_bytes": avg("signature"),
        "text_len_field": 4,
        "avg_text_field": avg("text_field"),
        "avg_zstd_bytes": avg("zstd"),
        "avg_raw_text_bytes": avg("raw_text"),
        "avg_sketch_field": avg("sketch_field"),
        "log_memory_usage": usage,
        "log_memory_usage_per_entry": round((usage or 0) / max(n, 1)),
        "base_docs": base_docs,
        "base_memory_usage": base_usage,
        "base_memory_usage_per_doc": round((base_usage or 0) / max(base_docs or 0, 1)),
        "log_first": int(base_first) if base_first else 0,
        "memory_usage_seconds": round(usage_s, 2),
        "log_encoding": enc.decode() if isinstance(enc, bytes) else enc,
        "list_max_listpack_size": lp[1].decode() if lp else None,
        "keys_on_owner": dbsize,
    }


def fmt_range(x):
    lo, hi = x
    return "n/a" if lo is None else f"{lo:.1f}–{hi:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--neardup", default="target/release/neardup")
    ap.add_argument("--load", default="target/release/neardup-load")
    ap.add_argument("--documents", type=int, default=1_000_000)
    ap.add_argument("--slice", type=int, default=250_000)
    ap.add_argument("--size", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=16, help="in all, split over the instances")
    ap.add_argument("--instances", type=int, default=2)
    ap.add_argument("--replicas", type=int, choices=[0, 1], default=1,
                    help="a replica per primary (6 nodes) or none (3 nodes); "
                         "passed as --store-replicas")
    ap.add_argument("--node-timeout-ms", type=int, default=15000,
                    help="cluster-node-timeout: long, so a busy machine causes no failover")
    ap.add_argument("--baseline", action=argparse.BooleanOptionalAction, default=True,
                    help="also the same documents to one `neardup serve --data-dir` (16 clients)")
    ap.add_argument("--max-seconds", type=float, default=3600, help="bound on the whole run")
    ap.add_argument("--serve-arg", action="append", default=[])
    ap.add_argument("--store-verify", choices=["exact", "sketch"], default="exact",
                    help="the instances' --store-verify: the text or a sketch in each entry")
    a = ap.parse_args()
    deadline = time.monotonic() + a.max_seconds
    for b in (a.neardup, a.load):
        if not os.access(b, os.X_OK):
            sys.exit(f"{b} not found: cargo build --release -p neardup-cli -p neardup-server")

    def on_signal(sig, _frame):
        raise KeyboardInterrupt(f"signal {sig}")

    signal.signal(signal.SIGTERM, on_signal)
    root = tempfile.mkdtemp(prefix="neardup-store-scale-")
    DIRS.append(root)
    sampler = LoadSampler()
    try:
        run(a, root, deadline, sampler)
    finally:
        sampler.stop.set()
        cleanup()


def run(a, root, deadline, sampler):
    print(json.dumps({"start": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                      "loadavg": loadavg(), "documents": a.documents, "slice": a.slice,
                      "replicas": a.replicas, "instances": a.instances,
                      "clients": a.clients}), flush=True)
    # ---- the cluster ----
    t0 = time.monotonic()
    cluster = Cluster(root, a.replicas, a.node_timeout_ms)
    owner = cluster.owner()
    primaries = cluster.primaries()
    empty = {p: int(info(p, "memory")["used_memory"]) for p in primaries}
    empty_dataset = int(info(owner, "memory")["used_memory_dataset"])
    print(json.dumps({"cluster_up_s": round(time.monotonic() - t0, 1), "nodes": len(cluster.nodes),
                      "primaries": primaries, "slot_owner": owner,
                      "empty_used_memory": empty}), flush=True)
    # ---- the instances ----
    extra = ["--store", cluster.url(), "--store-replicas", str(a.replicas),
             "--store-verify", a.store_verify] + a.serve_arg
    inst = []
    for i in range(a.instances):
        proc, port, log = start_serve(a.neardup, os.path.join(root, f"node-{chr(65 + i)}"),
                                      extra, 120)
        inst.append((proc, port, log))
    for proc, port, log in inst:
        with open(log, errors="replace") as f:
            line = f.read().strip().splitlines()
        print(json.dumps({"instance": port, "started": line[-1] if line else ""}), flush=True)
    base_rss = [rss_bytes(p.pid) for p, _, _ in inst]
    cpu0 = [cpu_seconds(p.pid) for p, _, _ in inst]
    redis_cpu = lambda: float(info(owner, "cpu")["used_cpu_sys"]) + float(
        info(owner, "cpu")["used_cpu_user"])
    rcpu0 = redis_cpu()
    calls0 = commandstats(owner)
    prev = {"calls": calls0, "cpu": cpu0, "rcpu": rcpu0, "done": 0}
    rows = []

    def on_cluster_slice(done, results, wall, span):
        mem = {p: info(p, "memory") for p in primaries}
        used = {p: int(m["used_memory"]) for p, m in mem.items()}
        calls = commandstats(owner)
        d = slot_calls(prev["calls"], calls)
        n_verdicts = verdicts(results)
        scripts = d.get("evalsha", 0) + d.get("eval", 0)
        # Redis counts the commands a script runs (rpush, lrange, get...)
        # in commandstats too: they are not round trips.
        others = {k: v for k, v in d.items() if k not in ("evalsha", "eval", "wait")}
        cpu = [cpu_seconds(p.pid) for p, _, _ in inst]
        rc = redis_cpu()
        slice_docs = done - prev["done"]
        row = {
            "stored": done,
            "total_req_s": round(n_verdicts / wall),
            "wall_s": round(wall, 1),
            "errors": sum(r["errors"] for r in results),
            "duplicates": sum(r["duplicates"] for r in results),
            "instances": [
                {k: r.get(k) for k in ("requests", "requests_per_second", "p50_ms", "p99_ms",
                                       "max_ms", "errors")}
                | {"rss_mib": rss_bytes(p.pid) >> 20,
                   "server_cpu_us_per_doc": round((c - c0) * 1e6 / max(slice_docs, 1))}
                for r, (p, _, _), c, c0 in zip(results, inst, cpu, prev["cpu"])
            ],
            "p50_ms_range": [min(r["p50_ms"] for r in results), max(r["p50_ms"] for r in results)],
            "p99_ms_range": [min(r["p99_ms"] for r in results), max(r["p99_ms"] for r in results)],
            "max_ms": max(r["max_ms"] for r in results),
            "redis_owner_used_mib": used[owner] >> 20,
            "redis_owner_b_per_doc": round((used[owner] - empty[owner]) / done),
            "redis_owner_dataset_b_per_doc": round(
                (int(mem[owner]["used_memory_dataset"]) - empty_dataset) / done),
            "redis_primaries_b_per_doc": round(sum(used[p] - empty[p] for p in primaries) / done),
            "redis_owner_rss_mib": int(mem[owner]["used_memory_rss"]) >> 20,
            "redis_cpu_us_per_doc": round((rc - prev["rcpu"]) * 1e6 / max(slice_docs, 1)),
            "script_calls_per_verdict": round(scripts / max(n_verdicts, 1), 3),
            "wait_calls_per_verdict": round(d.get("wait", 0) / max(n_verdicts, 1), 3),
            "other_commands": others,
            "loadavg": loadavg(),
            "load_1m_range": sampler.between(*span),
        }
        prev.update(calls=calls, cpu=cpu, rcpu=rc, done=done)
        rows.append(row)
        print(json.dumps(row), flush=True)

    t_cluster = time.time()
    posted = run_slices(a, [port for _, port, _ in inst], deadline, on_cluster_slice)
    t_cluster_end = time.time()
    docs = [stats(port)["documents"] for _, port, _ in inst]
    peaks = [hwm_bytes(p.pid) >> 20 for p, _, _ in inst]
    summary = {
        "cluster_posted": posted,
        "instance_documents": docs,
        "instance_peak_rss_mib": peaks,
        "instance_empty_rss_mib": [b >> 20 for b in base_rss],
        "load_1m_range": sampler.between(t_cluster, t_cluster_end),
    }
    print(json.dumps(summary), flush=True)
    sample = entry_sample(owner) if posted else {}
    print(json.dumps({"log_sample": sample}), flush=True)
    for proc, _, _ in inst:
        stop(proc)
    for _, p in cluster.nodes:
        p.kill()
        p.wait()

    # ---- the single-node baseline ----
    base_rows = []
    base_summary = {}
    if a.baseline and time.monotonic() < deadline:
        proc, port, _ = start_serve(a.neardup, os.path.join(root, "single"), a.serve_arg, 120)
        empty_rss = rss_bytes(proc.pid)
        prevb = {"cpu": cpu_seconds(proc.pid), "done": 0}

        def on_single_slice(done, results, wall, span):
            r = results[0]
            s = stats(port)
            c = cpu_seconds(proc.pid)
            row = {
                "stored": s["documents"],
                "posted": done,
                "req_s": r["requests_per_second"],
                "p50_ms": r["p50_ms"], "p99_ms": r["p99_ms"], "max_ms": r["max_ms"],
                "errors": r["errors"],
                "rss_mib": rss_bytes(proc.pid) >> 20,
                "rss_b_per_doc": round((rss_bytes(proc.pid) - empty_rss) / max(s["documents"], 1)),
                "server_cpu_us_per_doc": round((c - prevb["cpu"]) * 1e6 / max(done - prevb["done"], 1)),
                "loadavg": loadavg(),
                "load_1m_range": sampler.between(*span),
            }
            prevb.update(cpu=c, done=done)
            base_rows.append(row)
            print(json.dumps({"baseline": row}), flush=True)

        t_base = time.time()
        b = argparse.Namespace(**vars(a))
        run_slices(b, [port], deadline, on_single_slice)
        base_summary = {"peak_rss_mib": hwm_bytes(proc.pid) >> 20,
                        "load_1m_range": sampler.between(t_base, time.time())}
        print(json.dumps({"baseline_summary": base_summary}), flush=True)
        stop(proc)

    # ---- the tables ----
    print()
    names = [chr(65 + i) for i in range(a.instances)]
    print(f"Cluster: {len(cluster.nodes)} nodes ({'3 primaries + 3 replicas' if a.replicas else '3 primaries'}), "
          f"{a.instances} instances, --store-replicas {a.replicas}, {a.clients} clients in all")
    print()
    print("| stored | setup | req/s | p50 ms | p99 ms | max ms | RSS MiB | Redis B/doc (slot primary; all primaries) | script calls / WAITs per verdict | load 1m |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    by_stored = {r["posted"]: r for r in base_rows}
    for r in rows:
        ins = r["instances"]
        print(f"| {r['stored']:,} | cluster, total | {r['total_req_s']:,} | "
              f"{r['p50_ms_range'][0]}–{r['p50_ms_range'][1]} | {r['p99_ms_range'][0]}–{r['p99_ms_range'][1]} | "
              f"{r['max_ms']} | {' + '.join(str(i['rss_mib']) for i in ins)} | "
              f"{r['redis_owner_b_per_doc']:,}; {r['redis_primaries_b_per_doc']:,} | "
              f"{r['script_calls_per_verdict']} / {r['wait_calls_per_verdict']} | {fmt_range(r['load_1m_range'])} |")
        for name, i in zip(names, ins):
            print(f"| | instance {name} | {i['requests_per_second']:,} | {i['p50_ms']} | {i['p99_ms']} | "
                  f"{i['max_ms']} | {i['rss_mib']} | | | |")
        b = by_stored.get(r["stored"])
        if b:
            print(f"| | single node | {b['req_s']:,} | {b['p50_ms']} | {b['p99_ms']} | {b['max_ms']} | "
                  f"{b['rss_mib']} | | | {fmt_range(b['load_1m_range'])} |")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: every process started was killed, the temporary files removed")

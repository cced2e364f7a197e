#!/usr/bin/env python3
"""The ContentSeen service at scale: memory, throughput, restart, disk.

Starts `neardup serve` as its own process on a fresh data directory, fills
it with `neardup-load text` (16 clients, distinct 2 KB texts, every tenth
one a near-duplicate of the one before) and, after every slice of the
load, reads the server's resident memory from /proc. Then it measures the
restart: a clean stop (SIGTERM, which writes the index snapshot) and a
start, timed until `/healthz` answers; and a crash (SIGKILL after more
writes) and a start, which loads the last snapshot and catches up from
the store. One JSON line per measurement; a Markdown table at the end.

    cargo build --release -p neardup-cli -p neardup-server
    python3 bench/serve_scale.py --documents 1000000 --slice 100000

Memory per document is (RSS - RSS of the empty service) / documents.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def status_bytes(pid, field):
    """A memory field of /proc/PID/status (``VmRSS``, ``VmHWM``), in bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def rss_bytes(pid):
    return status_bytes(pid, "VmRSS")


def hwm_bytes(pid):
    return status_bytes(pid, "VmHWM")


def dir_bytes(path):
    """(apparent size, bytes allocated on disk) of the files under path.

    redb grows its file ahead of use, and the growth is sparse: the
    allocated bytes are what the store takes from the disk."""
    apparent = allocated = 0
    for root, _, files in os.walk(path):
        for name in files:
            st = os.stat(os.path.join(root, name))
            apparent += st.st_size
            allocated += st.st_blocks * 512
    return apparent, allocated


def start_log(data):
    """Where the service's start-up lines go: next to the data directory."""
    return os.path.abspath(data).rstrip("/") + ".serve.log"


def last_recovery(data):
    """The last start-up line saying how the index came up."""
    with open(start_log(data)) as f:
        lines = [l.strip() for l in f if "replayed" in l]
    return lines[-1].removeprefix("neardup serve: ") if lines else None


def start(binary, data, port, extra):
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [binary, "serve", "--data-dir", data, "--listen", f"127.0.0.1:{port}"] + extra,
        stdout=open(start_log(data), "a"),
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/healthz"
    while True:
        if proc.poll() is not None:
            sys.exit(f"serve exited: {proc.stderr.read().decode()}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.05)
    return proc, time.monotonic() - t0


def stats(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/stats", timeout=30) as r:
        return json.load(r)


def load(loader, port, requests, slice_, size, clients, offset, on_slice):
    cmd = [
        loader, "text", "--addr", f"127.0.0.1:{port}",
        "--requests", str(requests), "--report-every", str(slice_),
        "--size", str(size), "--clients", str(clients),
        "--max-seconds", "36000", "--offset", str(offset),
    ]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    for line in p.stdout:
        line = line.strip()
        if line.startswith("{"):
            v = json.loads(line)
            if "duplicates" in v:
                on_slice(v)
    if p.wait() != 0:
        sys.exit("neardup-load failed")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--neardup", default="target/release/neardup")
    ap.add_argument("--load", default="target/release/neardup-load")
    ap.add_argument("--documents", type=int, default=100_000)
    ap.add_argument("--slice", type=int, default=25_000)
    ap.add_argument("--size", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--data-dir", default=None, help="kept when given")
    ap.add_argument("--serve-arg", action="append", default=[])
    a = ap.parse_args()
    data = a.data_dir or tempfile.mkdtemp(prefix="neardup-scale-")
    if os.path.exists(data) and os.listdir(data):
        sys.exit(f"{data} is not empty")
    port = free_port()
    proc, _ = start(a.neardup, data, port, a.serve_arg)
    base = rss_bytes(proc.pid)
    rows = []

    def on_slice(v):
        s = stats(port)
        rss = rss_bytes(proc.pid)
        row = {
            "stored": s["documents"],
            "req_s": v.get("requests_per_second"),
            "p50_ms": v.get("p50_ms"),
            "p99_ms": v.get("p99_ms"),
            "max_ms": v.get("max_ms"),
            "errors": v.get("errors"),
            "rss_mib": rss >> 20,
            "rss_per_doc": round((rss - base) / max(s["documents"], 1)),
            "index_bytes_per_doc": round(s.get("index_bytes", 0) / max(s["documents"], 1)),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)

    load(a.load, port, a.documents, a.slice, a.size, a.clients, 0, on_slice)
    peak = hwm_bytes(proc.pid)
    docs = stats(port)["documents"]
    proc.send_signal(signal.SIGTERM)
    proc.wait()
    disk, allocated = dir_bytes(data)
    proc, clean = start(a.neardup, data, port, a.serve_arg)
    clean_line = last_recovery(data)
    settled = rss_bytes(proc.pid)
    # A crash after more writes: the snapshot is older than the store.
    extra = max(a.documents // 20, 1000)
    load(a.load, port, extra, extra, a.size, a.clients, a.documents, lambda v: None)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc, crash = start(a.neardup, data, port, a.serve_arg)
    crash_line = last_recovery(data)
    after = stats(port)["documents"]
    proc.send_signal(signal.SIGTERM)
    proc.wait()
    summary = {
        "documents": docs,
        "peak_rss_mib": peak >> 20,
        "empty_rss_mib": base >> 20,
        "disk_bytes_per_doc": round(allocated / max(docs, 1)),
        "apparent_bytes_per_doc": round(disk / max(docs, 1)),
        "restart_clean_s": round(clean, 2),
        "rss_after_restart_per_doc": round((settled - base) / max(docs, 1)),
        "restart_after_sigkill_s": round(crash, 2),
        "documents_after_sigkill": after,
        "clean_restart": clean_line,
        "sigkill_restart": crash_line,
        "documents_expected_after_sigkill": docs + extra,
    }
    print(json.dumps(summary), flush=True)
    print()
    print("| stored | req/s | p50 ms | p99 ms | max ms | RSS MiB | RSS B/doc | index B/doc |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['stored']:,} | {r['req_s']} | {r['p50_ms']} | {r['p99_ms']} | "
              f"{r['max_ms']} | {r['rss_mib']:,} | {r['rss_per_doc']} | {r['index_bytes_per_doc']} |")
    if not a.data_dir:
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()

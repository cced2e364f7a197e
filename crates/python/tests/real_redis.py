"""A real redis-server for the tests (no mocks): Debian's ``redis-server``
started on a free port of 127.0.0.1 in a temporary directory, without
persistence (``--save '' --appendonly no``), and killed after."""

import pathlib
import socket
import subprocess
import time
from typing import Dict

START_TIMEOUT_S = 10.0


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on (now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pong(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """One running redis-server: ``port``, ``config`` (the ``redis``
    arguments of a ``storage_config``), ``client()``, ``command_calls()``."""

    def __init__(self, directory: pathlib.Path) -> None:
        self.port = free_port()
        self._stats = None
        self._log = open(directory / "redis.log", "wb")
        self._proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(directory)],
            stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _pong(self.port):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                log = (directory / "redis.log").read_text(errors="replace")
                raise RuntimeError(f"redis-server did not answer PING on port {self.port}:\n{log}")
            time.sleep(0.05)

    @property
    def config(self) -> Dict[str, object]:
        return {"host": "127.0.0.1", "port": self.port}

    def client(self):
        """A new binary redis-py client of this server."""
        import redis

        return redis.Redis(**self.config)

    def flushall(self) -> None:
        with self.client() as c:
            c.flushall()

    def command_calls(self) -> Dict[str, int]:
        """``INFO commandstats``: command name -> calls so far (the INFO
        calls included; one connection, made once, so that its handshake
        is not counted between two calls)."""
        if self._stats is None:
            self._stats = self.client()
        stats = self._stats.info("commandstats")
        return {name[len("cmdstat_"):]: int(v["calls"]) for name, v in stats.items()}

    def stop(self) -> None:
        if self._stats is not None:
            self._stats.close()
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._log.close()

"""The Redis storage of ``neardup.MinHashLSH``
(``storage_config={"type": "redis", "redis": {...}}``, as datasketch's).

Every key of one index starts with ``{basename}``, a Redis Cluster hash
tag, so the whole index sits in one slot (one node) and every script runs
atomically over it. Values are binary (band keys are ``r`` slots of 8
bytes, little-endian, as ``MinHash._bands`` makes them); the layout is in
``_lsh_redis_lua``. Stored keys are the user's keys pickled (``prepickle``,
the default, as datasketch's Redis storage) or the user's ``bytes`` keys.

Round trips: an ``insert``, ``insert_if_new``, ``query`` or ``remove`` is
one Lua script call; ``collect_query_buffer`` and the flush of a session
one pipeline; ``get_counts`` a ``SCAN`` and a pipeline. Sessions buffer their operations and flush
every ``buffer_size`` of them and at close.
"""

import random
import re
import string
import struct
from collections.abc import Mapping
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from . import _lsh_redis_lua as lua
from ._lsh_redis_conn import connect, guarded

def _glob_escape(raw: bytes) -> bytes:
    """``raw`` matched literally by a ``SCAN MATCH`` pattern."""
    return re.sub(rb"([*?\[\]\\])", rb"\\\1", raw)


def random_basename() -> bytes:
    """A random basename (11 lowercase letters), as datasketch draws one."""
    return "".join(random.choice(string.ascii_lowercase) for _ in range(11)).encode()


def pack_bands(bands: Sequence[bytes]) -> bytes:
    """Band keys, each prefixed with its length (2 bytes, big-endian)."""
    return b"".join(struct.pack(">H", len(h)) + h for h in bands)


def unpack_bands(value: bytes) -> List[bytes]:
    """The band keys of a ``{basename}:keys`` value (``id NUL`` then what
    ``pack_bands`` packed)."""
    out, pos = [], value.index(b"\0") + 1
    while pos < len(value):
        (n,) = struct.unpack_from(">H", value, pos)
        out.append(bytes(value[pos + 2 : pos + 2 + n]))
        pos += 2 + n
    return out


class RedisStore:
    """One index's tables in Redis: what ``MinHashLSH`` keeps in its dicts
    (``_tables``, ``_keys``), behind methods on stored (pickled) keys.

    ``config`` is the ``storage_config`` (``redis``: the keyword arguments
    of ``redis.Redis``, a value may be ``{"env": NAME, "default": ...}``;
    ``redis_buffer``: ``{"transaction": bool}`` for the sessions'
    pipelines; ``basename``: the key prefix, random if absent).
    """

    def __init__(self, config: dict, h: int, b: int, r: int) -> None:
        basename = config.get("basename")
        if basename is None:
            basename = random_basename()
        if isinstance(basename, str):
            basename = basename.encode()
        if not isinstance(basename, bytes) or b"{" in basename or b"}" in basename:
            raise ValueError("storage_config['basename'] must be bytes or str without '{' or '}'")
        self.config = config
        self.basename = basename
        self.h, self.b, self.r = h, b, r
        self._prefix = b"{" + basename + b"}"
        self._keys_key = self._prefix + b":keys"
        self._ids_key = self._prefix + b":ids"
        self._seq_key = self._prefix + b":seq"
        self._connect()

    def _connect(self) -> None:
        self._client, self.server, self._secrets = connect(self.config)
        self._transaction = bool(self.config.get("redis_buffer", {}).get("transaction", False))
        self._insert = self._client.register_script(lua.INSERT)
        self._insert_if_new = self._client.register_script(lua.INSERT_IF_NEW)
        self._remove = self._client.register_script(lua.REMOVE)
        self._query = self._client.register_script(lua.QUERY)
        meta = self._prefix + b":meta"
        params = b"%d,%d,%d" % (self.h, self.b, self.r)
        # One round trip: the index's parameters, and the scripts loaded so
        # that the first operations need no second try (NOSCRIPT).
        scripts = (self._insert, self._insert_if_new, self._remove, self._query)
        with self._guard():
            pipe = self._client.pipeline(transaction=False)
            pipe.hsetnx(meta, "params", params)
            pipe.hget(meta, "params")
            for script in scripts:
                pipe.script_load(script.script)
            stored = pipe.execute()[1]
        if stored != params:
            raise ValueError(
                f"basename {self.basename!r} on {self.server} holds an index with "
                f"num_perm,b,r = {stored.decode()}, not {params.decode()}"
            )

    def _guard(self):
        return guarded(self.server, self._secrets)

    def __getstate__(self) -> dict:
        return {"config": self.config, "basename": self.basename, "h": self.h, "b": self.b, "r": self.r}

    def __setstate__(self, state: dict) -> None:
        self.__init__(dict(state["config"], basename=state["basename"]), state["h"], state["b"], state["r"])

    def bucket(self, i: int, band: bytes) -> bytes:
        """The Redis key of band ``i``'s bucket ``band``."""
        return self._prefix + b":s:" + struct.pack(">H", i) + band

    def _insert_call(self, key: bytes, bands: Sequence[bytes], check: bool):
        keys = [self._keys_key, self._ids_key, self._seq_key, *(self.bucket(i, h) for i, h in enumerate(bands))]
        return keys, [key, pack_bands(bands), b"1" if check else b"0"]

    def insert(self, key: bytes, bands: Sequence[bytes], check: bool) -> bool:
        """Stores ``key`` with its bands in one script call; ``False`` (and
        nothing changes) if ``check`` and the key is already stored."""
        keys, args = self._insert_call(key, bands, check)
        with self._guard():
            return bool(self._insert(keys, args))

    def insert_many(self, items: Iterable[Tuple[bytes, Sequence[bytes], bool]]) -> List[bytes]:
        """Stores ``(key, bands, check)`` items in one pipeline; the keys
        left out because ``check`` found them stored."""
        items = list(items)
        if not items:
            return []
        with self._guard():
            pipe = self._client.pipeline(transaction=self._transaction)
            for key, bands, check in items:
                keys, args = self._insert_call(key, bands, check)
                self._insert(keys, args, client=pipe)
            done = pipe.execute()
        return [key for (key, _, _), ok in zip(items, done) if not ok]

    def insert_if_new(self, key: bytes, bands: Sequence[bytes]) -> Tuple[int, List[bytes]]:
        """One script call: ``(0, candidates)`` if some stored key shares a
        band (nothing inserted), else ``(1, [])`` once inserted, or
        ``(2, [])`` if ``key`` is stored with no band in common."""
        keys, args = self._insert_call(key, bands, True)
        with self._guard():
            out = self._insert_if_new(keys, args)
        return int(out[0]), list(out[1:])

    def _remove_args(self, key: bytes) -> List[bytes]:
        return [key, self._prefix, str(self.b).encode()]

    def remove(self, key: bytes) -> bool:
        """Removes ``key`` in one script call; ``False`` if not stored."""
        with self._guard():
            return bool(self._remove([self._keys_key, self._ids_key], self._remove_args(key)))

    def remove_many(self, keys: Sequence[bytes]) -> List[bytes]:
        """Removes ``keys`` in one pipeline; the ones that were not stored."""
        if not keys:
            return []
        with self._guard():
            pipe = self._client.pipeline(transaction=self._transaction)
            for key in keys:
                self._remove([self._keys_key, self._ids_key], self._remove_args(key), client=pipe)
            done = pipe.execute()
        return [key for key, ok in zip(keys, done) if not ok]

    def query(self, bands: Sequence[bytes]) -> Set[bytes]:
        """The stored keys sharing a band with ``bands`` (one script)."""
        with self._guard():
            return set(self._query([self._ids_key, *(self.bucket(i, h) for i, h in enumerate(bands))]))

    def query_many(self, queries: Sequence[Sequence[bytes]]) -> List[Set[bytes]]:
        """``query`` of each in one pipeline."""
        if not queries:
            return []
        with self._guard():
            pipe = self._client.pipeline(transaction=False)
            for bands in queries:
                self._query([self._ids_key, *(self.bucket(i, h) for i, h in enumerate(bands))], client=pipe)
            return [set(found) for found in pipe.execute()]

    def contains(self, key: bytes) -> bool:
        with self._guard():
            return bool(self._client.hexists(self._keys_key, key))

    def size(self) -> int:
        """The number of stored keys."""
        with self._guard():
            return int(self._client.hlen(self._keys_key))

    def bands_of(self, keys: Sequence[bytes]) -> List[Optional[List[bytes]]]:
        """The stored bands of each key (``None`` if not stored), one call."""
        if not keys:
            return []
        with self._guard():
            values = self._client.hmget(self._keys_key, list(keys))
        return [None if v is None else unpack_bands(v) for v in values]

    def items(self, count: int = 10000) -> Iterator[Tuple[bytes, List[bytes]]]:
        """Every stored key with its bands (``HSCAN``, ``count`` a call)."""
        with self._guard():
            for key, value in self._client.hscan_iter(self._keys_key, count=count):
                yield key, unpack_bands(value)

    def stored_keys(self) -> List[bytes]:
        with self._guard():
            return list(self._client.hkeys(self._keys_key))

    def buckets(self) -> List[Dict[bytes, int]]:
        """Per band, band key -> number of keys in its bucket: a ``SCAN``
        of the index's buckets (the whole database's keys are walked, 10,000
        a call), then one pipeline of ``SCARD``."""
        pattern = _glob_escape(self._prefix + b":s:") + b"*"
        start = len(self._prefix) + 3
        with self._guard():
            found = list(self._client.scan_iter(match=pattern, count=10000))
            pipe = self._client.pipeline(transaction=False)
            for k in found:
                pipe.scard(k)
            sizes = pipe.execute() if found else []
        out: List[Dict[bytes, int]] = [{} for _ in range(self.b)]
        for k, n in zip(found, sizes):
            (i,) = struct.unpack_from(">H", k, start)
            if i < self.b and n:
                out[i][bytes(k[start + 2 :])] = int(n)
        return out

    def members(self, i: int, band: bytes) -> Set[bytes]:
        """The stored keys in band ``i``'s bucket ``band``."""
        with self._guard():
            return set(self._query([self._ids_key, self.bucket(i, band)]))



class RedisBandTable:
    """One band's table in Redis, read-only (datasketch's storage interface,
    as ``hashtables[i]``): band key -> the set of stored keys in its
    bucket. Each call is a round trip."""

    def __init__(self, store: RedisStore, i: int) -> None:
        self._store, self._i = store, i

    def get(self, band: bytes, default=None) -> Set[bytes]:
        found = self._store.members(self._i, band)
        return found if found or default is None else default

    __getitem__ = get

    def keys(self) -> List[bytes]:
        """The band keys of the buckets (a ``SCAN``)."""
        return list(self.itemcounts())

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.keys())

    def __contains__(self, band: bytes) -> bool:
        return bool(self._store.members(self._i, band))

    def itemcounts(self) -> Dict[bytes, int]:
        """Band key -> number of keys in the bucket (a ``SCAN``)."""
        return self._store.buckets()[self._i]

    def size(self) -> int:
        """The number of buckets (a ``SCAN``)."""
        return len(self.itemcounts())

    __len__ = size


class RedisKeys(Mapping):
    """The stored keys (``lsh.keys``, read-only): stored key (pickled with
    ``prepickle``, as datasketch's) -> its band keys, in band order."""

    def __init__(self, store: RedisStore) -> None:
        self._store = store

    def __getitem__(self, key: bytes) -> List[bytes]:
        bands = self._store.bands_of([key])[0]
        if bands is None:
            raise KeyError(key)
        return bands

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._store.stored_keys())

    def __len__(self) -> int:
        return self._store.size()

    def __contains__(self, key: object) -> bool:
        return isinstance(key, bytes) and self._store.contains(key)

"""``neardup.MinHashLSH``: datasketch's LSH index of MinHash sketches.

Same names and semantics as ``datasketch.MinHashLSH``: the sketches are cut
into ``b`` bands of ``r`` slots; ``query`` returns the keys that share at
least one band with the query, i.e. the candidates whose Jaccard
similarity is likely above ``threshold``. ``(b, r)`` is chosen as
datasketch chooses it (``_optimal_param`` with ``weights``, computed in
Rust) unless ``params=(b, r)`` is given. The band keys are made in Rust
(``MinHash._bands``); the tables are Python dicts, in memory
(``hashtables``: one per band, band key -> set of keys, as datasketch's
dict storage). Buffered operations (insertion and deletion sessions, the
query buffer) have datasketch's results; with the index in memory there is
nothing to batch, so they run at once.

With ``storage_config={"type": "redis", "redis": {...}}`` the tables are in
Redis instead (``_lsh_redis``): as datasketch's Redis storage, the keys are
pickled (``prepickle``), ``basename`` names the index (two objects with one
basename share it), and sessions buffer; every insert or query is one round
trip. ``insert_if_new`` queries and inserts atomically (one Lua script), so
that processes sharing an index never both keep near-duplicates.
"""

import pickle
import threading
import types as _types
from collections.abc import Mapping
from typing import Dict, Hashable, List, Optional, Set, Tuple

from ._lsh_redis import RedisBandTable, RedisKeys, RedisStore
from ._lsh_session import _DeletionSession, _InsertionSession, merge_stored
from ._neardup import MinHash, _optimal_param

__all__ = ["MinHashLSH"]


# Makes the in-memory insert_if_new atomic between threads.
_MEMORY_LOCK = threading.Lock()


class _BandTable(dict):
    """One band's table: band key -> set of keys (datasketch's
    ``DictSetStorage`` interface over a dict)."""

    def get(self, key, default=None):  # noqa: D102 (datasketch's semantics)
        hit = dict.get(self, key)
        if hit is not None:
            return hit
        return set() if default is None else default

    def itemcounts(self) -> Dict[bytes, int]:
        """Band key -> number of keys in the bucket."""
        return {band: len(keys) for band, keys in self.items()}

    def size(self) -> int:
        """The number of buckets."""
        return len(self)


def _band_keys(minhash, b: int, r: int) -> List[bytes]:
    """The band keys of a sketch: neardup's own (``MinHash._bands``), or for
    another MinHash-like sketch with ``hashvalues`` (datasketch's
    ``WeightedMinHash``) the bytes of each band's values, as datasketch
    makes them."""
    if isinstance(minhash, MinHash):
        return minhash._bands(b, r)
    import numpy as np

    hv = np.asarray(minhash.hashvalues)
    return [bytes(np.ascontiguousarray(hv[i * r : (i + 1) * r]).byteswap().data) for i in range(b)]


class MinHashLSH:
    """An LSH index of MinHash sketches for Jaccard threshold queries.

    ``MinHashLSH(threshold=0.9, num_perm=128, weights=(0.5, 0.5),
    params=None, storage_config=None, prepickle=None)``; ``insert(key,
    minhash)``, ``query(minhash)`` (a list of keys), ``remove(key)``,
    ``insert_if_new(key, minhash)``, ``key in lsh``, ``len(lsh)``,
    ``is_empty()``, ``keys`` (a read-only mapping of the inserted keys).

    ``storage_config``: ``None`` or ``{"type": "dict"}``, in memory;
    ``{"type": "redis", "redis": {...}, "basename": b"name",
    "redis_buffer": {"transaction": False}}``, in Redis (``redis``: the
    arguments of ``redis.Redis``, or ``url``; ``basename``: random if
    absent). ``prepickle`` (Redis only, default ``True``): keys are stored
    pickled, else they must be ``bytes``. A server that cannot be reached is
    a ``ConnectionError`` naming it (never its password).
    """

    def __init__(
        self,
        threshold: float = 0.9,
        num_perm: int = 128,
        weights: Tuple[float, float] = (0.5, 0.5),
        params: Optional[Tuple[int, int]] = None,
        storage_config: Optional[dict] = None,
        prepickle: Optional[bool] = None,
        **kwargs,
    ) -> None:
        kind = (storage_config or {"type": "dict"}).get("type")
        if kind not in ("dict", "redis"):
            raise ValueError(f"Unknown storage type: {kind!r} (neardup's MinHashLSH has 'dict' and 'redis')")
        if kind == "dict" and prepickle is not None:
            kwargs["prepickle"] = prepickle
        unsupported = {k for k, v in kwargs.items() if v is not None}
        if unsupported:
            raise ValueError(f"MinHashLSH does not support {sorted(unsupported)}")
        if threshold > 1.0 or threshold < 0.0:
            raise ValueError("threshold must be in [0.0, 1.0]")
        if num_perm < 2:
            raise ValueError("Too few permutation functions")
        if any(w < 0.0 or w > 1.0 for w in weights):
            raise ValueError("Weight must be in [0.0, 1.0]")
        if abs(sum(weights) - 1.0) > 1e-9:
            raise ValueError("Weights must sum to 1.0")
        self.h = num_perm
        self.threshold = threshold
        if params is not None:
            self.b, self.r = int(params[0]), int(params[1])
            if self.b < 1 or self.r < 1 or self.b * self.r > num_perm:
                raise ValueError(
                    "The product of b and r in params is %d * %d = %d -- it must be "
                    "less than num_perm %d. Did you forget to specify num_perm?"
                    % (self.b, self.r, self.b * self.r, num_perm)
                )
        else:
            self.b, self.r = _optimal_param(threshold, num_perm, weights[0], weights[1])
        self._tables: List[_BandTable] = [_BandTable() for _ in range(self.b)]
        self._keys: Dict[Hashable, List[bytes]] = {}
        self._query_buffer: List[List[bytes]] = []
        self._buffer_size = 50000
        self.prepickle = kind == "redis" if prepickle is None else bool(prepickle)
        self._store: Optional[RedisStore] = None
        if kind == "redis":
            self._store = RedisStore(storage_config, self.h, self.b, self.r)

    def _stored(self, key: Hashable) -> bytes:
        """The key as the Redis storage keeps it."""
        if self.prepickle:
            return pickle.dumps(key)
        if not isinstance(key, bytes):
            raise TypeError(f"prepickle=False needs bytes keys, got {type(key).__name__}")
        return key

    def _loaded(self, stored: bytes) -> Hashable:
        return pickle.loads(stored) if self.prepickle else stored

    def _bands(self, minhash: MinHash) -> List[bytes]:
        if len(minhash) != self.h:
            raise ValueError(
                "Expecting minhash with length %d, got %d" % (self.h, len(minhash))
            )
        return _band_keys(minhash, self.b, self.r)

    def insert(self, key: Hashable, minhash: MinHash, check_duplication: bool = True) -> None:
        """Indexes ``minhash`` under ``key`` (``ValueError`` if the key is
        already in the index and ``check_duplication``)."""
        if self._store is not None:
            if not self._store.insert(self._stored(key), self._bands(minhash), check_duplication):
                raise ValueError("The given key already exists")
            return
        if check_duplication and key in self._keys:
            raise ValueError("The given key already exists")
        self._add(key, self._bands(minhash))

    def insert_if_new(self, key: Hashable, minhash: MinHash) -> List[Hashable]:
        """Queries and, only if nothing is found, inserts, as one atomic step
        (one Lua script in Redis; a lock in memory): two processes (in
        Redis) or threads that insert near-duplicates at once never both get
        ``[]``. Returns the
        keys found (band matches, as ``query``: candidates, not verified;
        ``key`` was not inserted), or ``[]`` once ``key`` is inserted.
        ``ValueError`` if ``key`` is already in the index with no band in
        common."""
        bands = self._bands(minhash)
        if self._store is not None:
            status, found = self._store.insert_if_new(self._stored(key), bands)
            if status == 2:
                raise ValueError("The given key already exists")
            return [self._loaded(k) for k in found]
        with _MEMORY_LOCK:
            found = self._found(bands)
            if found:
                return list(found)
            if key in self._keys:
                raise ValueError("The given key already exists")
            self._add(key, bands)
            return []

    def _found(self, bands: List[bytes]) -> Set[Hashable]:
        out: Set[Hashable] = set()
        for table, band in zip(self._tables, bands):
            hit = dict.get(table, band)
            if hit:
                out.update(hit)
        return out

    def _add(self, key: Hashable, bands: List[bytes]) -> None:
        self._keys.setdefault(key, []).extend(bands)
        for table, band in zip(self._tables, bands):
            table.setdefault(band, set()).add(key)

    def insertion_session(self, buffer_size: int = 50000) -> "_InsertionSession":
        """A context manager whose ``insert`` indexes (datasketch's API;
        ``buffer_size`` is kept as ``self.buffer_size``). In Redis, inserts
        are buffered and sent ``buffer_size`` at a time in one pipeline, and
        at close; a key found already stored is reported then
        (``ValueError``, the others inserted)."""
        self.buffer_size = buffer_size
        return _InsertionSession(self)

    def deletion_session(self, buffer_size: int = 50000) -> "_DeletionSession":
        """A context manager whose ``remove`` removes keys (datasketch's API;
        ``ValueError`` for a key not in the index: in Redis, where removals
        are buffered as inserts are, at the flush)."""
        self.buffer_size = buffer_size
        return _DeletionSession(self)

    @property
    def buffer_size(self) -> int:
        """The buffer size of the sessions (datasketch's; nothing is buffered
        in memory; in Redis, the operations sent in one pipeline)."""
        return self._buffer_size

    @buffer_size.setter
    def buffer_size(self, value: int) -> None:
        self._buffer_size = int(value)

    def merge(self, other: "MinHashLSH", check_overlap: bool = False) -> None:
        """Makes this index the union of itself and ``other``, as datasketch:
        both need the same ``num_perm``, ``b`` and ``r`` (``ValueError``);
        with ``check_overlap``, a key in both is a ``ValueError`` (raised
        before anything changes). A key in both otherwise gets the other's
        bands too."""
        if type(self) is not type(other):
            raise ValueError(f"Cannot merge type MinHashLSH and type {type(other).__name__}.")
        if (self.h, self.b, self.r) != (other.h, other.b, other.r):
            raise ValueError("Cannot merge MinHashLSH with different initialization parameters.")
        if self._store is not None or other._store is not None:
            return merge_stored(self, other, check_overlap)
        if check_overlap and not self._keys.keys().isdisjoint(other._keys.keys()):
            raise ValueError("The keys are overlapping, duplicate key exists.")
        for key, bands in list(other._keys.items()):
            self._add(key, list(bands))

    def add_to_query_buffer(self, minhash: MinHash) -> None:
        """Buffers a query; ``collect_query_buffer`` runs the buffered ones."""
        self._query_buffer.append(self._bands(minhash))

    def collect_query_buffer(self) -> List[Hashable]:
        """The keys every buffered query finds (the intersection of their
        ``query`` results, as datasketch); empties the buffer."""
        buffered, self._query_buffer = self._query_buffer, []
        if self._store is not None:
            found = self._store.query_many(buffered)
            return [self._loaded(k) for k in set.intersection(*found)] if found else []
        out: Optional[Set[Hashable]] = None
        for bands in buffered:
            found = self._found(bands)
            out = found if out is None else out & found
        return list(out or ())

    def query(self, minhash: MinHash) -> List[Hashable]:
        """The keys sharing at least one band with ``minhash``."""
        if self._store is not None:
            return [self._loaded(k) for k in self._store.query(self._bands(minhash))]
        return list(self._found(self._bands(minhash)))

    def remove(self, key: Hashable) -> None:
        """Removes ``key`` (``ValueError`` if it is not in the index)."""
        if self._store is not None:
            if not self._store.remove(self._stored(key)):
                raise ValueError("The given key does not exist")
            return
        if key not in self._keys:
            raise ValueError("The given key does not exist")
        bands = self._keys.pop(key)
        for i, band in enumerate(bands):
            table = self._tables[i % self.b]
            hit = dict.get(table, band)
            if hit is not None:
                hit.discard(key)
                if not hit:
                    del table[band]

    def is_empty(self) -> bool:
        """Whether nothing is indexed."""
        return not len(self)

    def get_counts(self) -> List[Dict[bytes, int]]:
        """Per band, the number of keys in each bucket."""
        if self._store is not None:
            return self._store.buckets()
        return [t.itemcounts() for t in self._tables]

    def get_subset_counts(self, *keys: Hashable) -> List[Dict[bytes, int]]:
        """``get_counts`` restricted to ``keys`` (``KeyError`` for a key not
        in the index, as datasketch's dict storage)."""
        counts: List[Dict[bytes, int]] = [{} for _ in range(self.b)]
        unique = list(set(keys))
        if self._store is not None:
            found = self._store.bands_of([self._stored(k) for k in unique])
            missing = [k for k, bands in zip(unique, found) if bands is None]
            if missing:
                raise KeyError(missing[0])
            stored = dict(zip(unique, found))
        else:
            stored = self._keys
        for key in unique:
            for i, band in enumerate(stored[key]):
                c = counts[i % self.b]
                c[band] = c.get(band, 0) + 1
        return counts

    @property
    def hashtables(self) -> List[_BandTable]:
        """The band tables (datasketch's attribute): per band, a dict from
        band key to the set of keys in that bucket (in Redis, a view of the
        stored keys, pickled with ``prepickle``). Read them; change the
        index through ``insert`` / ``remove``."""
        if self._store is not None:
            return [RedisBandTable(self._store, i) for i in range(self.b)]
        return self._tables

    @property
    def keys(self) -> Mapping:
        """The inserted keys (a read-only mapping: ``in``, ``len``, iteration;
        in Redis, of the stored keys, pickled with ``prepickle``, to their
        band keys, as datasketch's)."""
        if self._store is not None:
            return RedisKeys(self._store)
        return _types.MappingProxyType(self._keys)

    def __setstate__(self, state: dict) -> None:
        # Indexes pickled before the query buffer and datasketch's table
        # interface existed.
        state.setdefault("_query_buffer", [])
        state.setdefault("_buffer_size", 50000)
        state.setdefault("_store", None)
        state.setdefault("prepickle", False)
        state["_tables"] = [t if isinstance(t, _BandTable) else _BandTable(t) for t in state["_tables"]]
        self.__dict__.update(state)

    def __contains__(self, key: Hashable) -> bool:
        if self._store is not None:
            return self._store.contains(self._stored(key))
        return key in self._keys

    def __len__(self) -> int:
        return self._store.size() if self._store is not None else len(self._keys)

    def __repr__(self) -> str:
        where = "" if self._store is None else f", redis={self._store.server}"
        return (
            f"MinHashLSH(threshold={self.threshold}, num_perm={self.h}, "
            f"b={self.b}, r={self.r}, keys={len(self)}{where})"
        )

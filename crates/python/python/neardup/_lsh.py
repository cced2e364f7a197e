"""``neardup.MinHashLSH``: datasketch's LSH index of MinHash sketches.

Same names and semantics as ``datasketch.MinHashLSH``: the sketches are cut
into ``b`` bands of ``r`` slots; ``query`` returns the keys that share at
least one band with the query, i.e. the candidates whose Jaccard
similarity is likely above ``threshold``. ``(b, r)`` is chosen as
datasketch chooses it (``_optimal_param`` with ``weights``, computed in
Rust) unless ``params=(b, r)`` is given. The band keys are made in Rust
(``MinHash._bands``); the tables are Python dicts, in memory.
"""


import types as _types
from typing import Dict, Hashable, List, Optional, Sequence, Set, Tuple

from ._neardup import MinHash, _optimal_param

__all__ = ["MinHashLSH"]


class MinHashLSH:
    """An LSH index of MinHash sketches for Jaccard threshold queries.

    ``MinHashLSH(threshold=0.9, num_perm=128, weights=(0.5, 0.5),
    params=None)``; ``insert(key, minhash)``, ``query(minhash)`` (a list of
    keys), ``remove(key)``, ``key in lsh``, ``len(lsh)``, ``is_empty()``,
    ``keys`` (a read-only mapping of the inserted keys).
    """

    def __init__(
        self,
        threshold: float = 0.9,
        num_perm: int = 128,
        weights: Tuple[float, float] = (0.5, 0.5),
        params: Optional[Tuple[int, int]] = None,
        **kwargs,
    ) -> None:
        unsupported = {k for k, v in kwargs.items() if v is not None}
        if unsupported:
            raise ValueError(
                f"MinHashLSH does not support {sorted(unsupported)} (neardup's index is in memory)"
            )
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
        self._tables: List[Dict[bytes, Set[Hashable]]] = [{} for _ in range(self.b)]
        self._keys: Dict[Hashable, List[bytes]] = {}

    def _bands(self, minhash: MinHash) -> List[bytes]:
        if len(minhash) != self.h:
            raise ValueError(
                "Expecting minhash with length %d, got %d" % (self.h, len(minhash))
            )
        return minhash._bands(self.b, self.r)

    def insert(self, key: Hashable, minhash: MinHash, check_duplication: bool = True) -> None:
        """Indexes ``minhash`` under ``key`` (``ValueError`` if the key is
        already in the index and ``check_duplication``)."""
        if check_duplication and key in self._keys:
            raise ValueError("The given key already exists")
        bands = self._bands(minhash)
        self._keys.setdefault(key, []).extend(bands)
        for table, band in zip(self._tables, bands):
            table.setdefault(band, set()).add(key)

    def insertion_session(self, buffer_size: int = 50000) -> "_InsertionSession":
        """A context manager whose ``insert`` indexes (datasketch's API)."""
        return _InsertionSession(self)

    def query(self, minhash: MinHash) -> List[Hashable]:
        """The keys sharing at least one band with ``minhash``."""
        out: Set[Hashable] = set()
        for table, band in zip(self._tables, self._bands(minhash)):
            hit = table.get(band)
            if hit:
                out.update(hit)
        return list(out)

    def remove(self, key: Hashable) -> None:
        """Removes ``key`` (``ValueError`` if it is not in the index)."""
        if key not in self._keys:
            raise ValueError("The given key does not exist")
        bands = self._keys.pop(key)
        for i, band in enumerate(bands):
            table = self._tables[i % self.b]
            hit = table.get(band)
            if hit is not None:
                hit.discard(key)
                if not hit:
                    del table[band]

    def is_empty(self) -> bool:
        """Whether nothing is indexed."""
        return not self._keys

    def get_counts(self) -> List[Dict[bytes, int]]:
        """Per band, the number of keys in each bucket."""
        return [{band: len(keys) for band, keys in t.items()} for t in self._tables]

    @property
    def keys(self) -> "_types.MappingProxyType":
        """The inserted keys (a read-only mapping: ``in``, ``len``, iteration)."""
        return _types.MappingProxyType(self._keys)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return (
            f"MinHashLSH(threshold={self.threshold}, num_perm={self.h}, "
            f"b={self.b}, r={self.r}, keys={len(self._keys)})"
        )


class _InsertionSession:
    def __init__(self, lsh: MinHashLSH) -> None:
        self._lsh = lsh

    def insert(self, key: Hashable, minhash: MinHash, check_duplication: bool = True) -> None:
        self._lsh.insert(key, minhash, check_duplication)

    def __enter__(self) -> "_InsertionSession":
        return self

    def __exit__(self, *exc: Sequence[object]) -> None:
        return None

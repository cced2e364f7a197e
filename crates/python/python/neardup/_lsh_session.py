"""The sessions and the merge of ``neardup.MinHashLSH`` (``_lsh``): in
memory each operation runs at once, as it always did; in Redis
(``_lsh_redis``) operations are buffered and sent in large pipelines.
"""

from typing import TYPE_CHECKING, Hashable, Iterable, List, Sequence, Tuple

if TYPE_CHECKING:
    from ._lsh import MinHashLSH
    from ._neardup import MinHash


def _items(lsh: "MinHashLSH") -> Iterable[Tuple[Hashable, List[bytes]]]:
    """Every key of ``lsh`` with its band keys."""
    if lsh._store is None:
        return list(lsh._keys.items())
    return [(lsh._loaded(k), bands) for k, bands in lsh._store.items()]


def merge_stored(lsh: "MinHashLSH", other: "MinHashLSH", check_overlap: bool) -> None:
    """``lsh.merge(other)`` when either is in Redis: ``other``'s keys and
    bands are read, checked, then written ``buffer_size`` at a time."""
    items = list(_items(other))
    step = max(1, lsh.buffer_size)
    chunks = [items[i : i + step] for i in range(0, len(items), step)]
    if check_overlap:
        for chunk in chunks:
            if lsh._store is None:
                overlap = any(k in lsh._keys for k, _ in chunk)
            else:
                found = lsh._store.bands_of([lsh._stored(k) for k, _ in chunk])
                overlap = any(bands is not None for bands in found)
            if overlap:
                raise ValueError("The keys are overlapping, duplicate key exists.")
    for chunk in chunks:
        if lsh._store is None:
            for key, bands in chunk:
                lsh._add(key, list(bands))
        else:
            lsh._store.insert_many([(lsh._stored(k), bands, False) for k, bands in chunk])


class _Session:
    """datasketch's session: in memory each operation runs at once; in
    Redis they are buffered and sent ``lsh.buffer_size`` at a time, in one
    pipeline, and at close."""

    def __init__(self, lsh: "MinHashLSH") -> None:
        self.lsh = lsh
        self._buffer: list = []

    def _push(self, item) -> None:
        self._buffer.append(item)
        if len(self._buffer) >= self.lsh.buffer_size:
            self._flush()

    def _flush(self) -> None:
        """Sends the buffered operations (nothing in memory)."""

    def close(self) -> None:
        """Sends what is buffered; in memory every operation already ran."""
        self._flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc: Sequence[object]) -> None:
        self.close()


class _InsertionSession(_Session):
    def insert(self, key: Hashable, minhash: "MinHash", check_duplication: bool = True) -> None:
        lsh = self.lsh
        if lsh._store is None:
            lsh.insert(key, minhash, check_duplication)
        else:
            self._push((lsh._stored(key), lsh._bands(minhash), check_duplication))

    def _flush(self) -> None:
        buffered, self._buffer = self._buffer, []
        if buffered:
            stored = self.lsh._store.insert_many(buffered)
            if stored:
                raise ValueError(
                    f"The given key already exists: {len(stored)} key(s) not inserted, "
                    f"e.g. {self.lsh._loaded(stored[0])!r}"
                )


class _DeletionSession(_Session):
    def remove(self, key: Hashable) -> None:
        lsh = self.lsh
        if lsh._store is None:
            lsh.remove(key)
        else:
            self._push(lsh._stored(key))

    def _flush(self) -> None:
        buffered, self._buffer = self._buffer, []
        if buffered:
            missing = self.lsh._store.remove_many(buffered)
            if missing:
                raise ValueError(
                    f"The given key does not exist: {len(missing)} key(s), e.g. {self.lsh._loaded(missing[0])!r}"
                )

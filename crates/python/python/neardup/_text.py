"""neardup's own sketches of a text: ``TextMinHash`` (``MinHash.from_text``)
and ``SimHash``. Unlike datasketch's ``MinHash``, their ``update(text)``
appends text to one document, whose shingles are sketched by the Rust
engine (``neardup.sketch``).
"""

from typing import Iterable, List, Optional, Union

from ._neardup import NeardupError, Signature, sketch

__all__ = ["TextMinHash", "SimHash"]


class _TextSketch:
    """A signature of a text that grows with ``update``.

    The text given to the constructor and to every ``update`` call is one
    document, its pieces joined by newlines; the signature is computed (in
    Rust, without the GIL) when first needed after a change.
    """

    _method = ""

    def __init__(self, text: Optional[Union[str, Iterable[str]]] = None, **params) -> None:
        self._params = {k: v for k, v in params.items() if v is not None}
        self._parts: Optional[List[str]] = []
        self._sig: Optional[Signature] = None
        if text is not None:
            self.update(text)

    def update(self, text: Union[str, Iterable[str]]) -> None:
        """Appends text (a str, or several) to the document."""
        if self._parts is None:
            raise NeardupError("cannot update a signature read with from_bytes")
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        if isinstance(text, str):
            self._parts.append(text)
        else:
            self._parts.extend(str(t) for t in text)
        self._sig = None

    @property
    def signature(self) -> Signature:
        """The ``Signature`` of the text so far."""
        if self._sig is None:
            self._sig = sketch(self._method, "\n".join(self._parts or []), **self._params)
        return self._sig

    def similarity(self, other: "_TextSketch") -> float:
        """The method's similarity to another signature of the same kind."""
        return self.signature.similarity(_sig(other))

    def distance(self, other: "_TextSketch") -> float:
        """``1 - similarity``."""
        return 1.0 - self.similarity(other)

    def is_duplicate(self, other: "_TextSketch") -> bool:
        """The method's near-duplicate decision with this object's threshold."""
        return self.signature.is_duplicate(_sig(other))

    def to_bytes(self) -> bytes:
        """The signature in the Rust crate's byte format."""
        return self.signature.to_bytes()

    @classmethod
    def _from_signature(cls, sig: Signature, params: dict):
        obj = cls.__new__(cls)
        obj._params = {k: v for k, v in params.items() if v is not None}
        obj._parts = None
        obj._sig = sig
        return obj

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (_TextSketch, Signature)):
            return self.signature == _sig(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.signature)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.signature!r})"


def _sig(x: Union[_TextSketch, Signature]) -> Signature:
    return x.signature if isinstance(x, _TextSketch) else x


class TextMinHash(_TextSketch):
    """neardup's MinHash of a text's 5-word shingles (the ``minhash``
    method; ``MinHash.from_text`` makes one). This was ``neardup.MinHash``
    before 0.2; ``neardup.MinHash`` is now datasketch's set sketch.

    ``TextMinHash("some text", num_perm=128, threshold=0.5, seed=None)``;
    ``update(text)`` appends text; ``jaccard(other)`` estimates the Jaccard
    similarity of the shingle sets; ``is_duplicate`` compares it with
    ``threshold``. ``oph=True`` uses one-permutation hashing
    (``minhash-oph``).
    """

    def __init__(
        self,
        text: Optional[Union[str, Iterable[str]]] = None,
        *,
        num_perm: Optional[int] = None,
        threshold: Optional[float] = None,
        seed: Optional[int] = None,
        oph: bool = False,
    ) -> None:
        self._method = "minhash-oph" if oph else "minhash"
        super().__init__(text, num_perm=num_perm, threshold=threshold, seed=seed)

    def jaccard(self, other: Union["TextMinHash", Signature]) -> float:
        """Estimated Jaccard similarity: the share of equal slots."""
        return self.similarity(other)

    def digest(self) -> List[int]:
        """The slot values."""
        return self.signature.values()

    def __len__(self) -> int:
        return len(self.digest())

    @classmethod
    def from_bytes(cls, data: bytes, *, threshold: Optional[float] = None) -> "TextMinHash":
        """A MinHash from ``to_bytes`` output (it cannot be updated)."""
        sig = Signature.from_bytes(data, threshold=threshold)
        if sig.method not in ("minhash", "minhash-oph"):
            raise NeardupError(f"not a MinHash signature: {sig.method}")
        obj = cls._from_signature(sig, {"threshold": threshold})
        obj._method = sig.method
        return obj


class SimHash(_TextSketch):
    """SimHash (Charikar) of a text: a 64-bit (``wide=True``: 128-bit)
    fingerprint; near-duplicates differ in at most ``max_distance`` bits.

    ``distance(other)`` is the Hamming distance, ``similarity(other)`` is
    ``1 - distance / bits``.
    """

    def __init__(
        self,
        text: Optional[Union[str, Iterable[str]]] = None,
        *,
        wide: bool = False,
        max_distance: Optional[int] = None,
        seed: Optional[int] = None,
    ) -> None:
        self._method = "simhash128" if wide else "simhash"
        super().__init__(text, max_distance=max_distance, seed=seed)

    def distance(self, other: Union["SimHash", Signature]) -> int:  # type: ignore[override]
        """The Hamming distance of the fingerprints."""
        return self.signature.hamming(_sig(other))

    @property
    def value(self) -> int:
        """The fingerprint as an integer."""
        return self.signature.value

    @classmethod
    def from_bytes(cls, data: bytes, *, max_distance: Optional[int] = None) -> "SimHash":
        """A SimHash from ``to_bytes`` output (it cannot be updated)."""
        sig = Signature.from_bytes(data, max_distance=max_distance)
        if sig.method not in ("simhash", "simhash128"):
            raise NeardupError(f"not a SimHash signature: {sig.method}")
        obj = cls._from_signature(sig, {"max_distance": max_distance})
        obj._method = sig.method
        return obj

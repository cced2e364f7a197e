"""Type stubs of the neardup extension module (Rust, PyO3)."""

import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

__version__: str

class NeardupError(ValueError):
    """A document that cannot be read or extracted, a signature that cannot
    be decoded or compared, a bad parameter."""

class Document:
    """A page after charset decoding and main-text extraction."""

    url: Optional[str]
    title: str
    text: str
    paragraphs: List[str]
    charset: Optional[str]
    def __len__(self) -> int: ...

def extract(
    html: Union[bytes, str],
    url: Optional[str] = None,
    *,
    content_type: Optional[str] = None,
    all_text: bool = False,
) -> Document:
    """Decodes a page and extracts its main text."""

class Signature:
    """A fingerprint of one text by one method (Rust byte format)."""

    @classmethod
    def from_bytes(
        cls,
        data: bytes,
        *,
        threshold: Optional[float] = None,
        max_distance: Optional[int] = None,
    ) -> "Signature": ...
    def to_bytes(self) -> bytes: ...
    @property
    def method(self) -> str: ...
    def similarity(self, other: "Signature") -> float: ...
    def distance(self, other: "Signature") -> float: ...
    def is_duplicate(self, other: "Signature") -> bool: ...
    def hamming(self, other: "Signature") -> int: ...
    def values(self) -> List[int]: ...
    @property
    def value(self) -> int: ...
    def index_keys(self) -> List[int]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class MinHash:
    """MinHash of a set (datasketch's names and semantics): ``update(b)``
    adds one element."""

    def __init__(
        self,
        num_perm: int = 128,
        seed: int = 1,
        hashfunc: Optional[Callable[[Any], int]] = None,
        hashvalues: Optional[Iterable[int]] = None,
        *,
        gpu_mode: str = "disable",
    ) -> None: ...
    def update(self, b: Union[bytes, bytearray, str]) -> None: ...
    def update_batch(self, b: Iterable[Union[bytes, bytearray, str]]) -> None: ...
    def jaccard(self, other: "MinHash") -> float: ...
    def count(self) -> float: ...
    def merge(self, other: "MinHash") -> None: ...
    def digest(self) -> Any: ...
    @property
    def hashvalues(self) -> Any: ...
    @property
    def seed(self) -> int: ...
    @property
    def hashfunc(self) -> Callable[[Any], int]:
        """The element hash: the one given, or ``xxh3_hash64``."""
    @property
    def permutations(self) -> Any:
        """``(a, b)`` of the permutations, shape ``(2, num_perm)``."""
    @property
    def scheme(self) -> str: ...
    def is_empty(self) -> bool: ...
    def clear(self) -> None: ...
    def copy(self) -> "MinHash": ...
    @classmethod
    def bulk(cls, b: Iterable[Iterable[bytes]], **kwargs: Any) -> List["MinHash"]: ...
    @classmethod
    def union(cls, *mhs: "MinHash") -> "MinHash": ...
    @staticmethod
    def from_text(text: Optional[Union[str, Iterable[str]]] = None, **kwargs: Any) -> Any:
        """neardup's text sketch (a ``TextMinHash``)."""
    def _bands(self, b: int, r: int) -> List[bytes]: ...
    def __len__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...

class LeanMinHash(MinHash):
    """An immutable MinHash (seed and slots only)."""

    def __init__(
        self,
        minhash: Optional[MinHash] = None,
        seed: Optional[int] = None,
        hashvalues: Optional[Iterable[int]] = None,
    ) -> None: ...
    def bytesize(self, byteorder: str = "@") -> int: ...
    def serialize(self, buf: Any, byteorder: str = "@") -> None: ...
    @classmethod
    def deserialize(cls, buf: Any, byteorder: str = "@") -> "LeanMinHash": ...
    def __hash__(self) -> int: ...

def xxh3_hash64(b: Union[bytes, bytearray, str]) -> int:
    """``MinHash``'s default element hash: 64-bit XXH3 of the bytes (a str
    as UTF-8)."""

def _optimal_param(
    threshold: float,
    num_perm: int,
    false_positive_weight: float,
    false_negative_weight: float,
) -> Tuple[int, int]: ...

def sketch(
    method: str,
    text: str,
    paragraphs: Optional[List[str]] = None,
    *,
    threshold: Optional[float] = None,
    max_distance: Optional[int] = None,
    num_perm: Optional[int] = None,
    seed: Optional[int] = None,
) -> Signature:
    """Fingerprints text with a method by name."""

def methods() -> List[str]:
    """The names of the fingerprinting methods."""

class Verdict:
    """The decision for one document."""

    id: Optional[str]
    duplicate: bool
    duplicate_of: Optional[str]
    similarity: Optional[float]
    empty: bool
    def __bool__(self) -> bool: ...

class Deduplicator:
    """An incremental first-seen near-duplicate index: the online engine
    that ``neardup serve`` wraps too. With ``composite_check=True`` (the
    default, as the service) a page glued together from two articles is not
    a duplicate of either once a copy of the other was added. The batch
    engine's site template pass and partial copy check need documents that
    arrive later, so they are batch-only. The default method is MinHash
    over word 3-grams, verified exactly on the shingles."""

    def __init__(
        self,
        method: str = "default",
        threshold: Optional[float] = None,
        keep: str = "first",
        *,
        max_distance: Optional[int] = None,
        all_text: bool = False,
        composite_check: bool = True,
    ) -> None: ...
    def add(
        self,
        id: str,
        html: Optional[Union[bytes, str]] = None,
        *,
        text: Optional[str] = None,
        signature: Optional[Union[Signature, MinHash, Any]] = None,
        url: Optional[str] = None,
    ) -> Verdict: ...
    def query(
        self,
        html: Optional[Union[bytes, str]] = None,
        *,
        text: Optional[str] = None,
        signature: Optional[Union[Signature, MinHash, Any]] = None,
        url: Optional[str] = None,
    ) -> Verdict: ...
    def fingerprint(
        self,
        html: Optional[Union[bytes, str]] = None,
        *,
        text: Optional[str] = None,
        url: Optional[str] = None,
    ) -> Optional[Signature]: ...
    def clusters(self) -> Dict[str, List[str]]: ...
    def rows(self) -> List[Dict[str, Optional[Union[str, float]]]]: ...
    def remove(self, id: str) -> None: ...
    def to_bytes(self) -> bytes: ...
    @classmethod
    def from_bytes(cls, data: bytes) -> "Deduplicator": ...
    def save(self, path: Union[str, "os.PathLike[str]"]) -> None: ...
    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "Deduplicator": ...
    @property
    def method(self) -> str: ...
    def __len__(self) -> int: ...
    def __contains__(self, id: str) -> bool: ...

class Record:
    """One document read from an input file."""

    id: str
    url: Optional[str]
    html: Optional[bytes]
    content_type: Optional[str]
    text: Optional[str]
    error: Optional[str]
    def decode_html(self) -> Optional[Tuple[str, str]]:
        """``(text, charset)``: the HTML decoded as `neardup dedup` does."""

class RecordIter(Iterator[Record]):
    def __iter__(self) -> "RecordIter": ...
    def __next__(self) -> Record: ...

def read_documents(paths: List[str]) -> RecordIter:
    """Reads HTML, WARC and JSON Lines files lazily."""

def dedup_files(
    paths: List[str],
    method: str = "default",
    threshold: Optional[float] = None,
    *,
    max_distance: Optional[int] = None,
    keep: str = "first",
    all_text: bool = False,
    threads: int = 0,
    site_templates: bool = True,
    composite_check: bool = True,
    partial_check: bool = True,
    memory: Optional[int] = None,
    spill_dir: Optional[str] = None,
    verify_sketch: bool = False,
) -> List[Dict[str, Union[str, float, bool, None]]]:
    """Deduplicates files with the batch engine of `neardup dedup`
    (`site_templates=False` is its `--no-site-templates`,
    `composite_check=False` its `--no-composite-check`, `partial_check=False`
    its `--no-partial-check`, `memory` (bytes) its `--memory`, `spill_dir`
    its `--spill-dir`)."""

class FingerprintGroups:
    """The batch engine of `neardup dedup` over documents fingerprinted by
    `fingerprint_batch`, added in batches and held within a memory budget
    (`neardup dedup --memory`/`--spill-dir`)."""

    def __init__(
        self,
        method: str = "default",
        threshold: Optional[float] = None,
        *,
        max_distance: Optional[int] = None,
        keep: str = "first",
        site_templates: bool = True,
        composite_check: bool = True,
        partial_check: bool = True,
        memory: Optional[int] = None,
        spill_dir: Optional[str] = None,
        verify_sketch: bool = False,
    ) -> None: ...
    def add(
        self,
        ids: List[str],
        urls: List[Optional[str]],
        text_lens: List[int],
        signatures: List[Optional[bytes]],
        shingles: List[Optional[bytes]],
        errors: List[Optional[str]],
    ) -> None: ...
    def run(self, threads: int = 0) -> None: ...
    def duplicates(self, lo: int, hi: int) -> List[Tuple[int, str, float]]:
        """``(position, id of the kept document, similarity)`` for the
        duplicates among positions ``lo..hi``."""
    def ids(self, lo: int, hi: int) -> List[str]:
        """The ids of the documents at positions ``lo..hi``."""
    def __len__(self) -> int: ...
    @property
    def spilled(self) -> bool: ...

def fingerprint_batch(
    method: str,
    threshold: Optional[float],
    max_distance: Optional[int],
    ids: List[str],
    htmls: Optional[List[Optional[Union[bytes, str]]]] = None,
    texts: Optional[List[Optional[Union[str, bytes]]]] = None,
    all_text: bool = False,
) -> Tuple[
    List[Optional[bytes]], List[Optional[str]], List[int], List[Optional[bytes]], List[Optional[str]]
]: ...
def candidate_keys_batch(
    method: str,
    threshold: Optional[float],
    max_distance: Optional[int],
    sigs: List[bytes],
) -> Tuple[bytes, bytes, bytes]: ...
def bucket_pairs_batch(
    ords: bytes, tables: bytes, keys: bytes, max_posting: Optional[int] = None
) -> Tuple[bytes, bytes, bytes]: ...
def pack_postings_batch(
    ords: bytes, tables: bytes, keys: bytes, dests: int, common_above: float, chunk_bytes: int
) -> Tuple[List[int], List[bytes], bytes]: ...
def mix_keys_batch(tables: bytes, keys: bytes) -> bytes: ...
def verify_batch(
    method: str,
    threshold: Optional[float],
    max_distance: Optional[int],
    a: Optional[List[bytes]],
    b: Optional[List[bytes]],
    shingles_a: Optional[List[Optional[bytes]]] = None,
    shingles_b: Optional[List[Optional[bytes]]] = None,
    composite: bool = False,
    partial: bool = False,
) -> Tuple[List[Optional[float]], List[Optional[bytes]], List[bool]]: ...
def strip_templates_batch(
    method: str,
    threshold: Optional[float],
    max_distance: Optional[int],
    shingles: List[bytes],
) -> Tuple[List[Optional[bytes]], List[Optional[bytes]]]: ...
def split_runs_batch(runs: List[bytes]) -> Tuple[List[int], List[int], List[int], List[bytes]]: ...
def sampled_hashes_batch(seqs: List[bytes], among: Optional[bytes] = None) -> Tuple[List[int], List[int]]: ...
def composite_check_batch(
    method: str,
    threshold: Optional[float],
    max_distance: Optional[int],
    runs: List[bytes],
    thirds: List[bytes],
    others: List[bytes],
) -> List[bool]: ...
def composite_rule() -> Tuple[int, int]: ...
def earliest_per_hash_batch(hashes: bytes, docs: bytes) -> Tuple[bytes, bytes]:
    """Postings ``(hash, document)`` as packed little-endian 64-bit
    columns, sorted, repeats dropped, the earliest documents of each hash
    the composite check may read only."""
def partial_check_batch(
    method: str,
    threshold: Optional[float],
    max_distance: Optional[int],
    fulls: List[bytes],
    parts: List[bytes],
    thirds: List[bytes],
) -> List[bool]: ...
def partial_rule() -> int: ...
def candidate_rule(
    method: str,
    threshold: Optional[float] = None,
    max_distance: Optional[int] = None,
) -> Tuple[int, Optional[int]]: ...


SpanRow = Dict[str, Union[str, int]]

def spans(
    paths: List[str],
    unit: Optional[str] = "paragraph",
    *,
    keep: str = "first",
    fuzzy: bool = False,
    overlap: float = 0.8,
    ngram: int = 13,
    min_chars: int = 20,
    min_tokens: Optional[int] = None,
    min_bytes: Optional[int] = None,
    reference: Optional[List[str]] = None,
    ref_ngram: int = 13,
    memory: Optional[int] = None,
    spill_dir: Optional[str] = None,
    all_text: bool = False,
    threads: int = 0,
) -> List[Dict[str, Any]]: ...

class SpanFinder:
    def __init__(
        self,
        unit: Optional[str] = "paragraph",
        *,
        keep: str = "first",
        fuzzy: bool = False,
        overlap: float = 0.8,
        ngram: int = 13,
        min_chars: int = 20,
        min_tokens: Optional[int] = None,
        min_bytes: Optional[int] = None,
        reference: Optional[List[Tuple[str, str]]] = None,
        ref_ngram: int = 13,
        memory: Optional[int] = None,
        spill_dir: Optional[str] = None,
    ) -> None: ...
    @property
    def decides_by_keys(self) -> bool: ...
    def add(self, id: str, text: str) -> List[SpanRow]: ...
    def spans(
        self, texts: Iterable[str], ids: Optional[List[str]] = None, threads: int = 0
    ) -> List[Dict[str, Any]]: ...
    def __len__(self) -> int: ...

def clean_spans(text: str, spans: List[SpanRow]) -> str: ...

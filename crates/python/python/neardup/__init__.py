"""neardup: near-duplicate web page detection, from Python.

The Rust core of neardup behind a small Python API:

- ``MinHash``, ``LeanMinHash`` and ``MinHashLSH`` have datasketch's names
  and semantics: ``MinHash(num_perm=128, seed=1)``, ``update(b)`` adds one
  element to the set, ``jaccard`` / ``count`` / ``merge``; the LSH index
  has ``insert`` / ``query`` / ``remove``, in memory or in Redis
  (``storage_config``), and an atomic ``insert_if_new``. Hashing and the
  minimum updates run in Rust; ``m.hashfunc`` is the element hash
  (``xxh3_hash64`` unless one was given).
- ``extract(html, url=None)`` decodes a page like a browser and extracts its
  main text (``Document`` with ``title``, ``text``, ``paragraphs``,
  ``charset``).
- neardup's own sketches of a whole text: ``MinHash.from_text`` (a
  ``TextMinHash`` of 5-word shingles), ``SimHash``, and
  ``sketch(method, text)`` for any method of ``methods()``; every
  ``Signature`` has ``to_bytes`` / ``from_bytes`` in the Rust crate's byte
  format.
- ``Deduplicator`` is an incremental first-seen index (``add``, ``query``,
  ``remove``, ``clusters``; the default method compares 3-gram shingles);
  ``dedup_files`` runs ``neardup dedup`` over files; ``read_documents``
  reads HTML, WARC and JSON Lines files.
- ``Client(url, token=None)`` talks to ``neardup serve`` over HTTP;
  ``neardup.scrapy.ContentSeenMiddleware`` drops already-seen responses in
  a Scrapy crawl (in-process or against the service).
- ``spans`` finds repeated passages inside documents of files (as
  ``neardup spans``: paragraphs, lines, sentences, fuzzy paragraphs,
  leaked reference items); ``SpanFinder`` does it per document
  (``add(id, text)``) or over an iterable of texts (``spans(texts)``).
- ``neardup.spark.dedup`` runs the whole pipeline on a Spark DataFrame.
"""

from ._client import Client
from ._lsh import MinHashLSH
from ._neardup import (
    Deduplicator,
    Document,
    LeanMinHash,
    MinHash,
    NeardupError,
    Record,
    Signature,
    SpanFinder,
    Verdict,
    __version__,
    clean_spans,
    dedup_files,
    extract,
    methods,
    read_documents,
    sketch,
    spans,
    xxh3_hash64,
)
from ._text import SimHash, TextMinHash

Client.__module__ = "neardup"
MinHashLSH.__module__ = "neardup"
SimHash.__module__ = "neardup"
TextMinHash.__module__ = "neardup"

__all__ = [
    "Client",
    "Deduplicator",
    "Document",
    "LeanMinHash",
    "MinHash",
    "MinHashLSH",
    "NeardupError",
    "Record",
    "SimHash",
    "Signature",
    "SpanFinder",
    "TextMinHash",
    "Verdict",
    "__version__",
    "clean_spans",
    "dedup_files",
    "extract",
    "methods",
    "read_documents",
    "sketch",
    "spans",
    "xxh3_hash64",
]

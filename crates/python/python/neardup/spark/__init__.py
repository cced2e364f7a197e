"""neardup on Spark: deduplication and repeated passages on DataFrames,
computed by executors with the Rust engine's kernels.

- :func:`dedup` gives the groups of ``neardup dedup`` (see ``_dedup``);
- :func:`spans` gives the spans of ``neardup spans`` (see ``_spans``);
- :func:`read_documents` reads WARC, WET, ARC, HTML, JSON Lines and Parquet
  inputs on executors as the CLI reads them (see ``_read``).

Executors need the ``neardup`` package installed: ``pip install`` on every
node, or a virtualenv packed by venv-pack and shipped with
``spark.archives`` (``docs/spark.md``); ``--py-files`` cannot carry its
native extension.
"""

from ._dedup import _rows, dedup
from ._read import read_documents
from ._spans import span_rows, spans

__all__ = ["dedup", "read_documents", "spans", "span_rows"]

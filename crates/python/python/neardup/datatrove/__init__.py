"""neardup blocks for datatrove pipelines (``pip install neardup[datatrove]``).

Blocks that follow datatrove's conventions (``PipelineStep`` subclasses,
``Document`` in and out, stats, ``LocalPipelineExecutor`` and its ranks):

- ``NeardupReader``: neardup's readers (WARC, damaged ones included, ARC,
  WET, JSON Lines, HTML) and HTML decoding, those of ``neardup dedup``.

- ``NeardupExtractor``: a datatrove extractor (the interface of its
  ``Trafilatura`` block) with neardup's main text extraction.
- ``NeardupDedup``: document-level near-duplicate removal with the batch
  engine of ``neardup dedup`` (verified pairs, no chaining, site templates,
  composite and partial copy checks), over the documents of one rank.
- ``NeardupDedupSignature``, ``NeardupDedupCluster``, ``NeardupDedupFilter``:
  the same over all tasks of a multi-task run, in three pipelines like
  datatrove's MinHash stages: each rank writes its documents'
  fingerprints, one task clusters them all, each rank then filters its
  documents. ``NeardupDedup.stages(folder, ...)`` makes the three with one
  set of options.

- ``NeardupSpans``: repeated passages inside documents (boilerplate lines,
  pasted paragraphs, leaked reference items), removed or marked, with the
  span stage of ``neardup spans`` over the documents of a rank.

Duplicates are removed (``mode="remove"``, optionally written to an
``exclusion_writer``) or kept and marked (``mode="mark"``): their metadata
gets ``duplicate_of`` (the id of the kept document they duplicate) and
``similarity``. Seniority (which copy is kept, ``keep="first"``) is the
order of the documents in a rank and then of the ranks, which is input
order when each rank reads consecutive files.

```python
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import WarcReader
from datatrove.pipeline.writers import JsonlWriter
from neardup.datatrove import NeardupDedup, NeardupExtractor

LocalPipelineExecutor(pipeline=[
    WarcReader("crawl/"),
    NeardupExtractor(),
    NeardupDedup(),
    JsonlWriter("out/"),
]).run()
```
"""

try:
    import datatrove  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "neardup.datatrove needs datatrove: pip install 'neardup[datatrove]' (or pip install datatrove)"
    ) from e

from ._dedup import NeardupDedup
from ._extractor import NeardupExtractor
from ._reader import NeardupReader
from ._spans import NeardupSpans
from ._stages import NeardupDedupCluster, NeardupDedupFilter, NeardupDedupSignature

__all__ = [
    "NeardupDedup",
    "NeardupDedupCluster",
    "NeardupDedupFilter",
    "NeardupDedupSignature",
    "NeardupExtractor",
    "NeardupReader",
    "NeardupSpans",
]

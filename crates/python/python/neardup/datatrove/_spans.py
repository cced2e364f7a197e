"""``NeardupSpans``: repeated passages inside documents (boilerplate lines,
pasted paragraphs, leaked benchmark items), removed or annotated, with the
span stage of ``neardup spans``."""

from __future__ import annotations

from datatrove.pipeline.base import PipelineStep
from datatrove.utils.typeshelper import StatHints

from .. import _neardup


class NeardupSpans(PipelineStep):
    """Finds what repeats inside the documents of a rank, as ``neardup
    spans`` does (``--keep first`` in the rank's order): every later copy of
    a paragraph, line or sentence (``unit``; ``fuzzy=True`` for paragraphs
    most of whose word n-grams were seen before), and, with ``reference``
    (``[(id, text), ...]``), every stretch shared with a reference item.

    Args:
        unit: ``"paragraph"``, ``"line"``, ``"sentence"``, or ``None`` with a
            reference set for reference spans only.
        mode: ``"remove"`` cuts the spans out of ``doc.text`` (a line left
            empty goes with its line break) and drops documents left with
            fewer than ``min_doc_chars`` characters; ``"mark"`` leaves the
            text and puts the spans (code point offsets, ``kind``, ``first``
            or ``reference``) in ``doc.metadata["neardup_spans"]``.
        fuzzy, overlap, ngram, min_chars, reference, ref_ngram: as for
            ``neardup.SpanFinder``.
        memory: the index's memory budget in bytes (default 4 GiB). A rank
            streams: each document's spans are known when it arrives, so
            the budget must hold the rank's distinct units (about 20 bytes
            each).

    The first copy survives within a rank; copies in other ranks are not
    compared (run one rank, or ``neardup spans`` over the files, for a
    corpus-wide pass). A document whose text is not a str counts as empty.
    """

    name = "✂ neardup spans"
    type = "🫂 - DEDUPS"

    def __init__(
        self,
        unit: str | None = "paragraph",
        mode: str = "remove",
        fuzzy: bool = False,
        overlap: float = 0.8,
        ngram: int = 13,
        min_chars: int = 20,
        reference=None,
        ref_ngram: int = 13,
        min_doc_chars: int = 1,
        memory: int | None = None,
    ):
        super().__init__()
        if mode not in ("remove", "mark"):
            raise ValueError(f"mode {mode!r}: expected 'remove' or 'mark'")
        self.mode = mode
        self.min_doc_chars = min_doc_chars
        self.options = dict(
            keep="first", fuzzy=fuzzy, overlap=overlap, ngram=ngram, min_chars=min_chars,
            reference=[tuple(r) for r in reference] if reference is not None else None,
            ref_ngram=ref_ngram, memory=memory,
        )
        self.unit = unit
        # Checks the options now, with a clear message.
        _neardup.SpanFinder(unit, **self.options)

    def run(self, data, rank: int = 0, world_size: int = 1):
        finder = _neardup.SpanFinder(self.unit, **self.options)
        for doc in data:
            self.stat_update(StatHints.total)
            with self.track_time():
                text = doc.text if isinstance(doc.text, str) else ""
                spans = finder.add(str(doc.id), text)
            if spans:
                self.stat_update("with_spans")
                self.stat_update("spans", value=len(spans))
                self.stat_update("span_chars", value=sum(s["end"] - s["start"] for s in spans))
            if self.mode == "mark":
                doc.metadata["neardup_spans"] = spans
            else:
                doc.text = _neardup.clean_spans(text, spans) if spans else text
                if len(doc.text) < self.min_doc_chars:
                    self.stat_update(StatHints.dropped)
                    continue
            self.stat_update(StatHints.forwarded)
            yield doc

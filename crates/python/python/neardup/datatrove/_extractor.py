"""``NeardupExtractor``: neardup's main text extraction as a datatrove
extractor."""

from __future__ import annotations

from datatrove.pipeline.extractors.base import BaseExtractor
from datatrove.utils.logging import logger
from datatrove.utils.typeshelper import StatHints

from .. import _neardup


class NeardupExtractor(BaseExtractor):
    """Extracts the main text of HTML documents with neardup (the interface
    of datatrove's ``Trafilatura`` block: ``doc.text`` holds the HTML going
    in and the main text coming out; documents without main text are
    dropped, and counted).

    Args:
        all_text: keep all visible text instead of the main text only.
        title: put the page's ``<title>`` in ``doc.metadata["title"]``.
        timeout: accepted for the extractor interface; neardup's extraction
            runs in-process and is bounded (linear in the page, with the
            page size and nesting limits of docs/limits.md), so no per-document
            sandbox process or timeout is needed.

    A document whose text is not a str, or that neardup cannot extract, is
    dropped and counted as ``clean_error`` (the first one is logged).
    """

    name = "⛏ neardup"

    def __init__(self, all_text: bool = False, title: bool = False, timeout: float = 1):
        super().__init__(timeout)
        self.all_text = all_text
        self.title = title

    def extract(self, text: str) -> str:
        """The main text of the HTML ``text``."""
        return _neardup.extract(text, all_text=self.all_text).text

    def run(self, data, rank: int = 0, world_size: int = 1):
        for doc in data:
            self.stat_update(StatHints.total)
            with self.track_time():
                try:
                    if not isinstance(doc.text, str):
                        raise TypeError(f"document text is {type(doc.text).__name__}, not str")
                    page = _neardup.extract(doc.text, doc.metadata.get("url"), all_text=self.all_text)
                except Exception as e:  # noqa: BLE001 - every failure drops the document
                    self.stat_update("clean_error")
                    if not self._warned_error:
                        logger.warning(f'❌ neardup could not extract document {doc.id!r}: "{e}". Dropped.')
                        self._warned_error = True
                    continue
                doc.text = page.text
                if self.title and page.title:
                    doc.metadata["title"] = page.title
                self.stat_update("extracted")
            if doc.text:
                self.stat_update(StatHints.forwarded)
                self.update_doc_stats(doc)
                yield doc
            else:
                self.stat_update(StatHints.dropped)

"""``NeardupReader``: neardup's input readers as a datatrove reader."""

from __future__ import annotations

from datatrove.pipeline.readers.base import BaseDiskReader
from datatrove.utils.logging import logger

from .. import _neardup


class NeardupReader(BaseDiskReader):
    """Reads documents with neardup's readers, the ones ``neardup dedup``
    reads with: WARC (0.17 to 1.1, damaged archives included: a record cut
    short is kept up to the next record), ARC, WET, JSON Lines and HTML
    files, gzip or zstd compressed. HTML is decoded as ``neardup dedup``
    decodes it (byte order mark, HTTP ``Content-Type``, ``<meta>`` prescan,
    then detection), so that ``NeardupReader -> NeardupExtractor ->
    NeardupDedup`` keeps what ``neardup dedup`` keeps on the same files.

    Documents: ``doc.text`` is the decoded HTML (or the plain text of a WET
    record or JSON line), ``doc.id`` neardup's id (the target URI for
    archive records, ``#2``... for a repeated one), ``doc.metadata`` has
    ``url`` and ``charset``. Records that are not pages (requests, non-HTML
    responses, HTTP errors) are skipped as ``neardup dedup`` skips them; a
    record that cannot be read is counted (``read_error``) and the reading
    goes on. The arguments are those of datatrove's other disk readers;
    files must be on the local file system (neardup opens them itself).
    """

    name = "📖 neardup"

    def read_file(self, filepath: str):
        path = self.data_folder.resolve_paths(filepath)
        protocol = getattr(self.data_folder.fs, "protocol", "file")
        if "file" not in (protocol if isinstance(protocol, (tuple, list)) else (protocol,)):
            raise ValueError(f"NeardupReader reads local files only, not {protocol}: {filepath}")
        for i, rec in enumerate(_neardup.read_documents([path])):
            with self.track_time():
                if rec.error is not None:
                    self.stat_update("read_error")
                    logger.warning(f"neardup: {rec.id}: {rec.error}")
                    continue
                decoded = rec.decode_html()
                if decoded is not None:
                    text, charset = decoded
                else:
                    text, charset = rec.text, None
                data = {"text": text, "id": rec.id, "url": rec.url}
                if charset is not None:
                    data["charset"] = charset
                document = self.get_document_from_dict(data, filepath, i)
            if document:
                yield document

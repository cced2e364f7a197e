"""What the dedup blocks share: their options, the fingerprinting of
documents in batches (Rust, GIL released), the grouping with the batch
engine of ``neardup dedup``, and the files of the cross-rank stages.

Fingerprint file (``{rank:05d}.ndfp``, one per rank): the magic
``NDFP1\\n``, a JSON header line (``rank``, ``world_size``, the engine
options), then one record per document in the rank's order: six fields
(id, url, text length, signature, shingles, error), each a little-endian
u32 length (``0xFFFFFFFF``: none) and its bytes. Decision file
(``{rank:05d}.nddup``, one per rank): JSON Lines ``{"i", "duplicate_of",
"similarity"}``, one per duplicate, by position ``i`` in the rank.
"""

from __future__ import annotations

import json
import struct
from dataclasses import asdict, dataclass
from typing import BinaryIO, Dict, Iterator, List, Optional, Tuple

from .. import _neardup

MAGIC = b"NDFP1\n"
_NONE = 0xFFFFFFFF
_LEN = struct.Struct("<I")
# Documents fingerprinted per call into Rust.
BATCH = 256
# Documents read from a fingerprint file at a time by stage 2.
READ_BATCH = 4096
# Longest header line read.
_MAX_HEADER = 1 << 20


@dataclass(frozen=True)
class Options:
    """The engine options of ``neardup dedup`` (same names, same defaults)."""

    method: str = "default"
    threshold: Optional[float] = None
    max_distance: Optional[int] = None
    keep: str = "first"
    site_templates: bool = True
    composite_check: bool = True
    partial_check: bool = True

    def check(self) -> None:
        """Fails before the work on a bad method, threshold or keep policy."""
        _neardup.candidate_rule(self.method, self.threshold, self.max_distance)
        if not (self.keep in ("first", "longest") or self.keep.startswith("url:")):
            raise ValueError(f"keep must be 'first', 'longest' or 'url:PATTERN', not {self.keep!r}")

    def fingerprint_key(self) -> dict:
        """The options a fingerprint depends on."""
        return {"method": self.method, "threshold": self.threshold, "max_distance": self.max_distance}


class Fingerprints:
    """Fingerprinted documents, in order (the six columns of
    ``dedup_fingerprints``)."""

    def __init__(self) -> None:
        self.ids: List[str] = []
        self.urls: List[Optional[str]] = []
        self.lens: List[int] = []
        self.sigs: List[Optional[bytes]] = []
        self.shingles: List[Optional[bytes]] = []
        self.errors: List[Optional[str]] = []

    def __len__(self) -> int:
        return len(self.ids)

    def add_batch(self, opts: Options, docs) -> None:
        """Fingerprints the main texts of ``docs`` (datatrove Documents); a
        document whose text is not a str counts as empty."""
        ids = [str(d.id) for d in docs]
        texts = [d.text if isinstance(d.text, str) else None for d in docs]
        sigs, errors, lens, shingles, _hosts = _neardup.fingerprint_batch(
            opts.method, opts.threshold, opts.max_distance, ids, texts=texts
        )
        self.ids += ids
        self.urls += [_url(d) for d in docs]
        self.lens += lens
        self.sigs += sigs
        self.shingles += shingles
        self.errors += errors

    def extend(self, other: "Fingerprints") -> None:
        for name in ("ids", "urls", "lens", "sigs", "shingles", "errors"):
            getattr(self, name).extend(getattr(other, name))

    def add_to(self, groups) -> None:
        """Adds these documents to a ``_neardup.FingerprintGroups``."""
        groups.add(self.ids, self.urls, self.lens, self.sigs, self.shingles, self.errors)

    def decisions(self, opts: Options, threads: int = 0) -> Dict[int, Tuple[str, float]]:
        """For each duplicate, by position: the id of the kept document it
        duplicates and the similarity to it."""
        groups = new_groups(opts)
        self.add_to(groups)
        groups.run(threads)
        return {i: (dup, sim) for i, dup, sim in groups.duplicates(0, len(self))}

    def write(self, f: BinaryIO, header: dict) -> None:
        f.write(MAGIC)
        f.write(json.dumps(header, sort_keys=True).encode() + b"\n")
        for row in zip(self.ids, self.urls, self.lens, self.sigs, self.shingles, self.errors):
            for x in _fields(row):
                if x is None:
                    f.write(_LEN.pack(_NONE))
                else:
                    f.write(_LEN.pack(len(x)))
                    f.write(x)

    @classmethod
    def read(cls, f: BinaryIO, name: str) -> Tuple[dict, "Fingerprints"]:
        """A fingerprint file's header and documents (``ValueError`` naming
        the file when it is not one, or is cut short)."""
        header = read_header(f, name)
        out = cls()
        for part in iter_records(f, name):
            out.extend(part)
        return header, out


def new_groups(
    opts: Options,
    memory: Optional[int] = None,
    spill_dir: Optional[str] = None,
    verify_sketch: bool = False,
):
    """A ``_neardup.FingerprintGroups`` with the engine options ``opts``,
    within ``memory`` bytes (default: half of the machine's memory), past
    which the documents go to ``spill_dir`` (default: the system's
    temporary directory); ``verify_sketch`` is ``neardup dedup
    --verify-sketch``."""
    return _neardup.FingerprintGroups(
        opts.method,
        opts.threshold,
        max_distance=opts.max_distance,
        keep=opts.keep,
        site_templates=opts.site_templates,
        composite_check=opts.composite_check,
        partial_check=opts.partial_check,
        memory=memory,
        spill_dir=spill_dir,
        verify_sketch=verify_sketch,
    )


def read_header(f: BinaryIO, name: str) -> dict:
    """The JSON header of a fingerprint file, read from its start; ``f`` is
    left at the first record (``ValueError`` naming the file when it is not
    a fingerprint file)."""
    if f.read(len(MAGIC)) != MAGIC:
        raise ValueError(f"{name}: not a neardup fingerprint file")
    line = f.readline(_MAX_HEADER)
    if not line.endswith(b"\n"):
        raise ValueError(f"{name}: not a neardup fingerprint file (no header line)")
    try:
        header = json.loads(line)
    except ValueError as e:
        raise ValueError(f"{name}: bad header: {e}") from None
    if not isinstance(header, dict):
        raise ValueError(f"{name}: bad header: not an object")
    return header


def iter_records(f: BinaryIO, name: str, batch: int = READ_BATCH) -> Iterator["Fingerprints"]:
    """The records of a fingerprint file after its header, ``batch``
    documents at a time, read as they are needed: what is held is one batch
    (``ValueError`` naming the file when it is cut short)."""
    out = Fingerprints()
    while True:
        fields: List[Optional[bytes]] = []
        while len(fields) < 6:
            head = f.read(4)
            if not head:
                if fields:
                    raise ValueError(f"{name}: cut short")
                if len(out):
                    yield out
                return
            if len(head) < 4:
                raise ValueError(f"{name}: cut short")
            (n,) = _LEN.unpack(head)
            if n == _NONE:
                fields.append(None)
                continue
            data = f.read(n)
            if len(data) < n:
                raise ValueError(f"{name}: cut short")
            fields.append(data)
        i, u, n_, s, sh, e = fields
        if i is None or n_ is None:
            raise ValueError(f"{name}: a record without an id or a text length")
        out.ids.append(i.decode())
        out.urls.append(u.decode() if u is not None else None)
        out.lens.append(int(n_.decode()))
        out.sigs.append(s)
        out.shingles.append(sh)
        out.errors.append(e.decode() if e is not None else None)
        if len(out) >= batch:
            yield out
            out = Fingerprints()


def _url(doc) -> Optional[str]:
    url = doc.metadata.get("url") if isinstance(doc.metadata, dict) else None
    return url if isinstance(url, str) and url else None


def _fields(row) -> Iterator[Optional[bytes]]:
    doc_id, url, n, sig, sh, err = row
    yield doc_id.encode()
    yield url.encode() if url is not None else None
    yield str(n).encode()
    yield sig
    yield sh
    yield err.encode() if err is not None else None


def options_dict(opts: Options) -> dict:
    return asdict(opts)

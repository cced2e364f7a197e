"""The cross-rank dedup of ``neardup.datatrove`` in three stages, like
datatrove's MinHash stages: every rank fingerprints its documents
(``NeardupDedupSignature``), one task groups them all with the batch engine
of ``neardup dedup`` (``NeardupDedupCluster``), every rank then removes or
marks its duplicates (``NeardupDedupFilter``). The decisions are those of
``neardup dedup`` over all documents, in the order rank 0's documents, then
rank 1's, and so on: the same for any number of tasks over the same files
in the same order."""

from __future__ import annotations

import json
from typing import Dict, Optional, Tuple

from datatrove.io import get_datafolder
from datatrove.pipeline.base import PipelineStep
from datatrove.utils.logging import logger

from ._dedup import _DedupStep
from ._fingerprints import BATCH, Fingerprints, Options, iter_records, new_groups, read_header

FINGERPRINTS = ".ndfp"
DECISIONS = ".nddup"


class NeardupDedupSignature(PipelineStep):
    """Stage 1: fingerprints the documents of the rank (main text in
    ``doc.text``) and writes them to ``{rank:05d}.ndfp`` in
    ``output_folder``; passes no document on. An empty rank writes an empty
    file, which tells stage 2 the rank ran. ``method``, ``threshold``,
    ``max_distance``: ``neardup dedup``'s (the same in stage 2)."""

    type = "🫂 - DEDUP"
    name = "🎯 neardup stage 1: fingerprints"

    def __init__(
        self,
        output_folder,
        method: str = "default",
        threshold: Optional[float] = None,
        *,
        max_distance: Optional[int] = None,
    ):
        super().__init__()
        self.output_folder = get_datafolder(output_folder)
        self.options = Options(method, threshold, max_distance)
        self.options.check()

    def run(self, data, rank: int = 0, world_size: int = 1):
        fps, batch = Fingerprints(), []
        for doc in data or ():
            self.stat_update("documents")
            batch.append(doc)
            if len(batch) == BATCH:
                with self.track_time(unit="batch"):
                    fps.add_batch(self.options, batch)
                batch = []
        if batch:
            with self.track_time(unit="batch"):
                fps.add_batch(self.options, batch)
        header = {"rank": rank, "world_size": world_size, **self.options.fingerprint_key()}
        with self.output_folder.open(f"{rank:05d}{FINGERPRINTS}", mode="wb") as f:
            fps.write(f, header)
        return
        yield  # a generator that passes nothing on, as datatrove's stage 1


class NeardupDedupCluster(PipelineStep):
    """Stage 2 (one task): reads every rank's fingerprints from
    ``input_folder``, groups all documents with the batch engine of
    ``neardup dedup`` and writes each rank's duplicates to
    ``{rank:05d}.nddup`` in ``output_folder``. Fails before the work when a
    rank's file is missing or was made with other options. The documents
    are read one batch at a time and held as ``neardup dedup --memory``
    holds them: in memory up to three fifths of ``memory`` (bytes; default
    half of the machine's memory), then on disk in ``spill_dir`` (default:
    the system's temporary directory). ``verify_sketch=True`` verifies
    pairs on a sketch of their shingles, as ``neardup dedup
    --verify-sketch`` does: about a third of the disk a document takes
    past the budget, the corpus-level checks off; stage 1 is unchanged."""

    type = "🫂 - DEDUP"
    name = "🎯 neardup stage 2: clusters"

    def __init__(
        self,
        input_folder,
        output_folder,
        method: str = "default",
        threshold: Optional[float] = None,
        *,
        max_distance: Optional[int] = None,
        keep: str = "first",
        site_templates: bool = True,
        composite_check: bool = True,
        partial_check: bool = True,
        threads: int = 0,
        memory: Optional[int] = None,
        spill_dir: Optional[str] = None,
        verify_sketch: bool = False,
    ):
        super().__init__()
        self.input_folder = get_datafolder(input_folder)
        self.output_folder = get_datafolder(output_folder)
        self.options = Options(method, threshold, max_distance, keep, site_templates, composite_check, partial_check)
        self.options.check()
        self.threads = threads
        self.memory = memory
        self.spill_dir = spill_dir
        self.verify_sketch = verify_sketch

    def run(self, data=None, rank: int = 0, world_size: int = 1):
        if world_size != 1:
            raise ValueError(f"{self.name} runs as one task (tasks=1), not {world_size}")
        files = sorted(self.input_folder.list_files(glob_pattern=f"*{FINGERPRINTS}"))
        if not files:
            raise FileNotFoundError(f"no {FINGERPRINTS} fingerprint files in {self.input_folder.path}: run stage 1 first")
        headers: Dict[int, str] = {}
        worlds = set()
        for name in files:
            with self.input_folder.open(name, mode="rb") as f:
                header = read_header(f, name)
            key = {k: header.get(k) for k in self.options.fingerprint_key()}
            if key != self.options.fingerprint_key():
                raise ValueError(f"{name} was made with {key}, not {self.options.fingerprint_key()}")
            headers[int(header["rank"])] = name
            worlds.add(int(header["world_size"]))
        if len(worlds) != 1:
            raise ValueError(f"fingerprint files of runs with different task counts: {sorted(worlds)}")
        (world,) = worlds
        missing = [r for r in range(world) if r not in headers]
        if missing:
            raise FileNotFoundError(f"fingerprints of rank(s) {missing} of {world} are missing: stage 1 did not finish")
        o = self.options
        groups = new_groups(self.options, self.memory, self.spill_dir, self.verify_sketch)
        starts = []
        for r in range(world):
            starts.append(len(groups))
            with self.input_folder.open(headers[r], mode="rb") as f:
                read_header(f, headers[r])
                for part in iter_records(f, headers[r]):
                    part.add_to(groups)
        starts.append(len(groups))
        self.stat_update("documents", value=len(groups))
        with self.track_time(unit="run"):
            groups.run(self.threads)
        for r in range(world):
            lo, hi = starts[r], starts[r + 1]
            with self.output_folder.open(f"{r:05d}{DECISIONS}", mode="w") as out:
                out.write(json.dumps({"rank": r, "documents": hi - lo}) + "\n")
                for g, dup_id, sim in groups.duplicates(lo, hi):
                    self.stat_update("duplicates")
                    out.write(json.dumps({"i": g - lo, "duplicate_of": dup_id, "similarity": sim}) + "\n")
        logger.info(f"neardup: {len(groups)} documents of {world} rank(s) grouped")
        return
        yield  # passes nothing on


class NeardupDedupFilter(_DedupStep):
    """Stage 3: removes (``mode="remove"``, to ``exclusion_writer`` if any)
    or marks (``mode="mark"``: ``duplicate_of``, ``similarity`` in the
    metadata) the rank's duplicates found by stage 2 in ``input_folder``.
    The rank must see the documents stage 1 saw, in the same order."""

    name = "🎯 neardup stage 3: filter"

    def __init__(self, input_folder, mode: str = "remove", exclusion_writer=None):
        super().__init__(mode, exclusion_writer)
        self.data_folder = get_datafolder(input_folder)

    def run(self, data, rank: int = 0, world_size: int = 1):
        name = f"{rank:05d}{DECISIONS}"
        if not self.data_folder.isfile(name):
            raise FileNotFoundError(f"no decisions for rank {rank} ({name} in {self.data_folder.path}): run stage 2 first")
        decisions: Dict[int, Tuple[str, Optional[float]]] = {}
        expected = None
        with self.data_folder.open(name, mode="r") as f:
            for line in f:
                if not line.strip():
                    continue
                row = json.loads(line)
                if "documents" in row:
                    expected = int(row["documents"])
                else:
                    decisions[int(row["i"])] = (row["duplicate_of"], row["similarity"])
        seen = 0

        def counted(docs):
            nonlocal seen
            for doc in docs:
                seen += 1
                yield doc

        yield from self.emit(counted(data or ()), decisions, rank)
        if expected is not None and seen != expected:
            self.stat_update("document_count_mismatch")
            logger.warning(
                f"neardup stage 3, rank {rank}: {seen} documents, stage 1 fingerprinted {expected}: "
                "the pipelines before stage 1 and stage 3 differ, decisions may be misplaced"
            )

"""``NeardupDedup``: near-duplicate removal over the documents of one rank
with the batch engine of ``neardup dedup``."""

from __future__ import annotations

import contextlib
from typing import Dict, Optional, Tuple

from datatrove.pipeline.base import PipelineStep
from datatrove.utils.typeshelper import StatHints

from ._fingerprints import BATCH, Fingerprints, Options

MODES = ("remove", "mark")


class _DedupStep(PipelineStep):
    """What the dedup blocks that pass documents on share: the mode and how
    a decision is applied to a document."""

    type = "🫂 - DEDUP"

    def __init__(self, mode: str = "remove", exclusion_writer=None):
        super().__init__()
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        self.mode = mode
        self.exclusion_writer = exclusion_writer

    def emit(self, docs, decisions: Dict[int, Tuple[str, Optional[float]]], rank: int):
        """Yields ``docs`` (an iterable, position ``i`` in the rank) with the
        decisions applied: duplicates removed (to the exclusion writer, if
        any) or marked with ``duplicate_of`` and ``similarity``."""
        writer = self.exclusion_writer if self.exclusion_writer is not None else contextlib.nullcontext()
        with writer as excluded:
            for i, doc in enumerate(docs):
                self.stat_update(StatHints.total)
                hit = decisions.get(i)
                if hit is None:
                    self.stat_update(StatHints.forwarded)
                    yield doc
                    continue
                self.stat_update("duplicates")
                if self.mode == "mark":
                    doc.metadata["duplicate_of"] = hit[0]
                    doc.metadata["similarity"] = hit[1]
                    self.stat_update(StatHints.forwarded)
                    yield doc
                else:
                    self.stat_update(StatHints.dropped)
                    if self.exclusion_writer is not None:
                        excluded.write(doc, rank)


class NeardupDedup(_DedupStep):
    """Removes (or marks) the near-duplicates among the documents of a rank
    with the batch engine of ``neardup dedup``: the groups ``neardup dedup``
    gives for the same main texts in the same order.

    Args:
        method, threshold, max_distance, keep: ``neardup dedup``'s options
            (``--method``, ``--threshold``, ``--max-distance``, ``--keep``).
        site_templates, composite_check, partial_check: ``False`` is
            ``--no-site-templates``, ``--no-composite-check``,
            ``--no-partial-check``.
        mode: ``"remove"`` drops duplicates, ``"mark"`` keeps them with
            ``metadata["duplicate_of"]`` (the kept document's id) and
            ``metadata["similarity"]``.
        exclusion_writer: a datatrove writer for the removed documents.
        threads: engine threads (0: every core).

    Each document's main text is ``doc.text`` (after an extractor); its URL
    (``doc.metadata["url"]``, else its id) names its site for the site
    template pass. A document without text is kept (a group of its own).
    The block holds its rank's documents until the rank's input ends (the
    engine compares each document with later ones); for corpora that do not
    fit in one task's memory, or for decisions over all ranks, use the three
    stages of ``NeardupDedup.stages``, whose second stage holds the
    fingerprints within a memory budget (``memory``, ``spill_dir``) as
    ``neardup dedup --memory`` does.
    """

    name = "🎯 neardup dedup"

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
        mode: str = "remove",
        exclusion_writer=None,
        threads: int = 0,
    ):
        super().__init__(mode, exclusion_writer)
        self.options = Options(method, threshold, max_distance, keep, site_templates, composite_check, partial_check)
        self.options.check()
        self.threads = threads

    def run(self, data, rank: int = 0, world_size: int = 1):
        if data is None:
            return
        docs, batch, fps = [], [], Fingerprints()
        for doc in data:
            batch.append(doc)
            if len(batch) == BATCH:
                with self.track_time(unit="batch"):
                    fps.add_batch(self.options, batch)
                docs += batch
                batch = []
        if batch:
            with self.track_time(unit="batch"):
                fps.add_batch(self.options, batch)
            docs += batch
        if not docs:
            return
        with self.track_time(unit="rank"):
            decisions = fps.decisions(self.options, self.threads)
        yield from self.emit(docs, decisions, rank)

    @staticmethod
    def stages(
        folder,
        method: str = "default",
        threshold: Optional[float] = None,
        *,
        max_distance: Optional[int] = None,
        keep: str = "first",
        site_templates: bool = True,
        composite_check: bool = True,
        partial_check: bool = True,
        mode: str = "remove",
        exclusion_writer=None,
        threads: int = 0,
        memory: Optional[int] = None,
        spill_dir: Optional[str] = None,
        verify_sketch: bool = False,
    ):
        """The three cross-rank stages with one set of options, their files
        under ``folder`` (a path or datatrove DataFolder):
        ``(NeardupDedupSignature, NeardupDedupCluster, NeardupDedupFilter)``.
        Run the first at the end of each rank's pipeline, the second as one
        task, the third where the documents are read again (the same
        pipeline up to the first stage, so that each rank sees the same
        documents in the same order). ``memory`` (bytes) and ``spill_dir``
        bound the second stage as ``neardup dedup --memory`` does;
        ``verify_sketch`` is its ``--verify-sketch``."""
        from datatrove.io import get_datafolder

        from ._stages import NeardupDedupCluster, NeardupDedupFilter, NeardupDedupSignature

        base = get_datafolder(folder)
        fps = (base.path.rstrip("/") + "/fingerprints", base.fs)
        dec = (base.path.rstrip("/") + "/decisions", base.fs)
        opts = dict(method=method, threshold=threshold, max_distance=max_distance)
        return (
            NeardupDedupSignature(fps, **opts),
            NeardupDedupCluster(
                fps,
                dec,
                **opts,
                keep=keep,
                site_templates=site_templates,
                composite_check=composite_check,
                partial_check=partial_check,
                threads=threads,
                memory=memory,
                spill_dir=spill_dir,
                verify_sketch=verify_sketch,
            ),
            NeardupDedupFilter(dec, mode=mode, exclusion_writer=exclusion_writer),
        )

"""neardup.datatrove with datatrove itself: the blocks on hostile documents,
the cross-rank stages against the per-rank block and ``dedup_files``, and
real pipelines over the shared dev WARC with 1 and 2 tasks, which must keep
exactly the documents ``neardup dedup`` keeps."""

import json
import pathlib
import zlib

import pytest

import neardup

pytest.importorskip("datatrove", reason="datatrove is not installed (pip install 'neardup[datatrove]')")
from datatrove.data import Document  # noqa: E402
from datatrove.executor import LocalPipelineExecutor  # noqa: E402

from neardup.datatrove import (  # noqa: E402
    NeardupDedup,
    NeardupDedupCluster,
    NeardupDedupFilter,
    NeardupDedupSignature,
    NeardupExtractor,
    NeardupReader,
)

ARTICLE = (
    "The river rose overnight and the town council met at dawn to decide which streets to close. "
    "Volunteers filled sandbags outside the library while the mayor spoke with engineers about the old bridge. "
    "By noon the water had reached the market square and shop owners moved their goods to upper floors. "
)
OTHER = (
    "A new bakery opened on the corner of Elm Street, selling rye loaves and almond pastries every morning. "
    "The owners trained in Lyon and say the secret is a slow fermentation that lasts a full two days. "
)


def docs(texts, prefix="d"):
    return [Document(text=t, id=f"{prefix}{i}", metadata={"url": f"https://site{i}.example/{prefix}{i}"})
            for i, t in enumerate(texts)]


def corpus():
    """Copies, near copies, an unrelated page and hostile documents."""
    return [
        ARTICLE * 3,
        OTHER * 3,
        ARTICLE * 3 + " Updated at 5pm.",
        "",
        None,
        ARTICLE * 3,
        "\u00a0 \n ",
        OTHER * 3 + " Photos: J. Smith.",
    ]


def kept_ids(out):
    return [d.id for d in out if "duplicate_of" not in d.metadata]


def test_extractor_extracts_and_drops_what_it_cannot_read():
    html = f"<html><head><title>Flood</title></head><body><nav>Home | News</nav><article><p>{ARTICLE}</p></article></body></html>"
    good = Document(text=html, id="a", metadata={"url": "https://a.example/"})
    empty = Document(text="<html><body></body></html>", id="b")
    bad = Document(text=None, id="c")
    ex = NeardupExtractor(title=True)
    out = list(ex.run(iter([good, empty, bad])))
    assert [d.id for d in out] == ["a"]
    assert "town council" in out[0].text and "Home | News" not in out[0].text
    assert out[0].metadata["title"] == "Flood"
    assert ex.extract(html) == out[0].text
    stats = ex.stats.to_dict()["stats"]
    total = lambda v: v["total"] if isinstance(v, dict) else v  # noqa: E731
    assert total(stats["clean_error"]) == 1 and total(stats["dropped"]) == 1


def test_per_rank_block_removes_or_marks_near_duplicates():
    ds = docs(corpus())
    out = list(NeardupDedup().run(iter(ds)))
    # The copies of the article and of the bakery page go; documents
    # without text are kept, each a group of its own.
    assert [d.id for d in out] == ["d0", "d1", "d3", "d4", "d6"]
    marked = list(NeardupDedup(mode="mark").run(iter(docs(corpus()))))
    assert len(marked) == 8
    dup = {d.id: d.metadata["duplicate_of"] for d in marked if "duplicate_of" in d.metadata}
    assert dup == {"d2": "d0", "d5": "d0", "d7": "d1"}
    assert all(0 < d.metadata["similarity"] <= 1 for d in marked if d.id in dup)
    assert list(NeardupDedup().run(iter([]))) == []
    assert list(NeardupDedup().run(None)) == []


def test_removed_documents_go_to_the_exclusion_writer(tmp_path):
    from datatrove.pipeline.writers import JsonlWriter

    block = NeardupDedup(exclusion_writer=JsonlWriter(str(tmp_path / "removed"), compression=None))
    kept = [d.id for d in block.run(iter(docs(corpus())))]
    removed = written_ids(tmp_path / "removed")
    assert sorted(kept + removed) == sorted(f"d{i}" for i in range(8))
    assert sorted(removed) == ["d2", "d5", "d7"]


def test_options_fail_before_the_work():
    with pytest.raises(Exception, match="method"):
        NeardupDedup(method="nope")
    with pytest.raises(ValueError, match="keep"):
        NeardupDedup(keep="oldest")
    with pytest.raises(ValueError, match="mode"):
        NeardupDedup(mode="delete")


def run_stages(tmp_path, ranks, **opts):
    """Stages 1 to 3 over ``ranks`` (lists of documents), as the executor
    runs them: stage 1 per rank, stage 2 as one task, stage 3 per rank."""
    sig, clu, flt = NeardupDedup.stages(str(tmp_path / "dedup"), **opts)
    for r, ds in enumerate(ranks):
        assert list(sig.run(iter(ds), r, len(ranks))) == []
    list(clu.run(None, 0, 1))
    return [list(flt.run(iter(ds), r, len(ranks))) for r, ds in enumerate(ranks)]


def test_cross_rank_stages_decide_as_one_run_over_all_ranks(tmp_path):
    texts = corpus()
    whole = kept_ids(NeardupDedup(mode="mark").run(iter(docs(texts))))
    # Two ranks and an empty third one, in order: the same decisions.
    ranks = [docs(texts[:3]), docs(texts[3:], prefix="e"), []]
    out = run_stages(tmp_path, ranks, mode="mark")
    renamed = {f"e{i}": f"d{i + 3}" for i in range(5)}
    assert [renamed.get(i, i) for r in out for i in kept_ids(r)] == whole
    # The second rank's copy of the article points at the first rank's.
    assert out[1][2].metadata["duplicate_of"] == "d0"
    # And the same as dedup_files (neardup dedup) over the same texts.
    path = tmp_path / "docs.jsonl"
    with open(path, "w") as f:
        for i, t in enumerate(texts):
            f.write(json.dumps({"id": f"d{i}", "url": f"https://site{i}.example/d{i}", "text": t}) + "\n")
    rows = neardup.dedup_files([path])
    assert [r["id"] for r in rows if r["duplicate_of"] is None] == whole


def test_cross_rank_stage_within_a_memory_budget_decides_the_same(tmp_path):
    """Stage 2 reads the ranks' files a batch at a time into the engine of
    ``neardup dedup --memory``: with a budget of 0 bytes every document goes
    to disk, and the decisions are those of the run in memory."""
    texts = corpus() * 3
    ranks = [docs(texts[:9]), docs(texts[9:], prefix="e"), []]
    expected = run_stages(tmp_path / "a", ranks, mode="mark")
    spill = tmp_path / "spill"
    spill.mkdir()
    got = run_stages(tmp_path / "b", ranks, mode="mark", memory=0, spill_dir=str(spill))
    marks = lambda out: [[(d.id, d.metadata.get("duplicate_of")) for d in r] for r in out]  # noqa: E731
    assert marks(got) == marks(expected)
    assert sum(d is not None for r in marks(got) for _, d in r) >= 10
    assert list(spill.iterdir()) == []


def test_cross_rank_stage_verifies_on_a_sketch_as_dedup_files_does(tmp_path):
    """``verify_sketch=True`` on stage 2 is ``neardup dedup
    --verify-sketch``: stage 1 is unchanged, stage 2 keeps each document's
    sketch and decides as ``dedup_files(verify_sketch=True)`` over the same
    texts, in memory and spilled."""
    texts = corpus() * 3
    ranks = [docs(texts[:9]), docs(texts[9:], prefix="e")]
    held = run_stages(tmp_path / "a", ranks, mode="mark", verify_sketch=True)
    spill = tmp_path / "spill"
    spill.mkdir()
    spilled = run_stages(tmp_path / "b", ranks, mode="mark", verify_sketch=True, memory=0, spill_dir=str(spill))
    marks = lambda out: [[(d.id, d.metadata.get("duplicate_of")) for d in r] for r in out]  # noqa: E731
    assert marks(spilled) == marks(held)
    assert sum(d is not None for r in marks(held) for _, d in r) >= 10
    path = tmp_path / "docs.jsonl"
    with open(path, "w") as f:
        for d in (d for r in ranks for d in r):
            f.write(json.dumps({"id": d.id, "url": d.metadata["url"], "text": d.text}) + "\n")
    rows = neardup.dedup_files([path], verify_sketch=True)
    assert [(r["id"], r["duplicate_of"]) for r in rows] == [m for r in marks(held) for m in r]


def test_fingerprint_files_are_read_in_batches_and_damage_is_named(tmp_path):
    from neardup.datatrove._fingerprints import Fingerprints, iter_records, read_header

    sig, _, _ = NeardupDedup.stages(str(tmp_path / "d"))
    list(sig.run(iter(docs(corpus())), 0, 1))
    path = tmp_path / "d" / "fingerprints" / "00000.ndfp"
    with open(path, "rb") as f:
        header, whole = Fingerprints.read(f, "x")
    assert header["rank"] == 0 and len(whole) == len(corpus())
    with open(path, "rb") as f:
        assert read_header(f, "x") == header
        parts = list(iter_records(f, "x", batch=3))
    assert [len(p) for p in parts] == [3, 3, 2]
    assert sum((p.ids for p in parts), []) == whole.ids
    # Spilled at once under a budget of 0 bytes, in memory under the default.
    from neardup.datatrove._fingerprints import Options, new_groups

    spilled, held = new_groups(Options(), memory=0, spill_dir=str(tmp_path)), new_groups(Options())
    for g in (spilled, held):
        whole.add_to(g)
        g.run(1)
    assert spilled.spilled and not held.spilled
    assert spilled.duplicates(0, len(whole)) == held.duplicates(0, len(whole)) != []
    assert spilled.duplicates(2, 3) == [d for d in held.duplicates(0, 8) if d[0] == 2]
    with pytest.raises(neardup.NeardupError, match="once"):
        held.run(1)
    data = path.read_bytes()
    (tmp_path / "cut").write_bytes(data[:-3])
    with open(tmp_path / "cut", "rb") as f, pytest.raises(ValueError, match="cut: cut short"):
        Fingerprints.read(f, "cut")
    (tmp_path / "bad").write_bytes(b"NDFP1\nnot json\n")
    with open(tmp_path / "bad", "rb") as f, pytest.raises(ValueError, match="bad: bad header"):
        read_header(f, "bad")
    (tmp_path / "other").write_bytes(b"PK\x03\x04")
    with open(tmp_path / "other", "rb") as f, pytest.raises(ValueError, match="not a neardup fingerprint file"):
        read_header(f, "other")


def test_cross_rank_stages_refuse_missing_or_mismatched_work(tmp_path):
    sig, clu, flt = NeardupDedup.stages(str(tmp_path / "d"))
    with pytest.raises(FileNotFoundError, match="stage 1"):
        list(clu.run(None, 0, 1))
    list(sig.run(iter(docs(corpus())), 0, 2))
    with pytest.raises(FileNotFoundError, match=r"rank\(s\) \[1\]"):
        list(clu.run(None, 0, 1))
    with pytest.raises(ValueError, match="one task"):
        list(clu.run(None, 0, 2))
    with pytest.raises(FileNotFoundError, match="stage 2"):
        list(flt.run(iter([]), 0, 2))
    other = NeardupDedupCluster(str(tmp_path / "d" / "fingerprints"), str(tmp_path / "x"), method="simhash")
    list(NeardupDedupSignature(str(tmp_path / "d" / "fingerprints")).run(iter([]), 1, 2))
    with pytest.raises(ValueError, match="made with"):
        list(other.run(None, 0, 1))
    assert isinstance(flt, NeardupDedupFilter)


# --- Real pipelines over the shared dev WARC ---------------------------------


def split_warc(src: pathlib.Path, dest: pathlib.Path):
    """Two files with the first and second half of the records (one gzip
    member each), in order."""
    data = src.read_bytes()
    members, pos = [], 0
    while pos < len(data):
        d = zlib.decompressobj(31)
        d.decompress(data[pos:])
        end = len(data) - len(d.unused_data)
        members.append(data[pos:end])
        pos = end
    dest.mkdir()
    h = len(members) // 2
    (dest / "a.warc.gz").write_bytes(b"".join(members[:h]))
    (dest / "b.warc.gz").write_bytes(b"".join(members[h:]))
    return dest


def kept_by_neardup_dedup(paths):
    """The documents ``neardup dedup`` keeps that have main text (datatrove
    extractors drop pages without text before any dedup block)."""
    return {r["id"] for r in neardup.dedup_files(paths) if r["duplicate_of"] is None and not r.get("empty") and not r.get("error")}


def written_ids(folder: pathlib.Path):
    ids = []
    for f in sorted(folder.glob("*.jsonl*")):
        ids += [json.loads(line)["id"] for line in f.open()]
    return ids


def run(pipeline, tasks, logs):
    # One worker: the ranks run one after the other in this process (the
    # decisions do not depend on how many run at once).
    LocalPipelineExecutor(pipeline=pipeline, tasks=tasks, workers=1, logging_dir=str(logs)).run()


@pytest.fixture(scope="module")
def dev_kept(dev_dir):
    return kept_by_neardup_dedup([dev_dir / "pages.warc.gz"])


def test_pipeline_with_one_task_keeps_what_neardup_dedup_keeps(dev_dir, dev_kept, tmp_path):
    from datatrove.pipeline.writers import JsonlWriter

    run([NeardupReader(str(dev_dir), glob_pattern="*.warc.gz"), NeardupExtractor(), NeardupDedup(),
         JsonlWriter(str(tmp_path / "kept"), compression=None)], 1, tmp_path / "logs")
    ids = written_ids(tmp_path / "kept")
    assert len(ids) == len(set(ids)) == len(dev_kept) and set(ids) == dev_kept


def test_pipeline_with_two_tasks_keeps_what_neardup_dedup_keeps(dev_dir, dev_kept, tmp_path):
    from datatrove.pipeline.writers import JsonlWriter

    halves = split_warc(dev_dir / "pages.warc.gz", tmp_path / "halves")
    sig, clu, flt = NeardupDedup.stages(str(tmp_path / "dedup"))
    read = lambda: [NeardupReader(str(halves)), NeardupExtractor()]  # noqa: E731
    run(read() + [sig], 2, tmp_path / "l1")
    run([clu], 1, tmp_path / "l2")
    run(read() + [flt, JsonlWriter(str(tmp_path / "kept"), compression=None)], 2, tmp_path / "l3")
    ids = written_ids(tmp_path / "kept")
    assert len(ids) == len(set(ids)) == len(dev_kept) and set(ids) == dev_kept


def test_datatrove_warc_reader_pipeline_keeps_what_neardup_dedup_keeps_of_its_documents(dev_dir, tmp_path):
    """datatrove's own WarcReader reads fewer pages than neardup (it drops
    pages libmagic does not call HTML and pages it cannot decode) and
    decodes some differently: over the documents it gives, two tasks (the
    second with no file: an empty rank) keep what ``neardup dedup`` keeps
    of those same documents."""
    pytest.importorskip("warcio", reason="datatrove's WarcReader needs warcio")
    pytest.importorskip("magic", reason="datatrove's WarcReader needs python-magic")
    pytest.importorskip("cchardet", reason="datatrove's WarcReader needs faust-cchardet")
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter

    reader = WarcReader(str(dev_dir), glob_pattern="*.warc.gz")
    as_read = tmp_path / "as_read.jsonl"
    with open(as_read, "w") as f:
        for d in reader.run(None, 0, 1):
            f.write(json.dumps({"id": d.id, "url": d.metadata["url"], "html": d.text}) + "\n")
    expected = kept_by_neardup_dedup([as_read])
    sig, clu, flt = NeardupDedup.stages(str(tmp_path / "dedup"))
    read = lambda: [WarcReader(str(dev_dir), glob_pattern="*.warc.gz"), NeardupExtractor()]  # noqa: E731
    run(read() + [sig], 2, tmp_path / "l1")
    run([clu], 1, tmp_path / "l2")
    run(read() + [flt, JsonlWriter(str(tmp_path / "kept"), compression=None)], 2, tmp_path / "l3")
    ids = written_ids(tmp_path / "kept")
    assert len(ids) == len(set(ids)) == len(expected) and set(ids) == expected

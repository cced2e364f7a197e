"""neardup.datatrove.NeardupSpans with datatrove itself: the spans of
`neardup spans` removed from or marked in the documents of a pipeline."""

import json
import pathlib

import pytest

import neardup

pytest.importorskip("datatrove", reason="datatrove is not installed (pip install 'neardup[datatrove]')")
from datatrove.data import Document  # noqa: E402
from datatrove.executor import LocalPipelineExecutor  # noqa: E402
from datatrove.pipeline.readers import JsonlReader  # noqa: E402
from datatrove.pipeline.writers import JsonlWriter  # noqa: E402

from neardup.datatrove import NeardupSpans  # noqa: E402

DATA = pathlib.Path(__file__).resolve().parents[2] / "cli" / "tests" / "data" / "spans"


def read_jsonl(path):
    return [json.loads(line) for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines()]


def docs():
    return [Document(text=d["text"], id=d["id"]) for d in read_jsonl(DATA / "corpus.jsonl")]


def test_marks_the_spans_of_the_command():
    out = list(NeardupSpans(mode="mark").run(iter(docs())))
    want = read_jsonl(DATA / "paragraph.jsonl")
    assert [d.metadata["neardup_spans"] for d in out] == [w["spans"] for w in want]


def test_removes_them_as_clean_does_and_drops_emptied_documents(tmp_path):
    out = list(NeardupSpans(unit="sentence").run(iter(docs())))
    # "e" is all repeated; "d" was empty: both dropped.
    assert [d.id for d in out] == ["a", "b", "c"]
    assert out[1].text == "The museum will stay closed until the roof is repaired.\nShort line."
    assert "repaired" not in out[2].text
    subprocess_free = neardup.clean_spans("ab\ncd\nef", [{"start": 3, "end": 5}])
    assert subprocess_free == "ab\nef"
    with pytest.raises(ValueError, match="mode"):
        NeardupSpans(mode="erase")
    with pytest.raises(neardup.NeardupError, match="unit"):
        NeardupSpans(unit="word")
    # Texts that are not str count as empty.
    odd = list(NeardupSpans(mode="mark").run(iter([Document(text=None, id="x")])))
    assert odd[0].metadata["neardup_spans"] == []


def test_in_a_pipeline_with_datatrove_readers_and_writers(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "part.jsonl").write_text((DATA / "corpus.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    LocalPipelineExecutor(
        pipeline=[JsonlReader(str(src)), NeardupSpans(), JsonlWriter(str(tmp_path / "out"), compression=None)],
        tasks=1, workers=1, logging_dir=str(tmp_path / "logs"),
    ).run()
    written = [json.loads(l) for f in sorted((tmp_path / "out").glob("*.jsonl")) for l in f.read_text().splitlines()]
    by_id = {d["id"]: d["text"] for d in written}
    assert set(by_id) == {"a", "b", "c"}
    assert "SUBSCRIBE" not in by_id["b"] and "Subscribe" in by_id["a"]

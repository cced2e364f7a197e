"""The span stage from Python: the same rows as `neardup spans`, per
document and over files."""

import json
import pathlib

import pytest

import neardup

DATA = pathlib.Path(__file__).resolve().parents[2] / "cli" / "tests" / "data" / "spans"


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_spans_over_files_gives_the_rows_of_the_command():
    # The CLI's snapshots are the expected rows: one rule, every frontend.
    corpus = str(DATA / "corpus.jsonl")
    assert neardup.spans([corpus]) == read_jsonl(DATA / "paragraph.jsonl")
    assert neardup.spans([corpus], "sentence") == read_jsonl(DATA / "sentence.jsonl")
    assert neardup.spans([corpus], keep="none") == read_jsonl(DATA / "keep-none.jsonl")
    got = neardup.spans([corpus], None, reference=[str(DATA / "reference.jsonl")], ref_ngram=8)
    assert got == read_jsonl(DATA / "reference-out.jsonl")


def test_offsets_index_python_strings():
    docs = read_jsonl(DATA / "corpus.jsonl")
    finder = neardup.SpanFinder()
    rows = finder.spans([d["text"] for d in docs], ids=[d["id"] for d in docs])
    b = rows[1]
    pieces = [docs[1]["text"][s["start"]:s["end"]] for s in b["spans"]]
    assert pieces == ["SUBSCRIBE to our newsletter, for the latest news", "图书馆周一重新开放，市民可以免费借阅图书！"]
    assert all(s["first"] == "a" for s in b["spans"])


def test_add_streams_the_same_spans_as_a_whole_run():
    texts = [
        "A story about the harbour and its boats.\nSubscribe to our weekly newsletter today!",
        "Another story, on the market square.\nSUBSCRIBE to our weekly newsletter today",
        "A story about the harbour and its boats.",
        "",
    ]
    finder = neardup.SpanFinder("line")
    streamed = [finder.add(str(i), t) for i, t in enumerate(texts)]
    assert len(finder) == 4
    whole = neardup.SpanFinder("line").spans(texts, threads=2)
    assert streamed == [r["spans"] for r in whole]
    assert streamed[1] == [{"start": 37, "end": 77, "kind": "line", "first": "0"}]
    assert streamed[2] == [{"start": 0, "end": 40, "kind": "line", "first": "0"}]
    assert [r["chars"] for r in whole] == [len(t) for t in texts]


def test_fuzzy_reference_and_keep_none():
    base = " ".join(f"word{i}" for i in range(40))
    near = base.replace("word39", "changed")
    rows = neardup.SpanFinder(fuzzy=True).spans([base, near])
    assert rows[1]["spans"] == [{"start": 0, "end": len(near), "kind": "paragraph", "first": "0"}]
    assert neardup.SpanFinder().spans([base, near])[1]["spans"] == []
    finder = neardup.SpanFinder(None, reference=[("q7", "what is the boiling point of water at sea level in degrees")], ref_ngram=6)
    text = "Quiz time. What is the BOILING point of water at sea level? Think."
    (span,) = finder.add("doc", text)
    assert span["reference"] == "q7" and text[span["start"]:span["end"]] == "What is the BOILING point of water at sea level"
    none = neardup.SpanFinder(keep="none")
    rows = none.spans([base, base])
    assert [r["spans"][0]["first"] for r in rows] == ["0", "0"]
    with pytest.raises(neardup.NeardupError, match="keep='first'"):
        none.add("x", base)


def test_bad_options_are_errors():
    with pytest.raises(neardup.NeardupError, match="unit"):
        neardup.SpanFinder("word")
    with pytest.raises(neardup.NeardupError, match="fuzzy"):
        neardup.SpanFinder("line", fuzzy=True)
    with pytest.raises(neardup.NeardupError, match="overlap"):
        neardup.SpanFinder(fuzzy=True, overlap=0)
    # Options that do not apply are refused, not ignored.
    with pytest.raises(neardup.NeardupError, match="--min-chars"):
        neardup.SpanFinder("substring", min_chars=5)
    with pytest.raises(neardup.NeardupError, match="--fuzzy"):
        neardup.SpanFinder("line", ngram=5)
    with pytest.raises(neardup.NeardupError):
        neardup.spans(["/nonexistent/file.jsonl"])


def test_substring_unit_gives_the_rows_of_the_command():
    corpus = str(DATA / "corpus.jsonl")
    assert neardup.spans([corpus], "substring", min_tokens=6) == read_jsonl(DATA / "substring.jsonl")
    got = neardup.spans([corpus], "substring", min_bytes=30, keep="none")
    assert got == read_jsonl(DATA / "substring-bytes.jsonl")
    docs = read_jsonl(DATA / "corpus.jsonl")
    finder = neardup.SpanFinder("substring", min_tokens=6)
    rows = finder.spans([d["text"] for d in docs], ids=[d["id"] for d in docs])
    assert rows == read_jsonl(DATA / "substring.jsonl")
    c = docs[2]["text"]
    first = rows[2]["spans"][0]
    assert c[first["start"]:first["end"]] == "Café owners on the high street welcomed the new cycle lanes"
    # Per-document answers need the whole corpus first: an error, not silence.
    with pytest.raises(neardup.NeardupError, match="substring"):
        finder.add("x", c)
    with pytest.raises(neardup.NeardupError, match="min-tokens"):
        neardup.SpanFinder("line", min_tokens=5)

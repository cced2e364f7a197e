"""Every ```python block of README.md runs as written, and the package's
namespace and reprs look like Python's."""

import re

import pytest

import neardup


def python_blocks(repo):
    text = (repo / "README.md").read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_readme_has_python_snippets(repo):
    assert len(python_blocks(repo)) >= 3


@pytest.mark.parametrize("index", range(3))
def test_readme_python_snippet_runs(repo, index, capsys):
    blocks = python_blocks(repo)
    exec(compile(blocks[index], f"README.md python block {index}", "exec"), {})
    out = capsys.readouterr().out
    assert out  # each block prints what it shows


def test_readme_first_snippet_results(repo):
    ns = {}
    exec(compile(python_blocks(repo)[0], "README.md", "exec"), ns)
    assert 0.5 < ns["a"].jaccard(ns["b"]) < 1.0
    assert ns["v"].duplicate and ns["v"].duplicate_of == "https://a.example/1"
    assert "https://a.example/1" in ns["d"] and "https://b.example/2" not in ns["d"]


def test_readme_datasketch_snippet_results(repo):
    ns = {}
    exec(compile(python_blocks(repo)[1], "README.md", "exec"), ns)
    assert abs(ns["m1"].jaccard(ns["m2"]) - 0.714) < 0.16
    assert ns["lsh"].query(ns["m1"]) == ["m2"]


def test_readme_spans_snippet_results(repo):
    ns = {}
    exec(compile(python_blocks(repo)[2], "README.md", "exec"), ns)
    assert ns["spans"] == [{"start": 30, "end": 64, "kind": "line", "first": "a"}]
    assert [r["spans"][0]["first"] for r in ns["rows"]] == ["0", "0"]


def test_namespace_is_clean():
    public = {n for n in dir(neardup) if not n.startswith("_")}
    assert not public & {"List", "Optional", "Union", "Iterable", "annotations"}
    assert public - {"spark", "scrapy", "datatrove"} <= set(neardup.__all__)


def test_reprs_are_python():
    doc = neardup.extract(b"<html><body><p>Hello there, this is a page.</p></body></html>")
    assert "Some(" not in repr(doc) and "None" in repr(doc)
    d = neardup.Deduplicator()
    v = d.add("x", text="   ")
    assert repr(v) == "Verdict(id='x', duplicate=False, duplicate_of=None, similarity=None, empty=True)"
    assert repr(d) == "Deduplicator(method='default', documents=1, kept=1)"
    assert repr(neardup.sketch("simhash", "a few words of text")).startswith("Signature(method='simhash'")

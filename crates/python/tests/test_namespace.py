"""The package's namespace and reprs look like Python's. (The examples of
README.md and docs/ run in tests/docs.)"""

import neardup


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

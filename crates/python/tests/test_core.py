import gzip
import json
import pickle

import pytest

import neardup
from neardup import Deduplicator, MinHash, NeardupError, Signature, SimHash, TextMinHash

from corpus import corpus

ARTICLE = (
    "<html><head><title>Cycle lanes approved</title></head><body>"
    "<nav><a href='/'>Home</a> <a href='/news'>News</a> <a href='/sport'>Sport</a></nav>"
    "<article><h1>Cycle lanes approved</h1>"
    "<p>The council approved the new cycle lanes on the high street after a long debate "
    "on Monday evening, with a majority of councillors in favour of the plan.</p>"
    "<p>Work will start in the spring and should last about four months, the council "
    "said, and buses will be diverted while the road is closed.</p>"
    "</article><footer>Copyright 2024 The Daily Example. All rights reserved.</footer>"
    "</body></html>"
)


def test_extract_main_text_from_bytes_and_str():
    doc = neardup.extract(ARTICLE.encode("utf-8"), url="http://example.com/a")
    assert doc.title == "Cycle lanes approved"
    assert doc.text.startswith("The council approved") or "The council approved" in doc.text
    assert "Copyright" not in doc.text
    assert "Home" not in doc.text
    assert len(doc.paragraphs) >= 2
    assert doc.text == "\n".join(doc.paragraphs)
    assert doc.url == "http://example.com/a"
    s = neardup.extract(ARTICLE)
    assert s.text == doc.text
    assert s.charset == "UTF-8"


def test_extract_decodes_declared_charset():
    body = (
        "<meta charset=gbk><title>标题</title><body><article><p>这是一个用中文写的段落，内容足够长，"
        "可以作为正文。我们再多写一些文字，让它更像一篇文章。</p></article></body>"
    )
    doc = neardup.extract(body.encode("gbk"))
    assert doc.charset == "GBK"
    assert "中文写的段落" in doc.text
    latin = neardup.extract(
        "<p>Un café au lait, s'il vous plaît, et un croissant bien chaud pour le petit déjeuner.</p>".encode(
            "latin-1"
        ),
        content_type="text/html; charset=iso-8859-1",
    )
    assert "café" in latin.text


def test_all_text_keeps_boilerplate():
    main = neardup.extract(ARTICLE)
    full = neardup.extract(ARTICLE, all_text=True)
    assert "Copyright" in full.text and "Copyright" not in main.text


def split_inclusive(text, sep):
    out, start = [], 0
    while True:
        i = text.find(sep, start)
        if i < 0:
            break
        out.append(text[start : i + len(sep)])
        start = i + len(sep)
    if start < len(text):
        out.append(text[start:])
    return out


def test_signatures_match_rust_golden_bytes(repo):
    """The Rust crate's golden signatures (crates/sketch/tests/golden.txt),
    recomputed from Python byte for byte, and decoded back."""
    golden = repo / "crates" / "sketch" / "tests" / "golden.txt"
    src = (repo / "crates" / "sketch" / "tests" / "golden.rs").read_text()

    def const(name):
        start = src.index(f"const {name}: &str =")
        body = src[src.index('"', start) + 1 : src.index('";', start)]
        return body.replace("\\\n", "")

    texts = {"english": (const("ENGLISH"), ". "), "chinese": (const("CHINESE"), "。")}
    lines = golden.read_text().splitlines()
    assert len(lines) == 2 * len([m for m in neardup.methods() if m != "default"])
    for line in lines:
        name, script, hexed = line.split(" ")
        text, sep = texts[script]
        sig = neardup.sketch(name, text, split_inclusive(text, sep))
        assert sig.to_bytes().hex() == hexed, line
        back = Signature.from_bytes(bytes.fromhex(hexed))
        assert back == sig
        assert back.method == name
        assert back.similarity(sig) == 1.0


TEXT = (
    "The council approved the new cycle lanes on the high street after a long debate on Monday "
    "evening. Work will start in the spring and should last about four months, the council said."
)
NEAR = TEXT.replace("Monday evening", "Monday night")
OTHER = "A completely different story about the harbour festival and its fireworks, which drew large crowds."


def test_text_minhash_update_jaccard_and_bytes():
    a = MinHash.from_text(TEXT)
    assert isinstance(a, TextMinHash)
    b = TextMinHash()
    first, second = TEXT.split(". ", 1)
    b.update(first + ".")
    b.update(second)
    assert a.jaccard(b) == 1.0  # pieces are joined by a newline: same shingles
    near, other = TextMinHash(NEAR), TextMinHash(OTHER)
    assert 0.4 < a.jaccard(near) < 1.0
    assert a.jaccard(other) < 0.1
    assert a.is_duplicate(near) == (a.jaccard(near) >= 0.5)
    assert len(a) == 128 and len(a.digest()) == 128
    c = TextMinHash.from_bytes(a.to_bytes())
    assert c == a and c.jaccard(near) == a.jaccard(near)
    with pytest.raises(NeardupError):
        c.update("more")
    small = TextMinHash(TEXT, num_perm=64, seed=3)
    assert len(small) == 64
    with pytest.raises(NeardupError, match="ParameterMismatch|different|mismatch|compare"):
        small.jaccard(a)
    assert TextMinHash(TEXT, oph=True).signature.method == "minhash-oph"
    strict = TextMinHash(TEXT, threshold=0.99)
    assert not strict.is_duplicate(near)


def test_simhash_distance_and_wide():
    a, b, c = SimHash(TEXT), SimHash(NEAR), SimHash(OTHER)
    assert a.distance(a) == 0
    assert a.distance(b) < a.distance(c)
    assert a.similarity(b) == pytest.approx(1 - a.distance(b) / 64)
    assert 0 <= a.value < 2**64
    w = SimHash(TEXT, wide=True)
    assert w.signature.method == "simhash128"
    assert SimHash.from_bytes(w.to_bytes()).value == w.value
    with pytest.raises(NeardupError, match="compare"):
        a.signature.similarity(w.signature)


def test_every_method_by_name_and_pickle():
    for name in neardup.methods():
        s = neardup.sketch(name, TEXT)
        assert s.method == ("minhash" if name == "default" else name)
        assert s.similarity(s) == 1.0 and s.is_duplicate(s)
        assert pickle.loads(pickle.dumps(s)) == s
        assert Signature.from_bytes(s.to_bytes()) == s
    with pytest.raises(NeardupError, match="method"):
        neardup.sketch("nope", TEXT)
    with pytest.raises(NeardupError, match="threshold"):
        neardup.sketch("simhash", TEXT, threshold=0.5)
    with pytest.raises(NeardupError, match="decode"):
        Signature.from_bytes(b"garbage")
    with pytest.raises(NeardupError, match="cannot compare"):
        neardup.sketch("minhash", TEXT).similarity(neardup.sketch("simhash", TEXT))


def test_deduplicator_first_seen_no_chaining():
    a = " ".join(f"a{i}" for i in range(60))
    b = " ".join(f"b{i}" for i in range(60))
    half_a_b = " ".join(f"a{i}" for i in range(30)) + " " + b
    d = Deduplicator(threshold=0.5)
    assert not d.add("A", text=a).duplicate
    v = d.add("B", text=b)
    assert not v and v.duplicate_of is None and v.similarity is None
    v = d.add("AB", text=half_a_b)
    assert v.duplicate and v.duplicate_of == "B" and 0.5 <= v.similarity < 1.0
    # An exact copy of a duplicate follows it to the kept document.
    v = d.add("AB2", text=half_a_b)
    assert v.duplicate_of == "B"
    v = d.add("A2", text=a)
    assert v.duplicate_of == "A" and v.similarity == 1.0
    # query does not insert.
    q = d.query(text=a)
    assert q.duplicate_of == "A" and q.id is None
    assert len(d) == 5 and "A2" in d and "nope" not in d
    assert d.clusters() == {"A": ["A", "A2"], "B": ["B", "AB", "AB2"]}
    e = d.add("E", text="  ... ")
    assert e.empty and not e.duplicate
    with pytest.raises(NeardupError, match="already added"):
        d.add("A", text=a)
    with pytest.raises(NeardupError, match="exactly one"):
        d.add("X")
    with pytest.raises(NeardupError, match="keep"):
        Deduplicator(keep="longest")


def test_deduplicator_takes_html_and_signatures():
    d = Deduplicator()
    d.add("page", ARTICLE.encode())
    v = d.add("page-copy", ARTICLE.replace("Monday evening", "Monday night"))
    assert v.duplicate_of == "page"
    sig = d.fingerprint(ARTICLE)
    assert d.query(signature=sig).duplicate_of == "page"
    with pytest.raises(NeardupError, match="signature"):
        d.query(signature=neardup.sketch("simhash", TEXT))


def write_jsonl(path, docs):
    with open(path, "w") as f:
        for i, t in docs:
            f.write(json.dumps({"id": i, "text": t}) + "\n")


@pytest.mark.parametrize(
    "method,kw",
    [
        ("default", {}),
        ("default", {"chinese": True}),
        ("minhash", {}),
        ("minhash", {"threshold": 0.8}),
        ("minhash-oph", {}),
        ("simhash", {"max_distance": 6}),
        ("exact", {}),
        ("supershingle", {}),
        ("long-sentence", {}),
        ("paragraph", {}),
    ],
)
def test_incremental_equals_batch_engine(tmp_path, method, kw):
    kw = dict(kw)
    docs = corpus(chinese=kw.pop("chinese", False))
    path = tmp_path / "docs.jsonl"
    write_jsonl(path, docs)
    # The incremental engine sees no later documents, so it has neither
    # the composite page check (which looks a run up in the whole corpus)
    # nor the partial copy check (which reads a page's later copies).
    batch = neardup.dedup_files([str(path)], method, composite_check=False, partial_check=False, **kw)
    d = Deduplicator(method, composite_check=False, **kw)
    for i, t in docs:
        d.add(i, text=t)
    rows = d.rows()
    for r in batch:
        r.pop("empty", None)
    assert rows == batch
    assert sum(r["duplicate_of"] is not None for r in rows) > 0 or method == "exact"


def test_dedup_files_formats_keep_and_errors(tmp_path):
    docs = [("x", TEXT), ("y", NEAR), ("z", OTHER), ("e", "")]
    path = tmp_path / "docs.jsonl.gz"
    with gzip.open(path, "wt") as f:
        for i, t in docs:
            f.write(json.dumps({"id": i, "text": t}) + "\n")
        f.write("not json\n")
    rows = neardup.dedup_files([str(path)])
    by = {r["id"]: r for r in rows}
    assert by["y"]["duplicate_of"] == "x" and by["y"]["cluster"] == "x"
    assert by["z"]["duplicate_of"] is None and by["z"]["cluster"] == "z"
    assert by["e"].get("empty") is True
    assert [r for r in rows if "error" in r], rows
    longest = {r["id"]: r for r in neardup.dedup_files([str(path)], keep="longest")}
    assert longest["x"]["duplicate_of"] == "y" or longest["y"]["duplicate_of"] == "x"
    with pytest.raises(OSError):
        neardup.dedup_files([str(tmp_path / "missing.warc.gz")])
    with pytest.raises(NeardupError, match="keep"):
        neardup.dedup_files([str(path)], keep="best")
    dup = tmp_path / "dup.jsonl"
    write_jsonl(dup, [("same", TEXT), ("same", OTHER)])
    with pytest.raises(NeardupError, match="unique"):
        neardup.dedup_files([str(dup)])


def test_dedup_files_within_a_memory_budget_or_spilled_gives_the_same_rows(tmp_path, dev_dir):
    """``memory``/``spill_dir`` are ``neardup dedup``'s ``--memory`` and
    ``--spill-dir``: a budget of 0 bytes puts every document on disk, a
    spill directory alone too; the rows are those of the run in memory, and
    the spill files are gone after the run."""
    paths = [str(dev_dir / "pages.warc.gz")]
    expected = neardup.dedup_files(paths)
    assert sum(r["duplicate_of"] is not None for r in expected) > 100
    spill = tmp_path / "spill"
    spill.mkdir()
    for kw in (dict(memory=0, spill_dir=str(spill)), dict(spill_dir=str(spill)), dict(memory=1 << 40)):
        assert neardup.dedup_files(paths, threads=1, **kw) == expected, kw
        assert list(spill.iterdir()) == [], kw
    with pytest.raises(OSError, match="spill_dir"):
        neardup.dedup_files(paths, spill_dir=str(tmp_path / "missing"))
    dup = tmp_path / "dup.jsonl"
    write_jsonl(dup, [("same", TEXT), ("other", OTHER), ("same", NEAR)])
    with pytest.raises(NeardupError, match="unique"):
        neardup.dedup_files([str(dup)], memory=0, spill_dir=str(spill))


def test_dedup_files_verify_sketch_holds_in_memory_and_spilled(tmp_path, dev_dir):
    """``verify_sketch=True`` is ``neardup dedup --verify-sketch``: pairs are
    verified on a sketch of their shingles. In memory, spilled at once and
    on one thread it decides the same; it is not the exact run (the site
    template pass is off with it); a method without verification refuses
    it before the work."""
    paths = [str(dev_dir / "pages.warc.gz")]
    exact = neardup.dedup_files(paths)
    sketched = neardup.dedup_files(paths, verify_sketch=True)
    assert sum(r["duplicate_of"] is not None for r in sketched) > 100
    assert sketched != exact
    spill = tmp_path / "spill"
    spill.mkdir()
    for kw in (dict(memory=0, spill_dir=str(spill)), dict(threads=1)):
        assert neardup.dedup_files(paths, verify_sketch=True, **kw) == sketched, kw
    assert list(spill.iterdir()) == []
    with pytest.raises(ValueError, match="verify_sketch"):
        neardup.dedup_files(paths, method="simhash", verify_sketch=True)


def warc_record(uri, html, ctype="text/html; charset=utf-8"):
    payload = f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\n\r\n".encode() + html
    head = (
        "WARC/1.0\r\nWARC-Type: response\r\n"
        f"WARC-Target-URI: {uri}\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n"
    ).encode()
    return head + payload + b"\r\n\r\n"


def test_read_documents_warc(tmp_path):
    path = tmp_path / "x.warc.gz"
    with gzip.open(path, "wb") as f:
        f.write(warc_record("http://a.example/", ARTICLE.encode()))
        f.write(
            b"WARC/1.0\r\nWARC-Type: request\r\nWARC-Target-URI: http://a.example/\r\n"
            b"Content-Length: 4\r\n\r\nGET \r\n\r\n"
        )
        f.write(warc_record("http://b.example/", ARTICLE.encode("utf-8")))
    recs = list(neardup.read_documents([str(path)]))
    assert [r.id for r in recs] == ["http://a.example/", "http://b.example/"]
    assert recs[0].html == ARTICLE.encode() and recs[0].error is None
    assert recs[0].content_type.startswith("text/html")
    rows = neardup.dedup_files([str(path)])
    assert rows[1]["duplicate_of"] == "http://a.example/" and rows[1]["similarity"] == 1.0


def test_spark_kernels_read_bytes_as_they_read_str():
    """Texts as UTF-8 bytes (how neardup.spark hands them over) give the
    fingerprints of the same texts as str; invalid UTF-8 is replaced by
    U+FFFD; exact verification needs no signatures."""
    from neardup import _neardup as nd

    base = "Le café “du coin” ferme ses portes après trente ans de service au quartier"
    texts = [base, base + " demain", "ordre 漢字 du jour et encore quelques mots ici", "bad \ufffd bytes and more words"]
    as_bytes = [t.encode() for t in texts[:3]] + [b"bad \xff bytes and more words"]
    ids = ["a", "b", "c", "d"]
    by_str = nd.fingerprint_batch("default", None, None, ids, texts=texts)
    by_bytes = nd.fingerprint_batch("default", None, None, ids, texts=as_bytes)
    assert by_str == by_bytes
    html = f"<html><head><meta charset=utf-8><title>t</title></head><body><p>{base}</p></body></html>"
    assert nd.fingerprint_batch("default", None, None, ["h"], htmls=[html]) == nd.fingerprint_batch(
        "default", None, None, ["h"], htmls=[html.encode()]
    )
    sigs, _, _, shingles, _ = by_str
    with_sigs = nd.verify_batch("default", None, None, [sigs[0]], [sigs[1]], [shingles[0]], [shingles[1]])
    without = nd.verify_batch("default", None, None, None, None, [shingles[0]], [shingles[1]])
    assert with_sigs == without and without[0][0] is not None
    with pytest.raises(ValueError, match="pair 0: no shingles and no signatures"):
        nd.verify_batch("default", None, None, None, None, [None], [None])


def test_whole_graph_decision_equals_the_decision_by_component():
    """``keep_first_packed_batch`` (every pair in one call, no component
    labels) gives the decision of ``keep_first_batch`` on the same pairs
    labelled by component: chains, stars, ties and isolated pairs."""
    import random
    import struct

    from neardup import _neardup as nd

    def pack(fmt, xs):
        return struct.pack(f"<{len(xs)}{fmt}", *xs)

    rng = random.Random(7)
    for _ in range(30):
        n = rng.randrange(2, 60)
        pairs = {}
        for _ in range(rng.randrange(1, 3 * n)):
            a, b = sorted(rng.sample(range(n), 2))
            # Few distinct similarities: ties happen.
            pairs[(a * 10, b * 10)] = rng.choice([0.7, 0.8, 0.8, 0.9, 1.0])
        # Components by a plain union-find, named by their smallest node.
        parent = {}

        def find(x):
            while parent.setdefault(x, x) != x:
                x = parent[x]
            return x

        for a, b in pairs:
            ra, rb = find(a), find(b)
            parent[max(ra, rb)] = min(ra, rb)
        u = [a for a, _ in pairs]
        v = [b for _, b in pairs]
        sims = list(pairs.values())
        want = nd.keep_first_batch([find(a) for a in u], u, v, sims)
        docs, kept, got_sims = nd.keep_first_packed_batch(pack("q", u), pack("q", v), pack("d", sims))
        count = len(docs) // 8
        got = (
            list(struct.unpack(f"<{count}q", docs)),
            list(struct.unpack(f"<{count}q", kept)),
            list(struct.unpack(f"<{count}d", got_sims)),
        )
        assert got == tuple(list(x) for x in want)
    with pytest.raises(NeardupError, match="differ in length"):
        nd.keep_first_packed_batch(pack("q", [1, 2]), pack("q", [3]), pack("d", [0.9, 0.9]))
    with pytest.raises(NeardupError, match="not 64-bit"):
        nd.keep_first_packed_batch(b"\x00" * 7, b"", b"")

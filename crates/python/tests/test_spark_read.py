"""neardup.spark.read_documents in Spark local mode: every format the CLI
reads (WARC, WET, ARC, HTML, JSON Lines, Parquet), read on executors in
parts, gives the CLI's records, ids, errors and order."""

import json
import os
import pathlib
import subprocess

import pytest

import neardup

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (pip install pyarrow)")

from neardup import spark as nds  # noqa: E402
from neardup.spark import _read  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[3]
IO = REPO / "crates" / "io" / "tests" / "data"


def make_jsonl(path):
    """Lines with ids, without (`PATH:LINE`), blank, invalid, numbers."""
    lines = []
    for i in range(60):
        if i % 11 == 3:
            lines.append("")
        elif i % 13 == 5:
            lines.append("{not json")
        elif i % 7 == 2:
            lines.append(json.dumps({"text": f"document without an id, number {i}"}))
        elif i % 9 == 4:
            lines.append(json.dumps({"id": i, "html": f"<p>page {i}</p>", "url": f"http://x/{i}"}))
        else:
            lines.append(json.dumps({"id": f"j{i}", "text": f"text of line {i} " * (i % 5 + 1)}))
    path.write_text("\n".join(lines), encoding="utf-8")  # no final newline
    return path


def make_parquet(path):
    import pyarrow as pa

    ids = [f"p{i}" if i % 6 else None for i in range(40)]
    texts = [f"row {i} of the parquet file" for i in range(40)]
    pq.write_table(pa.table({"id": ids, "text": texts}), path, row_group_size=7)
    return path


def make_repeats(tmp):
    (tmp / "again.jsonl").write_text('{"id":"a#2","text":"x"}\n{"id":"j1","text":"y"}\n', encoding="utf-8")
    return [IO / "repeated_id.jsonl", tmp / "again.jsonl"]


def unique(records):
    """The CLI's ids (`ids.rs`) given sequentially to `neardup.read_documents`'
    records; a repeated JSONL or Parquet id becomes an error."""
    seen, out = {}, []
    for rec, strict in records:
        id_, url, html, text, error = rec.id, rec.url, rec.html, rec.text, rec.error
        n = seen.get(id_, 0) + 1
        seen[id_] = n
        if n > 1:
            k = n
            while f"{id_}#{k}" in seen:
                k += 1
            seen[f"{id_}#{k}"], seen[id_] = 1, k
            if strict and error is None:
                error = f"document id {json.dumps(id_)} occurs more than once in the input"
                url = html = text = None
            id_ = f"{id_}#{k}"
        out.append((id_, url, html, text, error))
    return out


def expected(paths):
    """`neardup.read_documents` path by path (it expands directories as the
    CLI does), ids made unique over all of them."""
    rows = []
    for path in paths:
        strict = str(path).endswith((".jsonl", ".parquet"))
        rows.extend((rec, strict) for rec in neardup.read_documents([str(path)]))
    return unique(rows)


def read(spark, paths, **kw):
    df = nds.read_documents(spark, [str(p) for p in paths], **kw)
    assert df.columns == ["ord", "id", "url", "html", "text", "error"]
    rows = df.orderBy("ord").collect()
    ords = [r.ord for r in rows]
    assert ords == sorted(set(ords))
    return [(r.id, r.url, r.html and bytes(r.html), r.text, r.error) for r in rows], ords


def cli_extract(paths):
    """`neardup extract`'s (id, error) per document, when NEARDUP_BIN names
    a binary of the same sources."""
    b = os.environ.get("NEARDUP_BIN")
    if not (b and os.path.exists(b)):
        return None
    out = subprocess.run([b, "extract", "-q", *map(str, paths)], capture_output=True, check=True).stdout
    return [(d["id"], d.get("error")) for d in map(json.loads, out.decode().splitlines())]


# Each format alone where parts matter (JSON Lines ranges, Parquet row
# groups), then every format and fixture together (the archives' damaged
# records, repeats across files, a directory of HTML), which is what the
# CLI's order and ids are about.
@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "all"])
def test_read_documents_reads_as_the_cli(spark, tmp_path, fmt):
    inputs = {
        "warc": [REPO / "examples" / "crawl.warc.gz", IO / "repeated_uri.warc.gz", IO / "cut_in_middle.warc",
                 IO / "no_gzip_trailer.warc.gz", IO / "warc017.warc"],
        "wet": [IO / "wet.warc.wet.gz"],
        "arc": [IO / "v1.arc", IO / "v1.arc.gz", IO / "arc_without_extension"],
        "html": [REPO / "examples" / "pages"],
        "jsonl": [make_jsonl(tmp_path / "docs.jsonl")],
        "parquet": [make_parquet(tmp_path / "docs.parquet")],
        "repeats": make_repeats(tmp_path),
    }
    if fmt == "all":
        paths = [p for k in ("jsonl", "warc", "arc", "parquet", "html", "wet", "repeats") for p in inputs[k]]
    else:
        paths = inputs[fmt]
    # Small parts: JSON Lines ranges and Parquet row groups over several tasks.
    got, ords = read(spark, paths, split_bytes=300, num_partitions=3)
    want = expected(paths)
    assert got == want
    assert len(got) >= 1
    # The file index is in the high bits of `ord`.
    assert sorted({o >> 40 for o in ords}) == list(range(len({o >> 40 for o in ords})))
    ids = [i for i, *_ in got]
    if fmt in ("jsonl", "all"):
        # Line 3 has no id; line 6 is not JSON.
        assert f"{tmp_path / 'docs.jsonl'}:3" in ids
        assert any(i == f"{tmp_path / 'docs.jsonl'}:6" and e.startswith("JSON: line 6") for i, *_, e in got)
    if fmt in ("parquet", "all"):
        assert f"{tmp_path / 'docs.parquet'}:row-1" in ids and f"{tmp_path / 'docs.parquet'}:row-37" in ids
    # The reference against the CLI itself (which stops at a repeated JSON
    # Lines id, where read_documents gives the error row of neardup-io).
    plain = [p for p in paths if p not in inputs["repeats"]]
    cli = cli_extract(plain)
    if cli is not None:
        ref = expected(plain)
        assert [(i, e) for i, _, _, _, e in ref] == cli


def test_the_cli_ids_of_repeats(spark, tmp_path):
    got, _ = read(spark, make_repeats(tmp_path) + [IO / "repeated_uri.warc.gz", IO / "v1.arc", IO / "v1.arc.gz"])
    ids = [g[0] for g in got]
    # The third line of repeated_id.jsonl repeats `a`: an error named a#2,
    # so the literal `a#2` of the next file becomes a#2#2.
    assert ids[:5] == ["a", "b", "a#2", "a#2#2", "j1"]
    assert got[2][4] == 'document id "a" occurs more than once in the input'
    assert "http://example.com/a#2" in ids
    # v1.arc.gz holds the pages of v1.arc: the second file's are renamed.
    assert ids[-4:] == ["http://arc.example.com/", "http://arc.example.com/b",
                        "http://arc.example.com/#2", "http://arc.example.com/b#2"]
    # Without repeats across them, ids are those of dedup_files (the CLI's path).
    warc = [str(REPO / "examples" / "crawl.warc.gz"), str(IO / "repeated_uri.warc.gz")]
    got, _ = read(spark, warc)
    assert sorted(g[0] for g in got) == sorted(r["id"] for r in neardup.dedup_files(warc))


def test_a_large_jsonl_file_is_read_in_line_ranges(spark, tmp_path):
    path = make_jsonl(tmp_path / "docs.jsonl")
    size = path.stat().st_size
    parts = _read._plan([(str(path), "jsonl", True)], 500)
    assert len(parts) == -(-size // 500) > 3
    _read._line_starts(spark.sparkContext, parts)
    data = path.read_bytes()
    lines = data.split(b"\n")
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == 10]
    for _, _, kind, start, end, before in parts:
        assert kind == "lines" and start in starts + [size] and end in starts + [size]
        assert before == data[:start].count(b"\n")
    # The ranges tile the file.
    assert [p[3] for p in parts][0] == 0 and parts[-1][4] == size
    assert all(a[4] == b[3] for a, b in zip(parts, parts[1:]))
    assert len(lines) == 60
    # Parquet: runs of row groups with the rows before them.
    pq_path = make_parquet(tmp_path / "docs.parquet")
    runs = _read._parquet_groups(str(pq_path), 1)
    assert runs == [(g, g + 1, 7 * g) for g in range(6)]
    assert _read._parquet_groups(str(path), 1) is None

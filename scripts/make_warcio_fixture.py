#!/usr/bin/env python3
"""Writes crates/io/tests/data/warcio.warc.gz with warcio's own writer (one
gzip member per record, as warcio writes them), for the tests that cut a
gzip member short (crates/io/tests/gzip_cuts.rs). Needs `pip install warcio`
(written with 1.8.1). Same bytes on every run (fixed dates, record ids and mtime 0).
Run from the repository root:

    python3 scripts/make_warcio_fixture.py
"""
import io
import os

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "io", "tests", "data", "warcio.warc.gz")

WORDS = ("harbour council budget library reopened volunteers archive river bridge school "
         "season weather market museum station garden festival orchestra shipyard ferry").split()


def text(seed, n):
    # Deterministic, varied words: deflate gives output all along the member.
    out, x = [], seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) % (1 << 31)
        out.append(WORDS[x % len(WORDS)])
    return " ".join(out)


def page(i):
    paras = "".join(f"<p>{text(i * 100 + k, 60)}.</p>\n" for k in range(8))
    return f"<html><head><title>Page {i}</title></head><body>\n{paras}</body></html>\n".encode()


def main():
    buf = io.BytesIO()
    writer = WARCWriter(buf, gzip=True)
    for i in range(1, 6):
        body = page(i)
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                           ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
        rec = writer.create_warc_record(
            f"http://warcio.example.com/{i}", "response", payload=io.BytesIO(body), http_headers=http,
            warc_headers_dict={"WARC-Date": "2024-01-01T00:00:00Z",
                               "WARC-Record-ID": f"<urn:uuid:00000000-0000-0000-0000-{i:012d}>"})
        writer.write_record(rec)
    data = buf.getvalue()
    # gzip headers carry the time of writing: zero it (bytes 4..8 of each member).
    import zlib
    fixed, pos = bytearray(), 0
    while pos < len(data):
        d = zlib.decompressobj(31)
        d.decompress(data[pos:])
        end = len(data) - len(d.unused_data)
        member = bytearray(data[pos:end])
        member[4:8] = b"\0\0\0\0"
        fixed += member
        pos = end
    with open(OUT, "wb") as f:
        f.write(bytes(fixed))


if __name__ == "__main__":
    main()

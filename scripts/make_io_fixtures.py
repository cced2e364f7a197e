#!/usr/bin/env python3
"""Writes the archive fixtures of crates/io/tests/data/ (standard library only).

Each fixture reproduces a quirk of archives written by other tools (warcio,
pywb, Heritrix, ClueWeb09, old ARC writers) or of damaged files. What neardup
must read from each is asserted in crates/io/tests/archives.rs and listed in
crates/io/tests/data/README.md. Run from the repository root:

    python3 scripts/make_io_fixtures.py
"""
import gzip
import io
import os
import zlib

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "io", "tests", "data")


def gz(data):
    buf = io.BytesIO()
    # mtime=0: the same bytes on every run.
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as f:
        f.write(data)
    return buf.getvalue()


def page(title, body):
    return f"<html><head><title>{title}</title></head><body><p>{body}</p></body></html>".encode()


def http(body, ctype="text/html; charset=utf-8", status="200 OK", extra="", version="HTTP/1.1", eol="\r\n"):
    head = f"{version} {status}{eol}Content-Type: {ctype}{eol}{extra}"
    return (head + eol).encode() + body


COUNTER = [0]


def record(kind, uri, block, ctype="application/http; msgtype=response", version="WARC/1.0", extra=""):
    head = f"{version}\r\nWARC-Type: {kind}\r\n"
    if uri is not None:
        head += f"WARC-Target-URI: {uri}\r\n"
    COUNTER[0] += 1
    head += f"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{COUNTER[0]:012d}>\r\n"
    head += f"{extra}Content-Type: {ctype}\r\nContent-Length: {len(block)}\r\n\r\n"
    return head.encode() + block + b"\r\n\r\n"


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    a1 = page("A", "First fetch of page a, with enough words to be a page.")
    a2 = page("A", "Second fetch of page a, the same URL fetched again later.")
    recs = [
        record("warcinfo", None, b"software: fixture\r\n", ctype="application/warc-fields"),
        record("request", "http://example.com/a", b"GET /a HTTP/1.1\r\nHost: example.com\r\n\r\n",
               ctype="application/http; msgtype=request"),
        record("response", "http://example.com/a", http(a1)),
        record("response", "http://example.com/a", http(a2)),
        record("response", "http://example.com/missing", http(page("404", "not found"), status="404 Not Found")),
        record("response", "http://example.com/logo.png", http(b"\x89PNG\r\n\x1a\n", ctype="image/png")),
        record("revisit", "http://example.com/a", b"HTTP/1.1 200 OK\r\n\r\n",
               extra="WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest\r\n"),
        record("resource", "http://example.com/r.html", page("R", "A resource record."), ctype="text/html"),
        record("metadata", "http://example.com/a", b"via: x\r\n", ctype="application/warc-fields"),
    ]
    # One gzip member per record, as warcio and Heritrix write them.
    write("repeated_uri.warc.gz", b"".join(gz(r) for r in recs))

    # WARC/1.1, chunked and gzip-coded body.
    body = page("Chunked", "A chunked and gzip coded body.")
    coded = zlib.compress(body)  # deflate (zlib) coding
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in [coded[:10], coded[10:]]) + b"0\r\n\r\n"
    write("warc11_chunked.warc", record("response", "http://example.org/chunked",
          http(chunked, extra="Transfer-Encoding: chunked\r\nContent-Encoding: deflate\r\n"),
          version="WARC/1.1"))

    # WARC/0.17: the response record is typed with the payload's type, yet
    # holds the HTTP head.
    write("warc017.warc", record("response", "http://old.example.net/", http(page("Old", "A page from 2008.")),
                                 ctype="text/html", version="WARC/0.17"))

    # ClueWeb09: Content-Encoding: gzip declared, body stored decoded.
    write("clueweb09.warc.gz", gz(record("response", "http://clueweb.example.com/",
          http(page("Clue", "Stored already decoded."), extra="Content-Encoding: gzip\r\n"),
          version="WARC/0.18")))

    # HTTPX status line and CR CR LF line ends.
    write("httpx_crcrlf.warc", record("response", "http://httpx.example.com/",
          http(page("X", "Odd line ends."), version="HTTPX/1.1", eol="\r\r\n")))

    # A record cut in the middle of a file: its Content-Length runs into the
    # next record, which must still be read.
    first = record("response", "http://cut.example.com/1", http(page("Cut", "This page is cut " * 20)))
    second = record("response", "http://cut.example.com/2", http(page("Whole", "The next page.")))
    write("cut_in_middle.warc", first[: len(first) // 2] + b"\r\n" + second)

    # The last record clipped by the end of the file.
    write("clipped_end.warc", second + first[: len(first) - 200])

    # A .warc.gz whose last member has lost its gzip trailer (CRC and size).
    last = gz(record("response", "http://trailer.example.com/", http(page("T", "Trailer lost."))))
    write("no_gzip_trailer.warc.gz", gz(second) + last[:-8])

    # ARC v1, plain and one gzip member per record, and an ARC without an
    # extension (found by content).
    desc = b"1 0 Fixture\nURL IP-address Archive-date Content-type Archive-length\n"
    arc_recs = [b"filedesc://fixture.arc 0.0.0.0 19961104142103 text/plain %d\n%s\n" % (len(desc), desc)]
    for url, text in [("http://arc.example.com/", "An ARC page."), ("http://arc.example.com/b", "Another ARC page.")]:
        h = http(page("ARC", text), version="HTTP/1.0", eol="\n", ctype="text/html")
        arc_recs.append(b"%s 127.0.0.1 19961104142103 text/html %d\n%s\n" % (url.encode(), len(h), h))
    write("v1.arc", b"".join(arc_recs))
    write("v1.arc.gz", b"".join(gz(r) for r in arc_recs))
    write("arc_without_extension", b"".join(arc_recs))

    # WET: conversion records, text used as is.
    write("wet.warc.wet.gz", b"".join(gz(r) for r in [
        record("warcinfo", None, b"software: fixture\r\n", ctype="application/warc-fields"),
        record("conversion", "http://wet.example.com/", "Plain text of a page, already extracted.".encode(),
               ctype="text/plain"),
    ]))

    # Legacy multi-byte pages under a wrong single-byte declaration, and a
    # real windows-1252 page.
    ja = "日本語のウェブページです。東京都の天気は晴れ、明日は雨になるでしょう。" * 3
    zh = "这是一个中文网页。北京今天天气晴朗，明天可能会下雨。" * 3
    fr = "Le café de la gare ouvre à sept heures ; les élèves y déjeunent. Où est la bibliothèque ? À côté. " * 3
    write("sjis_as_windows-1252.html",
          f'<html><head><meta charset="windows-1252"><title>天気</title></head><body><p>{ja}</p></body></html>'.encode("shift_jis"))
    write("gb18030_as_iso-8859-1.html",
          f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><title>天气</title></head><body><p>{zh}</p></body></html>'.encode("gb18030"))
    write("real_windows-1252.html",
          f'<html><head><meta charset="windows-1252"><title>Café</title></head><body><p>{fr}</p></body></html>'.encode("cp1252"))

    # JSON Lines repeating an id.
    write("repeated_id.jsonl", b'{"id":"a","text":"one"}\n{"id":"b","text":"two"}\n{"id":"a","text":"three"}\n')


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes examples/crawl.warc.gz: the pages of examples/pages as a crawler
would have archived them (WARC/1.1 response records, one gzip member per
record, as warcio, Heritrix and wget write them), with made-up URLs.

    python3 examples/make_crawl.py
"""

import gzip
import hashlib
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
# page file -> (URL, charset named by the server, or None)
PAGES = {
    "digest-library-reopens.html": ("https://digest.example/2024/library-reopens", "utf-8"),
    "gazette-library-reopens.html": ("https://gazette.example/news/library", "utf-8"),
    "portal-library-edited.html": ("https://portal.example/city/library-reopens-edited", "utf-8"),
    "digest-library-excerpt.html": ("https://digest.example/briefs/library", "utf-8"),
    "gazette-bridge-delayed.html": ("https://gazette.example/news/bridge", "utf-8"),
    "zh-kitchen-gbk.html": ("https://zh.example/kitchen", None),
    "zh-kitchen-reprint.html": ("https://reprint.example/kitchen", "utf-8"),
}


def record(url: str, body: bytes, charset, n: int) -> bytes:
    ctype = "text/html" + (f"; charset={charset}" if charset else "")
    http = (f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    rid = uuid.UUID(bytes=hashlib.sha1(url.encode()).digest()[:16])
    head = (f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{rid}>\r\n"
            f"WARC-Date: 2024-05-0{n}T10:00:00Z\r\nWARC-Target-URI: {url}\r\n"
            f"Content-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(http)}\r\n\r\n").encode()
    return gzip.compress(head + http + b"\r\n\r\n", mtime=0)


def main() -> None:
    with open(HERE / "crawl.warc.gz", "wb") as out:
        for n, (name, (url, charset)) in enumerate(PAGES.items(), start=1):
            out.write(record(url, (HERE / "pages" / name).read_bytes(), charset, n))


if __name__ == "__main__":
    main()

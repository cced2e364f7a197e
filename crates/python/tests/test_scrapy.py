"""neardup.Client against an HTTP service speaking neardup serve's API, and
neardup.scrapy.ContentSeenMiddleware in a real Scrapy crawl of a small site
served on 127.0.0.1 (the crawl runs in a subprocess: Twisted's reactor
cannot restart)."""

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

import neardup
from neardup import Client, NeardupError

STORY = ("The council approved the new cycle lanes on the high street after a long debate on "
         "Monday evening, with a majority of councillors in favour of the plan. Work will start "
         "in the spring and should last about four months, the council said, and buses will be "
         "diverted while the road is closed to traffic for the works.")
OTHER = ("The harbour festival drew large crowds on Saturday night, when fireworks lit up the "
         "bay and local bands played on a stage near the old lighthouse until after midnight, "
         "and the organisers said next year the festival would last a whole week.")
INDEX = ("Welcome to the example news site where every story is written by our own reporters "
         "and checked twice by the editors before it is published on this front page.")


def page(title, text, links=()):
    a = "".join(f'<li><a href="{h}">{h}</a></li>' for h in links)
    return (f"<html><head><title>{title}</title></head><body><ul>{a}</ul>"
            f"<article><p>{text}</p></article></body></html>").encode()


SITE = {
    "index.html": page("Home", INDEX, ["a.html", "b.html", "a-copy.html", "c.html", "empty.html"]),
    "a.html": page("Cycle lanes", STORY),
    "b.html": page("Cycle lanes", STORY.replace("Monday evening", "Monday night")),
    "a-copy.html": page("Cycle lanes", STORY),
    "c.html": page("Festival", OTHER),
    "empty.html": b"<html><body></body></html>",
}


class Service(BaseHTTPRequestHandler):
    """neardup serve's /v1 routes over an in-process Deduplicator; the
    first POST answers 503 once (the client retries)."""

    dedup = None
    failed_once = False
    token = "s3cret"
    auth_seen = []

    def log_message(self, *a):
        pass

    def reply(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        cls = type(self)
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        cls.auth_seen.append(self.headers.get("Authorization"))
        if self.headers.get("Authorization") != f"Bearer {cls.token}":
            return self.reply(401, {"error": {"code": "unauthorized", "message": "token"}})
        if not cls.failed_once:
            cls.failed_once = True
            return self.reply(503, {"error": {"code": "timeout", "message": "busy"}})
        u = urlparse(self.path)
        if self.headers.get("Content-Type", "").startswith("text/html"):
            q = parse_qs(u.query)
            doc_id, kw = q["id"][0], {"html": body, "url": q.get("url", [None])[0]}
        else:
            doc = json.loads(body)
            doc_id = doc["id"]
            kw = {"html": doc["html"]} if "html" in doc else {"text": doc["text"]}
        if u.path == "/v1/check":
            v = cls.dedup.query(**kw)
        else:
            v = cls.dedup.add(doc_id, **kw)
        self.reply(200, {"id": doc_id, "duplicate": v.duplicate, "duplicate_of": v.duplicate_of,
                         "similarity": v.similarity, "stored": u.path != "/v1/check"})

    def do_GET(self):
        if self.path == "/healthz":
            return self.reply(200, {"status": "ok"})
        if self.path == "/v1/stats":
            return self.reply(200, {"documents": len(type(self).dedup)})
        self.reply(404, {"error": {"code": "not_found", "message": "no such document"}})

    def do_DELETE(self):
        doc_id = self.path.rsplit("/", 1)[1]
        try:
            type(self).dedup.remove(doc_id)
        except KeyError:
            return self.reply(404, {"error": {"code": "not_found", "message": doc_id}})
        self.reply(200, {"id": doc_id, "deleted": True})


def serve(handler):
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def service():
    Service.dedup = neardup.Deduplicator()
    Service.failed_once = False
    Service.auth_seen = []
    server, url = serve(Service)
    yield url
    server.shutdown()


def test_client_add_check_remove_retry_and_errors(service):
    c = Client(service, token="s3cret", retries=2, backoff=0.01)
    v = c.add("a", text=STORY)  # the first answer is a 503: retried
    assert Service.failed_once and v["duplicate"] is False and v["stored"]
    v = c.add("b", SITE["b.html"], url="http://x/b")
    assert v["duplicate"] and v["duplicate_of"] == "a"
    assert c.check(text=STORY)["duplicate_of"] == "a"
    assert c.check(html=STORY)["stored"] is False
    assert c.health() and c.stats() == {"documents": 2}
    c.remove("b")
    with pytest.raises(KeyError):
        c.remove("b")
    with pytest.raises(KeyError):
        c.get("nope")
    with pytest.raises(NeardupError, match="401"):
        Client(service, token="wrong", retries=0).add("x", text=OTHER)
    with pytest.raises(ValueError):
        c.add("x")
    assert "s3cret" not in repr(c)


def test_client_gives_up_on_a_dead_service():
    server, url = serve(Service)
    server.shutdown()
    server.server_close()
    c = Client(url, retries=1, backoff=0.01, timeout=2)
    with pytest.raises(NeardupError):
        c.add("a", text=STORY)
    assert not c.health()


CRAWL = r"""
import json, sys
import scrapy
from scrapy.crawler import CrawlerProcess

start, out, extra = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
seen = []

class Site(scrapy.Spider):
    name = "site"
    start_urls = [start]

    def parse(self, response):
        seen.append({"url": response.url, "neardup": response.meta.get("neardup")})
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, self.parse)

settings = {
    "DOWNLOADER_MIDDLEWARES": {"neardup.scrapy.ContentSeenMiddleware": 950},
    "LOG_LEVEL": "ERROR", "ROBOTSTXT_OBEY": False, "TELNETCONSOLE_ENABLED": False,
    "CONCURRENT_REQUESTS": 1, "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
}
settings.update(extra)
process = CrawlerProcess(settings)
crawler = process.create_crawler(Site)
process.crawl(crawler)
process.start()
stats = {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("neardup/")}
json.dump({"seen": seen, "stats": stats}, open(out, "w"))
"""


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    root.mkdir()
    for name, data in SITE.items():
        (root / name).write_bytes(data)

    class Quiet(SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(root), **kw)

        def log_message(self, *a):
            pass

    server, url = serve(Quiet)
    yield url
    server.shutdown()


def crawl(tmp_path, start, **settings):
    pytest.importorskip("scrapy")
    out, script = tmp_path / "out.json", tmp_path / "crawl.py"
    script.write_text(CRAWL)  # a file: Scrapy reads the spider's source
    subprocess.run([sys.executable, str(script), start, str(out), json.dumps(settings)],
                   check=True, timeout=120)
    return json.loads(out.read_text())


def check_crawl(result):
    parsed = {r["url"].rsplit("/", 1)[1]: r["neardup"] for r in result["seen"]}
    story = {"a.html", "b.html", "a-copy.html"} & set(parsed)
    # One copy of the story passes; the two others were dropped.
    assert len(story) == 1, parsed
    assert {"index.html", "c.html", "empty.html"} <= set(parsed)
    assert parsed["empty.html"]["empty"] is True
    assert parsed["c.html"] == {"duplicate": False, "duplicate_of": None,
                                "similarity": None, "empty": False}
    assert result["stats"] == {"neardup/new": 3, "neardup/duplicate": 2, "neardup/empty": 1}


def test_scrapy_crawl_in_process(tmp_path, site):
    state = tmp_path / "seen.dedup"
    first = crawl(tmp_path, site + "/index.html", NEARDUP_STATE=str(state))
    check_crawl(first)
    # The state was saved at close and loaded by the second crawl: every
    # page keeps its verdict, none is added twice.
    assert len(neardup.Deduplicator.load(state)) == 6
    again = crawl(tmp_path, site + "/index.html", NEARDUP_STATE=str(state))
    check_crawl(again)
    assert len(neardup.Deduplicator.load(state)) == 6


def test_scrapy_crawl_against_the_service(tmp_path, site, service):
    result = crawl(tmp_path, site + "/index.html", NEARDUP_URL=service, NEARDUP_TOKEN="s3cret")
    parsed = {r["url"].rsplit("/", 1)[1] for r in result["seen"]}
    assert len({"a.html", "b.html", "a-copy.html"} & parsed) == 1
    assert result["stats"]["neardup/duplicate"] == 2
    assert set(Service.auth_seen) == {"Bearer s3cret"}


def neardup_binary(repo):
    import os
    import shutil

    candidates = [os.environ.get("NEARDUP_BIN")]
    for target in (os.environ.get("CARGO_TARGET_DIR"), str(repo / "target")):
        if target:
            candidates += [os.path.join(target, p, "neardup") for p in ("debug", "release")]
    candidates.append(shutil.which("neardup"))
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    pytest.skip("no neardup binary (cargo build -p neardup-cli, or NEARDUP_BIN)")


@pytest.fixture
def real_service(tmp_path, repo):
    import socket
    import time

    binary = neardup_binary(repo)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [binary, "serve", "--data-dir", str(tmp_path / "data"), "--listen", f"127.0.0.1:{port}",
         "--token", "t0ken"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        probe = Client(url, token="t0ken", retries=0, timeout=1)
        deadline = time.monotonic() + 60
        while not probe.health():
            assert proc.poll() is None, "neardup serve exited"
            assert time.monotonic() < deadline, "neardup serve did not start"
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_client_against_neardup_serve(real_service):
    c = Client(real_service, token="t0ken")
    first = c.add("a", text=STORY)
    assert first["duplicate"] is False and first["stored"] is True
    v = c.add("b", SITE["b.html"], url="http://x/b")
    assert v["duplicate"] and v["duplicate_of"] == "a" and 0.5 < v["similarity"] < 1
    assert c.add("a", text=STORY) == first  # re-posting is idempotent
    assert c.check(text=STORY)["duplicate_of"] == "a"
    assert c.get("a")["id"] == "a"
    assert c.stats()["documents"] == 2
    c.remove("b")
    with pytest.raises(KeyError):
        c.get("b")
    with pytest.raises(NeardupError, match="401"):
        Client(real_service, token="wrong").add("x", text=OTHER)


def test_scrapy_crawl_against_neardup_serve(tmp_path, site, real_service):
    result = crawl(tmp_path, site + "/index.html", NEARDUP_URL=real_service, NEARDUP_TOKEN="t0ken")
    parsed = {r["url"].rsplit("/", 1)[1] for r in result["seen"]}
    assert len({"a.html", "b.html", "a-copy.html"} & parsed) == 1
    assert {"index.html", "c.html"} <= parsed
    assert result["stats"]["neardup/duplicate"] == 2
    assert Client(real_service, token="t0ken").stats()["documents"] >= 5


def test_scrapy_crawl_fails_open_when_the_service_is_down(tmp_path, site):
    server, dead = serve(Service)
    server.shutdown()
    server.server_close()
    result = crawl(tmp_path, site + "/index.html", NEARDUP_URL=dead, NEARDUP_RETRIES=0)
    parsed = {r["url"].rsplit("/", 1)[1] for r in result["seen"]}
    assert parsed == set(SITE)
    assert result["stats"] == {"neardup/error": len(SITE)}


def test_middleware_works_without_the_spider_argument():
    # Scrapy 2.13+ deprecates passing the spider to process_response and
    # will stop passing it: the middleware must not require it.
    pytest.importorskip("scrapy")
    from scrapy.exceptions import IgnoreRequest
    from scrapy.http import HtmlResponse, Request

    from neardup.scrapy import ContentSeenMiddleware

    mw = ContentSeenMiddleware()
    body = b"<html><body><p>" + b"The council approved the new cycle lanes. " * 8 + b"</p></body></html>"
    first = Request("https://a.example/1")
    mw.process_response(first, HtmlResponse(first.url, body=body))
    assert first.meta["neardup"]["duplicate"] is False
    second = Request("https://b.example/2")
    with pytest.raises(IgnoreRequest):
        mw.process_response(second, HtmlResponse(second.url, body=body))
    assert second.meta["neardup"]["duplicate_of"] == "https://a.example/1"

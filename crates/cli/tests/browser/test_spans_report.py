"""The HTML report of `neardup spans --report-html` in a real browser
(headless Chromium): the summary, the most repeated passages, the leaked
reference items, and a document's page with its repeated passages marked.
Screenshots go to target/browser-shots."""

import subprocess

import pytest

from browsing import BIN, ROOT, SHOTS, browser, needs_browser, overflow

pytestmark = needs_browser

DATA = ROOT / "crates" / "cli" / "tests" / "data" / "spans"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("spans")
    subprocess.run(
        [str(BIN), "spans", "-q", str(DATA / "corpus.jsonl"), "--unit", "sentence",
         "--reference", str(DATA / "reference.jsonl"), "--ref-ngram", "8",
         "-o", str(out / "spans.jsonl"), "--report-html", str(out / "site")],
        check=True,
    )
    return out / "site"


def test_index_summarises_and_links_the_documents(site):
    SHOTS.mkdir(parents=True, exist_ok=True)
    d = browser(1280)
    try:
        d.get((site / "index.html").as_uri())
        assert d.find_element("tag name", "h1").text == "neardup spans report"
        summary = d.find_element("id", "summary").text
        assert "documents 5" in summary and "documents with spans 4" in summary
        repeated = d.find_elements("css selector", "#repeated tbody tr")
        assert repeated and "subscribe to our newsletter" in repeated[0].text.lower()
        assert repeated[0].find_element("tag name", "td").text == "3"
        leaked = d.find_element("id", "leaked").text
        assert "q1" in leaked
        docs = d.find_elements("css selector", "#documents tbody a")
        assert [a.text for a in docs] == ["a", "b", "c", "e"]
        d.save_screenshot(str(SHOTS / "spans-index-1280.png"))
        urls = d.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert all(u.startswith("file:") for u in urls), urls
        docs[1].click()
        assert d.current_url.endswith("/doc/2.html")
        marks = d.find_elements("css selector", "#text mark")
        assert [m.text for m in marks] == [
            "SUBSCRIBE to our newsletter, for the latest news",
            "图书馆周一重新开放，市民可以免费借阅图书！",
        ]
        assert all(m.get_attribute("title") == "sentence first seen in a" for m in marks)
    finally:
        d.quit()


def test_document_page_fits_a_phone(site):
    d = browser(390)
    try:
        d.get((site / "doc" / "1.html").as_uri())
        marks = d.find_elements("css selector", "#text mark")
        assert marks and marks[0].get_attribute("class") == "span reference"
        assert overflow(d) <= 1
        d.save_screenshot(str(SHOTS / "spans-doc-390.png"))
    finally:
        d.quit()

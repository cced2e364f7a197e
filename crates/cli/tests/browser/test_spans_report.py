"""The HTML report of `neardup spans --report-html` in a real browser
(headless Chromium): the summary, the most repeated passages, the leaked
reference items, and a document's page with its repeated passages marked.
Screenshots go to target/browser-shots."""

import subprocess

import pytest

from browsing import BIN, ROOT, SHOTS, browser, needs_browser, overflow

pytestmark = needs_browser

DATA = ROOT / "crates" / "cli" / "tests" / "data" / "spans"


def spans_site(out, corpus, reference, unit):
    """The report site of `neardup spans --report-html` over a corpus with a
    reference set (8-grams), written under `out`."""
    subprocess.run(
        [str(BIN), "spans", "-q", str(corpus), "--unit", unit,
         "--reference", str(reference), "--ref-ngram", "8",
         "-o", str(out / "spans.jsonl"), "--report-html", str(out / "site")],
        check=True,
    )
    return out / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("spans")
    return spans_site(out, DATA / "corpus.jsonl", DATA / "reference.jsonl", "sentence")


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


def long_names_corpus(corpus, reference):
    """Eight documents whose ids are long (Common Crawl record ids, a run
    of hex without a break opportunity) sharing long paragraphs (a cookie
    notice, a footer with a long tracking URL), and a reference set whose
    items have long ids and leak into them."""
    import json
    import random

    words = ("river council library bridge garden market school museum harbour station "
             "budget morning debate evening storm festival concert theatre railway hospital").split()

    def text(seed, n):
        r = random.Random(seed)
        return " ".join(r.choice(words) for _ in range(n)).capitalize() + "."

    cookies = ("We use cookies and similar technologies to recognise your repeat visits and "
               "preferences, to measure the effectiveness of campaigns and to improve our "
               "websites; by clicking accept or continuing to browse you consent to this. ") * 3
    footer = ("Read more: https://www.example-news-site.com/2024/02/24/local/" + "a1b2c3d4e5f6" * 25
              + "?utm_source=newsletter&utm_medium=email&utm_campaign=daily-digest-2024-02-24")
    leak = text(7, 40)
    docs = []
    for i in range(8):
        doc_id = ("doc-" + "0123456789abcdef" * 12 + f"-{i}") if i % 4 == 3 else (
            f"CC-MAIN-2024-10/segments/1707947474533.{i}/warc/CC-MAIN-20240224112548-"
            f"20240224142548-000{i}.warc.gz#record-urn:uuid:3f2a9c4e-8b1d-4e6f-a7c2-{i:012d}")
        paras = [text(100 + i, 60), cookies.strip(), text(200 + i, 30), footer]
        if i % 2:
            paras.insert(1, leak)
        docs.append({"id": doc_id, "text": "\n\n".join(paras)})
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs))
    items = [{"id": "benchmark/test-split/" + "9f8e7d6c5b4a" * 12, "text": leak},
             {"id": "unrelated-" + "z" * 150, "text": text(999, 40)}]
    reference.write_text("".join(json.dumps(d) + "\n" for d in items))


@pytest.fixture(scope="module")
def long_names_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("spans-long")
    long_names_corpus(out / "corpus.jsonl", out / "reference.jsonl")
    return spans_site(out, out / "corpus.jsonl", out / "reference.jsonl", "paragraph")


def test_long_ids_and_passages_fit_the_window(long_names_site):
    """The index and a document's page fit a 1280x900 window without a
    horizontal scrollbar; the long ids and passages wrap within columns of a
    readable width (not letter by letter); a phone's window fits too."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    # The tables' columns holding ids or passages: (table, column).
    wide = [("repeated", 2), ("longest", 1), ("longest", 3), ("leaked", 0), ("documents", 0)]
    d = browser(1280, height=900)
    try:
        d.get((long_names_site / "index.html").as_uri())
        assert d.execute_script("return window.innerWidth") == 1280
        assert d.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth"), \
            f"index: {overflow(d)} px wider than the window"
        for table, col in wide:
            rows = d.find_elements("css selector", f"#{table} tbody tr")
            assert rows, f"#{table} has rows"
            for r in rows:
                cell = r.find_elements("tag name", "td")[col]
                assert cell.rect["width"] >= 150, f"#{table} column {col}: {cell.rect['width']} px wide"
        docs = d.find_elements("css selector", "#documents tbody a")
        assert len(docs) == 7 and docs[2].text.startswith("doc-0123456789abcdef"), [a.text for a in docs]
        assert "benchmark/test-split/" in d.find_element("id", "leaked").text
        d.save_screenshot(str(SHOTS / "spans-long-names-index-1280.png"))
        d.execute_script("document.getElementById('longest').scrollIntoView()")
        d.save_screenshot(str(SHOTS / "spans-long-names-longest-1280.png"))
        docs[2].click()
        assert d.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth"), \
            f"doc/3.html: {overflow(d)} px wider than the window"
        assert d.execute_script(
            "const t = document.getElementById('text'); return t.scrollWidth <= t.clientWidth"), \
            "the text wraps its long URL rather than scrolling sideways"
        spans = d.find_elements("css selector", "#spans tbody tr")
        assert len(spans) == 3, "a reference span and two paragraphs"
        for r in spans:
            cell = r.find_elements("tag name", "td")[2]
            assert cell.rect["width"] >= 150, f"#spans source: {cell.rect['width']} px wide"
        d.execute_script("document.getElementById('spans').scrollIntoView()")
        d.save_screenshot(str(SHOTS / "spans-long-names-doc-1280.png"))
    finally:
        d.quit()
    d = browser(390)
    try:
        for page, table in (("index.html", "longest"), ("doc/3.html", "spans")):
            d.get((long_names_site / page).as_uri())
            assert overflow(d) <= 0, f"{page}: a phone's window too"
            d.execute_script(f"document.getElementById('{table}').scrollIntoView()")
            d.save_screenshot(str(SHOTS / f"spans-long-names-{page.replace('/', '-')[:-5]}-390.png"))
    finally:
        d.quit()

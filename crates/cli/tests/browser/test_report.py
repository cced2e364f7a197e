"""The HTML report of `neardup dedup --report-html` in a real browser:
headless Chromium (Debian's chromium and chromium-driver) driven through
WebDriver. Asserts on the rendered DOM and keeps screenshots in
target/browser-shots (NEARDUP_SHOTS moves them) for a person to look at.

Run by scripts/test.sh, which installs the browser; NEARDUP_BIN names the
neardup binary (default: target/debug/neardup)."""

import subprocess

import pytest

from browsing import BIN, ROOT, SHOTS, browser, needs_browser, overflow

pytestmark = needs_browser


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    subprocess.run(
        [str(BIN), "dedup", "-q", str(ROOT / "examples" / "pages"),
         "-o", str(out / "clusters.jsonl"), "--report-html", str(out / "site")],
        check=True,
    )
    return out / "site"


@pytest.fixture(scope="module")
def paged_report(tmp_path_factory):
    """The same report with one group a page."""
    out = tmp_path_factory.mktemp("paged")
    subprocess.run(
        [str(BIN), "dedup", "-q", str(ROOT / "examples" / "pages"),
         "-o", str(out / "clusters.jsonl"), "--report-html", str(out / "site"),
         "--page-size", "1"],
        check=True,
    )
    return out / "site"


def long_names_corpus(path):
    """Six groups whose ids and URLs are long (Common Crawl record ids,
    tracking parameters, runs without a break opportunity), and a page
    glued from two others that a corpus rule refuses."""
    import json
    import random

    words = ("river council library bridge garden market school museum harbour station "
             "budget morning debate evening storm festival concert theatre railway hospital").split()

    def text(seed, n=220):
        r = random.Random(seed)
        return " ".join(r.choice(words) for _ in range(n))

    docs = []
    for g in range(6):
        for c in range(2 + g % 2):
            docs.append({
                "id": ("doc-" + "0123456789abcdef" * 12 + f"-{c}") if g == 4 else
                      (f"CC-MAIN-2024-10/segments/1707947474533.{g}{c}/warc/CC-MAIN-20240224112548-"
                       f"20240224142548-000{g}{c}.warc.gz#record-urn:uuid:3f2a9c4e-8b1d-4e6f-a7c2-{g:04d}{c:08d}"),
                "url": ("https://example.com/" + "x" * 300 + str(c)) if g == 2 else
                       (f"https://www.example-news-site-{g}.com/2024/02/24/local/council-approves-the-new-"
                        f"river-bridge-budget-after-a-long-debate-and-many-amendments-{c}?utm_source="
                        "newsletter&utm_medium=email&utm_campaign=daily-digest-2024-02-24&ref=homepage-top-stories"),
                "text": text(g) + ("" if c == 0 else " " + text(1000 + 10 * g + c, 5)),
            })
    docs.append({"id": "glued-" + "fedcba9876543210" * 10, "url": "https://example.org/" + "y" * 250,
                 "text": text(0) + " " + text(1)})
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))


@pytest.fixture(scope="module")
def long_names_report(tmp_path_factory):
    """A report of long ids and URLs, three groups a page."""
    out = tmp_path_factory.mktemp("long")
    long_names_corpus(out / "corpus.jsonl")
    subprocess.run(
        [str(BIN), "dedup", "-q", str(out / "corpus.jsonl"), "-o", str(out / "clusters.jsonl"),
         "--report-html", str(out / "site"), "--page-size", "3"],
        check=True,
    )
    return out / "site"


def test_long_urls_and_ids_fit_the_window(long_names_report):
    """The list pages fit a 1280x900 window without a horizontal scrollbar,
    and their long URLs and ids wrap within columns of a readable width
    (not letter by letter)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    d = browser(1280, height=900)
    try:
        for page, refused in (("index.html", True), ("list/2.html", False)):
            d.get((long_names_report / page).as_uri())
            assert d.execute_script("return window.innerWidth") == 1280
            assert d.execute_script(
                "return document.documentElement.scrollWidth <= window.innerWidth"), \
                f"{page}: {overflow(d)} px wider than the window"
            rows = visible_rows(d)
            assert len(rows) == 3, page
            for r in rows:
                cells = r.find_elements("tag name", "td")
                for what, cell in (("id", cells[2]), ("URL", cells[3])):
                    assert cell.rect["width"] >= 150, f"{page}: {what} cell {cell.rect['width']} px wide"
                assert cells[3].text.startswith("https://"), cells[3].text
            if refused:
                pairs = d.find_elements("css selector", "#refused tbody tr")
                assert pairs, "the glued page's pairs are refused"
                for r in pairs:
                    for cell in r.find_elements("tag name", "td")[:2]:
                        assert cell.rect["width"] >= 150, f"refused pair cell {cell.rect['width']} px wide"
            d.execute_script("document.getElementById('groups').scrollIntoView()")
            d.save_screenshot(str(SHOTS / f"long-names-{page.replace('/', '-')[:-5]}-1280.png"))
    finally:
        d.quit()
    d = browser(390)
    try:
        d.get((long_names_report / "index.html").as_uri())
        assert overflow(d) <= 0, "a phone's window too"
    finally:
        d.quit()


def wait_for(d, what, condition):
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(d, 20).until(condition, message=what)


def visible_rows(d):
    return [r for r in d.find_elements("css selector", "#groups tbody tr") if r.is_displayed()]


def test_index_lists_groups_and_the_filter_works(report):
    SHOTS.mkdir(parents=True, exist_ok=True)
    d = browser(1280)
    try:
        d.get((report / "index.html").as_uri())
        assert "neardup report" in d.title or d.find_element("tag name", "h1")
        assert len(visible_rows(d)) == 2
        box = d.find_element("id", "filter")
        assert box.is_displayed(), "the script shows the filter box"
        box.send_keys("zh-kitchen")
        wait_for(d, "the filter's matches", lambda d: len(visible_rows(d)) == 1)
        rows = visible_rows(d)
        assert "zh-kitchen-gbk" in rows[0].text
        box.clear()
        box.send_keys(" ")  # clear() sends no input event: type and delete
        box.send_keys("\b")
        wait_for(d, "the page's own rows again", lambda d: len(visible_rows(d)) == 2)
        d.save_screenshot(str(SHOTS / "index-filtered-1280.png"))
        # Nothing was fetched from the network: every resource is local.
        urls = d.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)")
        assert all(u.startswith("file:") for u in urls), urls
    finally:
        d.quit()


def test_group_page_highlights_shared_text_and_fits_a_phone(report):
    for width in (1280, 390):
        d = browser(width)
        try:
            d.get((report / "groups" / "1.html").as_uri())
            marks = d.find_elements("css selector", "mark")
            assert marks and any("Millbrook" in m.text for m in marks)
            assert d.find_elements("css selector", ".only"), "edited words marked"
            assert d.execute_script("return window.innerWidth") == width
            wider = overflow(d)
            assert wider <= 1, f"{width} px: {wider} px wider than the window"
            d.save_screenshot(str(SHOTS / f"group1-{width}.png"))
        finally:
            d.quit()


def test_readable_without_javascript(report):
    d = browser(1280, javascript=False)
    try:
        d.get((report / "index.html").as_uri())
        assert len(visible_rows(d)) == 2, "the whole list without the script"
        assert not d.find_element("id", "filter").is_displayed()
        d.get((report / "groups" / "1.html").as_uri())
        assert d.find_elements("css selector", "mark")
    finally:
        d.quit()


def test_pages_link_to_each_other_and_the_filter_searches_them_all(paged_report):
    for javascript in (True, False):
        d = browser(1280, javascript=javascript)
        try:
            d.get((paged_report / "index.html").as_uri())
            rows = visible_rows(d)
            assert len(rows) == 1 and "digest-library-reopens" in rows[0].text
            assert "page 1 of 2" in d.find_element("css selector", "nav.pager").text
            d.find_element("link text", "next").click()
            assert d.current_url.endswith("/list/2.html")
            rows = visible_rows(d)
            assert len(rows) == 1 and "zh-kitchen-gbk" in rows[0].text
            # Its link leads to the group's page.
            rows[0].find_element("tag name", "a").click()
            assert d.current_url.endswith("/groups/2.html")
            assert d.find_element("tag name", "h1").text.startswith("Group 2")
        finally:
            d.quit()
    d = browser(390)
    try:
        d.get((paged_report / "index.html").as_uri())
        # Group 2 is not on page 1, and the filter finds it.
        assert "zh-kitchen" not in d.find_element("id", "groups").text
        d.find_element("id", "filter").send_keys("kitchen")
        wait_for(d, "the match from page 2", lambda d: "zh-kitchen-gbk" in d.find_element("id", "groups").text)
        rows = visible_rows(d)
        assert len(rows) == 1
        assert d.find_element("id", "filter-note").text == "1 group matches."
        link = rows[0].find_element("tag name", "a")
        assert link.get_attribute("href").endswith("/groups/2.html")
        d.find_element("id", "filter").send_keys("-nothing-like-it")
        wait_for(d, "no match", lambda d: d.find_element("id", "filter-note").text == "No group matches.")
        assert overflow(d) <= 1
        d.save_screenshot(str(SHOTS / "index-paged-390.png"))
    finally:
        d.quit()

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

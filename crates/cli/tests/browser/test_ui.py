"""The page of `neardup serve` at /ui/ in a real browser: starts the real
binary (NEARDUP_BIN) on a free loopback port with a temporary store and a
token, posts documents through /v1 as a crawler would, and asserts on the
rendered DOM: the login, the counts, the recent verdicts, the look-up, and
the check of a pasted text with its side-by-side explanation, at 1280 and
390 px. Screenshots go to target/browser-shots (NEARDUP_SHOTS moves them)."""

import json
import random
import subprocess
import time
import urllib.request

import pytest

from browsing import BIN, SHOTS, browser, narrow, needs_browser, overflow

pytestmark = needs_browser

TOKEN = "ui-test-token-7f3a"
WORDS = ("council river budget station festival harbour school library market bridge "
         "museum garden theatre hospital weather storm election minister village summer "
         "winter concert football report science energy housing transport tourism farmers "
         "water approved rejected opened closed visited planned built moved quickly slowly "
         "today yesterday again finally early late north south east west").split()


def article(seed, n=220):
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(n))


ORIGINAL = "The Millbrook ferry returns on Saturday. " + article(1)
# A copy with a few words changed and a line added: a near-duplicate.
COPY = ORIGINAL.replace("Saturday", "Sunday") + " Reporting by the night desk."


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    SHOTS.mkdir(parents=True, exist_ok=True)
    tmp = tmp_path_factory.mktemp("serve")
    (tmp / "token").write_text(TOKEN + "\n")
    child = subprocess.Popen(
        [str(BIN), "serve", "--data-dir", str(tmp / "data"), "--listen", "127.0.0.1:0",
         "--token-file", str(tmp / "token")],
        stdout=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        base = line.strip().rsplit(" ", 1)[-1]
        assert base.startswith("http://127.0.0.1:"), line
        yield base
    finally:
        child.terminate()
        child.wait(timeout=30)


def call(base, method, path, body=None, token=TOKEN):
    req = urllib.request.Request(base + path, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req) as r:
        return json.load(r)


def wait_for(d, what, condition):
    """Waits until `condition(d)` holds (the page polls every 2 s)."""
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(d, 20).until(condition, message=what)


def log_in(d, base, token):
    d.get(base + "/ui/")
    d.find_element("id", "token").send_keys(token)
    d.find_element("id", "login").click()


@pytest.fixture(scope="module")
def page(service):
    d = browser(1280)
    try:
        log_in(d, service, TOKEN)
        wait_for(d, "the page after logging in", lambda d: d.find_elements("id", "counts-h"))
        yield d
    finally:
        d.quit()


def test_a_wrong_token_is_refused(service):
    d = browser(390)
    try:
        d.get(service + "/ui/")
        assert d.find_element("tag name", "label").text == "Token"
        assert overflow(d) <= 1
        log_in(d, service, "not-the-token")
        # The refusal comes back from the service: wait for it, not race it.
        wait_for(d, "the refusal shown",
                 lambda d: d.find_elements("id", "login-error")
                 and d.find_element("id", "login-error").text)
        assert d.find_element("id", "login-error").text == "Wrong token."
        assert not d.find_elements("id", "counts-h"), "the page stays closed"
        d.save_screenshot(str(SHOTS / "ui-login-refused-390.png"))
        # The data routes stay closed to the browser too.
        d.get(service + "/v1/stats")
        assert "unauthorized" in d.find_element("tag name", "body").text
    finally:
        d.quit()


def test_counts_and_recent_verdicts_follow_the_posts(service, page):
    d = page
    call(service, "POST", "/v1/documents", {"id": "ferry-original", "text": ORIGINAL})
    call(service, "POST", "/v1/documents", {"id": "ferry-copy", "text": COPY})
    call(service, "POST", "/v1/documents", {"id": "other", "text": article(2)})
    wait_for(d, "three documents counted",
             lambda d: d.find_element("id", "count-documents").text == "3")
    assert d.find_element("id", "count-originals").text == "2"
    assert d.find_element("id", "count-duplicates").text == "1"
    assert d.find_element("id", "rate-documents").text != "–"

    def copy_row(d):
        rows = d.find_elements("css selector", "#recent tbody tr")
        return [r for r in rows if r.find_elements("xpath", "td[2]") and
                r.find_element("xpath", "td[2]").text == "ferry-copy"]
    row = wait_for(d, "the copy among the recent verdicts", copy_row)[0]
    cells = [c.text for c in row.find_elements("tag name", "td")]
    assert cells[2:4] == ["duplicate", "ferry-original"], cells
    assert float(cells[4]) > 0.8
    assert not d.find_element("id", "recent-empty").is_displayed()
    d.save_screenshot(str(SHOTS / "ui-counts-recent-1280.png"))

    # Nothing new was posted: the polls that follow (every 2 s) leave the
    # table as it is, so the button under the user's pointer stays.
    time.sleep(4.5)
    assert row.find_element("xpath", "td[2]").text == "ferry-copy"
    # Selecting an id looks it up.
    row.find_element("css selector", "button").click()
    result = wait_for(d, "the looked-up document",
                      lambda d: d.find_element("id", "lookup-result").text)
    assert "Document ferry-copy" in result
    assert "ferry-original" in result and "duplicate" in result


def test_looking_up_an_id(service, page):
    d = page
    call(service, "POST", "/v1/documents", {"id": "lookup/me", "text": article(3)})
    box = d.find_element("id", "lookup-id")
    box.clear()
    box.send_keys("lookup/me")
    d.find_element("id", "lookup-button").click()
    result = wait_for(d, "the document", lambda d: d.find_element("id", "lookup-result").text)
    assert "Document lookup/me" in result and "Stored as\noriginal" in result
    d.execute_script("document.getElementById('lookup-h').scrollIntoView()")
    d.save_screenshot(str(SHOTS / "ui-lookup-1280.png"))
    box.clear()
    box.send_keys("no-such-id")
    d.find_element("id", "lookup-button").click()
    error = wait_for(d, "the error", lambda d: d.find_element("id", "lookup-error").text)
    assert error == 'No document with the id "no-such-id".'


def test_checking_a_pasted_copy_shows_it_next_to_the_original(service, page):
    d = page
    call(service, "POST", "/v1/documents", {"id": "ferry-original", "text": ORIGINAL})
    before = call(service, "GET", "/v1/stats")["documents"]
    d.find_element("id", "check-content").send_keys(
        "The Millbrook ferry returns on Monday. " + ORIGINAL.split(". ", 1)[1])
    d.find_element("id", "check-button").click()
    verdict = wait_for(d, "the verdict", lambda d: d.find_elements("css selector", "#check-result h3"))
    assert verdict[0].text == "Verdict: duplicate"
    columns = d.find_elements("css selector", "#pair > div")
    assert len(columns) == 2
    assert columns[0].find_element("tag name", "h3").text == "Original: ferry-original"
    assert columns[1].find_element("tag name", "h3").text == "This page"
    for column in columns:
        marks = [m.text for m in column.find_elements("tag name", "mark")]
        assert any("ferry returns on" in m for m in marks), marks
    # The changed word is the one thing each side has alone.
    assert [s.text for s in columns[0].find_elements("css selector", ".only")] == ["Saturday"]
    assert [s.text for s in columns[1].find_elements("css selector", ".only")] == ["Monday"]
    assert "near-duplicate" in d.find_element("id", "explanation").text
    assert call(service, "GET", "/v1/stats")["documents"] == before, "a check stores nothing"
    d.execute_script("document.getElementById('check-verdict').scrollIntoView()")
    d.save_screenshot(str(SHOTS / "ui-check-1280.png"))

    narrow(d, 390)
    try:
        assert d.execute_script("return window.innerWidth") == 390
        wider = overflow(d)
        assert wider <= 1, f"390 px: {wider} px wider than the window"
        d.execute_script("document.getElementById('pair').scrollIntoView()")
        d.save_screenshot(str(SHOTS / "ui-check-390.png"))
        d.execute_script("window.scrollTo(0, 0)")
        d.save_screenshot(str(SHOTS / "ui-top-390.png"))
    finally:
        narrow(d, 1280)


def test_an_empty_page_and_errors_are_shown(service, page):
    d = page
    d.find_element("id", "check-content").clear()
    d.find_element("id", "kind-html").click()
    d.find_element("id", "check-content").send_keys("<html><body><p> -- </p></body></html>")
    d.find_element("id", "check-button").click()
    verdict = wait_for(d, "the verdict", lambda d: d.find_elements("css selector", "#check-result h3"))
    assert verdict[0].text == "Verdict: empty"
    # Without the cookie (logged out elsewhere), the page says so.
    d.delete_all_cookies()
    d.find_element("id", "check-button").click()
    error = wait_for(d, "the error", lambda d: d.find_element("id", "check-error").text)
    assert error == "Check: Not authorized."
    assert "log in again" in d.find_element("id", "session-error").text
    d.save_screenshot(str(SHOTS / "ui-error-1280.png"))
    log_in(d, service, TOKEN)
    wait_for(d, "the page after logging in again", lambda d: d.find_elements("id", "counts-h"))

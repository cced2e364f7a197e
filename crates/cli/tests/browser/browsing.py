"""What the browser tests share: where the binary and the screenshots are,
whether a browser is there, and a headless Chromium of a given width."""

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]
BIN = Path(os.environ.get("NEARDUP_BIN", ROOT / "target" / "debug" / "neardup"))
SHOTS = Path(os.environ.get("NEARDUP_SHOTS", ROOT / "target" / "browser-shots"))
CHROMIUM = shutil.which("chromium")
DRIVER = shutil.which("chromedriver")

needs_browser = pytest.mark.skipif(
    not (CHROMIUM and DRIVER and BIN.exists()),
    reason=f"needs chromium, chromedriver and {BIN} (scripts/test.sh installs and builds them)",
)


def browser(width, javascript=True, height=1000):
    """A headless Chromium window `width` by `height` px."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 f"--window-size={width},{height}"]:
        opts.add_argument(flag)
    if not javascript:
        opts.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2})
    d = webdriver.Chrome(service=Service(DRIVER), options=opts)
    narrow(d, width, height)
    return d


def narrow(d, width, height=1000):
    """Makes the viewport exactly `width` px wide, as a phone's: headless
    Chromium keeps windows at least 500 px wide, so a narrower one is
    emulated (a phone's viewport, the page's viewport meta applied)."""
    if width < 500:
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
    else:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        d.set_window_size(width, height)


def overflow(d):
    """How many px the page is wider than the window."""
    return d.execute_script("return document.documentElement.scrollWidth - window.innerWidth")

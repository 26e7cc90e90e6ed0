"""The phone page in a real browser, shared by the browser tests: Debian's headless chromium
through selenium and chromium-driver, at 360×740 like a phone held upright, and what a test
reads back from the page. Screenshots go to test-output/classroom/ to look at. Without chromium
or chromedriver the tests skip, except under CI=true, where .ci/run installs both."""

from __future__ import annotations

import base64
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import in_ci

CHROMEDRIVER = Path("/usr/bin/chromedriver")
WIDTH, HEIGHT = 360, 740
SHOTS = Path(os.environ.get("EXPLAINER_TEST_OUTPUT", "").strip() or Path(__file__).parents[2] / "test-output")
WAIT_S = 20  # a guard against a hang, never a measure of speed


def chromium_driver(profile: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A headless chromium with a phone's screen (the `driver` fixture's body)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None or not CHROMEDRIVER.is_file():
        reason = "chromium or chromedriver is missing (apt-get install chromium chromium-driver)"
        if in_ci():
            pytest.fail(f"{reason}; CI=true: .ci/run installs them")
        pytest.skip(reason)
    monkeypatch.setenv("SE_AVOID_STATS", "true")
    monkeypatch.setenv("SE_OFFLINE", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in (
        "--headless=new",
        f"--window-size={WIDTH},{HEIGHT}",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(arg)
    browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    browser.set_window_size(WIDTH, HEIGHT)
    browser.execute_cdp_cmd(  # a phone's screen: 360 CSS pixels wide, touch, the mobile viewport
        "Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": True}
    )
    yield browser
    browser.quit()


def wait(browser: Any, test: Callable[..., Any], what: str) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, WAIT_S).until(lambda b: test(b), what)


def text(browser: Any, element_id: str) -> str:
    found: str = browser.find_element("id", element_id).text
    return found


def joined(browser: Any) -> None:
    """Wait until the page has joined its room."""
    wait(browser, lambda b: b.execute_script("return document.body.dataset.joined") == "yes", "the phone joined")


def shot(browser: Any, name: str) -> Path:
    """The whole page as a PNG, test-output/classroom/phone-NAME.png."""
    folder = SHOTS / "classroom"
    folder.mkdir(parents=True, exist_ok=True)
    height = browser.execute_script("return document.documentElement.scrollHeight")
    clip = {"x": 0, "y": 0, "width": WIDTH, "height": max(HEIGHT, height), "scale": 1}
    options = {"format": "png", "captureBeyondViewport": True, "clip": clip}
    taken = browser.execute_cdp_cmd("Page.captureScreenshot", options)
    path = folder / f"phone-{name}.png"
    path.write_bytes(base64.b64decode(taken["data"]))
    return path

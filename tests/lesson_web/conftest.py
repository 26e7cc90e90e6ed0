"""The lesson on the web, built once per worker from a real 8-token run of the default model, and
a real browser to open it in: Debian's headless chromium through selenium and chromium-driver.

Pages are opened from file:// or from a server of the test's own on 127.0.0.1 (an LMS serves its
packages so, and the SCORM API is reached across frames only within one origin); nothing else is
reached. Without chromium or chromedriver these tests skip, except under CI=true, where .ci/run
installs both; without the built model they skip as every test of the real model does.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import http.server
import json
import os
import shutil
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import in_ci

CHROMEDRIVER = Path("/usr/bin/chromedriver")
PROMPT = "The capital of France is"
STEPS = 8
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]  # WCAG 2.2 A and AA (axe-core's tags)
SHOTS = Path(os.environ.get("EXPLAINER_TEST_OUTPUT", "").strip() or Path(__file__).parents[2] / "test-output")


@pytest.fixture(scope="session")
def lesson_trace(real_engine):
    """A sampled run (temperature 0.8, seed 1): some passes take another token than the favourite."""
    from explainer.engine.sampler import SamplingSettings

    settings = SamplingSettings(temperature=0.8, top_k=0, top_p=1.0, seed=1, max_new_tokens=STEPS)
    return real_engine.generate(PROMPT, settings, lens=True)


@pytest.fixture(scope="session")
def built_lesson(lesson_trace, real_engine):
    from explainer.content.assets import load_texts
    from explainer.lesson_web.export import build_lesson

    return build_lesson(lesson_trace, load_texts(), real_engine)


@pytest.fixture(scope="session")
def lesson_files(built_lesson, tmp_path_factory) -> dict[str, Path]:
    """The page (lesson.html) and the SCORM package (lesson.zip) of the same build."""
    from explainer.lesson_web.scorm import package

    folder = tmp_path_factory.mktemp("lesson-web")
    html = folder / "lesson.html"
    html.write_bytes(built_lesson.page)
    zipped = folder / "lesson.zip"
    zipped.write_bytes(package(built_lesson.page, built_lesson.id, built_lesson.title))
    return {"html": html, "zip": zipped}


def blocks(page: bytes) -> dict[str, Any]:
    """The page's data blocks, inflated as the page inflates them (JSON ones decoded)."""
    import re

    out: dict[str, Any] = {}
    for name, text in re.findall(rb'<script type="application/octet-stream" id="([^"]+)">([^<]*)</script>', page):
        raw = zlib.decompress(base64.b64decode(text))
        key = name.decode()
        out[key] = raw if key.startswith("scores-") else json.loads(raw)
    return out


def shot(driver, name: str) -> Path:
    """The whole page as a PNG in test-output/lesson_web/ (to look at)."""
    folder = SHOTS / "lesson_web"
    folder.mkdir(parents=True, exist_ok=True)
    width = driver.execute_script("return window.innerWidth")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
    options = {"format": "png", "captureBeyondViewport": True, "clip": clip}
    data = driver.execute_cdp_cmd("Page.captureScreenshot", options)
    path = folder / f"{name}.png"
    path.write_bytes(base64.b64decode(data["data"]))
    return path


@contextlib.contextmanager
def chromium(tmp_path: Path, width: int, height: int, mobile: bool = False) -> Iterator[Any]:
    chromium_path = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium_path is None or not CHROMEDRIVER.is_file():
        reason = "chromium or chromedriver is missing (apt-get install chromium chromium-driver)"
        if in_ci():
            pytest.fail(f"{reason}; CI=true: .ci/run installs them")
        pytest.skip(reason)
    os.environ.setdefault("SE_AVOID_STATS", "true")
    os.environ.setdefault("SE_OFFLINE", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium_path
    for arg in (
        "--headless=new",
        f"--window-size={width},{height}",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        f"--user-data-dir={tmp_path / f'profile-{width}'}",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    browser.set_script_timeout(120)
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        yield browser
    finally:
        browser.quit()


def wait(browser, test: Callable[[Any], Any], what: str, timeout: float = 30) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout).until(lambda b: test(b), what)


def ready(browser) -> None:
    """Wait until the lesson page (in the current frame) has drawn its first frame."""
    script = "return document.getElementById('page').dataset.state"
    wait(browser, lambda b: b.execute_script(script) != "loading", "the page")
    state = browser.execute_script(script)
    assert state == "ready", (state, browser.execute_script("return document.getElementById('position').textContent"))


def open_page(browser, page: Path) -> None:
    """The lesson page at ``page``, opened and drawn."""
    browser.get(page.resolve().as_uri())
    ready(browser)


def errors(browser) -> list[str]:
    """What the page wrote to the console at the level of an error (a CSP refusal is one)."""
    return [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """``folder`` over HTTP on 127.0.0.1 (a free port), as an LMS serves a package; yields the base URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        time.sleep(0)


def keep_record(browser, page: Path, record: str) -> None:
    """Leave ``record`` where the page at ``page`` keeps its progress without an LMS, from another
    page of the same origin (the lesson saves its own record as it closes, so it cannot be the one).

    Only in a browser that has not shown the lesson yet: a lesson page left for this one saves its
    record as it goes, and Chromium may run that save after the next page's script (an old page's
    unload runs beside the new page), so it can land over ``record`` (CI, once)."""
    from urllib.parse import quote

    assert not browser.current_url.startswith("file:"), "keep_record needs a browser that has not shown the lesson"

    seed = page.with_name("seed.html")
    seed.write_text(
        "<!DOCTYPE html><title>seed</title><script>localStorage.setItem('explainer-lesson:' + location"
        f".pathname.replace('seed.html', {page.name!r}), decodeURIComponent(location.hash.slice(1)))</script>"
    )
    browser.get(seed.resolve().as_uri() + "#" + quote(record))


def set_theme(browser, name: str) -> None:
    """The theme switch set to ``name`` (as its menu does)."""
    browser.execute_script(
        "const s = document.getElementById('theme'); s.value = arguments[0]; s.dispatchEvent(new Event('change'))", name
    )

"""`explainer --class`: the app opens with class mode on, prints the class page's address on a
line of its own, serves that page on 127.0.0.1, and ends cleanly."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

ROOT = Path(__file__).parents[3]
HANG_S = 120  # a guard against a hang, never a measure of speed


async def _fetch(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as r:
        return r.status, await r.text()


@pytest.mark.slow
def test_explainer_class_prints_the_page_serves_it_and_ends_cleanly():
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    cmd = [sys.executable, "-m", "explainer", "--class", "--class-bind", "127.0.0.1", "--class-port", "0"]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT) as app:
        _drive(app)


def _drive(app: subprocess.Popen[str]) -> None:
    try:
        assert app.stdout is not None
        line = ""
        for line in app.stdout:  # (ends if the app exits: then the assert below says so)
            if line.startswith("class page: "):
                break
        found = re.fullmatch(r"class page: (http://127\.0\.0\.1:(\d+)/r/([A-Z0-9]{4}))\n", line)
        assert found, (line, app.poll())
        url = found.group(1)
        status, page = asyncio.run(asyncio.wait_for(_fetch(url), HANG_S))
        assert status == 200 and "<html" in page.lower()
        lower = url[: -len(found.group(3))] + found.group(3).lower()  # the code in any case
        assert asyncio.run(asyncio.wait_for(_fetch(lower), HANG_S))[0] == 200
        app.send_signal(signal.SIGINT)  # Ctrl+C in the terminal: the window closes
        assert app.wait(HANG_S) == 0, app.stderr.read() if app.stderr else ""
        with pytest.raises(aiohttp.ClientConnectionError):
            asyncio.run(asyncio.wait_for(_fetch(url), HANG_S))
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()

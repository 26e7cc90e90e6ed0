"""A real browser for the web page's tests: Debian's headless Chromium, driven over its DevTools pipe.

``--remote-debugging-pipe`` makes Chromium read DevTools Protocol commands from fd 3 and write
replies and events to fd 4, as JSON messages ended by a NUL byte. That is all a test needs to
open a page, press keys as a reader does (Input.dispatchKeyEvent reaches the page's keydown
handler like a real key), read the page back (Runtime.evaluate) and see every request it makes
(Network.requestWillBeSent), without selenium or a driver binary. The network is cut twice: no
host name resolves (--host-resolver-rules) and DevTools puts the page offline.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
KEYS = {  # key -> (code, Windows virtual key code), what Input.dispatchKeyEvent needs for each
    "ArrowRight": ("ArrowRight", 39),
    "ArrowLeft": ("ArrowLeft", 37),
    "ArrowDown": ("ArrowDown", 40),
    "PageDown": ("PageDown", 34),
    "PageUp": ("PageUp", 33),
    "Home": ("Home", 36),
    " ": ("Space", 32),
    "n": ("KeyN", 78),
    "p": ("KeyP", 80),
}


def find_chromium() -> str | None:
    for name in NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless Chromium with one tab; use as a context manager."""

    def __init__(
        self,
        executable: str,
        width: int = 1400,
        height: int = 900,
        timeout: float = 30.0,
        env: dict[str, str] | None = None,
    ) -> None:
        """``env``: variables for Chromium on top of this process's (a fontconfig of its own, say)."""
        self.timeout = timeout
        self.events: list[dict[str, Any]] = []
        self._profile = tempfile.TemporaryDirectory(prefix="explainer-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def pipes() -> None:  # in the child: the DevTools pipe is fds 3 (in) and 4 (out)
            high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)  # (the pipes may be 3 or 4 themselves)
            high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)  # dup2 leaves the copy inheritable
            os.dup2(high_w, 4)

        self.process = subprocess.Popen(
            [
                executable,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--host-resolver-rules=MAP * ~NOTFOUND",
                f"--user-data-dir={self._profile.name}",
                f"--window-size={width},{height}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=pipes,  # (the only way to put the pipe at fds 3 and 4)
            close_fds=False,
            env={**os.environ, **env} if env else None,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.session: str | None = None

    # --- the protocol -------------------------------------------------------------------

    def send(self, method: str, params: dict[str, Any] | None = None, session: bool = True) -> dict[str, Any]:
        """Run one command and return its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)

    def _read(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                raise TimeoutError("Chromium did not answer")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed its DevTools pipe")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return dict(json.loads(message))

    # --- what a test does -------------------------------------------------------------------

    def open(self, path: Path) -> None:
        """Open ``path`` from file:// in a fresh tab, offline, and wait for its load event."""
        self.events.clear()  # (a tab opened before must not answer for this one's load; requests() start here)
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Network"):
            self.send(f"{domain}.enable")
        self.send(
            "Network.emulateNetworkConditions",
            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
        )
        self.send("Page.navigate", {"url": path.resolve().as_uri()})
        self.wait_for_event("Page.loadEventFired")

    def wait_for_event(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        seen = 0
        while time.monotonic() < deadline:
            for event in self.events[seen:]:
                if event.get("method") == method:
                    return event
            seen = len(self.events)
            self.events.append(self._read())
        raise TimeoutError(f"no {method} from Chromium")

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_until(self, expression: str, timeout: float | None = None) -> Any:
        deadline = time.monotonic() + (timeout or self.timeout)
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise TimeoutError(f"never true in the page: {expression}")

    def press(self, key: str) -> None:
        code, vk = KEYS[key]
        down: dict[str, Any] = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk}
        if len(key) == 1:
            down["text"] = key
        self.send("Input.dispatchKeyEvent", down)
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk})

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False})["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def requests(self) -> list[str]:
        """The URL of every request the page made so far."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.send("Browser.close", session=False)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        for fd in (self._to_browser, self._from_browser):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

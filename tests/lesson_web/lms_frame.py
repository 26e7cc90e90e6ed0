"""An LMS for the tests: scorm-again's SCORM 1.2 runtime in a page that frames the lesson's package.

What Moodle does with a SCORM 1.2 package, with a real runtime (scorm-again, from npm: the
browser tests' tests/browser/package-lock.json): the package is unzipped and served (here on
127.0.0.1), a page puts ``window.API = new Scorm12API(...)`` up and frames the package's page,
and the values the page reports are read back from the runtime. A launch with the values an
earlier session left (suspend_data, lesson_location, lesson_status, the score) is how an LMS
resumes an attempt: the page must pick up where it was.

The learner's keyboard: :class:`Keyboard` reaches a control by Tab (or Shift+Tab, whichever way
it lies) and works it by its keys, never by a script's click, so what passes here passes for a
learner with a keyboard alone.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import in_ci
from tests.lesson_web.conftest import ready, wait

SCORM_AGAIN = Path(__file__).parents[1] / "browser" / "node_modules" / "scorm-again" / "dist" / "scorm12.min.js"
LMS_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>A course</title><link rel="icon" href="data:,">
<script src="scorm12.min.js"></script></head>
<body style="margin:0">
<iframe id="sco" title="The lesson" style="width:100%;height:100vh;border:0"></iframe>
<script>
window.sessions = [];
function values(api) {
  const c = api.cmi.core;  // (exit and session_time are write-only to a SCO: read as they were set)
  return { status: c.lesson_status, location: c.lesson_location, raw: c.score.raw, min: c.score.min, max: c.score.max,
    exit: api.written["cmi.core.exit"], session_time: api.written["cmi.core.session_time"],
    suspend: api.cmi.suspend_data, initialized: api.isInitialized(), terminated: api.isTerminated() };
}
window.lms = () => values(window.API);
window.launch = (saved) => {
  const api = new Scorm12API({ logLevel: 5, autocommit: false });
  api.written = {};
  api.on("LMSSetValue.cmi.*", (element, value) => { api.written[element] = value; });
  if (saved) api.loadFromFlattenedJSON({ "cmi.suspend_data": saved.suspend, "cmi.core.lesson_location": saved.location,
    "cmi.core.lesson_status": saved.status, "cmi.core.score.raw": saved.raw, "cmi.core.entry": "resume" });
  window.API = api;
  document.getElementById("sco").src = "pkg/index.html";
};
window.leave = () => { document.getElementById("sco").src = "about:blank"; };
</script></body></html>
"""


def scorm_again() -> Path:
    if not SCORM_AGAIN.is_file():
        reason = f"scorm-again is not installed ({SCORM_AGAIN.parents[3]}: npm ci)"
        if in_ci():
            pytest.fail(f"{reason}; CI=true: packaging/bootstrap.sh installs it")
        pytest.skip(reason)
    return SCORM_AGAIN


def lms_folder(package: Path, folder: Path) -> Path:
    """The package unzipped as an LMS does (pkg/), the runtime and the LMS's page beside it."""
    with zipfile.ZipFile(package) as z:
        z.extractall(folder / "pkg")
    shutil.copy(scorm_again(), folder / "scorm12.min.js")
    (folder / "lms.html").write_text(LMS_PAGE, encoding="utf-8")
    return folder


class Lms:
    """The LMS's page in a browser: launch the lesson, read what it reported, leave it."""

    def __init__(self, browser: Any, base: str) -> None:
        self.browser = browser
        self.base = base

    def open(self) -> None:
        self.browser.get(self.base + "/lms.html")
        self.browser.execute_script("launch(null)")
        self.enter()

    def enter(self) -> None:
        self.browser.switch_to.default_content()
        self.browser.switch_to.frame("sco")
        ready(self.browser)

    def values(self) -> dict[str, Any]:
        self.browser.switch_to.default_content()
        try:
            found: dict[str, Any] = self.browser.execute_script("return lms()")
        finally:
            self.browser.switch_to.frame("sco")
        return found

    def leave(self) -> dict[str, Any]:
        """The learner closes the lesson: the frame is emptied (the page calls LMSFinish as it goes)."""
        self.browser.switch_to.default_content()
        self.browser.execute_script("leave()")
        wait(self.browser, lambda b: b.execute_script("return lms().terminated"), "LMSFinish")
        found: dict[str, Any] = self.browser.execute_script("return lms()")
        return found

    def relaunch(self, saved: dict[str, Any]) -> None:
        """A new session of the same attempt, with the values the last one left."""
        self.browser.switch_to.default_content()
        self.browser.execute_script("launch(arguments[0])", saved)
        self.enter()


class Keyboard:
    """Tab to a control, then its keys: what a learner without a mouse does."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser

    def press(self, *keys: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.browser).send_keys(*keys).perform()

    def back_tab(self) -> None:
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        ActionChains(self.browser).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()

    def clear(self) -> None:
        """Ctrl+A, then Backspace: what is typed in the focused box goes."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        ActionChains(self.browser).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
        self.press(Keys.BACKSPACE)

    def focused(self) -> str:
        found: str = self.browser.execute_script("return document.activeElement ? document.activeElement.id : ''")
        return found

    def focus(self, element_id: str, limit: int = 400) -> None:
        """Tab (or Shift+Tab, toward it) until ``element_id`` has the focus."""
        from selenium.webdriver.common.keys import Keys

        where = """const t = document.getElementById(arguments[0]); const a = document.activeElement;
            if (!t) return 'missing'; if (!a || a === document.body) return 'after';
            return (a.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_PRECEDING) ? 'before' : 'after';"""
        for _ in range(limit):
            if self.focused() == element_id:
                return
            side = self.browser.execute_script(where, element_id)
            assert side != "missing", f"no #{element_id} on the page"
            if side == "before":
                self.back_tab()
            else:
                self.press(Keys.TAB)
        raise AssertionError(f"#{element_id} never took the focus (at #{self.focused()})")

    def activate(self, element_id: str) -> None:
        from selenium.webdriver.common.keys import Keys

        self.focus(element_id)
        self.press(Keys.ENTER)

    def open_tab(self, name: str) -> None:
        """A section of the lesson: its tab, reached as a tab list is, by the arrow keys from the
        tab that has the focus stop (only the selected one is in the Tab order)."""
        from selenium.webdriver.common.keys import Keys

        selected = self.browser.execute_script("return document.querySelector('[role=tab][tabindex=\"0\"]').id")
        self.focus(selected)
        for _ in range(20):
            if self.focused() == f"tab-{name}":
                return
            self.press(Keys.ARROW_RIGHT)
        raise AssertionError(f"no tab {name}")

    def text(self, element_id: str) -> str:
        found: str = self.browser.execute_script(
            "const e = document.getElementById(arguments[0]); return e ? e.textContent : null", element_id
        )
        return found

"""The lesson page on its own, as a learner opens the .html on a phone: no LMS, progress kept in
the browser (and said so), nothing fetched, no sideways scrolling at 360 px; and progress that
was saved damaged, as markup, or by another export is set aside with a message, never run.
Screenshots at 360 px and at 1366 x 768 go to test-output/lesson_web/ to look at.
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.keys import Keys

from explainer.content.assets import load_texts
from tests.lesson_web.conftest import blocks, chromium, errors, keep_record, open_page, ready, set_theme, shot, wait
from tests.lesson_web.lms_frame import Keyboard

pytestmark = pytest.mark.slow
PHONE = (360, 740)
KEY = "'explainer-lesson:' + location.pathname"  # (lms.js: the record's key in localStorage)


def _tab(browser, keys: Keyboard, name: str) -> None:
    keys.open_tab(name)
    wait(browser, lambda b: not b.execute_script(f"return document.getElementById('panel-{name}').hidden"), name)


def test_on_a_phone_the_lesson_fits_keeps_progress_here_and_fetches_nothing(lesson_files, tmp_path):
    texts = load_texts()
    words = texts.lesson_web["storage"]
    lesson = blocks(lesson_files["html"].read_bytes())["lesson-data"]
    with chromium(tmp_path, *PHONE, mobile=True) as browser:
        open_page(browser, lesson_files["html"])
        keys = Keyboard(browser)
        assert keys.text("store") == words["local"]
        assert browser.execute_script("return document.documentElement.scrollWidth") <= PHONE[0]
        shot(browser, "phone-360-start")
        # the tour's first steps, by keyboard: Next, then the recorded run in place of Generate
        keys.activate("tour-next")
        steps = len(lesson["tour"]["steps"])
        assert keys.text("tour-progress") == texts.text("tour", "progress").format(n=2, total=steps)
        keys.activate("use-run")
        assert "✓" in (keys.text("tour-task") or "")
        # Predict at the first pass's layers stage: the illustration holds the answer back
        _tab(browser, keys, "predict")
        keys.focus("ill")
        keys.press(Keys.HOME, *([Keys.ARROW_RIGHT] * 3))  # pretraining, tokens, embeddings, layers
        assert browser.execute_script("return document.querySelectorAll('#panel-predict .pick').length") == 4
        hidden_words = load_texts().app_text("chart_table", "hidden")
        assert keys.text("chart") == hidden_words
        shot(browser, "phone-360-predict")
        keys.activate("pick-0")
        wait(browser, lambda b: b.find_elements("css selector", "#panel-predict .verdict"), "the reveal")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= PHONE[0]
        shot(browser, "phone-360-reveal")
        # a question answered, then the page reloaded: the answer is still there
        _tab(browser, keys, "questions")
        keys.focus("option-0")
        q = lesson["questions"][0]
        keys.press(Keys.SPACE, *([Keys.ARROW_DOWN] * q["answer"]))
        keys.activate("check")
        assert keys.text("verdict") == texts.text("quiz", "right")
        told = "return document.getElementById('announce').textContent"  # (the live region a screen reader hears)
        wait(browser, lambda b: b.execute_script(told) == texts.text("quiz", "right"), "the verdict told")
        live = "return document.getElementById('announce').getAttribute('aria-live')"
        assert browser.execute_script(live) == "polite"
        shot(browser, "phone-360-quiz")
        line = keys.text("quiz-score")
        saved = browser.execute_script(f"return localStorage.getItem({KEY})")
        assert saved.startswith(f"L1.{lesson['id']}.")
        browser.refresh()
        ready(browser)
        assert keys.text("quiz-score") == line and keys.text("store") == words["local"]
        for name in ("whatif", "your_turn", "glossary", "request", "scale", "complete"):
            _tab(browser, keys, name)
            assert browser.execute_script("return document.documentElement.scrollWidth") <= PHONE[0], name
        shot(browser, "phone-360-done-tab")
        fetched = browser.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
        assert fetched == []
        assert not errors(browser)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ('<img src=x onerror="window.pwned=1">', "unreadable"),
        ("L1.0123456789abcdef.0.0.0.xx.0-0-0-0..0", "other"),
        ("L1.{id}.zz.9.9.oops.1-2-3-4.<b>.0", "unreadable"),
    ],
)
def test_saved_progress_that_does_not_read_is_set_aside_with_a_message(lesson_files, tmp_path, record, message):
    lesson = blocks(lesson_files["html"].read_bytes())["lesson-data"]
    words = load_texts().lesson_web["storage"]
    with chromium(tmp_path, 1366, 768) as browser:
        keep_record(browser, lesson_files["html"], record.format(id=lesson["id"]))
        open_page(browser, lesson_files["html"])
        keys = Keyboard(browser)
        assert keys.text("store") == words[message]
        assert browser.execute_script("return window.pwned === undefined && !document.querySelector('img, b')")
        steps = len(lesson["tour"]["steps"])
        assert keys.text("tour-progress") == load_texts().text("tour", "progress").format(n=1, total=steps)
        assert browser.execute_script("return document.getElementById('store').classList.contains('warn')")
        keys.activate("tour-next")  # the first change saves a fresh record over it
        assert browser.execute_script(f"return localStorage.getItem({KEY})").startswith(f"L1.{lesson['id']}.")


def test_screenshots_at_1366_in_every_theme(lesson_files, tmp_path):
    with chromium(tmp_path, 1366, 768) as browser:
        open_page(browser, lesson_files["html"])
        keys = Keyboard(browser)
        for theme in ("light", "dark", "projector"):
            set_theme(browser, theme)
            shot(browser, f"desktop-1366-{theme}")
        keys.activate("tour-next")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 1366
        assert not errors(browser)

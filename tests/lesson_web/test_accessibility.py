"""The lesson page for every learner: axe-core's WCAG 2.2 A and AA rules find nothing in any of
its states and themes, and every word on it comes from assets/<language>/ (the pseudo-locale:
with every text wrapped in ⟦ ⟧, nothing with letters stands outside the brackets but the run's
own data: its tokens, its numbers, the model's name, the next lesson's address).

axe-core is an npm package pinned in tests/browser/package-lock.json (packaging/bootstrap.sh
installs it with npm ci); its script is injected through selenium, over the DevTools protocol,
which the page's CSP does not govern. Without it the axe tests skip, except under CI=true.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from explainer.content.assets import read_texts
from tests.conftest import in_ci
from tests.lesson_web.conftest import AXE_TAGS, blocks, chromium, errors, keep_record, open_page, set_theme, shot, wait
from tests.lesson_web.lms_frame import Keyboard
from tests.support.pseudo import LANGUAGE, NUMBER, has_words, make_pseudo_assets, unwrapped

pytestmark = pytest.mark.slow
AXE = Path(__file__).parents[1] / "browser" / "node_modules" / "axe-core" / "axe.min.js"
RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, { runOnly: { type: "tag", values: arguments[0] }, resultTypes: ["violations"] })
  .then((r) => done(r.violations.map((v) => ({ id: v.id, help: v.help,
    nodes: v.nodes.map((n) => n.target.join(" ") + ": " + n.failureSummary) }))))
  .catch((e) => done([{ id: "axe-failed", help: String(e), nodes: [] }]));
"""
# what a learner reads: the text of every visible block, and the names and hints of its controls
VISIBLE_TEXT = """
const out = [];
const seen = (e) => e.checkVisibility() && !e.closest('svg');
const blocks = 'p, li, dt, dd, button, label, th, td, figcaption, h1, h2, h3, h4, summary, option, #position';
for (const e of document.querySelectorAll('#page :is(' + blocks + ')')) {
  if (!seen(e) && e.tagName !== 'OPTION') continue;
  if (e.querySelector(':is(p, li, button, label, td, th)')) continue;  // (its blocks are read one by one)
  out.push(e.innerText);
}
for (const e of document.querySelectorAll('#page [aria-label], #page [title], #page [placeholder]')) {
  if (!seen(e)) continue;
  for (const a of ['aria-label', 'title', 'placeholder']) if (e.getAttribute(a)) out.push(e.getAttribute(a));
}
out.push(document.title);
return out;
"""


@pytest.fixture(scope="module")
def axe() -> str:
    if not AXE.is_file():
        reason = f"axe-core is not installed ({AXE.parents[2]}: npm ci)"
        if in_ci():
            pytest.fail(f"{reason}; CI=true: packaging/bootstrap.sh installs it")
        pytest.skip(reason)
    return AXE.read_text(encoding="utf-8")


def _check(browser: Any, axe: str, state: str) -> None:
    if not browser.execute_script("return typeof window.axe === 'object'"):
        browser.execute_script(axe)
    found = browser.execute_async_script(RUN, AXE_TAGS)
    assert found == [], f"{state}: " + json.dumps(found, indent=1)


def _complete_record(lesson: dict[str, Any]) -> str:
    """A record with every question right at the first try (lms.js's format: each question's
    tries * 2 + right, two base-36 digits)."""
    return f"L1.{lesson['id']}.0.0.0.{'03' * len(lesson['questions'])}.0-0-0-0..0"


def _states(browser: Any, keys: Keyboard, visit: Any) -> None:
    """The lesson in each of its states, ``visit(name)`` at each."""
    from selenium.webdriver.common.keys import Keys

    visit("start")
    keys.activate("tour-next")
    keys.activate("use-run")
    visit("recorded run used")
    keys.focus("ill")
    keys.press(Keys.HOME, *([Keys.ARROW_RIGHT] * 3))
    visit("a guess open in Predict")
    keys.activate("pick-1")
    wait(browser, lambda b: b.find_elements("css selector", "#panel-predict .verdict"), "the reveal")
    visit("the reveal")
    keys.focus("ill")
    keys.press(Keys.ARROW_RIGHT)  # sampling
    keys.open_tab("whatif")
    wait(browser, lambda b: b.find_elements("css selector", "#panel-whatif .bars li"), "the what-if bars")
    keys.focus("whatif-temperature")
    keys.press(Keys.ARROW_RIGHT)
    visit("what-if")
    keys.open_tab("your_turn")
    keys.focus("candidate-0")
    keys.press(Keys.SPACE, Keys.ARROW_DOWN)
    keys.activate("your-turn-go")
    keys.activate("cut-show")
    visit("your turn's endings and the second run")
    browser.execute_script("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    visit("the chart as a table and the frame in words")
    keys.open_tab("questions")
    keys.focus("option-0")
    keys.press(Keys.SPACE)
    keys.activate("check")
    visit("a question answered")
    for tab in ("glossary", "request", "scale", "complete"):
        keys.open_tab(tab)
        visit(tab)


def test_axe_finds_nothing_in_any_state_nor_theme(lesson_files, tmp_path, axe):
    with chromium(tmp_path, 1366, 768) as browser:
        open_page(browser, lesson_files["html"])
        keys = Keyboard(browser)

        def visit(state: str) -> None:
            _check(browser, axe, state)
            shot(browser, "desktop-1366-" + re.sub(r"[^a-z0-9]+", "-", state.lower()).strip("-"))

        _states(browser, keys, visit)
        for theme in ("dark", "projector"):
            set_theme(browser, theme)
            _check(browser, axe, f"the {theme} theme")
        assert not errors(browser)


def test_axe_finds_nothing_on_the_completed_lesson(lesson_files, tmp_path, axe):
    """The page as a learner who has shown every goal finds it, in a browser that has not opened
    the lesson before (keep_record says why)."""
    lesson = blocks(lesson_files["html"].read_bytes())["lesson-data"]
    with chromium(tmp_path, 1366, 768) as browser:
        keep_record(browser, lesson_files["html"], _complete_record(lesson))
        open_page(browser, lesson_files["html"])
        Keyboard(browser).open_tab("complete")
        assert browser.find_element("id", "complete-title").text == "Lesson 4 complete: The LLM inference lifecycle."
        _check(browser, axe, "lesson complete")
        shot(browser, "desktop-1366-complete")
        assert not errors(browser)


@pytest.fixture(scope="module")
def pseudo_lesson(lesson_trace, real_engine, tmp_path_factory):
    from explainer.lesson_web.export import build_lesson

    texts = read_texts(LANGUAGE, root=make_pseudo_assets(tmp_path_factory.mktemp("pseudo")))
    built = build_lesson(lesson_trace, texts, real_engine)
    path = tmp_path_factory.mktemp("pseudo-page") / "lesson.html"
    path.write_bytes(built.page)
    return path


def _allowed(lesson: dict[str, Any]) -> set[str]:
    """The run's own data, which stands as it is in any language: its tokens as labelled, the
    model's name, the next lesson's address."""
    out = {lesson["run"]["model"], lesson["completion"]["next_url"]}
    for rnd in filter(None, lesson["passes"]["rounds"]):
        out.update(c["label"] for c in rnd["candidates"])
    for here in lesson["passes"]["your_turn"]:
        for c in here["candidates"]:
            out.add(c["label"])
            out.update(label for label, _pct, _yours in c["ending"]["tokens"])
    for chart in lesson["charts"]:
        out.update(row[0] for row in chart["rows"])
    return out


def test_every_word_on_the_page_comes_from_the_words_files(pseudo_lesson, tmp_path):
    lesson = blocks(pseudo_lesson.read_bytes())["lesson-data"]
    allowed = _allowed(lesson)
    token = re.compile(r"^“[^“”]*”$")  # a token inside quotes, as the chart and what-if write one
    bad: dict[str, set[str]] = {}
    with chromium(tmp_path, 1366, 768) as browser:
        open_page(browser, pseudo_lesson)
        keys = Keyboard(browser)

        def visit(state: str) -> None:
            for text in browser.execute_script(VISIBLE_TEXT):
                for line in text.splitlines():
                    rest = unwrapped(line)
                    pieces = [p for p in re.split(r"\s+[·(),:]\s*|\s{2,}", rest) if p.strip()]
                    if has_words(rest) and not all(
                        not has_words(p) or NUMBER.match(p.strip()) or p.strip() in allowed or token.match(p.strip())
                        for p in pieces
                    ):
                        bad.setdefault(state, set()).add(line)

        _states(browser, keys, visit)
        assert not errors(browser)
    assert bad == {}, json.dumps({k: sorted(v) for k, v in bad.items()}, ensure_ascii=False, indent=1)

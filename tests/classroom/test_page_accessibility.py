"""The class pages against axe-core's WCAG 2.2 A and AA rules, in headless chromium at 360 px: the
phone page joined, in a round, at a reveal, with an answer and ended, and the join page at the bare
address and after a wrong code. axe-core is an npm package pinned in tests/browser/package-lock.json
(.ci/run installs it with `npm ci`); its script is injected through selenium, whose scripts run over
the DevTools protocol, which the pages' CSP does not govern. Without it the tests skip, except under
CI=true, where they fail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from explainer.classroom.events import RoundOffer
from explainer.classroom.queue import ClassQueue
from tests.classroom.phone_browser import joined, shot, wait
from tests.conftest import in_ci
from tests.engine.test_trace import ended

AXE = Path(__file__).parents[1] / "browser" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
OFFER = RoundOffer(6, "Which token comes next after “The sky is”?", ("␣blue", "␣clear", "␣falling", "␣the"))
RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, { runOnly: { type: "tag", values: arguments[0] }, resultTypes: ["violations"] })
  .then((r) => done(r.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => n.target.join(" ") + ": " + n.failureSummary),
  }))))
  .catch((e) => done([{ id: "axe-failed", help: String(e), nodes: [] }]));
"""


@pytest.fixture(scope="module")
def axe() -> str:
    if not AXE.is_file():
        reason = f"axe-core is not installed ({AXE.parents[2]}: npm ci)"
        if in_ci():
            pytest.fail(f"{reason}; CI=true: .ci/run installs it")
        pytest.skip(reason)
    return AXE.read_text(encoding="utf-8")


def _violations(driver: Any, axe: str) -> list[dict[str, Any]]:
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(axe)
    driver.set_script_timeout(60)
    found = driver.execute_async_script(RUN, TAGS)
    assert isinstance(found, list), found
    return found


def _check(driver: Any, axe: str, state: str) -> None:
    found = _violations(driver, axe)
    if found:
        print(f"axe-core: {len(found)} violations on the page {state}:\n{json.dumps(found, indent=2)}")
    assert found == [], f"{state}: " + "; ".join(f"{v['id']} ({v['help']}): {v['nodes']}" for v in found)


def test_the_phone_page_has_no_violations_in_any_of_its_states(serve, driver, axe):
    queue = ClassQueue()
    served = serve(queue=queue)
    driver.get(served.listening.url)
    joined(driver)
    _check(driver, axe, "joined")
    served.server.offer(OFFER)
    buttons = wait(driver, lambda b: b.find_elements("css selector", "#choices button") or None, "the round")
    _check(driver, axe, "in a round")
    buttons[2].click()
    wait(driver, lambda b: buttons[2].get_attribute("aria-pressed") == "true", "the vote")
    _check(driver, axe, "after a vote")
    served.server.reveal(served.server.result(OFFER.round_id, (0.7, 0.1, 0.05, 0.01), favourite=0))
    wait(driver, lambda b: b.find_element("id", "reveal").is_displayed(), "the reveal")
    _check(driver, axe, "at a reveal")
    driver.find_element("id", "prompt").send_keys("Why is the sky blue?")
    driver.find_element("id", "send").click()
    wait(driver, lambda b: queue.waiting() == 1, "the prompt queued")
    life = queue.take()
    assert life is not None
    for token in (" Light", " scatters", "."):
        queue.token_made(life.number, token.encode())
    queue.finished(life.number, ended("eos"))
    wait(driver, lambda b: b.find_element("id", "figures").text != "", "the answer's figures")
    _check(driver, axe, "with an answer")
    served.server.stop()
    wait(driver, lambda b: b.execute_script("return document.body.dataset.live") == "ended", "the session ended")
    _check(driver, axe, "ended")
    shot(driver, "ended-with-answer")


def test_the_join_page_has_no_violations_at_the_bare_address_nor_after_a_wrong_code(served, driver, axe):
    for url, state in ((served.base + "/", "at the bare address"), (served.url(room="ZZZZ"), "after a wrong code")):
        driver.get(url)
        wait(driver, lambda b: b.execute_script("return document.body.dataset.ready") == "yes", "the join page")
        _check(driver, axe, f"join page {state}")
    driver.find_element("id", "code").clear()
    driver.find_element("id", "join").click()  # nothing typed: the box is marked, and says why
    wait(driver, lambda b: b.find_element("id", "code").get_attribute("aria-invalid") == "true", "the mistake")
    _check(driver, axe, "join page, nothing typed")

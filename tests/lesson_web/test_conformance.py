"""The page's rules agree with the lesson's Python code on every case of the conformance fixture.

Python writes the inputs and its own verdicts (explainer/lesson_web/conformance.py: every question
with every option, its right number and each likely mistake, typed numbers, every tour step
against every event from every state, the tour's moves and words, long random walks of a learner
with the record, completion, "Finish the lesson", the score lines and the LMS score after each
move, a grid of what-if settings over every pass the page keeps). The lesson page built from the
same run is opened in chromium, and its own rules.js (the script the page runs, not a copy) is
run over every case: one disagreement fails, naming the case, what the browser said and what
Python said.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explainer.content.assets import load_texts
from explainer.illustration.vocab import TokenNames, vocabulary_of
from explainer.lesson.numbers import as_typed
from explainer.lesson.questions import build_questions
from explainer.lesson.slips import GIVEN
from explainer.lesson_web.conformance import fixture
from tests.lesson_web.conftest import SHOTS, blocks, chromium, errors, open_page

pytestmark = pytest.mark.slow
RUNNER = Path(__file__).with_name("conformance_runner.js")
# how many cases of each kind at least (the fixture's size for an 8-token run and this lesson)
AT_LEAST = {
    "numbers": 60,
    "formats": 150,
    "checks": 400,
    "tour": 20_000,
    "tour moves": 140,
    "tour texts": 250,
    "sessions": 1_500,
    "whatif": 900,
}


@pytest.fixture(scope="module")
def cases(lesson_trace, real_engine, built_lesson):
    texts = load_texts()
    names = TokenNames(vocabulary_of(real_engine.tokenizer)).use(lesson_trace)
    questions = build_questions(texts, lesson_trace, lesson_trace.model, names)
    document = blocks(built_lesson.page)["lesson-data"]
    web = document["words"]["web"]["tour"]
    data = fixture(texts, lesson_trace, names, questions, web, document["run"]["whatif_passes"])
    folder = SHOTS / "lesson_web"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "conformance.json").write_text(json.dumps(data, ensure_ascii=False))  # (to read when a case fails)
    return data


def test_the_pages_rules_agree_with_python_on_every_case(cases, lesson_files, tmp_path):
    with chromium(tmp_path, 1366, 768) as browser:
        open_page(browser, lesson_files["html"])
        counts: dict[str, int] = {}
        wrong = []
        for part, data in cases.items():  # (a part at a time: each is one script's run)
            result = browser.execute_async_script(RUNNER.read_text(), {part: data})
            assert "error" not in result, result.get("error")
            counts.update(result["counts"])
            wrong += result["wrong"]
        assert not errors(browser)
    assert wrong == [], json.dumps(wrong, ensure_ascii=False, indent=1)[:6000]
    for kind, least in AT_LEAST.items():
        assert counts.get(kind, 0) >= least, (kind, counts)


def test_the_fixture_covers_every_question_mistake_and_step(cases, built_lesson):
    """Every question is checked, with each of its likely mistakes given exactly; every step of
    the tour meets every kind of event; the walks reach the end of the lesson."""
    document = blocks(built_lesson.page)["lesson-data"]
    checked = {qid for qid, _given, _v in cases["checks"]}
    assert checked == {q["id"] for q in document["questions"]}
    for q in document["questions"]:
        given = [g for qid, g, _v in cases["checks"] if qid == q["id"]]
        assert all(value in given for value, _why, _exact in q["mistakes"])
        verdicts = [v["message"] for qid, _g, v in cases["checks"] if qid == q["id"]]
        for value, why, _exact in q["mistakes"]:  # each named, in the learner's own number
            assert any(why.replace(GIVEN, as_typed(value)) in m for m in verdicts), q["id"]
    kinds = {e["kind"] for e in cases["tour"]["events"]}
    assert kinds == {"stage", "setting", "generated", "predicted", "whatif", "answered", "branched", "complete"}
    assert len(cases["tour"]["states"]) == 6 * (len(document["tour"]["steps"]) + 1)
    assert any(snap["complete"] for walk in cases["sessions"] for snap in walk["snaps"])
    assert any(not snap["complete"] and snap["unfinished"] for walk in cases["sessions"] for snap in walk["snaps"])

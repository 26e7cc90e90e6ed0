"""The SCORM package inside a real SCORM 1.2 runtime, walked from the first step to "Lesson 4
complete" by keyboard alone, with what the LMS holds checked at every step.

The LMS is scorm-again's Scorm12API on a page at 127.0.0.1 that frames the unzipped package, as
Moodle plays one (tests/lesson_web/lms_frame.py). The learner follows the tour step by step and
does each step's task with the keyboard: Show me, the illustration's steps, a round of Predict,
what-if's sliders, a recorded continuation in Your turn, the second run, every question (one
first answered with a likely mistake, which the verdict names). On the way: the LMS reads
"incomplete" at every step until the last goal is shown, with the tour's step as the location,
the record in suspend_data (at most 4,096 characters) and the score; "Finish the lesson" before
the end lists what is open and completes nothing; the learner leaves in the middle (LMSFinish:
still incomplete) and comes back in a new session, which resumes where they were. At the end the
LMS reads "completed" and the score, and the page says "Lesson 4 complete: ...", the recap and
the next lesson with its link.
"""

from __future__ import annotations

from typing import Any

import pytest

from explainer.content.assets import load_texts
from explainer.lesson.numbers import as_typed
from explainer.lesson.slips import GIVEN
from tests.lesson_web.conftest import blocks, chromium, errors, serve, shot, wait
from tests.lesson_web.lms_frame import Keyboard, Lms, lms_folder

pytestmark = pytest.mark.slow
LEAVE_AFTER = "tok-story"  # the step after which the learner leaves and comes back (chapter 3's end)
WRONG_FIRST = "story_wait"  # answered with a likely mistake first (the verdict must name it)


class Learner:
    """Does each step's task by keyboard, and keeps count of what it answered."""

    def __init__(self, browser: Any, lesson: dict[str, Any]) -> None:
        self.keys = Keyboard(browser)
        self.browser = browser
        self.questions = {q["id"]: q for q in lesson["questions"]}
        self.first_try: set[str] = set()
        self.right: set[str] = set()
        self.tried: set[str] = set()

    def step_index(self) -> int:
        text = self.keys.text("tour-progress")
        assert text is not None, self.keys.text("tour")
        return int(text.split()[1]) - 1

    def on_screen(self):
        """The question the quiz shows."""
        text = self.keys.text("question-text")
        return next(qid for qid, q in self.questions.items() if q["text"] == text)

    def answer(self, qid: str, wrong: float | None = None) -> str:
        """Answer ``qid`` (open in the quiz) by keyboard, right or with ``wrong``; the verdict."""
        from selenium.webdriver.common.keys import Keys

        q = self.questions[qid]
        k = self.keys
        assert self.on_screen() == qid
        if q["kind"] == "choice":
            k.focus("option-0")
            k.press(Keys.SPACE, *([Keys.ARROW_DOWN] * q["answer"]))
        elif q["kind"] == "number":
            k.focus("answer")
            k.clear()
            k.press(repr(float(wrong if wrong is not None else q["answer"])))
        else:
            categories = [c for c, _label in q["categories"]]
            for i, category in enumerate(q["answer"]):
                k.focus(f"item-{i}")
                k.press(*([Keys.ARROW_DOWN] * (categories.index(category) + 1)))
        k.activate("check")
        if wrong is not None:
            self.tried.add(qid)
        else:
            if qid not in self.right and qid not in self.tried:
                self.first_try.add(qid)
            self.right.add(qid)
        return k.text("verdict") or ""

    def score(self) -> str:
        return str(round(100 * len(self.first_try) / len(self.questions)))

    def do_task(self, step: dict[str, Any]) -> None:
        """The step's task, as its words ask for it (its "Show me" first, where it has one)."""
        from selenium.webdriver.common.keys import Keys

        k = self.keys
        kind = step["done"]["kind"]
        if kind == "next":
            return
        if kind == "generate":
            k.activate("use-run")
            return
        k.activate("tour-show")
        if kind == "game":
            k.activate("pick-0")
            wait(self.browser, lambda b: b.find_elements("css selector", "#panel-predict .verdict"), "the reveal")
        elif kind == "whatif":
            k.focus("whatif-" + step["done"]["names"][0])
            k.press(Keys.ARROW_RIGHT)
        elif kind == "setting":
            assert k.focused() == "cut-show"
            k.press(Keys.ENTER)
        elif kind == "branch":
            k.focus("candidate-0")
            k.press(Keys.SPACE, Keys.ARROW_DOWN)  # the second candidate: not the top one
            k.activate("your-turn-go")
        elif kind == "question":
            qid = step["done"]["question"]
            if qid == WRONG_FIRST:
                value, why, _exact = self.questions[qid]["mistakes"][0]
                verdict = self.answer(qid, wrong=value)
                said = why.replace(GIVEN, as_typed(value))
                assert said in verdict, (verdict, said)  # the likely mistake is named, in the number typed
            assert self.answer(qid) == load_texts().text("quiz", "right")
        elif kind == "complete":
            while len(self.right) < len(self.questions):  # the rest: "Finish the lesson" opens each
                k.activate("tour-finish")
                self.answer(self.on_screen())


def _check_lms(lms: Lms, learner: Learner, lesson: dict[str, Any], complete: bool) -> dict[str, Any]:
    v = lms.values()
    assert v["status"] == ("completed" if complete else "incomplete"), v
    assert v["initialized"] and not v["terminated"]
    assert v["suspend"].startswith(f"L1.{lesson['id']}.") and len(v["suspend"]) <= 4096
    assert (v["min"], v["max"], v["raw"]) == ("0", "100", learner.score()), v
    return v


def test_the_package_runs_in_scorm_again_from_first_step_to_lesson_complete(lesson_files, tmp_path):
    texts = load_texts()
    lesson = blocks(lesson_files["html"].read_bytes())["lesson-data"]
    steps = lesson["tour"]["steps"]
    folder = lms_folder(lesson_files["zip"], tmp_path / "lms")
    with serve(folder) as base, chromium(tmp_path, 1366, 768) as browser:
        lms = Lms(browser, base)
        lms.open()
        learner = Learner(browser, lesson)
        first = lms.values()
        assert first["status"] == "incomplete" and first["initialized"]  # "not attempted" no more
        shot(browser, "lms-1366-start")
        left = False
        while True:
            i = learner.step_index()
            step = steps[i]
            learner.do_task(step)
            if step["done"]["kind"] != "next":
                task = learner.keys.text("tour-task")
                assert task == texts.text("ui", "task_done").format(do=step["do"]), (step["id"], task)
            complete = len(learner.right) == len(learner.questions)
            v = _check_lms(lms, learner, lesson, complete)
            assert v["location"] == step["id"]
            if step["id"] == LEAVE_AFTER:
                left = True
                _leave_and_come_back(lms, learner, texts, i)
            if complete:
                break
            learner.keys.activate("tour-next")
            assert learner.step_index() == i + 1
        assert left
        done = learner.keys.text("complete-title")
        assert done == "Lesson 4 complete: The LLM inference lifecycle."
        told = "return document.getElementById('announce').textContent"  # (the live region a screen reader hears)
        wait(browser, lambda b: b.execute_script(told).endswith("\n" + done), "the verdict, then the completion told")
        page = browser.execute_script("return document.getElementById('panel-complete').textContent")
        for line in (*texts.lesson.recap, texts.text("completion", "next_url")):
            assert line in page
        assert "How attention works inside transformers" in page
        link = browser.execute_script("return document.getElementById('next-lesson').href")
        assert link == texts.text("completion", "next_url")
        shot(browser, "lms-1366-complete")
        assert not errors(browser)
        final = lms.values()
        assert final["status"] == "completed" and final["raw"] == learner.score() and final["exit"] == ""
        assert int(final["raw"]) < 100  # (one question was answered wrong first)
        ended = lms.leave()
        assert ended["status"] == "completed" and ended["terminated"]


def _leave_and_come_back(lms: Lms, learner: Learner, texts: Any, i: int) -> None:
    """ "Finish the lesson" early (what is open is listed, nothing completes), then the learner
    closes the lesson (LMSFinish: incomplete, suspended) and opens it again in a new session,
    which resumes at the same step, frame and answers."""
    k = learner.keys
    k.activate("tour-finish")
    wait(learner.browser, lambda b: b.execute_script("return !!document.getElementById('tour-open')"), "the open goals")
    assert (k.text("tour-open") or "").startswith(texts.text("completion", "open_title").split("{")[0])
    assert lms.values()["status"] == "incomplete"
    position, quiz_line = k.text("position"), k.text("quiz-score")
    ended = lms.leave()
    assert ended["status"] == "incomplete" and ended["exit"] == "suspend" and ended["terminated"]
    assert ended["session_time"] not in ("", "0000:00:00")
    lms.relaunch(ended)
    assert learner.step_index() == i and k.text("position") == position
    assert k.text("quiz-score") == quiz_line  # the answers came back from suspend_data
    assert lms.values()["status"] == "incomplete"


def test_progress_the_lms_kept_that_does_not_read_is_set_aside_and_replaced(lesson_files, tmp_path):
    """suspend_data that is markup (or damaged) is never run nor shown: the lesson says it starts
    afresh, and its first change writes its own record over it."""
    texts = load_texts()
    lesson = blocks(lesson_files["html"].read_bytes())["lesson-data"]
    folder = lms_folder(lesson_files["zip"], tmp_path / "lms")
    with serve(folder) as base, chromium(tmp_path, 1366, 768) as browser:
        lms = Lms(browser, base)
        browser.get(base + "/lms.html")
        saved = {
            "suspend": '<img src=x onerror="parent.pwned=1">',
            "location": "tok-ids",
            "status": "incomplete",
            "raw": "40",
        }
        lms.relaunch(saved)
        keys = Keyboard(browser)
        assert keys.text("store") == texts.lesson_web["storage"]["unreadable"]
        assert browser.execute_script("return !document.querySelector('#page img')")
        assert keys.text("tour-progress") == texts.text("tour", "progress").format(
            n=1, total=len(lesson["tour"]["steps"])
        )
        keys.activate("tour-next")
        v = lms.values()
        assert v["suspend"].startswith(f"L1.{lesson['id']}.") and v["status"] == "incomplete"
        browser.switch_to.default_content()
        assert browser.execute_script("return window.pwned === undefined")

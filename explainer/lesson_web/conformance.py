"""The conformance fixture: inputs for the page's rules and the verdicts the Python code gives them.

The page decides in JavaScript (assets/lesson_web/rules.js) what the app decides in Python. The
two are held together by cases: this module writes each input and what the lesson's own Python
code answers for it, and tests/lesson_web/test_conformance.py runs rules.js over every case in a
browser, on the lesson page built from the same run, and fails on any disagreement.

- ``numbers``: typed answers read as numbers (:func:`~explainer.lesson.numbers.parse_number`);
- ``formats``: numbers written as Python's format() writes them (the page's every message);
- ``checks``: every question of the run with every option, the right number and each of its
  likely mistakes (exactly and as typed), near and far misses, text that is no number, every
  sorting (:func:`~explainer.lesson.questions.check`), and "Show the answer";
- ``tour``: every step's condition against every event the page can report, from every state a
  step can be in, and the moves (next, back, go to), and every step's words with and without an
  open guess, at several counts of goals shown;
- ``sessions``: long random walks of a learner (answers right and wrong, rounds played, tour
  events and moves, a restart) applied as the app's session applies them, with the record,
  the completion rule, "Finish the lesson", the score lines and the LMS score after each
  (conformance_sessions.py);
- ``whatif``: a grid of settings over each pass the page keeps the scores of
  (:func:`~explainer.lesson.whatif.what_if`).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from explainer.content.texts import LessonTexts, QuestionKind, TourScript
from explainer.engine.sampler import SamplingSettings
from explainer.engine.trace import Trace
from explainer.illustration.formatting import number, percent
from explainer.illustration.vocab import TokenNames
from explainer.lesson.facts import lesson_fields
from explainer.lesson.numbers import parse_number
from explainer.lesson.questions import Question, check, revealed
from explainer.lesson.tour import TourState, tour_view
from explainer.lesson.whatif import what_if
from explainer.lesson_web.conformance_events import event_data, tour_events
from explainer.lesson_web.conformance_sessions import sessions
from explainer.lesson_web.tour_data import web_step

TYPED = (
    "3000", "3,000", "3 000", "3\u202f000", "3k", "3K", "3.0e3", "3E3", "about 3000", "About ~3000", "~3k", "≈ 3k",
    "± 3", "approx. 3000", "approximately 3,000", "circa 3000", "ca. 3000", "roughly 3e3", "around 1.5m",
    "  42  ", "\u00a042\u2009", "4_2", "4'2", "3,00", "30,00,0", "1,234.5", "-1,234", "+7", "-0", ".5", "5.",
    "1e400", "1e-400", "0e400", "1e308", "1.5e-5", "2.5e-7", "1.1e-5", "abc", "", " ", "12abc", "1..2", "1e",
    "٣٠٠٠", "３０００", "१२३", "12\u212a", "12ｋ", "approxımately 5", "APPROXİMATELY 5", "ABOUT 7", "12 k", "k12",
    "\x1c5\x1f", "\u20285", "5\n", "1,2345", "0.0001", "1e-5", "99999999999999999999", "1e22",
    "123456789012345678901234",
)  # fmt: skip
FORMAT_VALUES = (
    0.0, -0.0, 0.125, 0.375, 2.5, 3.5, 0.5, 1.5, 0.0125, 0.005, 0.015, 1234.5, 1e21, 1.5e22, 123456789.125,
    0.0001, 0.00049999, 9.995, 99.95, 0.099951, 1e-7, 7.0, 0.7, 0.05, 1.0, 2.0, 0.01, 1 / 3, 2 / 3,
)  # fmt: skip
SETTINGS_GRID = tuple(
    SamplingSettings(temperature=t, top_k=k, top_p=p)
    for t in (0.0, 0.3, 0.7, 1.0, 1.5, 2.0)
    for k in (0, 1, 3, 10, 100)
    for p in (0.05, 0.5, 0.9, 1.0)
)


def tour_state(t: TourState) -> list[Any]:
    return [t.index, t.done, t.runs_to_go]


def web_tour(texts: LessonTexts, web: dict[str, str]) -> TourScript:
    """The tour as the page shows it (tour_data.py's web_step for each step)."""
    return replace(texts.tour, steps=tuple(web_step(s, web) for s in texts.tour.steps))


def tour_cases(texts: LessonTexts, fields: dict[str, str], web: dict[str, str]) -> dict[str, Any]:
    tour = texts.tour
    n = len(tour.steps)
    states = [TourState(i, done, runs) for i in range(n + 1) for done in (False, True) for runs in (0, 1, 2)]
    events = tour_events(texts)
    observed = [[tour_state(s.observe(tour, e)) for e in events] for s in states]
    moves = [
        [
            tour_state(s.next(tour)),
            tour_state(s.back(tour)),
            *(tour_state(s.go_to(tour, j)) for j in (-1, 0, 5, n, n + 3)),
        ]
        for s in states
    ]
    shown = replace(texts, tour=web_tour(texts, web))
    total = len(texts.lesson.outcomes)
    texts_out = []
    for i in range(n):
        for guessing in (False, True):
            for goals in (0, total // 2, total):
                view = tour_view(shown, TourState(i), fields, guessing, (goals, total))
                assert view is not None
                texts_out.append([i, guessing, goals, view.text])
    return {
        "states": [tour_state(s) for s in states],
        "events": [event_data(e) for e in events],
        "observed": observed,
        "moves": moves,
        "texts": texts_out,
    }


def _givens(q: Question) -> list[Any]:
    """What a learner might give for ``q``: every option, the right number and its mistakes
    (exactly and as typed), near and far misses, no number at all, every kind of sorting."""
    if q.kind is QuestionKind.CHOICE:
        return [*range(len(q.options)), -1, len(q.options), None]
    if q.kind is QuestionKind.NUMBER:
        a = float(q.answer) if isinstance(q.answer, (int, float)) else 0.0
        near = [a * f for f in (1 + q.tolerance * 0.99, 1 - q.tolerance * 0.99, 1 + q.tolerance * 1.01, 0.5, 2, 1e3)]
        values = [a, *near, *(m.value for m in q.mistakes), *(m.value * 1.001 for m in q.mistakes), 0.0, -a]
        typed = [number(v, 2) for v in values] + [f"about {v:g}" for v in values] + [f"{v:.3e}" for v in values]
        return [*values, *typed, "", "none", "1e999", math.inf]
    answer = list(q.answer) if isinstance(q.answer, tuple) else []
    cats = [c for c, _label in q.categories]
    flipped = [cats[(cats.index(a) + 1) % len(cats)] for a in answer]
    return [answer, flipped, answer[:-1], [*answer[:-1], flipped[-1]], [*flipped[:1], *answer[1:]], [], None]


def verdict_data(v: Any) -> dict[str, Any]:
    return {
        "correct": v.correct,
        "message": v.message,
        "explanation": v.explanation,
        "items_right": list(v.items_right),
        "revealed": v.revealed,
    }


def check_cases(texts: LessonTexts, questions: tuple[Question, ...]) -> list[list[Any]]:
    out: list[list[Any]] = []
    for q in questions:
        for given in _givens(q):
            safe = None if isinstance(given, float) and not math.isfinite(given) else given
            out.append([q.id, safe, verdict_data(check(texts, q, given))])
        out.append([q.id, "__revealed__", verdict_data(revealed(q))])
    return out


def _bars(w: Any) -> list[dict[str, Any]]:
    return [
        {"id": b.id, "label": b.label, "probs": list(b.probs), "cut_by": b.cut_by, "cut_label": b.cut_label,
         "landed": b.landed, "recorded": b.recorded}
        for b in w.bars
    ]  # fmt: skip


def whatif_cases(texts: LessonTexts, trace: Trace, names: TokenNames, passes: int) -> list[dict[str, Any]]:
    out = []
    for i in range(passes):
        step = trace.steps[i]
        if step.logits is None:
            continue
        s = trace.settings
        for settings in (*SETTINGS_GRID, SamplingSettings(s.temperature, s.top_k, s.top_p)):
            w = what_if(texts, step, settings, names, before=trace.unfinished_before(i))
            out.append(
                {
                    "step": i,
                    "settings": {"temperature": settings.temperature, "top_k": settings.top_k, "top_p": settings.top_p},
                    "available": w.available, "message": w.message, "greedy": w.greedy, "kept": w.kept,
                    "landed_id": w.landed_id, "landed_label": w.landed_label, "landed_prob": w.landed_prob,
                    "same": w.same, "recorded_id": w.recorded_id, "recorded_label": w.recorded_label,
                    "bars": _bars(w), "other": list(w.other),
                    "spans": [[sp.label, sp.start, sp.end, sp.landed] for sp in w.spans],
                }
            )  # fmt: skip
    return out


def _formats(x: float) -> list[Any]:
    """``x`` written as the page's messages write numbers (rules.js fixed, grouped, percent, g)."""
    return [x, f"{x:.0f}", f"{x:.1f}", f"{x:.2f}", f"{x:.3f}", f"{x:,.1f}", percent(x), f"{x:g}"]


def fixture(
    texts: LessonTexts,
    trace: Trace,
    names: TokenNames,
    questions: tuple[Question, ...],
    web: dict[str, str],
    passes: int,
) -> dict[str, Any]:
    """Every case, with Python's verdicts (``web``: the tour's web words, as the page has them;
    ``passes``: how many passes the page keeps the scores of)."""
    fields = lesson_fields(texts, trace, trace.model, names)
    return {
        "numbers": [[t, parse_number(t)] for t in TYPED],
        "formats": [
            [x, f"{x:.0f}", f"{x:.1f}", f"{x:.2f}", f"{x:.3f}", f"{x:,.1f}", percent(x), f"{x:g}"]
            for x in FORMAT_VALUES
        ],
        "checks": check_cases(texts, questions),
        "tour": tour_cases(texts, fields, web),
        "sessions": sessions(texts, trace, names, questions),
        "whatif": whatif_cases(texts, trace, names, passes),
    }

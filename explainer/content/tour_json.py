"""Reading tour.json's content: the chapters and steps of the guided tour, each checked.

The loader (:mod:`explainer.content.assets`) reads the file and hands its data here; errors name
the file and the key, like every check of the texts.
"""

from __future__ import annotations

import string
from typing import Any

from explainer.content.fields import GUESS_FIELDS
from explainer.content.json_checks import CheckedJson
from explainer.content.texts import Chapter, Condition, ConditionKind, Target, TargetKind, TourScript, TourStep
from explainer.stages import Stage

# What a tour step may highlight besides a panel or a stage: the window's controls.
# (request and scale: the Lesson dock's tabs for chapters 7 and 8, ui/lesson/show_me.py POINTED_SECTIONS)
CONTROLS = ("prompt", "generate", "sampling", "lesson", "request", "scale")
SETTINGS = ("temperature", "top_k", "top_p", "greedy", "seed", "max_new_tokens", "prompt")


def _target(f: CheckedJson, raw: Any, where: str) -> Target:
    kind_name = f.text(raw, "kind", where)
    name = f.text(raw, "name", where)
    try:
        kind = TargetKind(kind_name)
    except ValueError:
        raise f.error(f"{where}.kind", f"must be one of {', '.join(k.value for k in TargetKind)}") from None
    # (a panel's name is checked against the panel table when the frames are first built:
    # explainer/frames/panels.py check_texts; this layer sits below the table)
    allowed = {TargetKind.STAGE: tuple(s.value for s in Stage), TargetKind.CONTROL: CONTROLS}.get(kind)
    if allowed is not None and name not in allowed:
        raise f.error(f"{where}.name", f"{name!r} is not a {kind.value} ({', '.join(allowed)})")
    return Target(kind, name)


def _condition(f: CheckedJson, raw: Any, where: str, question_ids: set[str]) -> Condition:
    try:
        kind = ConditionKind(f.text(raw, "kind", where))
    except ValueError:
        raise f.error(f"{where}.kind", f"must be one of {', '.join(k.value for k in ConditionKind)}") from None
    stage = None
    if kind is ConditionKind.STAGE:
        try:
            stage = Stage(f.text(raw, "stage", where))
        except ValueError:
            raise f.error(f"{where}.stage", "must name a stage") from None
    phase = raw.get("phase")
    if phase not in (None, "prefill", "decode"):
        raise f.error(f"{where}.phase", "must be prefill or decode")
    names_raw = raw.get("name", [])
    names = (names_raw,) if isinstance(names_raw, str) else f.strings(names_raw, f"{where}.name") if names_raw else ()
    if kind is ConditionKind.SETTING and (not names or any(n not in SETTINGS for n in names)):
        raise f.error(f"{where}.name", f"must name settings among {', '.join(SETTINGS)}")
    run = raw.get("run", False)
    if not isinstance(run, bool) or (run and kind is not ConditionKind.SETTING):
        raise f.error(f"{where}.run", "must be true or false, and only for a setting")
    question = None
    if kind is ConditionKind.QUESTION or (kind is ConditionKind.COMPLETE and "id" in raw):
        question = f.text(raw, "id", where)
        if question not in question_ids:
            raise f.error(f"{where}.id", f"{question!r} is not a question of questions.json")
    return Condition(
        kind=kind, stage=stage, phase=phase, last=bool(raw.get("last", False)), names=names, question=question, run=run
    )


def _names(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _text_guessing(f: CheckedJson, s: dict[str, Any], text: str, where: str, known: frozenset[str]) -> str | None:
    """The step's text for while a guess is open: required when its text (or the one it shows
    once a run is on screen) names an answer, and itself naming none (see fields.GUESS_FIELDS)."""
    answers = sorted((_names(text) | _names(s.get("text_run", ""))) & set(GUESS_FIELDS))
    if "text_guessing" not in s:
        if answers:
            raise f.error(
                f"{where}.text_guessing",
                f"is missing: the text names {', '.join(answers)}, which a learner guessing in Predict must not see",
            )
        return None
    guessing = f.text(s, "text_guessing", where)
    f.fields_known(guessing, f"{where}.text_guessing", known)
    if leaks := sorted(_names(guessing) & set(GUESS_FIELDS)):
        raise f.error(f"{where}.text_guessing", f"names {', '.join(leaks)}, the answer being guessed")
    return guessing


def read_tour(f: CheckedJson, question_ids: set[str], outcomes: set[str], known: frozenset[str]) -> TourScript:
    chapters = []
    for i, c in enumerate(f.items(f.get(f.data, "chapters", ""), "chapters")):
        title = f.plain(c, "title", f"chapters[{i}]")
        chapters.append(Chapter(f.text(c, "id", f"chapters[{i}]"), title, f.plain(c, "ask", f"chapters[{i}]")))
    chapter_ids = {c.id for c in chapters}
    steps: list[TourStep] = []
    for i, s in enumerate(f.items(f.get(f.data, "steps", ""), "steps")):
        where = f"steps[{i}]"
        step_id = f.text(s, "id", where)
        where = f"steps[{i}] ({step_id})"
        chapter = f.text(s, "chapter", where)
        if chapter not in chapter_ids:
            raise f.error(f"{where}.chapter", f"{chapter!r} is not a chapter")
        text = f.text(s, "text", where)
        f.fields_known(text, f"{where}.text", known)
        guessing = _text_guessing(f, s, text, where, known)
        text_open, text_run = (f.text(s, key, where) if key in s else None for key in ("text_open", "text_run"))
        for key, variant in (("text_open", text_open), ("text_run", text_run)):
            if variant is not None:
                f.fields_known(variant, f"{where}.{key}", known)
        do = f.plain(s, "do", where)
        do_run = f.plain(s, "do_run", where) if "do_run" in s else None
        step_outcomes = f.strings(s.get("outcomes", []), f"{where}.outcomes") if s.get("outcomes") else ()
        for o in step_outcomes:
            if o not in outcomes:
                raise f.error(f"{where}.outcomes", f"{o!r} is not an outcome of lesson.json")
        steps.append(
            TourStep(
                id=step_id,
                chapter=chapter,
                target=_target(f, f.get(s, "target", where), f"{where}.target"),
                text=text,
                do=do,
                done=_condition(f, f.get(s, "done", where), f"{where}.done", question_ids),
                outcomes=step_outcomes,
                text_guessing=guessing,
                text_open=text_open,
                text_run=text_run,
                do_run=do_run,
            )
        )
    if len({s.id for s in steps}) != len(steps):
        raise f.error("steps", "repeat an id")
    return TourScript(tuple(chapters), tuple(steps))

"""The words the page's script writes, all from assets/<language>/, none from the code.

The page is the app's Lesson dock in a browser, so it speaks with the dock's words (lesson.json's
``ui``, ``quiz``, ``game``, ``whatif``, ``completion``, ``settings`` and ``tour``), the window's
(app.json's commands, the chart as a table, Your turn, the names a screen reader hears, the theme
menu, the web page's own) and, for what only the page has, lesson_web.json. The templates whose
fields the export knows (the run's model, prompt and settings, the passes recorded, the cut of the
second run) are filled here; the rest the page fills with the learner's numbers, by the rules of
rules.js (``fmt``: ``{name}`` and doubled braces, as Python's ``str.format`` reads them).
"""

from __future__ import annotations

from typing import Any

from explainer.content.texts import LessonTexts
from explainer.engine.trace import Trace
from explainer.illustration.formatting import clipped
from explainer.lesson.facts import answer_text, settings_text
from explainer.lesson_web.recorded import CUT_TOP_K, CUT_TOP_P, YOUR_TURN_PASSES

LESSON_SECTIONS = ("ui", "quiz", "game", "whatif", "completion", "settings", "tour", "labels")
APP_SECTIONS = ("actions", "access", "chart_table", "your_turn", "menus", "web", "stages")


def quote(text: str, limit: int) -> str:
    """A prompt or an answer inside a sentence, cut short as the lesson's fields are."""
    return f"“{clipped(text, limit)}”"


def cut_words(texts: LessonTexts, setting: str) -> str:
    """The second run's cut in words ("top-k 5"), as lesson.json's settings name it."""
    if setting == "top_k":
        return texts.text("settings", "top_k").format(top_k=CUT_TOP_K)
    return texts.text("settings", "top_p").format(top_p=f"{CUT_TOP_P:g}")


def web_words(
    texts: LessonTexts, trace: Trace, cut: Trace, setting: str, whatif_passes: int
) -> dict[str, dict[str, str]]:
    """lesson_web.json with every field the export knows filled (``{code}`` is the page's)."""
    w = texts.lesson_web
    prompt = quote(trace.prompt, 60)
    answer = quote(answer_text(trace).strip(), 80)
    cut_name = cut_words(texts, setting)
    passes = str(min(YOUR_TURN_PASSES, len(trace.steps)))
    page = w["page"]
    return {
        "page": {
            **page,
            "title": page["title"].format(title=texts.lesson.title, prompt=clipped(trace.prompt, 60)),
            "recorded": page["recorded"].format(
                model=trace.model.name, prompt=prompt, settings=settings_text(texts, trace.settings)
            ),
        },
        "tour": {
            **w["tour"],
            "generate_text": w["tour"]["generate_text"].format(model=trace.model.name, prompt=prompt),
            "setting_do": w["tour"]["setting_do"].format(cut=cut_name),
            "branch_text": w["tour"]["branch_text"].format(passes=passes),
        },
        "runs": {
            **w["runs"],
            "intro": w["runs"]["intro"].format(passes=passes),
            "not_here": w["runs"]["not_here"].format(passes=passes),
            "cut_text": w["runs"]["cut_text"].format(cut=cut_name, settings=settings_text(texts, cut.settings)),
            "cut_show": w["runs"]["cut_show"].format(cut=cut_name),
            "cut_answer": w["runs"]["cut_answer"].format(cut=cut_name, answer=quote(answer_text(cut).strip(), 80)),
            "first_answer": w["runs"]["first_answer"].format(answer=answer),
        },
        "whatif": {"not_kept": w["whatif"]["not_kept"].format(passes=str(whatif_passes))},
        "storage": dict(w["storage"]),
    }


def _words(section: dict[str, str]) -> dict[str, str]:
    """A section's texts without its comments (keys that start with "_")."""
    return {k: v for k, v in section.items() if not k.startswith("_")}


def page_words(texts: LessonTexts, trace: Trace, cut: Trace, setting: str, whatif_passes: int) -> dict[str, Any]:
    """Every word the page's script writes, by file and section."""
    return {
        "lesson": {
            s: {k: v for k, v in texts.lesson.strings[s].items() if not k.startswith("_")} for s in LESSON_SECTIONS
        },
        "app": {s: dict(texts.app[s]) for s in APP_SECTIONS},
        "web": web_words(texts, trace, cut, setting, whatif_passes),
    }

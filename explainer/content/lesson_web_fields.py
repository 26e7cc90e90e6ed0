"""The words only the lesson on the web has (lesson_web.json): which keys explainer/lesson_web and
its page (assets/lesson_web/) read, and the ``{fields}`` each may use.

The export fills the fields it knows (the recorded run's model, prompt, answer and settings, the
passes the page recorded, the cut the second run used); the page fills ``{code}``, the error an
LMS answered with. A text naming another field would show its braces in the learner's browser,
so the loader refuses it when the app starts, as it does for every other file.
"""

from __future__ import annotations

from explainer.content.fields import Fields, plain

LESSON_WEB_STRINGS: dict[str, dict[str, Fields]] = {
    "page": {
        **plain("skip", "loading", "needs_script", "keys", "illustration", "lesson"),
        "title": ("title", "prompt"),
        "recorded": ("model", "prompt", "settings"),
    },
    "tour": {
        **plain("generate_do", "use_run", "branch_do"),
        "generate_text": ("model", "prompt"),  # (not the answer: a guess may be open in Predict)
        "setting_do": ("cut",),
        "branch_text": ("passes",),
    },
    "runs": {
        **plain("pick", "recorded", "cut_title"),
        "intro": ("passes",),
        "not_here": ("passes",),
        "cut_text": ("cut", "settings"),
        "cut_show": ("cut",),
        "cut_answer": ("cut", "answer"),
        "first_answer": ("answer",),
    },
    "whatif": {"not_kept": ("passes",)},
    "storage": {**plain("lms", "local", "none", "unreadable", "other"), "lms_error": ("code",)},
}

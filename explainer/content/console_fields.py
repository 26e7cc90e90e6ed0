"""The presenter console's words (app.json ``console``): which keys ui/presenter_console.py and
ui/moderation_view.py read, and the ``{fields}`` each may use. Kept apart from app_fields.py
(which merges it into APP_STRINGS) because the console is a window of its own."""

from __future__ import annotations

from explainer.content.fields import Fields, plain

CONSOLE_STRINGS: dict[str, dict[str, Fields]] = {
    "console": {
        **plain(
            "title",
            "warning",
            "projector",
            "projector_tip",
            "projector_one",
            "now",
            "next",
            "next_none",
            "no_step",
            "vote",
            "no_vote",
            "class_off",
            "moderation",
            "moderate",
            "moderate_tip",
            "held",
            "held_empty",
            "approve",
            "approve_tip",
            "decline",
            "decline_tip",
            "blocked",
            "blocked_tip",
            "line",
            "line_empty",
            "keys",
            "keys_text",
            "blocked_title",
            "blocked_save",
            "blocked_cancel",
            "access_held",
            "access_line",
            "open",
            "open_tip",
        ),
        "clock": ("time",),
        "elapsed": ("time",),
        "screen": ("name", "width", "height"),
        "task": ("task",),
        "ask": ("ask",),
        "request": ("number", "state", "text"),
        "blocked_intro": ("path",),
        "blocked_saved": ("n", "path"),
        "blocked_failed": ("error",),
    },
}

"""The words of File > Export class results… (app.json's ``class_results`` section): its dialog
(explainer/ui/classroom/results_export.py), and the CSV files' names and column headers
(explainer/classroom/results.py), with the ``{fields}`` each may use. One section of
:data:`explainer.content.app_fields.APP_STRINGS`, which the loader holds app.json to.
"""

from __future__ import annotations

from explainer.content.fields import Fields, plain

CLASS_RESULTS: dict[str, Fields] = {
    **plain(
        "title",
        "intro",
        "from_running",
        "from_last",
        "name_label",
        "name_tip",
        "choose",
        "choose_tip",
        "choose_filter",
        "texts",
        "texts_note",
        "export",
        "cancel",
        "nothing",
        "head_run",
        "head_pass",
        "head_time",
        "head_context",
        "head_class_pick",
        "head_favourite",
        "head_model_pick",
        "head_class_right",
        "head_request",
        "head_arrived",
        "head_held",
        "head_wait",
        "head_ttft",
        "head_tpot",
        "head_prompt_tokens",
        "head_answer_tokens",
        "head_shared_passes",
        "head_shared_with",
        "head_state",
        "head_prompt",
        "head_answer",
    ),
    "counts": ("rounds", "requests"),
    "files": ("rounds", "requests"),
    "replace_note": ("files",),
    "failed": ("message", "hint"),
    "saved": ("rounds", "requests"),
    "default_name": ("date",),
    "rounds_file": ("name",),
    "requests_file": ("name",),
    "head_choice": ("n",),
    "head_prob": ("n",),
    "head_votes": ("n",),
}

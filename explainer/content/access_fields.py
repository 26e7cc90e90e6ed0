"""What a screen reader hears of the window (app.json's ``access`` and ``chart_table``
sections): the names of elements without a label of their own, the announcements made when
something changes away from the focus (explainer/ui/announce.py), and View > Chart as a table,
the chart's candidates one per row (explainer/ui/chart_table_view.py), with the ``{fields}``
each may use. Two sections of :data:`explainer.content.app_fields.APP_STRINGS`, which the
loader holds app.json to.
"""

from __future__ import annotations

from explainer.content.fields import Fields, plain

ACCESS: dict[str, Fields] = {
    **plain(
        "diagram",
        "describe",
        "describe_tip",
        "busy",
        "status",
        "position",
        "controls_scroll",
        "candidates",
        "lesson_tabs",
        "lesson_hidden",
        "tour_panel",
    ),
    "stage": ("stage", "n", "total"),
    "value": ("label", "value"),
    "choice": ("item", "category"),
    "tour": ("progress", "task"),
    "tour_step": ("chapter", "progress", "text", "task"),
    "tour_end": ("chapter", "text"),
    "stage_so_far": ("stage", "n"),
    "stage_once": ("title",),
    "lesson_shown": ("where",),
    "question": ("position", "text"),
    "number_question": ("question", "unit"),
}

# View > Chart as a table: the chart's candidates one per row, each row also said whole
CHART_TABLE: dict[str, Fields] = {
    **plain(
        "title",
        "tip",
        "token",
        "raw",
        "final",
        "kept",
        "chosen",
        "yes",
        "no",
        "not_yet",
        "no_cut",
        "other",
        "empty",
        "hidden",
        "row_kept",
        "row_cut",
        "row_chosen",
        "row_not_chosen",
    ),
    "row": ("token", "raw", "final", "kept", "chosen"),
    "row_raw": ("token", "raw"),
    "cell": ("column", "value"),
}

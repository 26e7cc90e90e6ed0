"""The words of the window's file dialogs (app.json's ``files`` section): each dialog's title and
its filter of file kinds, for opening and saving runs and lessons, adding a GGUF, and the exports
(a frame, the run, the lesson for the web). A section of
:data:`explainer.content.app_fields.APP_STRINGS`, which the loader holds app.json to; kept apart
because app_fields.py had reached the 400 lines a module may have.
"""

from __future__ import annotations

from explainer.content.fields import Fields, plain

FILE_DIALOGS: dict[str, Fields] = plain(
    "save_trace",
    "save_trace_filter",
    "save_lesson",
    "save_lesson_filter",
    "open",
    "open_filter",
    "export",
    "export_filter",
    "open_gguf",
    "open_gguf_filter",
    "export_run",
    "export_run_filter",
    "export_lesson",
    "export_lesson_filter",
)

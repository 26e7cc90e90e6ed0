"""File > Export the lesson for the web…: the window runs `explainer export --lesson` on the run on
screen in a child process (explainer/ui/export_process.py, as every export of a run), with the
progress dialog that cancels it; the child loads the run's model to record what the page offers,
so the window's thread never waits on it. The file is the real command's: a web page, or the
SCORM 1.2 package when the learning platform's filter is chosen."""

from __future__ import annotations

import zipfile

from explainer.lesson_web.scorm import MANIFEST, PAGE
from tests.lesson_web.conftest import blocks
from tests.ui.helpers import generate
from tests.ui.test_export_run import choose, wait_done


def test_the_window_exports_the_lesson_as_a_scorm_package(qtbot, window, tmp_path, monkeypatch):
    w = window
    trace = generate(qtbot, w, "The capital of France is", max_new_tokens=2)
    action = w.registry["export_lesson"]
    assert action in w.menuBar().actions()[0].menu().actions() and action.isEnabled()  # in the File menu
    w.apply_theme("dark", remember=False)
    filters = w.word("files", "export_lesson_filter").split(";;")
    choose(monkeypatch, tmp_path / "lesson", filters[1])  # no extension typed: the package's filter
    action.trigger()
    export = w.files.exporting
    assert export is not None and export.dialog.isVisible() and not export.dialog.isModal()
    wait_done(qtbot, w)
    out = tmp_path / "lesson.zip"
    assert not w.banner.isVisible(), w.banner.message.text()
    assert w.status.activity.text() == w.word("window", "exported").format(path=out)
    assert export.dialog.value() == 100
    with zipfile.ZipFile(out) as z:
        assert sorted(z.namelist()) == sorted([MANIFEST, PAGE])
        page = z.read(PAGE)
    assert b'data-theme="dark" data-theme-chosen="1"' in page  # the window's theme first
    lesson = blocks(page)["lesson-data"]
    assert lesson["run"]["steps"] == len(trace.steps) and lesson["run"]["model"] == trace.model.name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson.zip"]  # no temporary file left

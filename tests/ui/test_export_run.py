"""File > Export the run…: the window runs `explainer export` on the run on screen in a child
process (explainer/ui/export_process.py), shows its progress in a dialog that cancels it, and
says what came of it. Each test records a 2-token run; the export is the real command's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image
from PIL.GifImagePlugin import GifImageFile
from PySide6.QtCore import QProcess, Qt
from PySide6.QtWidgets import QFileDialog, QPushButton

from explainer.export.progress_lines import Progress, Said, read_line, seconds_left
from explainer.ui.run_files import with_kind
from tests.export.test_web_page import page_data
from tests.ui.helpers import generate

EXPORT_S = 120_000  # ms: a 2-token GIF takes seconds; a busy machine may take longer


def stages(trace) -> int:
    return 7 + 6 * (len(trace.steps) - 1)


def choose(monkeypatch, path: Path, chosen: str = "") -> None:
    """The save dialog answers ``path`` (with the filter ``chosen``) as a learner would."""
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(path), chosen)))


def wait_done(qtbot, w) -> None:
    qtbot.waitUntil(lambda: w.files.exporting is not None and not w.files.exporting.running, timeout=EXPORT_S)


@pytest.fixture
def recorded(qtbot, window):
    trace = generate(qtbot, window, "The capital of France is", max_new_tokens=2)
    return window, trace


def test_the_window_exports_its_run_as_a_gif_from_the_keyboard(qtbot, recorded, tmp_path, monkeypatch):
    w, trace = recorded
    action = w.registry["export_run"]
    assert action in w.menuBar().actions()[0].menu().actions()  # in the File menu
    assert "&" in action.text() and action.shortcut().toString() == "Ctrl+Shift+E"
    w.apply_theme("dark", remember=False)
    choose(monkeypatch, tmp_path / "run", "GIF animation (*.gif)")  # no extension typed: the filter's
    qtbot.keyClick(w.view, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    export = w.files.exporting
    assert export is not None and export.dialog.isVisible()
    assert export.dialog.accessibleName() == w.word("window", "export_title")
    assert not export.dialog.isModal()  # the window stays usable meanwhile
    wait_done(qtbot, w)
    out = tmp_path / "run.gif"
    with Image.open(out) as gif:
        assert isinstance(gif, GifImageFile) and gif.n_frames >= stages(trace)
    assert export.dialog.value() == 100 and not export.dialog.isVisible()
    assert w.status.activity.text() == w.word("window", "exported").format(path=out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.gif"]  # no temporary file left
    assert not Path(export.folder).exists()  # nor the saved run the command read
    assert not w.banner.isVisible()


def test_the_window_exports_its_run_as_a_web_page(qtbot, recorded, tmp_path, monkeypatch):
    w, trace = recorded
    w.apply_theme("dark", remember=False)
    out = tmp_path / "run.html"
    choose(monkeypatch, out, "Web page (*.html)")
    w.registry["export_run"].trigger()
    wait_done(qtbot, w)
    data = page_data(out.read_bytes())
    assert list(data["drawings"]) == ["dark"]  # in the window's theme
    assert len(data["frames"]) == stages(trace)  # the whole run
    assert not w.banner.isVisible()


def test_cancel_stops_the_export_and_leaves_no_file(qtbot, recorded, tmp_path, monkeypatch):
    w, _ = recorded
    choose(monkeypatch, tmp_path / "run.gif")
    w.registry["export_run"].trigger()
    export = w.files.exporting
    qtbot.waitUntil(lambda: export.dialog.value() > 0, timeout=EXPORT_S)  # the first frames are drawn
    buttons = [b.text() for b in export.dialog.findChildren(QPushButton)]
    assert buttons == [w.word("window", "export_cancel")]
    qtbot.keyClick(export.dialog, Qt.Key.Key_Escape)  # Esc, as the Cancel button
    wait_done(qtbot, w)
    assert list(tmp_path.iterdir()) == []  # neither the GIF nor a half-written temporary file
    assert w.status.activity.text() == w.word("window", "export_cancelled")
    assert not w.banner.isVisible()


def test_closing_the_window_stops_the_export(qtbot, recorded, tmp_path, monkeypatch):
    w, _ = recorded
    choose(monkeypatch, tmp_path / "run.gif")
    w.registry["export_run"].trigger()
    export = w.files.exporting
    qtbot.waitUntil(lambda: export.dialog.value() > 0, timeout=EXPORT_S)
    w.close()
    assert not export.running and export.process.state() == QProcess.ProcessState.NotRunning
    assert list(tmp_path.iterdir()) == []  # no child left drawing, no half-written file


def test_a_failed_export_shows_the_commands_message(qtbot, recorded, tmp_path, monkeypatch):
    w, _ = recorded
    (tmp_path / "folder.gif").mkdir()  # a folder in the way
    choose(monkeypatch, tmp_path / "folder.gif")
    w.registry["export_run"].trigger()
    wait_done(qtbot, w)
    assert w.banner.isVisible()
    message = w.banner.message.text()
    assert message.lower().startswith(w.word("window", "export_failed").format(error="")) and "folder" in message
    assert "error:" not in message  # the command's words, without its prefix
    assert w.banner.hint.text()  # and its hint, what to do instead
    assert w.status.activity.text() == ""  # no longer "Exporting…"


def test_a_missing_extra_gives_the_install_command(qtbot, recorded, tmp_path, monkeypatch):
    """Without PyAV a video cannot be written: the window says which package and how to install it."""
    w, _ = recorded
    fake = tmp_path / "no-pyav"
    (fake / "av").mkdir(parents=True)
    (fake / "av" / "__init__.py").write_text("raise ImportError('no PyAV here')\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(fake), os.environ.get("PYTHONPATH")])))
    choose(monkeypatch, tmp_path / "run.mp4", "Video (*.mp4)")
    w.registry["export_run"].trigger()
    wait_done(qtbot, w)
    assert w.banner.isVisible() and "'av'" in w.banner.message.text()
    assert "pip install" in w.banner.hint.text()
    assert not (tmp_path / "run.mp4").exists()


def test_what_the_commands_lines_mean():
    assert read_line('{"progress": "writing run.gif", "fraction": 0.25}\n') == Progress("writing run.gif", 0.25)
    assert read_line("error: PyAV is not installed\n") == Said("PyAV is not installed", True)
    assert read_line("  pip install 'explainer[video]'\n") == Said("pip install 'explainer[video]'", False)
    assert read_line("wrote run.gif (13 stages)\n") is None
    assert read_line("{not json\n") is None
    assert seconds_left(0.25, 3.0) == pytest.approx(9.0)
    assert seconds_left(0.5, 4.0, since=0.25) == pytest.approx(8.0)  # the pace since the first line
    assert seconds_left(0.25, 0.5) is None and seconds_left(1.0, 9.0) is None
    assert with_kind("/x/run", "Video (*.mp4)") == "/x/run.mp4"
    assert with_kind("/x/run.gif", "Video (*.mp4)") == "/x/run.gif"

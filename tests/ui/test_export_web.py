"""File > Export web page…: the window writes the run on screen as one web page, with the same
code as `explainer export --out run.html` (tests/export/test_web_page.py checks the page)."""

from __future__ import annotations

from tests.export.test_web_page import page_data
from tests.ui.helpers import generate


def test_the_window_exports_its_run_as_a_web_page(qtbot, window, tmp_path):
    w = window
    assert not w.actions_by_name["export_web"].isEnabled()  # nothing recorded yet
    trace = generate(qtbot, w, "The capital of France is", max_new_tokens=2)
    action = w.actions_by_name["export_web"]
    assert action.isEnabled() and action.text() == w.word("actions", "export_web")
    assert action in w.menuBar().actions()[0].menu().actions()  # in the File menu
    w.apply_theme("dark", remember=False)
    out = tmp_path / "run.html"
    w.files.export_web(str(out))
    data = page_data(out.read_bytes())
    assert list(data["drawings"]) == ["dark"]  # in the window's theme
    assert len(data["frames"]) == 7 + 6 * (len(trace.steps) - 1)  # the whole run
    assert not w.banner.isVisible()
    (tmp_path / "folder.html").mkdir()
    w.files.export_web(str(tmp_path / "folder.html"))  # a folder in the way: the window says why
    assert w.banner.isVisible() and "folder" in w.banner.message.text()

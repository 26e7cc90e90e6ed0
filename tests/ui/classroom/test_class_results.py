"""File > Export class results… in the window: the command enabled when there is something to
export, its dialog (by keys, with accessible names, texts off by default), a destination that
cannot be written said in the dialog, the last session's results after Stop, and a round revealed
on a real run, voted by phones over HTTP, in the file written."""

from __future__ import annotations

import asyncio
import csv
import io
from pathlib import Path

import aiohttp
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from explainer.classroom.events import Listening
from explainer.engine.trace_file import save_trace
from explainer.illustration.formatting import quoted
from explainer.stages import Cursor, Stage
from explainer.ui.classroom.results_export import ResultsDialog, ResultsExport
from explainer.ui_model.actions import MenuId, entries
from tests.support.lesson import names_for
from tests.ui.helpers import forward_to, open_file, press


def exporter(w) -> ResultsExport:
    found = w.findChild(ResultsExport, "class_results")
    assert isinstance(found, ResultsExport)
    return found


def rows_of(path: Path) -> list[dict[str, str]]:
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def file_menu_opened(w) -> None:
    """The File menu opening, as a person looks at it (it asks what is enabled then)."""
    w.registry.menu(MenuId.FILE).aboutToShow.emit()  # (as tests/ui/test_model_menu.py opens its menu)


def opened_dialog(qtbot, w) -> ResultsDialog:
    w.registry["export_class_results"].trigger()
    dialog = exporter(w).dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible)
    return dialog


def test_the_command_its_dialog_and_a_refused_destination(qtbot, make_window, tmp_path, monkeypatch):
    w = make_window(load=False)
    action = w.registry["export_class_results"]
    assert "export_class_results" in [e.action for e in entries(MenuId.FILE)]
    assert action in w.registry.menu(MenuId.FILE).actions() and not action.isEnabled(), "nothing to export yet"
    mode = w.class_mode
    assert isinstance(mode.start("127.0.0.1", 0), Listening)
    file_menu_opened(w)
    assert not action.isEnabled(), "a session without a round or a request has nothing to export"
    assert mode.queue is not None
    mode.queue.submit("DEVICE-0f9e8d7c", "What is a token?")  # a phone's prompt (the server's call)
    file_menu_opened(w)
    assert action.isEnabled()

    dialog = opened_dialog(qtbot, w)
    assert dialog.windowTitle() == "Export class results"
    assert "Requests: 1" in dialog.summary.text() and "running now" in dialog.summary.text()
    assert not dialog.include_texts.isChecked(), "the students' texts are off until asked for"
    assert "students' own words" in dialog.include_texts.accessibleDescription()
    assert dialog.name.accessibleName() == "Save as" and dialog.choose_button.text() == "Choose…"
    assert dialog.export_button.isDefault() or dialog.export_button.autoDefault()
    # a folder that is not there: said in the dialog, which stays open; nothing written
    dialog.name.setText(str(tmp_path / "gone" / "lecture"))
    qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and dialog.problem.isVisible()
    assert "does not exist" in dialog.problem.text() and list(tmp_path.iterdir()) == []
    # the desktop's file dialog picks the folder and the name (its .csv is dropped)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(tmp_path / "chosen.csv"), ""))
    qtbot.mouseClick(dialog.choose_button, Qt.MouseButton.LeftButton)
    assert dialog.files.text() == "Writes chosen-rounds.csv and chosen-requests.csv."
    # by keys: the name typed, Enter exports
    dialog.name.setText(str(tmp_path / "lecture"))
    assert dialog.files.text() == "Writes lecture-rounds.csv and lecture-requests.csv."
    dialog.name.setFocus()
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    rounds, requests = tmp_path / "lecture-rounds.csv", tmp_path / "lecture-requests.csv"
    assert w.status.activity.text() == f"Class results saved: {rounds} and {requests}"
    assert rows_of(rounds) == []
    (row,) = rows_of(requests)
    assert row["request"] == "1" and "prompt" not in row and "DEVICE" not in requests.read_text(encoding="utf-8-sig")

    mode.stop()  # the lecture is over: its results stay to be exported
    assert action.isEnabled()
    dialog = opened_dialog(qtbot, w)
    assert "last class session" in dialog.summary.text()
    assert Path(dialog.name.text()).parent == tmp_path, "offered in the folder of the last export"
    assert "Already there" not in dialog.files.text(), "under a new name"
    dialog.name.setText(str(tmp_path / "lecture"))
    replaced = "Already there, and replaced by the export: lecture-rounds.csv, lecture-requests.csv"
    assert dialog.files.text().endswith(replaced)
    dialog.include_texts.setChecked(True)
    qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    (row,) = rows_of(requests)
    assert row["request"] == "1" and row["prompt"] == "What is a token?"

    assert isinstance(mode.start("127.0.0.1", 0), Listening)  # a new session forgets the last one's
    assert not action.isEnabled()
    mode.stop()


async def _vote(base: str, round_id: int, choices: list[int]) -> None:
    async with aiohttp.ClientSession() as session:
        for choice in choices:
            async with session.post(f"{base}/join", json={}) as r:
                device = (await r.json())["device"]
            async with session.post(f"{base}/vote", json={"device": device, "round": round_id, "choice": choice}) as r:
                assert r.status == 200, await r.text()


@pytest.mark.slow
def test_a_round_revealed_on_a_real_run_is_in_the_exported_file(qtbot, make_window, real_trace, tmp_path):
    w = make_window(load=False)
    path = tmp_path / "paris.trace"
    save_trace(real_trace("paris"), path)
    open_file(qtbot, w, path)
    mode = w.class_mode
    listening = mode.start("127.0.0.1", 0)
    assert isinstance(listening, Listening)
    forward_to(qtbot, w, 1, Stage.LAYERS)  # (pass 0 is offered and revealed on the way: no votes)
    offer = mode.panel.state.offer
    assert offer is not None
    asyncio.run(_vote(f"http://127.0.0.1:{listening.port}/r/{listening.room}", offer.round_id, [3, 3, 1]))
    qtbot.waitUntil(lambda: mode.panel.count_text() == "3 of 3 voted")
    press(qtbot, w, Qt.Key.Key_Right)  # the reveal
    shown = mode.panel.state.reveal
    assert shown is not None
    result = shown[1]
    press(qtbot, w, Qt.Key.Key_Left)  # back to the pass's layers and on: its reveal shown again
    press(qtbot, w, Qt.Key.Key_Right)
    assert w.position == Cursor(1, Stage.PROBABILITIES) and mode.panel.state.reveal == shown

    dialog = opened_dialog(qtbot, w)
    dialog.name.setText(str(tmp_path / "paris"))
    qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    rows = rows_of(tmp_path / "paris-rounds.csv")
    assert [r["pass"] for r in rows] == ["1", "2"], "one row per revealed pass: shown again is not a second"
    row = rows[1]
    assert (row["choice 1"], row["choice 2"], row["choice 3"], row["choice 4"]) == offer.choices
    assert [int(row[f"class votes {i}"]) for i in range(1, 5)] == list(result.votes) == [0, 1, 0, 2]
    for i in range(4):
        assert float(row[f"model probability {i + 1}"]) == pytest.approx(result.probs[i], abs=1e-9)
    assert row["class's pick"] == offer.choices[3] and row["model's favourite"] == offer.choices[result.favourite]
    assert row["class picked the favourite"] == str(int(result.favourite == 3))
    trace = w.trace
    assert trace is not None
    assert row["model's pick"] == quoted(names_for(trace).label(trace.steps[1].sampling.chosen))  # the run's token
    assert row["context"].endswith("”") and "France" in row["context"]
    assert 0 < float(rows[0]["revealed at (s)"]) <= float(row["revealed at (s)"])
    mode.stop()

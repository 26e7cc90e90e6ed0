"""Class mode in the window: the server on 127.0.0.1, phones made of aiohttp's client voting on a
real run's pass, the projected count and reveal, the class's pick as a branch, and stopping."""

from __future__ import annotations

import asyncio
import json
import socket
import threading

import aiohttp
import pytest
from PySide6.QtCore import Qt

from explainer.classroom.events import Listening, PhonesChanged, RoundOffer, RoundResult, VotesChanged
from explainer.engine.trace_file import load_trace, save_trace
from explainer.inference.events import BranchFinished
from explainer.stages import Cursor, Predictor, Stage
from explainer.ui.classroom.adapter import EventAdapter
from explainer.ui.classroom.panel import qr_matrix
from explainer.ui.your_turn import Which
from tests.support.readback import caption_text, drawn_texts
from tests.ui.helpers import forward_to, generate, press, wait_event

PARIS = "The capital of France is"
OFFER = RoundOffer(3, "Which token comes next after “The cat”?", ("“␣sat”", "“␣is”", "“␣was”", "“␣zebra”"))


def refused(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def test_events_from_the_servers_thread_arrive_in_the_gui_thread(qtbot):
    adapter = EventAdapter()
    got: list[tuple[object, bool]] = []
    adapter.arrived.connect(lambda e: got.append((e, threading.current_thread() is threading.main_thread())))

    def send() -> None:
        for n in (1, 2, 3):
            adapter.on_event(PhonesChanged(n))

    sender = threading.Thread(target=send)
    sender.start()
    sender.join()
    qtbot.waitUntil(lambda: len(got) == 3)
    assert got == [(PhonesChanged(1), True), (PhonesChanged(2), True), (PhonesChanged(3), True)]


def test_the_panel_shows_the_count_the_reveal_and_the_score(qtbot, make_window):
    w = make_window(load=False)
    mode = w.class_mode
    started = mode.start("127.0.0.1", 0)
    assert isinstance(started, Listening) and mode.dock.isVisible()
    panel = mode.panel
    assert panel.state.room == started.room and panel.state.url == started.url
    assert f"127.0.0.1:{started.port}" in panel.lines()  # what a student types; the room code below it
    assert f"Room {started.room}" in panel.lines()
    panel.change(offer=OFFER)
    mode.adapter.on_event(PhonesChanged(48))
    mode.adapter.on_event(VotesChanged(3, 31, 48, (10, 11, 5, 5)))
    qtbot.waitUntil(lambda: panel.count_text() == "31 of 48 voted")
    assert "48 phones joined" in panel.lines()
    mode.adapter.on_event(VotesChanged(2, 40, 48, (10, 11, 5, 5)))  # a late event of an older round
    mode.adapter.on_event(PhonesChanged(49))  # delivered after it (the adapter keeps the order)
    qtbot.waitUntil(lambda: "49 phones joined" in panel.lines())
    assert panel.count_text() == "31 of 48 voted" and "31 of 48 voted" in panel.lines()  # the late one is dropped
    result = RoundResult(
        round_id=3, probs=(0.1, 0.6, 0.25, 0.01), votes=(10, 11, 5, 5), favourite=1, class_pick=1, right=4, rounds=6
    )
    panel.change(offer=None, reveal=(OFFER, result))
    assert panel.score_text() == "The class picked the model's favourite 4 of 6 times"
    first = RoundResult(
        round_id=3, probs=(0.1, 0.6, 0.25, 0.01), votes=(10, 11, 5, 5), favourite=1, class_pick=1, right=1, rounds=1
    )
    panel.change(reveal=(OFFER, first))
    assert panel.score_text() == "The class picked the model's favourite in its first round"
    panel.change(reveal=(OFFER, result))
    rows = panel.rows()
    assert [r[0] for r in rows] == list(OFFER.choices)
    assert rows[1][1] == 0.6 and rows[1][3] == 11 and "model's top" in rows[1][4]
    assert "class's pick" in rows[1][4]
    assert any("model 60" in line and "class 35" in line for line in panel.lines())
    mode.stop()
    assert refused(started.port) and not mode.dock.isVisible() and not w.registry["class_mode"].isChecked()


def test_the_qr_code_encodes_the_page_address():
    matrix = qr_matrix("http://192.168.1.23:8765/r/AB3D")
    assert len(matrix) >= 21 and len(matrix) == len(matrix[0])
    assert matrix[0][:7] == [True] * 7  # a finder pattern at the corner


def test_quitting_the_app_stops_class_mode(qtbot, make_window):
    w = make_window(load=False)
    started = w.class_mode.start("127.0.0.1", 0)
    assert isinstance(started, Listening) and not refused(started.port)
    assert w.registry["class_mode"].isChecked()
    assert w.class_mode.dock.isVisible()
    w.close()
    assert refused(started.port)
    again = make_window(load=False)  # the next start: class mode off, and its panel too
    assert again.lesson.dock.isVisible() and not again.class_mode.dock.isVisible()


def test_a_layout_saved_with_the_class_panel_open_opens_without_it(qtbot, make_window):
    """As an earlier version saved it (the layout kept before class mode stopped): a panel of a
    room that is not there, "0 phones joined", beside the lesson."""
    w = make_window(load=False)
    w.class_mode.dock.show()
    w.close()
    again = make_window(load=False)
    assert not again.class_mode.dock.isVisible() and not again.class_mode.active


class _Room:
    def __init__(self, listening: Listening) -> None:
        self.base = f"http://127.0.0.1:{listening.port}/r/{listening.room}"

    def url(self, path: str = "") -> str:
        return self.base + path


async def _vote(room: _Room, round_id: int, choices: list[int]) -> None:
    async with aiohttp.ClientSession() as session:
        for choice in choices:
            async with session.post(room.url("/join"), json={}) as r:
                assert r.status == 200
                device = (await r.json())["device"]
            async with session.post(
                room.url("/vote"), json={"device": device, "round": round_id, "choice": choice}
            ) as r:
                assert r.status == 200, await r.text()


@pytest.mark.slow
def test_a_class_round_on_a_real_run_and_the_class_as_the_sampler(qtbot, window, tmp_path):
    w = window
    trace = generate(qtbot, w, PARIS, max_new_tokens=4)
    mode = w.class_mode
    listening = mode.start("127.0.0.1", 0)
    assert isinstance(listening, Listening)
    forward_to(qtbot, w, 1, Stage.LAYERS)
    offer = mode.panel.state.offer
    predict = w.lesson.dock.predict.round  # the projector's Predict offers the same four, in the same order
    assert offer is not None and predict is not None
    assert offer.choices == tuple(c.label for c in predict.candidates) and offer.question == predict.question
    raw = trace.steps[1].sampling.raw
    second = next(i for i, c in enumerate(predict.candidates) if c.id == int(raw.ids[1]))
    asyncio.run(_vote(_Room(listening), offer.round_id, [second, second, (second + 1) % 4]))
    qtbot.waitUntil(lambda: mode.panel.count_text() == "3 of 3 voted")
    press(qtbot, w, Qt.Key.Key_Right)  # the instructor's next press reveals it
    assert w.position is not None and w.position.stage is Stage.PROBABILITIES
    shown = mode.panel.state.reveal
    assert shown is not None and shown[1].class_pick == second and sum(shown[1].votes) == 3
    assert mode.panel.rows()[second][3] == 2
    # (pass 0 was offered and revealed on the way, with no votes: not a round of the class's score)
    assert mode.panel.score_text() == "The class missed the model's favourite in its first round"
    revealed = shown[1]
    press(qtbot, w, Qt.Key.Key_Left)  # back to the pass's layers: voted once per run, no new round
    assert w.position == Cursor(1, Stage.LAYERS) and mode.panel.state.offer is None
    press(qtbot, w, Qt.Key.Key_Right)
    assert mode.panel.state.reveal is not None and mode.panel.state.reveal[1] == revealed
    forward_to(qtbot, w, 2, Stage.TOKENS)
    # the class is the sampler: one key continues the run from the class's token
    with wait_event(qtbot, w.controller, BranchFinished, timeout=60_000):
        press(qtbot, w, Qt.Key.Key_C)
    branch = w.trace
    assert branch is not None and branch.branch is not None and branch.branch.step == 1
    assert branch.steps[1].sampling.chosen.id == int(raw.ids[1])
    assert w.runs.by_class and w.runs.model_run is not None and w.runs.your_run is branch
    tab = w.lesson.dock.your_turn
    qtbot.waitUntil(lambda: tab.endings.isVisible() or not w.lesson.dock.isVisible(), timeout=5000)
    yours, model = tab.columns[Which.YOURS], tab.columns[Which.MODEL]
    assert yours.heading.text().startswith("The class's pick") and model.heading.text().startswith("The model's pick")
    assert "picked by the class" in yours.tokens.text() and "picked by the class" not in model.tokens.text()
    # the illustration says it too: the chart's note and the caption at the pass of the pick
    assert branch.branch.by_class and w.position == Cursor(1, Stage.SAMPLING)
    w.scene.settle()
    assert caption_text(w.scene).startswith("The class's turn")
    assert any(t.startswith("picked by the class") for t in drawn_texts(w.scene))
    saved = tmp_path / "class.trace"
    save_trace(branch, saved)
    assert load_trace(saved).branch == branch.branch  # a saved run keeps who picked
    mode.stop()
    assert refused(listening.port)


def test_the_start_dialog_says_what_is_wrong_without_closing(qtbot, make_window):
    from explainer.classroom.network import Address
    from explainer.ui.classroom.start_dialog import StartDialog

    w = make_window(load=False)
    only_loopback = [Address("lo", "127.0.0.1", 4, True, True, False)]
    dialog = StartDialog(w.texts, w.class_mode.start, only_loopback, parent=w)
    qtbot.addWidget(dialog)
    assert "hotspot" in dialog.problem.text()  # only the loopback: no phone can join
    assert dialog.bind() == "127.0.0.1"
    # a screen reader names the address box by what it chooses, not by the address shown in it
    assert dialog.address.accessibleName() == "Listen on" and "phones" in dialog.address.toolTip()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        dialog.port.setValue(holder.getsockname()[1])
        dialog.try_start()
        assert "already in use" in dialog.problem.text() and dialog.result() == 0 and not w.class_mode.active
    dialog.port.setValue(0)
    dialog.try_start()
    assert dialog.outcome is not None and w.class_mode.active and dialog.result() == 1
    w.class_mode.stop()
    assert refused(dialog.outcome.port)


def _choose_loopback(dialog) -> None:
    dialog.address.setCurrentIndex(dialog.address.findData("127.0.0.1"))
    dialog.port.setValue(0)


def test_view_class_mode_and_its_key_in_presenter_mode(qtbot, make_window):
    w = make_window(load=False)
    mode, switch = w.class_mode, w.registry["class_mode"]
    switch.trigger()  # View > Class mode: the dialog first
    assert mode.dialog is not None and mode.dialog.isVisible() and not mode.active
    mode.dialog.reject()
    assert not switch.isChecked() and not mode.active  # cancelled: off again
    w.presenter.enter()
    qtbot.keyClick(w.view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: mode.dialog is not None and mode.dialog.isVisible())
    _choose_loopback(mode.dialog)
    mode.dialog.try_start()
    assert mode.active and switch.isChecked()
    assert mode.dock.isVisible() and not w.menuBar().isVisible()  # a panel of the presenter layout
    assert mode.dock.width() > w.width() // 5
    w.presenter.leave()
    assert mode.dock.isVisible()  # (class mode is still on)
    port = mode.listening.port
    switch.trigger()  # unticked: the server closes
    assert not mode.active and not mode.dock.isVisible() and refused(port)


def test_the_batch_size_chosen_at_start_is_served_and_remembered(qtbot, make_window):
    from explainer.ui_model import settings_schema as S

    w = make_window(load=False)
    mode = w.class_mode
    assert mode.batch == w.settings.get(S.CLASS_BATCH) == 4  # the default: four answered together
    w.registry["class_mode"].trigger()
    assert mode.dialog is not None and mode.dialog.batch.value() == 4
    _choose_loopback(mode.dialog)
    mode.dialog.batch.setValue(6)
    mode.dialog.try_start()
    assert mode.active and mode.batch == 6
    assert w.controller._class_batch == 6  # what the worker decodes together
    assert w.settings.get(S.CLASS_BATCH) == 6
    mode.stop()


@pytest.mark.slow
def test_while_the_class_votes_nothing_on_the_projector_names_the_favourite(qtbot, window):
    """At a pass's layers stage with the vote open: no layer guesses (a note says they are held
    until the reveal), a caption without the guess, no chart, and the described image says the
    class is voting; the reveal shows them all."""
    from PySide6.QtGui import QAccessible

    w = window
    w.sampling.greedy.setChecked(True)
    trace = generate(qtbot, w, PARIS, max_new_tokens=3)
    favourite = " Paris"
    assert trace.steps[0].sampling.chosen.text == favourite
    w.presenter.enter()
    mode = w.class_mode
    assert isinstance(mode.start("127.0.0.1", 0), Listening)
    forward_to(qtbot, w, 0, Stage.LAYERS)
    assert mode.panel.state.offer is not None  # the vote is open
    w.scene.settle()
    texts = w.texts
    assert w.scene.frame.answer_hidden is Predictor.CLASS
    drawn = drawn_texts(w.scene)
    assert texts.panels["layers_hidden_class"] in drawn  # the visible note in the layer guesses' place
    assert not any("Paris" in t for t in drawn)
    assert "Paris" not in caption_text(w.scene) and "vote" in caption_text(w.scene)
    said = QAccessible.queryAccessibleInterface(w.view).text(QAccessible.Text.Description) or ""
    assert texts.describe["hidden_class"] in said and "Paris" not in said
    press(qtbot, w, Qt.Key.Key_Right)  # the reveal
    w.scene.settle()
    assert w.scene.frame.answer_hidden is None and mode.panel.state.reveal is not None
    assert any("Paris" in t for t in drawn_texts(w.scene))
    press(qtbot, w, Qt.Key.Key_Left)  # back at the layers of a revealed pass: nothing is held back
    w.scene.settle()
    assert w.scene.frame.answer_hidden is None and any("Paris" in t for t in drawn_texts(w.scene))
    mode.stop()
    w.presenter.leave()


class _ListeningPhone:
    """A phone on its live channel in a thread of its own, keeping each message as it comes,
    until the server says the session is closed."""

    def __init__(self, room: _Room) -> None:
        self.room, self.heard = room, list[tuple[str, dict[str, object]]]()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._listen()), daemon=True)
        self.thread.start()

    async def _listen(self) -> None:
        async with aiohttp.ClientSession() as session:
            async with session.post(self.room.url("/join"), json={}) as r:
                device = (await r.json())["device"]
            async with session.get(self.room.url("/events"), params={"device": device}) as stream:
                kind = ""
                async for raw in stream.content:
                    line = raw.decode("utf-8").rstrip("\n")
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        self.heard.append((kind, json.loads(line[6:])))
                        if kind == "closed":
                            return

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.heard]


def test_a_vote_the_class_will_not_see_revealed_is_withdrawn_on_the_phones(qtbot, window):
    """Stepping back off a pass before its reveal, or opening another run while its vote is open,
    closes that round on every phone as withdrawn (not left on 'wait for the reveal' for good)."""
    w = window
    w.sampling.greedy.setChecked(True)
    generate(qtbot, w, PARIS, max_new_tokens=3)
    mode = w.class_mode
    listening = mode.start("127.0.0.1", 0)
    assert isinstance(listening, Listening)
    phone = _ListeningPhone(_Room(listening))
    qtbot.waitUntil(lambda: mode.panel.state.phones == 1, timeout=10_000)
    forward_to(qtbot, w, 1, Stage.LAYERS)
    offer = mode.panel.state.offer
    assert offer is not None
    qtbot.waitUntil(
        lambda: ("round", offer.round_id) in [(k, d.get("round_id")) for k, d in phone.heard], timeout=10_000
    )
    press(qtbot, w, Qt.Key.Key_Left)  # the instructor steps back before the reveal
    qtbot.waitUntil(lambda: ("withdrawn", {"round_id": offer.round_id}) in phone.heard, timeout=10_000)
    assert ("ended", {"round_id": offer.round_id}) not in phone.heard and mode.panel.state.offer is None
    press(qtbot, w, Qt.Key.Key_Right)  # offered afresh at the layers
    again = mode.panel.state.offer
    assert again is not None and again.round_id != offer.round_id
    generate(qtbot, w, "One, two, three,", max_new_tokens=2)  # another run while that vote is open
    qtbot.waitUntil(lambda: ("withdrawn", {"round_id": again.round_id}) in phone.heard, timeout=10_000)
    mode.stop()
    phone.thread.join(10)
    assert phone.kinds()[-1] == "closed"
    assert not [d for k, d in phone.heard if k == "reveal" and d["round_id"] in (offer.round_id, again.round_id)]

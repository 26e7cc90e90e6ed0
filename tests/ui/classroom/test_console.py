"""The presenter console in the window: a phone's prompt held until the instructor approves or
declines it there, over real HTTP on 127.0.0.1; the class panel in the normal window; the start
dialog offering where class mode listened last; the class's pick that changes nothing."""

from __future__ import annotations

import asyncio

import aiohttp
from PySide6.QtCore import Qt

from explainer.classroom.events import Listening
from explainer.classroom.queue import State
from explainer.ui_model import settings_schema as S


async def _send(base: str, text: str) -> tuple[str, int]:
    async with aiohttp.ClientSession() as session:
        async with session.post(base + "/join", json={}) as r:
            device = (await r.json())["device"]
        async with session.post(base + "/prompt", json={"device": device, "text": text}) as r:
            assert r.status == 200, await r.text()
            return device, (await r.json())["number"]


def test_a_held_prompt_is_approved_or_declined_in_the_console(qtbot, make_window):
    w = make_window(load=False)
    mode = w.class_mode
    mode.moderated = True
    listening = mode.start("127.0.0.1", 0)
    assert isinstance(listening, Listening)
    w.registry["console"].trigger()  # View > Presenter console… (one screen: asked for)
    console = w.console.view
    assert console is not None and console.isVisible() and console.warning.isVisible()
    base = listening.url
    asyncio.run(_send(base, "What is a token?"))
    asyncio.run(_send(base, "Tell me a rude joke"))
    held = console.moderation.held
    qtbot.waitUntil(lambda: held.count() == 2 and "rude" in held.item(1).text(), timeout=5000)
    assert "What is a token?" in held.item(0).text()  # the student's text: only here, for the instructor
    held.setCurrentRow(0)
    qtbot.mouseClick(console.moderation.approve, Qt.MouseButton.LeftButton)
    queue = mode.queue
    assert queue is not None
    approved = queue.life(1)
    assert approved is not None and approved.approved is not None  # in the line (no model here: it fails there)
    qtbot.waitUntil(lambda: held.count() == 1 and "rude" in held.item(0).text(), timeout=5000)
    held.setCurrentRow(0)
    qtbot.mouseClick(console.moderation.decline, Qt.MouseButton.LeftButton)
    declined = queue.life(2)
    assert declined is not None and declined.state is State.DECLINED
    qtbot.waitUntil(lambda: not held.item(0).flags() & Qt.ItemFlag.ItemIsSelectable, timeout=5000)  # none left
    # moderation off from the console: remembered, and the queue lets prompts straight in
    console.moderation.moderate.setChecked(False)
    assert not queue.moderated and w.settings.get(S.CLASS_MODERATED) is False
    mode.stop()


def test_the_class_panel_sits_beside_the_illustration_in_the_normal_window(qtbot, make_window):
    w = make_window(load=False)
    assert isinstance(w.class_mode.start("127.0.0.1", 0), Listening)
    dock = w.class_mode.dock
    # (a dock a layout never placed keeps a geometry outside the window: the fault this replaces)
    qtbot.waitUntil(lambda: dock.isVisible() and w.rect().contains(dock.geometry()) and dock.height() > 300)
    assert dock.width() >= 300 and w.dockWidgetArea(dock) is Qt.DockWidgetArea.LeftDockWidgetArea
    w.presenter.enter()  # presenter mode: beside the illustration on the audience view
    qtbot.waitUntil(lambda: dock.isVisible() and w.dockWidgetArea(dock) is Qt.DockWidgetArea.RightDockWidgetArea)
    w.presenter.leave()
    qtbot.waitUntil(lambda: w.dockWidgetArea(dock) is Qt.DockWidgetArea.LeftDockWidgetArea and dock.isVisible())
    w.class_mode.stop()
    assert not dock.isVisible()


def test_the_start_dialog_offers_where_class_mode_listened_last(qtbot, make_window):
    from explainer.classroom.network import Address
    from explainer.ui.classroom.start_dialog import StartDialog

    w = make_window(load=False)
    found = [Address("eth0", "192.168.1.20", 4, True, False, True), Address("lo", "127.0.0.1", 4, True, True, False)]
    w.class_mode.start("127.0.0.1", 0)  # e.g. `explainer --class-bind 127.0.0.1 --class-port 0`
    w.class_mode.stop()
    dialog = StartDialog(w.texts, w.class_mode.start, found, parent=w, address=w.class_mode.last_address)
    qtbot.addWidget(dialog)
    assert dialog.bind() == "127.0.0.1" and dialog.port.value() == 0  # not the other interface
    assert w.settings.get(S.CLASS_ADDRESS) == "127.0.0.1" and w.settings.get(S.CLASS_PORT) == 0

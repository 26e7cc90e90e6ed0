"""Class mode wired into the window: its View menu switch, the class-pick key, quitting, and
File > Export class results….

View > Class mode (Ctrl+Shift+C, also in presenter mode, where the menu bar is hidden) opens the
start dialog; Start there starts the server, Cancel leaves class mode off. Unticking it stops the
server. `explainer --class` starts it without the dialog (:func:`start_at`). The dialog and the
network's addresses (psutil) are imported when class mode starts: the first window waits for
neither.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDialog

from explainer.classroom.events import Listening, StartFailed
from explainer.classroom.room import Limits
from explainer.illustration.vocab import TokenNames
from explainer.ui.blocked_words import load_blocked
from explainer.ui.classroom.mode import ClassHost, ClassMode
from explainer.ui.classroom.results_export import install_results
from explainer.ui.settings import AppSettings
from explainer.ui_model import settings_schema as S


def install_class(window: ClassHost, names: Callable[[], TokenNames]) -> ClassMode:
    """Class mode in ``window``, with the instructor's last choices (`explainer --class` too)."""
    settings = window.settings
    address, port = settings.get(S.CLASS_ADDRESS), settings.get(S.CLASS_PORT)
    mode = ClassMode(
        window,
        names,
        batch=settings.get(S.CLASS_BATCH),
        moderated=settings.get(S.CLASS_MODERATED),
        blocked=load_blocked(settings),
        address=(address, port) if address is not None and port is not None else None,
    )
    mode.changed.connect(lambda on: _remember(settings, mode) if on else None)
    switch = window.registry.add("class_mode")
    switch.triggered.connect(lambda checked: _switched(settings, mode, bool(checked)))
    mode.changed.connect(switch.setChecked)
    window.registry.add("class_pick", mode.class_pick)
    install_results(window, mode)  # File > Export class results… (results_export.py)
    return mode


def _switched(settings: AppSettings, mode: ClassMode, on: bool) -> None:
    if not on:
        mode.stop()
        return
    if mode.active:
        return

    def chosen(n: int, moderated: bool) -> None:
        settings.set(S.CLASS_BATCH, n)
        settings.set(S.CLASS_MODERATED, moderated)

    dialog = mode.ask_to_start(chosen)
    dialog.finished.connect(lambda result: _dialog_closed(mode, result))
    dialog.open()  # (window-modal, without a nested event loop)


def _remember(settings: AppSettings, mode: ClassMode) -> None:
    """Where class mode listens now: the start dialog offers it again, in this run or the next."""
    if mode.last_address is not None:
        address, port = mode.last_address
        settings.set(S.CLASS_ADDRESS, address)
        settings.set(S.CLASS_PORT, port)


def _dialog_closed(mode: ClassMode, result: int) -> None:
    if result != QDialog.DialogCode.Accepted and not mode.active:
        mode.changed.emit(False)  # cancelled: the switch goes back off


def start_at(mode: ClassMode, bind: str | None, port: int, limits: Limits | None = None) -> Listening | StartFailed:
    """`explainer --class`: start on ``bind`` (None: the default address, else the loopback) with
    ``limits`` (None: the room's defaults; `--class-phones-per-address` raises the per-address cap)."""
    if bind is None:
        from explainer.classroom import network

        found = network.addresses()
        chosen = network.default_address(found)
        bind = chosen.address if chosen is not None else "127.0.0.1"
    return mode.start(bind, port, limits)

"""The window's commands as QActions, with their keys, and the menus that list them.

One QAction per command, added to the window itself, so a key works with the menu bar and the
controls hidden (presenter mode) and the keyboard, the menus and the transport buttons are one
thing. Presentation clickers send Page Up / Page Down, or the arrow keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
from PySide6.QtWidgets import QMenu, QStyle

if TYPE_CHECKING:
    from explainer.ui.main_window import MainWindow

Key = Qt.Key | QKeySequence | QKeySequence.StandardKey
THEME_CHOICES = (
    ("system", "Follow the system"),
    ("light", "Light"),
    ("dark", "Dark"),
    ("projector", "Projector (high contrast)"),
)


def _action(w: MainWindow, name: str, text: str, keys: list[Key], slot: Callable[[], object], tip: str = "") -> QAction:
    a = QAction(text, w)
    a.setObjectName(name)
    seqs: list[QKeySequence] = []
    for k in keys:  # a standard key may repeat an explicit one, which Qt calls ambiguous
        for seq in QKeySequence.keyBindings(k) if isinstance(k, QKeySequence.StandardKey) else [QKeySequence(k)]:
            if seq not in seqs:
                seqs.append(seq)
    if seqs:
        a.setShortcuts(seqs)
        a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    if tip:
        shown = " / ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in seqs)
        a.setToolTip(f"{tip} ({shown})" if shown else tip)
    a.triggered.connect(slot)
    w.addAction(a)  # on the window: works with the menu bar and the controls hidden
    return a


def build_actions(w: MainWindow) -> dict[str, QAction]:
    key, ctrl, st = Qt.Key, Qt.KeyboardModifier.ControlModifier, w.stepper
    specs: list[tuple[str, str, list[Key], Callable[[], object], str]] = [
        ("next", "Next stage", [key.Key_Space, key.Key_Right, key.Key_PageDown], st.forward, "Next stage"),
        ("prev", "Previous stage", [key.Key_Left, key.Key_PageUp, key.Key_Backspace], st.back, "Previous stage"),
        ("next_token", "Next token", [key.Key_N, key.Key_Down], st.next_token, "Jump to the next token being appended"),
        ("play", "Play", [key.Key_P], st.toggle_play, "Play / pause"),
        ("reset", "Reset", [key.Key_Home], st.reset, "Back to the start"),
        (
            "generate",
            "Generate",
            [QKeySequence(ctrl | key.Key_Return), QKeySequence(ctrl | key.Key_Enter)],
            w.generate,
            "Run the model on the prompt",
        ),
        ("stop", "Stop", [], w.stop_generation, "Stop the generation (what is recorded stays)"),
        (
            "presenter",
            "Presenter mode",
            [key.Key_F11],
            w.presenter.toggle,
            "Full screen, large type, high contrast, controls hidden",
        ),
        ("leave_presenter", "Leave presenter mode", [key.Key_Escape], w.presenter.leave, ""),
        (
            "zoom_in",
            "Zoom in",
            [QKeySequence.StandardKey.ZoomIn, QKeySequence(ctrl | key.Key_Equal), QKeySequence(ctrl | key.Key_Plus)],
            w.view.zoom_in,
            "",
        ),
        (
            "zoom_out",
            "Zoom out",
            [QKeySequence.StandardKey.ZoomOut, QKeySequence(ctrl | key.Key_Minus)],
            w.view.zoom_out,
            "",
        ),
        ("zoom_reset", "Fit to window", [QKeySequence(ctrl | key.Key_0)], w.view.reset_zoom, ""),
        (
            "export",
            "Export illustration…",
            [QKeySequence(ctrl | key.Key_E)],
            w.files.export_dialog,
            "Save the current frame as SVG or PNG",
        ),
        (
            "save_trace",
            "Save trace…",
            [QKeySequence(ctrl | key.Key_S)],
            w.files.save_trace_dialog,
            "Save everything this run recorded, to reopen or export later without the model",
        ),
        (
            "save_lesson",
            "Save lesson…",
            [QKeySequence("Ctrl+Shift+S")],
            w.files.save_lesson_dialog,
            "Save this run with the tour's step and the stage on screen, to replay the lesson offline",
        ),
        (
            "open_trace",
            "Open run or lesson…",
            [QKeySequence(ctrl | key.Key_O)],
            w.files.open_trace_dialog,
            "Step through a saved run or lesson; the model is not run again",
        ),
        ("quit", "Quit", [QKeySequence.StandardKey.Quit], w.close, ""),
    ]
    actions = {name: _action(w, name, text, keys, slot, tip) for name, text, keys, slot, tip in specs}
    actions["presenter"].setCheckable(True)
    w.presenter_changed.connect(actions["presenter"].setChecked)
    return actions


def transport_icons(w: MainWindow) -> dict[str, QIcon]:
    sp = QStyle.StandardPixmap
    return {
        name: w.style().standardIcon(pix)
        for name, pix in (
            ("reset", sp.SP_MediaSkipBackward),
            ("prev", sp.SP_MediaSeekBackward),
            ("play", sp.SP_MediaPlay),
            ("pause", sp.SP_MediaPause),
            ("next", sp.SP_MediaSeekForward),
            ("next_token", sp.SP_MediaSkipForward),
            ("stop", sp.SP_MediaStop),
        )
    }


def build_menus(w: MainWindow, a: dict[str, QAction]) -> tuple[dict[str, QAction], QMenu]:
    """File, Run and View; returns the theme choices' actions (checked as the theme changes) and
    the File > Open recent menu (the window fills it)."""
    mb = w.menuBar()
    file_menu = mb.addMenu("&File")
    file_menu.addAction(a["open_trace"])
    recent = file_menu.addMenu("Open recent")
    recent.setObjectName("recent")
    for name in ("save_trace", "save_lesson", None, "export", None, "quit"):
        file_menu.addSeparator() if name is None else file_menu.addAction(a[name])
    run = mb.addMenu("&Run")
    for name in ("generate", "stop", None, "prev", "next", "next_token", "play", "reset"):
        run.addSeparator() if name is None else run.addAction(a[name])
    view = mb.addMenu("&View")
    view.setObjectName("view_menu")  # the lesson adds its dock's toggle here
    theme_menu = view.addMenu("Theme")
    group = QActionGroup(w)
    themes: dict[str, QAction] = {}
    for key, label in THEME_CHOICES:
        t = QAction(label, w, checkable=True)
        t.setObjectName(f"theme_{key}")
        t.triggered.connect(lambda _c=False, k=key: w.apply_theme(k))
        group.addAction(t)
        theme_menu.addAction(t)
        themes[key] = t
    view.addAction(a["presenter"])
    view.addSeparator()
    for name in ("zoom_in", "zoom_out", "zoom_reset"):
        view.addAction(a[name])
    view.addSeparator()
    view.addAction(w.control_dock.toggleViewAction())
    return themes, recent

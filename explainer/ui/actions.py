"""The window's commands as QActions, with their keys, and the menus that list them.

One QAction per command, added to the window itself, so a key works with the menu bar and the
controls hidden (presenter mode) and the keyboard, the menus and the transport buttons are one
thing. Presentation clickers send Page Up / Page Down, or the arrow keys.

A focused control keeps the keys it uses itself (ui/focus_keys.py: Space on a check box, the
arrows on a slider); Page Up / Page Down still step from it, and Esc gives the focus back to
the diagram, where every key here steps again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QStyle, QWidget

from explainer.diagram.view import DiagramView
from explainer.ui.presenter import PresenterMode
from explainer.ui.run_files import RunFiles
from explainer.ui.stepper import Stepper


class Commands(Protocol):
    """What the commands call and how they are worded: the window's side of its actions (the
    QMainWindow they are added to is passed beside it)."""

    @property
    def stepper(self) -> Stepper: ...
    @property
    def files(self) -> RunFiles: ...
    @property
    def presenter(self) -> PresenterMode: ...
    @property
    def view(self) -> DiagramView: ...
    @property
    def control_dock(self) -> QDockWidget: ...
    @property
    def presenter_changed(self) -> SignalInstance: ...

    def word(self, section: str, key: str) -> str: ...
    def apply_theme(self, choice: str, remember: bool = True) -> None: ...
    def generate(self) -> None: ...
    def stop_generation(self) -> None: ...
    def focus_area(self, forward: bool) -> None: ...


Key = Qt.Key | QKeySequence | QKeySequence.StandardKey
# the theme menu's choices; each is labelled by app.json menus.theme_<choice>
THEME_CHOICES = ("system", "light", "dark", "projector")


def _action(
    window: QMainWindow, w: Commands, name: str, keys: list[Key], slot: Callable[[], object], tip: bool = True
) -> QAction:
    """The command ``name``, labelled by app.json actions.<name> and, with ``tip``, explained by
    actions.<name>_tip (the keys that trigger it are added to the tooltip)."""
    a = QAction(w.word("actions", name), window)
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
        text = w.word("actions", f"{name}_tip")
        shown = " / ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in seqs)
        a.setToolTip(w.word("actions", "with_keys").format(tip=text, keys=shown) if shown else text)
    a.triggered.connect(slot)
    window.addAction(a)  # on the window: works with the menu bar and the controls hidden
    return a


def escape(w: Commands) -> None:
    """Esc: out of presenter mode; else the focus back to the diagram (from a slider, a list, a
    text field), so the plain keys step it again."""
    if w.presenter.active:
        w.presenter.leave()
    else:
        w.view.setFocus(Qt.FocusReason.ShortcutFocusReason)


def clicker_forward(w: Commands) -> None:
    """Next (Space, Right, Page Down: what a clicker sends): a stage, or in presenter mode with
    View > Clicker steps whole tokens, a whole token."""
    w.stepper.next_token() if w.presenter.active and w.presenter.steps_tokens else w.stepper.forward()


def clicker_back(w: Commands) -> None:
    w.stepper.prev_token() if w.presenter.active and w.presenter.steps_tokens else w.stepper.back()


def build_actions(window: QMainWindow, w: Commands) -> dict[str, QAction]:
    key, ctrl, st = Qt.Key, Qt.KeyboardModifier.ControlModifier, w.stepper
    specs: list[tuple[str, list[Key], Callable[[], object], bool]] = [
        ("next", [key.Key_Space, key.Key_Right, key.Key_PageDown], lambda: clicker_forward(w), True),
        ("prev", [key.Key_Left, key.Key_PageUp, key.Key_Backspace], lambda: clicker_back(w), True),
        ("next_token", [key.Key_N, key.Key_Down], st.next_token, True),
        ("play", [key.Key_P], st.toggle_play, True),
        ("reset", [key.Key_Home], st.reset, True),
        ("last", [key.Key_End], st.last, True),
        ("generate", [QKeySequence(ctrl | key.Key_Return), QKeySequence(ctrl | key.Key_Enter)], w.generate, True),
        ("stop", [], w.stop_generation, True),
        ("presenter", [key.Key_F11], w.presenter.toggle, True),
        ("leave_presenter", [key.Key_Escape], lambda: escape(w), False),
        ("blank", [key.Key_B], w.presenter.blank.cover, True),
        ("clicker_tokens", [], lambda: None, True),
        ("next_area", [key.Key_F6], lambda: w.focus_area(True), True),
        ("prev_area", [QKeySequence("Shift+F6")], lambda: w.focus_area(False), True),
        (
            "zoom_in",
            [QKeySequence.StandardKey.ZoomIn, QKeySequence(ctrl | key.Key_Equal), QKeySequence(ctrl | key.Key_Plus)],
            w.view.zoom_in,
            False,
        ),
        ("zoom_out", [QKeySequence.StandardKey.ZoomOut, QKeySequence(ctrl | key.Key_Minus)], w.view.zoom_out, False),
        ("zoom_reset", [QKeySequence(ctrl | key.Key_0)], w.view.reset_zoom, False),
        ("export", [QKeySequence(ctrl | key.Key_E)], w.files.export_dialog, True),
        ("export_run", [QKeySequence("Ctrl+Shift+E")], w.files.export_run_dialog, True),
        ("save_trace", [QKeySequence(ctrl | key.Key_S)], w.files.save_trace_dialog, True),
        ("save_lesson", [QKeySequence("Ctrl+Shift+S")], w.files.save_lesson_dialog, True),
        ("open_trace", [QKeySequence(ctrl | key.Key_O)], w.files.open_trace_dialog, True),
        ("quit", [QKeySequence.StandardKey.Quit], window.close, False),
    ]
    actions = {name: _action(window, w, name, keys, slot, tip) for name, keys, slot, tip in specs}
    actions["presenter"].setCheckable(True)
    actions["clicker_tokens"].setCheckable(True)
    actions["clicker_tokens"].toggled.connect(lambda on: setattr(w.presenter, "steps_tokens", bool(on)))
    w.presenter_changed.connect(actions["presenter"].setChecked)
    return actions


def transport_icons(w: QWidget) -> dict[str, QIcon]:
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


def build_menus(window: QMainWindow, w: Commands, a: dict[str, QAction]) -> tuple[dict[str, QAction], QMenu]:
    """File, Run and View; returns the theme choices' actions (checked as the theme changes) and
    the File > Open recent menu (the window fills it)."""
    mb = window.menuBar()
    file_menu = mb.addMenu(w.word("menus", "file"))
    file_menu.addAction(a["open_trace"])
    recent = file_menu.addMenu(w.word("menus", "recent"))
    recent.setObjectName("recent")
    for name in ("save_trace", "save_lesson", None, "export", "export_run", None, "quit"):
        file_menu.addSeparator() if name is None else file_menu.addAction(a[name])
    run = mb.addMenu(w.word("menus", "run"))
    for name in ("generate", "stop", None, "prev", "next", "next_token", "play", "reset", "last"):
        run.addSeparator() if name is None else run.addAction(a[name])
    view = mb.addMenu(w.word("menus", "view"))
    view.setObjectName("view_menu")  # the lesson adds its dock's toggle here
    theme_menu = view.addMenu(w.word("menus", "theme"))
    group = QActionGroup(window)
    themes: dict[str, QAction] = {}
    for key in THEME_CHOICES:
        t = QAction(w.word("menus", f"theme_{key}"), window, checkable=True)
        t.setObjectName(f"theme_{key}")
        t.triggered.connect(lambda _c=False, k=key: w.apply_theme(k))
        group.addAction(t)
        theme_menu.addAction(t)
        themes[key] = t
    view.addAction(a["presenter"])
    view.addAction(a["clicker_tokens"])
    view.addAction(a["blank"])
    view.addSeparator()
    view.addAction(a["next_area"])
    view.addAction(a["prev_area"])
    view.addSeparator()
    for name in ("zoom_in", "zoom_out", "zoom_reset"):
        view.addAction(a[name])
    view.addSeparator()
    view.addAction(w.control_dock.toggleViewAction())
    return themes, recent

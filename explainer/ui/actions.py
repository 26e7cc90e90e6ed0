"""The window's commands as QActions, with their keys, and the menus that list them.

The commands, their words, keys and menu places are a Qt-free table
(explainer/ui_model/actions.py); this module makes the Qt objects from it and keeps them by id
(``ActionRegistry``), so whoever needs a menu or an action asks for it by id, never by a Qt
object name. One QAction per command, added to the window itself, so a key works with the menu
bar and the controls hidden (presenter mode) and the keyboard, the menus and the transport
buttons are one thing. Presentation clickers send Page Up / Page Down, or the arrow keys.

A focused control keeps the keys it uses itself (ui/focus_keys.py: Space on a check box, the
arrows on a slider); Page Up / Page Down still step from it, and Esc gives the focus back to
the diagram, where every key here steps again.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Protocol

import shiboken6
from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QStyle, QWidget

from explainer.content.texts import LessonTexts
from explainer.diagram.view import DiagramView
from explainer.ui.presenter import PresenterMode
from explainer.ui.run_files import RunFiles
from explainer.ui.settings import AppSettings
from explainer.ui.stepper import Stepper
from explainer.ui.window_host import WindowHost
from explainer.ui_model.actions import (
    BY_ID,
    MENUS,
    THEME_CHOICES,
    Action,
    Key,
    MenuId,
    StandardKey,
    Words,
    entries,
)


class CommandsHost(WindowHost, Protocol):
    """What the commands call: the window's side of its actions (Quit closes its ``qt_window``),
    and the registry they are added to."""

    @property
    def registry(self) -> ActionRegistry: ...
    @property
    def stepper(self) -> Stepper: ...
    @property
    def files(self) -> RunFiles: ...
    @property
    def presenter(self) -> PresenterMode: ...
    @property
    def view(self) -> DiagramView: ...
    @property
    def presenter_changed(self) -> SignalInstance: ...

    def apply_theme(self, choice: str, remember: bool = True) -> None: ...
    def generate(self) -> None: ...
    def stop_generation(self) -> None: ...
    def focus_area(self, forward: bool) -> None: ...


def key_sequences(keys: tuple[Key, ...]) -> list[QKeySequence]:
    """The row's keys as Qt sequences; a standard key may repeat an explicit one, which Qt would
    call ambiguous, so each sequence is kept once."""
    seqs: list[QKeySequence] = []
    for k in keys:
        if isinstance(k, StandardKey):
            found = QKeySequence.keyBindings(QKeySequence.StandardKey[k.value])
        else:
            found = [QKeySequence(k)]
        seqs += [s for s in found if s not in seqs]
    return seqs


def key_text(seqs: list[QKeySequence]) -> str:
    return " / ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in seqs)


def words_of(texts: LessonTexts) -> Callable[[Words], str]:
    def word(w: Words) -> str:
        return texts.lesson.strings["ui"][w.key] if w.lesson else texts.app_text(w.section, w.key)

    return word


class ActionRegistry:
    """The window's QActions and QMenus by id. ``add`` makes a row's QAction, ``adopt`` gives a
    QAction Qt made (a dock's toggle) its row's keys and tooltip; ``fill_menus`` lists them all."""

    def __init__(self, window: QMainWindow, texts: LessonTexts, settings: AppSettings) -> None:
        self.window, self.word, self.settings = window, words_of(texts), settings
        self._with_keys = texts.app_text("actions", "with_keys")
        self.actions: dict[str, QAction] = {}
        self.menus: dict[MenuId, QMenu] = {}
        for m in MENUS:
            menu = QMenu(self.word(m.title), window.menuBar())
            menu.setObjectName(m.id.value)
            menu.setToolTipsVisible(m.tips_visible)
            self.menus[m.id] = menu

    def __getitem__(self, id: str) -> QAction:
        action = self.actions[id]
        if not shiboken6.isValid(action):
            # a Qt-made action (a dock's show/hide toggle, adopted): PySide can drop its Python
            # wrapper while the action lives on in its dock (seen once the lesson's question
            # cards went into a container of their own); it is found again by the name adopt gave it
            found = self.window.findChild(QAction, id)
            assert found is not None, id
            self.actions[id] = action = found
        return action

    def __contains__(self, id: object) -> bool:
        return id in self.actions

    def menu(self, id: MenuId) -> QMenu:
        return self.menus[id]

    def add(self, id: str, slot: Callable[[], object] | None = None) -> QAction:
        """The command ``id``'s QAction, on the window; ``slot`` runs when it is triggered."""
        row = BY_ID[id]
        if row.made_by_qt:
            raise ValueError(f"the action {id!r} is Qt's own (a dock's toggle): adopt it")
        action = self.adopt(id, QAction(self.window))
        action.setCheckable(row.checkable or row.radio)
        if row.remembered is not None:  # a switch kept between runs: as it was left, saved when changed
            remembered = row.remembered
            action.setChecked(self.settings.get(remembered))
            action.toggled.connect(lambda on: self.settings.set(remembered, bool(on)))
        if slot is not None:
            action.triggered.connect(lambda _checked=False, run=slot: run())
        return action

    def adopt(self, id: str, action: QAction) -> QAction:
        row = BY_ID[id]
        if id in self.actions:
            raise ValueError(f"the action {id!r} is registered twice")
        action.setObjectName(id)
        action.setText(self.word(row.title))
        self._keys_and_tip(row, action)
        self.window.addAction(action)  # on the window: works with the menu bar and the controls hidden
        self.actions[id] = action
        return action

    def _keys_and_tip(self, row: Action, action: QAction) -> None:
        seqs = key_sequences(row.keys)
        if seqs:
            action.setShortcuts(seqs)
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if row.tip is not None:
            tip, shown = self.word(row.tip), key_text(seqs)
            action.setToolTip(self._with_keys.format(tip=tip, keys=shown) if shown else tip)

    def fill_menus(self) -> None:
        """The menu bar from the table: its menus in order, each entry at its place, a line
        between two groups, the radio choices of a menu in one exclusive group."""
        bar = self.window.menuBar()
        for m in MENUS:
            if m.place is None:
                bar.addMenu(self.menus[m.id])
        for menu_id, menu in self.menus.items():
            group: int | None = None
            radio: QActionGroup | None = None
            for e in entries(menu_id):
                if group is not None and e.place.group != group:
                    menu.addSeparator()
                group = e.place.group
                if e.submenu is not None:
                    menu.addMenu(self.menus[e.submenu])
                    continue
                assert e.action is not None
                action = self.actions[e.action]
                if BY_ID[e.action].radio:
                    radio = radio or QActionGroup(self.window)
                    radio.addAction(action)
                menu.addAction(action)


def escape(window: CommandsHost) -> None:
    """Esc: out of presenter mode; else the focus back to the diagram (from a slider, a list, a
    text field), so the plain keys step it again. (Presenter mode itself is the question here,
    not where the room's parts go: ui/lecture.py.)"""
    if window.presenter.active:
        window.presenter.leave()
    else:
        window.view.setFocus(Qt.FocusReason.ShortcutFocusReason)


def clicker_forward(window: CommandsHost, tokens: QAction) -> None:
    """Next (Space, Right, Page Down: what a clicker sends): a stage, or in presenter mode with
    View > Clicker steps whole tokens (``tokens``, remembered), a whole token."""
    st = window.stepper
    st.next_token() if window.presenter.active and tokens.isChecked() else st.forward()


def clicker_back(window: CommandsHost, tokens: QAction) -> None:
    st = window.stepper
    st.prev_token() if window.presenter.active and tokens.isChecked() else st.back()


def build_actions(window: CommandsHost) -> None:
    """The window's own commands, each bound to what it does, in its registry (the lesson, the
    View toggles and the Animations switch add theirs where they are built)."""
    st, files, registry = window.stepper, window.files, window.registry
    tokens = registry.add("clicker_tokens")  # (read at each press: as remembered, or as just set)
    slots: dict[str, Callable[[], object] | None] = {
        "next": lambda: clicker_forward(window, tokens),
        "prev": lambda: clicker_back(window, tokens),
        "next_token": st.next_token,
        "play": st.toggle_play,
        "reset": st.reset,
        "last": st.last,
        "generate": window.generate,
        "stop": window.stop_generation,
        "presenter": window.presenter.toggle,
        "leave_presenter": lambda: escape(window),
        "blank": window.presenter.blank.cover,
        "next_area": lambda: window.focus_area(True),
        "prev_area": lambda: window.focus_area(False),
        "zoom_in": window.view.zoom_in,
        "zoom_out": window.view.zoom_out,
        "zoom_reset": window.view.reset_zoom,
        "export": files.export_dialog,
        "export_run": files.export_run_dialog,
        "export_lesson": files.export_lesson_dialog,
        "save_trace": files.save_trace_dialog,
        "save_lesson": files.save_lesson_dialog,
        "open_trace": files.open_trace_dialog,
        "quit": window.qt_window.close,
    }
    for id, slot in slots.items():
        registry.add(id, slot)
    for choice in THEME_CHOICES:
        registry.add(f"theme_{choice}", partial(window.apply_theme, choice))
    window.presenter_changed.connect(registry["presenter"].setChecked)


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

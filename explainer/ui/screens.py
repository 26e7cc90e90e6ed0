"""Qt's screens for the room layout (ui_model/room_layout.py): what is there, and a window put on one.

QGuiApplication knows the screens and says when one comes or goes (a projector plugged in during
the lecture, unplugged at the end) or changes its geometry (mirroring turned on or off in the
desktop's display settings). :class:`ScreenWatch` turns all of these into one signal, so the
window decides its layout again whatever changed.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

from explainer.ui_model.room_layout import ScreenInfo


def _named() -> list[tuple[str, QScreen]]:
    """Each screen with a name of its own: Qt's, numbered where two share one (X11's separate
    screens are all called "screen")."""
    screens = QGuiApplication.screens()
    names = [s.name() or "screen" for s in screens]
    return [(n if names.count(n) == 1 else f"{n} {i + 1}", s) for i, (n, s) in enumerate(zip(names, screens))]


def screen_infos() -> list[ScreenInfo]:
    """The screens, in Qt's order, as plain records. Screens that share a desktop are Qt's
    "virtual siblings" (the monitors of one desktop); X11's separate screens each have their own,
    all at (0, 0), which is not mirroring."""
    primary = QGuiApplication.primaryScreen()
    named = _named()
    desktops: list[set[str]] = []
    out = []
    for name, screen in named:
        siblings = {n for n, s in named if s in screen.virtualSiblings()} | {name}
        desktop = next((i for i, d in enumerate(desktops) if name in d), None)
        if desktop is None:
            desktops.append(siblings)
            desktop = len(desktops) - 1
        g = screen.geometry()
        out.append(
            ScreenInfo(
                name=name,
                x=g.x(),
                y=g.y(),
                width=g.width(),
                height=g.height(),
                primary=screen is primary,
                desktop=desktop,
            )
        )
    return out


def qscreen(info: ScreenInfo) -> QScreen | None:
    """The QScreen a record was made from (None: it has gone since)."""
    return next((s for n, s in _named() if n == info.name), None)


def put_on(window: QWidget, info: ScreenInfo) -> bool:
    """Move a top-level window onto that screen (before it is made full screen there); False
    when the screen has gone."""
    screen = qscreen(info)
    if screen is None:
        return False
    handle = window.windowHandle()
    if handle is not None:
        handle.setScreen(screen)
    window.setGeometry(screen.availableGeometry())
    return True


class ScreenWatch(QObject):
    """``changed`` whenever a screen is added or removed, the primary one changes, or a screen's
    geometry changes (mirroring turned on or off)."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        app = QGuiApplication.instance()
        assert isinstance(app, QGuiApplication)
        # (bound methods, not lambdas: Qt drops a connection when its receiver is destroyed)
        app.screenAdded.connect(self._added)
        app.screenRemoved.connect(self._changed)
        app.primaryScreenChanged.connect(self._changed)
        for screen in QGuiApplication.screens():
            screen.geometryChanged.connect(self._changed)

    def _added(self, screen: QScreen) -> None:
        screen.geometryChanged.connect(self._changed)
        self.changed.emit()

    def _changed(self, *_what: object) -> None:
        self.changed.emit()

"""Which commands can run for the run on screen, and Play's face (Play or Pause).

Stepping needs a recorded run, saving needs a finished one, Stop needs a generation: the
window calls ``refresh`` whenever the stepper changes (Stepper.changed).
"""

from __future__ import annotations

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QPushButton

from explainer.content.texts import LessonTexts
from explainer.ui.actions import ActionRegistry
from explainer.ui.status import position_text
from explainer.ui.stepper import Stepper
from explainer.ui.transport import TransportBar


class CommandState:
    def __init__(
        self,
        registry: ActionRegistry,
        icons: dict[str, QIcon],
        stepper: Stepper,
        transport: TransportBar,
        stop_button: QPushButton,
        texts: LessonTexts,
    ) -> None:
        self.registry, self.icons, self.stepper = registry, icons, stepper
        self.transport, self.stop_button, self.texts = transport, stop_button, texts
        for name, icon in icons.items():
            if name in registry:
                registry[name].setIcon(icon)

    def on_playing(self, on: bool) -> None:
        play = self.registry["play"]
        play.setText(self.texts.app_text("actions", "pause" if on else "play"))
        play.setIcon(self.icons["pause" if on else "play"])

    def refresh(self) -> None:
        st, a = self.stepper, self.registry
        ready = st.ready
        self.transport.set_position(position_text(self.texts, st.trace, st.cursor, st.generating))
        a["prev"].setEnabled(
            ready and st.walk is not None and st.cursor is not None and st.walk.prev(st.cursor) is not None
        )
        for name in ("next", "next_token", "play", "reset", "last", "export"):
            a[name].setEnabled(ready)
        for name in ("save_trace", "export_run", "export_lesson", "save_lesson"):
            a[name].setEnabled(ready and not st.generating)
        a["stop"].setEnabled(st.generating)
        self.stop_button.setEnabled(st.generating)

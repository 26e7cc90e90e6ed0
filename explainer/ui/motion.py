"""Motion a learner can turn off: the saved "Animations" switch and the saved speed.

Some learners get dizzy or lose their place when the chips fly and the bars sweep (WCAG 2.3.3).
View > Animations turns every transition off (each step shows its end state at once, like the
"Instant" speed), and is remembered, as is the transport bar's speed. Where the desktop says it
prefers reduced motion, the switch starts off.

Qt has no portable reduced-motion hint: this PySide6's QStyleHints and QAccessibilityHints
(Qt 6.11) offer a colour scheme and a contrast preference, not motion, and
QApplication.isEffectEnabled(UI_General) is false on every Linux desktop Qt has no theme plugin
for, so it cannot tell "off on purpose" from "unknown". So the preference is read, in order,
from EXPLAINER_REDUCE_MOTION (1 or 0, for any desktop and for tests; see README) and GNOME's
org.gnome.desktop.interface enable-animations (what GNOME's Reduce animation switch sets).

GNOME's answer comes from a `gsettings` process (a fork and an exec), so it is asked on a
thread and applied when it comes, just after the first window is painted and long before a
learner can start a run; a choice the learner made meanwhile wins.
"""

from __future__ import annotations

import os
import shutil
import threading
from functools import lru_cache

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction

from explainer.ui.settings import AppSettings
from explainer.ui.stepper import Stepper
from explainer.ui.transport import TransportBar
from explainer.ui_model.settings_schema import ANIMATIONS, SPEED

ENV = "EXPLAINER_REDUCE_MOTION"


@lru_cache(maxsize=1)
def _gnome_animations_off() -> bool:
    gsettings = shutil.which("gsettings")
    if gsettings is None:
        return False
    import subprocess  # (here: only a desktop with gsettings needs it)

    try:
        out = subprocess.run(
            [gsettings, "get", "org.gnome.desktop.interface", "enable-animations"],
            capture_output=True,
            text=True,
            timeout=1.0,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and out.stdout.strip() == "false"


def _variable_says() -> bool | None:
    value = os.environ.get(ENV, "").strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    return None


class _DesktopAnswer(QObject):
    """Carries GNOME's answer from the thread that asked it to the GUI thread (a queued signal)."""

    reduced = Signal(bool)

    def ask(self) -> None:
        threading.Thread(target=lambda: self.reduced.emit(_gnome_animations_off()), daemon=True).start()


class Motion:
    """Owns the Animations switch and the speed's persistence; tells the stepper the speed in
    effect (0, instant, while animations are off)."""

    def __init__(self, action: QAction, settings: AppSettings, transport: TransportBar, stepper: Stepper) -> None:
        """``action``: View > Animations, made from the action table (ui/actions.py)."""
        self.settings, self.transport, self.stepper = settings, transport, stepper
        saved = settings.get(ANIMATIONS)
        said = _variable_says()
        self.action = action
        self.action.setChecked(saved if saved is not None else not said if said is not None else True)
        self.action.toggled.connect(self._on_toggled)
        self._desktop_setting = False
        self._chosen = saved is not None or said is not None  # else the desktop's answer applies when it comes
        if not self._chosen:
            self._answer = _DesktopAnswer()
            self._answer.reduced.connect(self._on_desktop)
            self._answer.ask()
        speed = settings.get(SPEED)
        if speed is not None:
            transport.set_speed(float(speed))
        transport.speed_changed.connect(self._on_speed)
        self._apply()

    @property
    def animations(self) -> bool:
        return self.action.isChecked()

    def set_animations(self, on: bool) -> None:
        self.action.setChecked(bool(on))

    def _on_toggled(self, on: bool) -> None:
        if not self._desktop_setting:
            self._chosen = True
            self.settings.set(ANIMATIONS, bool(on))
        self._apply()

    def _on_desktop(self, reduced: bool) -> None:
        """GNOME's answer: animations start off where it asks for less motion, unless the learner
        already chose; not saved, so a changed desktop switch is followed next time."""
        if self._chosen or not reduced:
            return
        self._desktop_setting = True
        self.action.setChecked(False)  # every view of the switch follows; _on_toggled saves nothing
        self._desktop_setting = False

    def _on_speed(self, factor: float) -> None:
        self.settings.set(SPEED, float(factor))
        self._apply()

    def _apply(self) -> None:
        self.stepper.set_speed(self.transport.speed_factor() if self.animations else 0.0)

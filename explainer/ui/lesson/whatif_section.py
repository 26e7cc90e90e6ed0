"""What if? Sliders that reshape the recorded step under the cursor, without the model.

At a pass's sampling stage the sliders start at the run's own settings (temperature 0..2 with 0
greedy, top-k 0 = off .. 100, top-p 0.05 .. 1) and every move redoes that step's sampling with
:func:`explainer.lesson.whatif.what_if`: the sampler's own function on the step's recorded
logits, with the step's own random number. It costs about a frame's time, so moves are coalesced: a slider
only restarts a zero-delay timer, and the chart is computed once per event-loop turn however
many moves arrived; and nothing is computed while the section is out of sight (stepping
through a run with the What if? tab closed costs nothing), only when it is shown. Everything
here is labelled as "what if", never as what the model did.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts
from explainer.diagram.theme import Theme
from explainer.engine.sampler import InvalidSetting, SamplingSettings
from explainer.engine.trace import Step, Trace
from explainer.illustration.vocab import TokenNames
from explainer.lesson.whatif import AFTER_TOP_P, WhatIf, kept_words, what_if
from explainer.stages import Cursor, Stage
from explainer.ui.focus_areas import hand_focus_on
from explainer.ui.lesson.whatif_chart import WhatIfChart

# slider units: hundredths of temperature and of top-p, whole top-k
TEMPERATURE_MAX = 200
TOP_K_MAX = 100
TOP_P_MIN, TOP_P_MAX = 5, 100


def _label(name: str, wrap: bool = True) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(wrap)
    return label


class WhatIfSection(QWidget):
    changed = Signal(str)  # the learner moved a slider: temperature, top_k or top_p

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.step: Step | None = None  # the recorded step being reshaped
        self.trace: Trace | None = None
        self.value: WhatIf | None = None
        self._names = TokenNames()
        self._syncing = False
        self._stale = False  # settings or step changed while the section was out of sight
        self._unbound = False  # shown unbound already (the hint, no chart)
        self.computed = 0  # how many times the chart was computed (coalescing is tested)
        # where the focus goes when the sliders are disabled under it (install.py: the illustration)
        self._focus_after_unbind: Callable[[], QWidget | None] = lambda: None
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.recompute)
        ui = self._ui
        col = QVBoxLayout(self)
        col.setContentsMargins(8, 8, 8, 8)
        self.title = _label("whatif_title")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.title.setText(ui("whatif_title"))
        col.addWidget(self.title)
        self.intro = _label("whatif_intro")
        self.intro.setText(ui("whatif_intro"))
        col.addWidget(self.intro)
        self.hint = _label("whatif_hint")
        col.addWidget(self.hint)
        form = QFormLayout()
        self.temperature = self._slider(0, TEMPERATURE_MAX, "temperature")
        self.top_k = self._slider(0, TOP_K_MAX, "top_k")
        self.top_p = self._slider(TOP_P_MIN, TOP_P_MAX, "top_p")
        self.values = {name: _label(f"whatif_{name}_value", wrap=False) for name in ("temperature", "top_k", "top_p")}
        for name, slider, key in (
            ("temperature", self.temperature, "temperature"),
            ("top_k", self.top_k, "top_k"),
            ("top_p", self.top_p, "top_p"),
        ):
            row = QHBoxLayout()
            row.addWidget(slider, 1)
            self.values[name].setMinimumWidth(74)
            row.addWidget(self.values[name])
            form.addRow(ui(key), row)
            slider.setToolTip(texts.define(key.replace("_", "-")) or "")
            slider.setAccessibleDescription(slider.toolTip())
        col.addLayout(form)
        buttons = QHBoxLayout()
        self.reset_button = QPushButton(ui("whatif_reset"))
        self.reset_button.setObjectName("whatif_reset")
        self.reset_button.clicked.connect(self.reset)
        buttons.addWidget(self.reset_button)
        buttons.addStretch(1)
        self.kept = _label("whatif_kept", wrap=False)
        buttons.addWidget(self.kept)
        col.addLayout(buttons)
        self.stage_label = _label("whatif_stage")
        col.addWidget(self.stage_label)
        self.chart = WhatIfChart(texts.text("whatif", "other"))
        self.chart.setAccessibleName(ui("whatif_title"))
        col.addWidget(self.chart)
        self.legend = _label("whatif_legend")
        self.legend.setText(ui("whatif_legend"))
        col.addWidget(self.legend)
        self.message = _label("whatif_message")
        col.addWidget(self.message)
        col.addStretch(1)
        self._bind(None, None)

    def send_focus_after_unbind(self, where: Callable[[], QWidget | None]) -> None:
        """Where the focus goes when the sliders are disabled under it (the lesson's install says)."""
        self._focus_after_unbind = where

    def _ui(self, key: str) -> str:
        return self.texts.text("ui", key)

    def _slider(self, lo: int, hi: int, name: str) -> QSlider:
        s = QSlider(Qt.Orientation.Horizontal)
        s.setObjectName(f"whatif_{name}")
        s.setAccessibleName(self._ui(name))  # (its value joins the name once shown: _show_values)
        s.setRange(lo, hi)
        s.setPageStep(10)
        s.valueChanged.connect(lambda _v, n=name: self._moved(n))
        return s

    def set_theme(self, theme: Theme) -> None:
        self.chart.set_theme(theme)

    # --- the step under the cursor -------------------------------------------------

    def update_for(self, trace: Trace | None, cursor: Cursor | None, names: TokenNames) -> None:
        """Bind the sliders to the pass under the cursor at its sampling stage (else a hint)."""
        self._names = names
        if trace is None or cursor is None or cursor.stage is not Stage.SAMPLING or cursor.step >= len(trace.steps):
            if self.step is not None or not self._unbound:  # (most frames: already unbound, nothing to do)
                self._bind(None, None)
                self._unbound = True
            self.hint.setText(self._ui("whatif_needs_run" if trace is None else "whatif_hint"))
            return
        self._unbound = False
        step = trace.steps[cursor.step]
        if step is not self.step:
            self._bind(trace, step)
            self.reset()

    def _bind(self, trace: Trace | None, step: Step | None) -> None:
        self.trace, self.step = trace, step
        on = step is not None
        self.hint.setVisible(not on)
        controls: tuple[QWidget, ...] = (self.temperature, self.top_k, self.top_p, self.reset_button)
        if not on:  # disabled one by one, they would pass the focus on through each other
            hand_focus_on(controls, self._focus_after_unbind())
        for control in controls:
            control.setEnabled(on)
        shown: tuple[QWidget, ...] = (self.chart, self.legend, self.message, self.stage_label, self.kept)
        for widget in shown:
            widget.setVisible(on)
        self.value = None  # (until the new step is computed: never another step's chart)
        self.chart.set_value(None)
        self.message.setText("")

    def reset(self) -> None:
        """The sliders back at the run's own settings."""
        if self.trace is None:
            return
        s = self.trace.settings
        self._syncing = True
        self.temperature.setValue(min(TEMPERATURE_MAX, round(s.temperature * 100)))
        self.top_k.setValue(min(TOP_K_MAX, s.top_k))
        self.top_p.setValue(max(TOP_P_MIN, round(s.top_p * 100)))
        self._syncing = False
        self._show_values()
        self.schedule()

    def settings(self) -> SamplingSettings:
        """The settings the sliders show now."""
        base = self.trace.settings if self.trace is not None else SamplingSettings()
        return SamplingSettings(
            temperature=self.temperature.value() / 100,
            top_k=self.top_k.value(),
            top_p=self.top_p.value() / 100,
            seed=base.seed,
            max_new_tokens=base.max_new_tokens,
        )

    # --- computing -----------------------------------------------------------------

    def _moved(self, name: str) -> None:
        self._show_values()
        if self._syncing:
            return
        self.schedule()
        self.changed.emit(name)

    def schedule(self) -> None:
        """Compute at the next event-loop turn (coalesced), or when the section is next shown."""
        if self.isVisible():
            self.timer.start()
        else:
            self._stale = True

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.recompute()

    def _show_values(self) -> None:
        ui = self._ui
        t, k, p = self.temperature.value(), self.top_k.value(), self.top_p.value()
        self.values["temperature"].setText(ui("value_greedy") if t == 0 else f"{t / 100:.2f}")
        self.values["top_k"].setText(ui("value_off") if k == 0 else str(k))
        self.values["top_p"].setText(ui("value_off") if p == TOP_P_MAX else f"{p / 100:.2f}")
        for name, slider in (("temperature", self.temperature), ("top_k", self.top_k), ("top_p", self.top_p)):
            # a screen reader reads a slider's raw value (40); its name carries the value as shown (0.40)
            named = self.texts.app_text("access", "value").format(label=ui(name), value=self.values[name].text())
            if slider.accessibleName() != named:
                slider.setAccessibleName(named)

    def recompute(self) -> None:
        self.timer.stop()
        self._stale = False
        self._show_values()
        if self.step is None:
            return
        self.computed += 1
        try:
            before = self.trace.unfinished_before(self.step.index) if self.trace is not None else b""
            value = what_if(self.texts, self.step, self.settings(), self._names, before=before)
        except InvalidSetting as exc:
            self.message.setText(f"{exc.message} {exc.hint}")
            return
        self.value = value
        self.chart.set_value(value)
        self.message.setText(value.message)
        self.chart.setAccessibleDescription(value.message)  # the chart in words: where the draw lands
        self.stage_label.setText(value.stage_labels[AFTER_TOP_P])
        self.kept.setText(kept_words(self.texts, value.kept) if value.available else "")

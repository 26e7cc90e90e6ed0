"""The status bar: what the app is doing, the run's measured times, the loaded model."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar

from explainer.content.texts import LessonTexts
from explainer.engine.trace import ModelInfo, Trace
from explainer.illustration.formatting import short_count
from explainer.stages import Cursor


class StatusLine:
    """The widgets of the window's status bar and how they are filled."""

    def __init__(self, bar: QStatusBar, texts: LessonTexts) -> None:
        self.texts = texts
        self.busy_bar = QProgressBar()
        self.busy_bar.setObjectName("busy")
        self.busy_bar.setRange(0, 0)  # indeterminate
        self.busy_bar.setMaximumSize(120, 14)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.hide()
        self.busy_bar.setAccessibleName(self._word("access", "busy"))
        bar.setAccessibleName(self._word("access", "status"))
        self.activity = QLabel(self._word("activity", "starting"))
        self.activity.setObjectName("activity")
        # reachable by Tab, read-only: what the app is doing, for a learner who cannot see the bar
        self.activity.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.activity.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.activity.setAccessibleDescription(self._word("access", "status"))
        self.metrics = QLabel("")
        self.metrics.setObjectName("metrics")
        tip = self._word("status", "metrics_tip")
        terms = [texts.app_text("terms", name) for name in ("ttft", "tpot")]  # glossary.json's terms
        self.metrics.setToolTip("\n".join(tip.format(term=t, definition=texts.define(t) or "") for t in terms))
        self.model_label = QLabel("")
        self.model_label.setObjectName("model")
        # A label's text sets its minimum width, and the status bar's sets the window's: a long
        # message, or the first run's times, widened a window already at its minimum (and past
        # a small screen), repainting all of it. Each label may be cut short instead.
        for label in (self.activity, self.metrics, self.model_label):
            label.setMinimumWidth(1)
        bar.addWidget(self.busy_bar)
        bar.addWidget(self.activity, 1)
        bar.addPermanentWidget(self.metrics)
        bar.addPermanentWidget(self.model_label)
        self._reading_since: float | None = None

    def _word(self, section: str, key: str) -> str:
        return self.texts.app_text(section, key)

    def show_reading(self, progress: tuple[int, int] | None) -> str:
        """How far the prefill has read the prompt ((read, total); None: done or stopped), with
        the time left estimated from the pace so far; returns the text shown."""
        if progress is None:
            self._reading_since = None
            self.busy_bar.setRange(0, 0)  # back to "busy" without a measure
            return ""
        read, total = progress
        now = time.monotonic()
        if read == 0 or self._reading_since is None:
            self._reading_since = now
        self.busy_bar.setRange(0, max(1, total))
        self.busy_bar.setValue(read)
        text = self._word("status", "reading").format(read=f"{read:,}", total=f"{total:,}")
        elapsed = now - self._reading_since
        if 0 < read < total and elapsed > 0:
            left = (total - read) * elapsed / read
            if left >= 2:
                text += self._word("status", "time_left").format(left=f"{left:.0f}")
        self.activity.setText(text + "…")
        return text + "…"

    def show_metrics(self, trace: Trace | None) -> None:
        """The times of ``trace``: the run on screen (after Your turn, the learner's run when it
        is the one shown, as the illustration's own times are)."""
        self.metrics.setText(self.metrics_text(trace))

    def metrics_text(self, trace: Trace | None) -> str:
        if trace is None:
            return ""
        ttft, tpot = trace.ttft_s, trace.tpot_s
        tpot_text = (
            self._word("status", "tpot").format(ms=f"{tpot * 1000:.1f}")
            if tpot is not None
            else self._word("status", "tpot_none")
        )
        device = trace.model.provider
        if ttft is None:
            text = self._word("status", "metrics_no_ttft").format(tpot=tpot_text, device=device)
        else:
            ttft_text = self._word("status", "ttft").format(ms=f"{ttft * 1000:.0f}")
            text = self._word("status", "metrics").format(ttft=ttft_text, tpot=tpot_text, device=device)
        return text

    def show_model(self, info: ModelInfo | None) -> None:
        self.model_label.setText(
            self._word("status", "model").format(
                name=info.name,
                params=short_count(info.n_params),
                licence=info.license or self._word("status", "licence_unknown"),
            )
            if info
            else self._word("status", "no_model")
        )


def position_text(texts: LessonTexts, trace: Trace | None, cursor: Cursor | None, generating: bool) -> str:
    """The transport bar's "Token 2 of 6 · Probabilities (one new token)": where the walk is."""
    if trace is None or cursor is None:
        return ""
    word = texts.app_text
    phase = word("window", "position_prefill" if cursor.step == 0 else "position_decode")
    return word("window", "position").format(
        n=cursor.step + 1,
        total=len(trace.steps),
        more="…" if generating else "",
        stage=word("stages", cursor.stage.value),
        phase=phase,
    )

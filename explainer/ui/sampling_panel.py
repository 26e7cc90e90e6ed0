"""The sampling controls: greedy toggle, temperature, top-k, top-p, seed, max new tokens.

Plain text fields rather than spin boxes on purpose: a spin box silently refuses or clamps what
it does not like, so a learner never finds out why "top-p 1.5" makes no sense. Here whatever is
typed stays in the field, and `settings()` raises the sampler's own ExplainerError (message +
hint) naming the first bad value, which the window shows in its banner.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox, QLineEdit, QWidget

from explainer.content.texts import LessonTexts
from explainer.engine.sampler import InvalidSetting, SamplingSettings
from explainer.errors import ExplainerError

DEFAULT_TEMPERATURE = "0.8"


class SettingsError(ExplainerError):
    """An invalid setting, with the field it came from (to highlight it)."""

    def __init__(self, message: str, hint: str, field: str) -> None:
        super().__init__(message, hint)
        self.field = field


class SamplingPanel(QGroupBox):
    changed = Signal()

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__("Sampling", parent)
        form = QFormLayout(self)
        self.greedy = QCheckBox("Greedy (always the most likely token)")
        self.greedy.setChecked(True)
        self.greedy.setToolTip("Greedy decoding picks the top token every time; the same prompt gives the same text.")
        self.temperature = self._field(
            DEFAULT_TEMPERATURE,
            "Divides the scores before they become probabilities: below 1 sharpens, above 1 flattens. 0 is greedy.",
        )
        self.top_k = self._field("40", "Keep only the K most likely tokens (0 switches it off).")
        self.top_p = self._field(
            "0.9", "Keep the smallest set of tokens whose probabilities add up to P (1 switches it off)."
        )
        self.seed = self._field("", "Seed of the random draw; the same seed gives the same text. Empty: a fresh seed.")
        self.seed.setPlaceholderText("random")
        self.max_new_tokens = self._field("32", "How many tokens the model may add at most.")
        for term, f in (("temperature", self.temperature), ("top-k", self.top_k), ("top-p", self.top_p)):
            f.setToolTip(texts.define(term) or f.toolTip())  # the same words as the diagram's glossary
        form.addRow(self.greedy)
        form.addRow("Temperature", self.temperature)
        form.addRow("Top-k", self.top_k)
        form.addRow("Top-p", self.top_p)
        form.addRow("Seed", self.seed)
        form.addRow("Max new tokens", self.max_new_tokens)
        self.greedy.toggled.connect(self._sync_enabled)
        self.greedy.toggled.connect(self.changed)
        self._sync_enabled()

    def _field(self, text: str, tip: str) -> QLineEdit:
        f = QLineEdit(text)
        f.setToolTip(tip)
        f.textEdited.connect(lambda _t, f=f: self._mark(f, False))
        f.textEdited.connect(self.changed)
        return f

    def fields(self) -> dict[str, QLineEdit]:
        return {
            "temperature": self.temperature,
            "top_k": self.top_k,
            "top_p": self.top_p,
            "seed": self.seed,
            "max_new_tokens": self.max_new_tokens,
        }

    def _sync_enabled(self) -> None:
        sampled = not self.greedy.isChecked()
        for f in (self.temperature, self.top_k, self.top_p, self.seed):
            f.setEnabled(sampled)

    @staticmethod
    def _mark(f: QLineEdit, bad: bool) -> None:
        f.setProperty("invalid", bad)
        f.setStyleSheet(
            "QLineEdit { border: 2px solid #d32f2f; background: palette(base); color: palette(text); }" if bad else ""
        )

    def clear_marks(self) -> None:
        for f in self.fields().values():
            self._mark(f, False)

    def mark_invalid(self, field: str) -> None:
        f = self.fields().get(field)
        if f is not None:
            self._mark(f, True)
            f.setFocus()
            f.selectAll()

    # --- reading the values ------------------------------------------------

    @staticmethod
    def _number(text: str, label: str, field: str, hint: str) -> float:
        t = text.strip().replace(",", ".")
        try:
            return float(t)
        except ValueError:
            shown = t if t else "nothing"
            raise SettingsError(f"{label} must be a number, got '{shown}'.", hint, field) from None

    @staticmethod
    def _whole(text: str, label: str, field: str, hint: str) -> int:
        t = text.strip()
        try:
            return int(t)
        except ValueError:
            shown = t if t else "nothing"
            raise SettingsError(f"{label} must be a whole number, got '{shown}'.", hint, field) from None

    def settings(self) -> SamplingSettings:
        """The settings as typed; raises SettingsError (an ExplainerError) for a bad value."""
        self.clear_marks()
        n = self._whole(
            self.max_new_tokens.text(), "Max new tokens", "max_new_tokens", "Short answers need 32 to 128 tokens."
        )
        if self.greedy.isChecked():
            s = SamplingSettings(temperature=0.0, top_k=0, top_p=1.0, seed=None, max_new_tokens=n)
        else:
            temperature = self._number(
                self.temperature.text(),
                "Temperature",
                "temperature",
                "Use 0 for greedy decoding or a value such as 0.7.",
            )
            top_k = self._whole(
                self.top_k.text(), "Top-k", "top_k", "Use 0 to switch top-k off, or a count such as 40."
            )
            top_p = self._number(
                self.top_p.text(), "Top-p", "top_p", "Use 1 to switch top-p off, or a value such as 0.9."
            )
            seed_text = self.seed.text().strip()
            seed = (
                None
                if not seed_text
                else self._whole(seed_text, "Seed", "seed", "Leave the seed empty for a fresh random seed each run.")
            )
            s = SamplingSettings(temperature=temperature, top_k=top_k, top_p=top_p, seed=seed, max_new_tokens=n)
        try:
            s.validate()
        except InvalidSetting as exc:
            raise SettingsError(exc.message, exc.hint, exc.field) from None
        return s

    def set_settings(self, s: SamplingSettings) -> None:
        self.greedy.setChecked(s.temperature == 0)
        if s.temperature:
            self.temperature.setText(f"{s.temperature:g}")
        self.top_k.setText(str(s.top_k))
        self.top_p.setText(f"{s.top_p:g}")
        self.seed.setText("" if s.seed is None else str(s.seed))
        self.max_new_tokens.setText(str(s.max_new_tokens))
        self.clear_marks()

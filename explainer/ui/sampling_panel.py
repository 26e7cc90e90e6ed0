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
        super().__init__(texts.app_text("sampling", "title"), parent)
        self.texts = texts
        word = self._word
        form = QFormLayout(self)
        self.greedy = QCheckBox(word("greedy"))
        self.greedy.setChecked(True)
        self.greedy.setToolTip(word("greedy_tip"))
        self.temperature = self._field(DEFAULT_TEMPERATURE, word("temperature_tip"))
        self.top_k = self._field("40", word("top_k_tip"))
        self.top_p = self._field("0.9", word("top_p_tip"))
        self.seed = self._field("", word("seed_tip"))
        self.seed.setPlaceholderText(word("seed_placeholder"))
        self.max_new_tokens = self._field("32", word("max_new_tokens_tip"))
        # the glossary's entries for the three settings (app.json terms names them in glossary.json)
        for name, f in (("temperature", self.temperature), ("top_k", self.top_k), ("top_p", self.top_p)):
            f.setToolTip(texts.define(texts.app_text("terms", name)) or f.toolTip())  # the diagram's words
        form.addRow(self.greedy)
        for name, f in self.fields().items():
            form.addRow(word(name), f)
        self.greedy.toggled.connect(self._sync_enabled)
        self.greedy.toggled.connect(self.changed)
        self._sync_enabled()

    def _word(self, key: str) -> str:
        return self.texts.app_text("sampling", key)

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

    def _number(self, text: str, field: str) -> float:
        t = text.strip().replace(",", ".")
        try:
            return float(t)
        except ValueError:
            raise self._error("not_number", t, field) from None

    def _whole(self, text: str, field: str) -> int:
        t = text.strip()
        try:
            return int(t)
        except ValueError:
            raise self._error("not_whole", t, field) from None

    def _error(self, key: str, typed: str, field: str) -> SettingsError:
        """``field`` is not a number: say so with its label and what was typed, and what to type."""
        shown = typed if typed else self._word("nothing")
        message = self._word(key).format(label=self._word(field), shown=shown)
        return SettingsError(message, self._word(f"{field}_hint"), field)

    def settings(self) -> SamplingSettings:
        """The settings as typed; raises SettingsError (an ExplainerError) for a bad value."""
        self.clear_marks()
        n = self._whole(self.max_new_tokens.text(), "max_new_tokens")
        if self.greedy.isChecked():
            s = SamplingSettings(temperature=0.0, top_k=0, top_p=1.0, seed=None, max_new_tokens=n)
        else:
            temperature = self._number(self.temperature.text(), "temperature")
            top_k = self._whole(self.top_k.text(), "top_k")
            top_p = self._number(self.top_p.text(), "top_p")
            seed_text = self.seed.text().strip()
            seed = None if not seed_text else self._whole(seed_text, "seed")
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

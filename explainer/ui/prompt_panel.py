"""The control panel: prompt box, chat toggle, Generate / Stop, example prompts, sampling."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QCheckBox, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts
from explainer.ui.sampling_panel import SamplingPanel


class _EnterGenerates(QObject):
    """Enter in the prompt box generates and Shift+Enter starts a new line, as in chat apps
    (Ctrl+Enter, the window's shortcut, generates too)."""

    def __init__(self, box: QPlainTextEdit, generate: Callable[[], object]) -> None:
        super().__init__(box)
        self.generate = generate
        box.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if (
            isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ):
            mods = event.modifiers()
            if mods & Qt.KeyboardModifier.ShiftModifier:
                assert isinstance(obj, QPlainTextEdit)
                obj.insertPlainText("\n")
            elif not mods & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier):
                self.generate()
            else:
                return False  # Ctrl+Enter: the window's Generate action
            return True
        return False


class PromptPanel(QWidget):
    generate_requested = Signal()
    stop_requested = Signal()
    example_chosen = Signal()

    def __init__(self, texts: LessonTexts, parent: QWidget | None = None) -> None:
        super().__init__(parent)

        def word(key: str) -> str:
            return texts.app_text("prompt", key)

        col = QVBoxLayout(self)
        col.setContentsMargins(10, 10, 10, 10)
        col.addWidget(QLabel(f"<b>{word('title')}</b>"))
        self.prompt = QPlainTextEdit()
        self.prompt.setObjectName("prompt")
        self.prompt.setPlaceholderText(word("placeholder"))
        self.prompt.setPlainText(texts.examples[0].prompt)
        self.prompt.setTabChangesFocus(True)
        self.prompt.setMinimumHeight(70)
        self.prompt.setMaximumHeight(120)
        # its scrollbar always there: one appearing under a long paste narrowed the box and had
        # Qt wrap the whole text a second time (a fifth of what an 8k-token paste held the window)
        self.prompt.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.prompt.setToolTip(word("tip"))
        self.prompt.setAccessibleName(word("title"))  # (in the folded bar too: it is the same box)
        self.prompt.setAccessibleDescription(word("tip"))
        self._enter = _EnterGenerates(self.prompt, self.generate_requested.emit)
        col.addWidget(self.prompt)
        self.chat = QCheckBox(word("chat"))
        self.chat.setObjectName("chat")
        self.chat.setToolTip(word("chat_tip"))
        col.addWidget(self.chat)

        self.generate_button = QPushButton(word("generate"))
        self.generate_button.setObjectName("generate")
        self.generate_button.setDefault(True)
        self.generate_button.setMinimumHeight(40)
        f = self.generate_button.font()
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.2)
        self.generate_button.setFont(f)
        self.generate_button.setToolTip(word("generate_tip"))
        self.stop_button = QPushButton(word("stop"))
        self.stop_button.setObjectName("stop")
        self.stop_button.setToolTip(word("stop_tip"))
        for b, signal in ((self.generate_button, self.generate_requested), (self.stop_button, self.stop_requested)):
            b.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click must not keep Space for itself
            b.clicked.connect(signal)
            col.addWidget(b)

        col.addSpacing(6)
        col.addWidget(QLabel(f"<b>{word('examples')}</b>"))
        self.example_buttons: list[QPushButton] = []
        for example in texts.examples:  # app.json: a translation offers prompts in its own language
            b = QPushButton(example.label)
            b.setObjectName("example")
            b.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            b.setToolTip(word("example_chat_tip" if example.chat else "example_tip"))
            b.clicked.connect(lambda _c=False, t=example.prompt, ch=example.chat: self.use_example(t, ch))
            col.addWidget(b)
            self.example_buttons.append(b)

        col.addSpacing(6)
        self.sampling = SamplingPanel(texts)
        col.addWidget(self.sampling)
        col.addStretch(1)

    def use_example(self, text: str, chat: bool) -> None:
        self.prompt.setPlainText(text)
        self.chat.setChecked(chat)
        self.example_chosen.emit()

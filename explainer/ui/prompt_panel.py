"""The control panel: prompt box, chat toggle, Generate / Stop, example prompts, sampling."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QCheckBox, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from explainer.content.texts import LessonTexts
from explainer.ui.sampling_panel import SamplingPanel

# (button label, prompt, chat mode)
EXAMPLES: list[tuple[str, str, bool]] = [
    ("The capital of France is", "The capital of France is", False),
    ("Once upon a time", "Once upon a time", False),
    ("What is 2+2? (chat)", "What is 2+2?", True),
    ("Write a haiku about the sea (chat)", "Write a haiku about the sea", True),
]


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
        col = QVBoxLayout(self)
        col.setContentsMargins(10, 10, 10, 10)
        col.addWidget(QLabel("<b>Prompt</b>"))
        self.prompt = QPlainTextEdit()
        self.prompt.setObjectName("prompt")
        self.prompt.setPlaceholderText("Type what the model should continue…")
        self.prompt.setPlainText(EXAMPLES[0][1])
        self.prompt.setTabChangesFocus(True)
        self.prompt.setMinimumHeight(70)
        self.prompt.setMaximumHeight(120)
        self.prompt.setToolTip("Enter generates; Shift+Enter starts a new line")
        self._enter = _EnterGenerates(self.prompt, self.generate_requested.emit)
        col.addWidget(self.prompt)
        self.chat = QCheckBox("Chat mode (wrap the prompt as a user message)")
        self.chat.setObjectName("chat")
        self.chat.setToolTip(
            "Puts the prompt inside the model's chat template, so it answers instead of continuing the text"
        )
        col.addWidget(self.chat)

        self.generate_button = QPushButton("Generate")
        self.generate_button.setObjectName("generate")
        self.generate_button.setDefault(True)
        self.generate_button.setMinimumHeight(40)
        f = self.generate_button.font()
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.2)
        self.generate_button.setFont(f)
        self.generate_button.setToolTip("Run the model on the prompt (Enter in the prompt box, or Ctrl+Enter)")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("stop")
        self.stop_button.setToolTip("Stop the generation; what is recorded can still be stepped through")
        for b, signal in ((self.generate_button, self.generate_requested), (self.stop_button, self.stop_requested)):
            b.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click must not keep Space for itself
            b.clicked.connect(signal)
            col.addWidget(b)

        col.addSpacing(6)
        col.addWidget(QLabel("<b>Examples</b>"))
        self.example_buttons: list[QPushButton] = []
        for label, text, chat in EXAMPLES:
            b = QPushButton(label)
            b.setObjectName("example")
            b.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            b.setToolTip(f"Use this prompt{' in chat mode' if chat else ''}")
            b.clicked.connect(lambda _c=False, t=text, ch=chat: self.use_example(t, ch))
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

"""Before class mode starts: where the server will listen, and a choice of another.

The instructor sees the address the phones will use (the first interface that is up with a
private IPv4 address, :func:`explainer.classroom.network.default_address`) and may pick any other
address of this machine, and the port. A problem (only the loopback: suggest a hotspot; a busy
port; an address gone) is one line with what to do, shown in the dialog without closing it, as is
the server's own :class:`~explainer.classroom.events.StartFailed` when the bind fails.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from explainer.classroom import network
from explainer.classroom.events import Listening, StartFailed
from explainer.content.texts import LessonTexts
from explainer.ui.announce import announce
from explainer.ui.class_serving import CLASS_BATCH_MAX, DEFAULT_CLASS_BATCH

NETWORK_WORDS = (
    *("no_network", "no_network_hint", "not_an_address", "not_here", "not_here_hint"),
    *("port_busy", "port_busy_hint"),
)


def network_words(texts: LessonTexts) -> dict[str, str]:
    return {key: texts.app_text("class", key) for key in NETWORK_WORDS}


class StartDialog(QDialog):
    """Pick the address and port, then Start; ``start`` is ClassMode.start."""

    def __init__(
        self,
        texts: LessonTexts,
        start: Callable[[str, int], Listening | StartFailed],
        found: list[network.Address] | None = None,
        parent: QWidget | None = None,
        batch: int = DEFAULT_CLASS_BATCH,
        on_chosen: Callable[[int, bool], None] | None = None,
        moderated: bool = True,
        address: tuple[str, int] | None = None,
    ) -> None:
        """``batch``: the class requests answered together, as last chosen; ``moderated``:
        whether each prompt waits for the instructor's approval; ``on_chosen`` is told both when
        Start is pressed (ClassMode's, and the settings). ``address``: where class mode listened
        last (`explainer --class-bind/--class-port`, or this dialog), offered first when this
        machine still has that address."""
        super().__init__(parent)
        self._on_chosen = on_chosen
        self.setObjectName("class_start_dialog")
        self.texts, self._start = texts, start
        self.words = network_words(texts)
        self.found = network.addresses() if found is None else found
        self.setWindowTitle(self.word("dialog_title"))
        col = QVBoxLayout(self)
        intro = QLabel(self.word("dialog_intro"))
        intro.setWordWrap(True)
        col.addWidget(intro)
        form = QFormLayout()
        self.address = QComboBox()
        self.address.setObjectName("class_address")
        for a in self.found:
            key = "address_loopback" if a.loopback else "address_choice"
            self.address.addItem(self.word(key).format(address=a.address, interface=a.interface), a.address)
        chosen = network.default_address(self.found)
        last = next((a for a in self.found if address is not None and a.address == address[0]), None)
        pick = last or chosen
        if pick is not None:
            self.address.setCurrentIndex(self.found.index(pick))
        self.port = QSpinBox()
        self.port.setObjectName("class_port")
        self.port.setRange(0, 65535)
        self.port.setValue(address[1] if address is not None else network.DEFAULT_PORT)
        self.port.setToolTip(self.word("port_tip"))
        # a combo box is named by its current item; a screen reader should say what it chooses
        self.address.setAccessibleName(self.word("address_label"))
        self.address.setToolTip(self.word("address_tip"))
        self.batch = QSpinBox()
        self.batch.setObjectName("class_batch")
        self.batch.setRange(1, CLASS_BATCH_MAX)
        self.batch.setValue(batch)
        self.batch.setToolTip(self.word("batch_tip"))
        form.addRow(self.word("address_label"), self.address)
        form.addRow(self.word("port_label"), self.port)
        form.addRow(self.word("batch_label"), self.batch)
        col.addLayout(form)
        self.moderate = QCheckBox(texts.app_text("console", "moderate"))
        self.moderate.setObjectName("class_moderate")
        self.moderate.setToolTip(texts.app_text("console", "moderate_tip"))
        self.moderate.setChecked(moderated)
        col.addWidget(self.moderate)
        self.problem = QLabel()
        self.problem.setObjectName("class_problem")
        self.problem.setWordWrap(True)
        col.addWidget(self.problem)
        buttons = QDialogButtonBox()
        self.start_button = buttons.addButton(self.word("start"), QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.word("cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.try_start)
        buttons.rejected.connect(self.reject)
        col.addWidget(buttons)
        self.outcome: Listening | None = None
        none = network.no_network(self.found, self.words)
        self._say(none.message, none.hint) if none is not None else self._say("", "")

    def word(self, key: str) -> str:
        return self.texts.app_text("class", key)

    def _say(self, message: str, hint: str) -> None:
        self.problem.setText(self.word("failed").format(message=message, hint=hint) if message else "")
        self.problem.setVisible(bool(message))
        if message:
            announce(self.problem, self.problem.text(), assertive=True)  # a label's new text is not read out

    def bind(self) -> str:
        data = self.address.currentData()
        return str(data) if data is not None else self.address.currentText()

    def try_start(self) -> None:
        """Start on the chosen address; a problem is said here and the dialog stays open."""
        bind, port = self.bind(), self.port.value()
        problem = network.check(bind, port, self.found, self.words)
        if problem is not None:
            self._say(problem.message, problem.hint)
            return
        if self._on_chosen is not None:
            self._on_chosen(self.batch.value(), self.moderate.isChecked())
        outcome = self._start(bind, port)
        if isinstance(outcome, StartFailed):
            self._say(outcome.message, outcome.hint)
            return
        self.outcome = outcome
        self.accept()

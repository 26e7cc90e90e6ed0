"""The class panel, projected: how to join, how many voted, and the reveal beside the model.

It is read from the back of a lecture hall, so it is painted in large type with the theme's own
colours (the projector theme's black and white in presenter mode): a QR code of the class page
(drawn module by module from segno's matrix, dark on light with its quiet zone, each module a
whole number of pixels so it stays crisp), the short address, the room code in big letters,
"31 of 48 voted" while a round is open, and at the reveal the four candidates, each with the
model's real probability bar and the class's vote bar beside it, and the class's score.

The panel paints what :class:`PanelState` holds; :class:`~explainer.ui.classroom.mode.ClassMode`
sets it from the server's events. Its words are also its accessible description.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from explainer.classroom.events import RoundOffer, RoundResult
from explainer.content.texts import LessonTexts
from explainer.diagram.theme import Theme
from explainer.illustration.formatting import percent

QUIET = 4  # modules of light around the code (the QR standard's quiet zone)
REVEAL_WITH_QR = 700  # a panel this tall (px) keeps the code beside the reveal


@dataclass(kw_only=True, frozen=True)
class PanelState:
    url: str = ""
    room: str = ""
    phones: int = 0
    offer: RoundOffer | None = None  # the round open on the phones
    voted: int = 0
    joined: int = 0
    reveal: tuple[RoundOffer, RoundResult] | None = None  # the round revealed on screen


def short_address(url: str) -> str:
    """What a student types: the server's address without its scheme or path (the page there
    asks for the room code, which the panel shows in big letters below it)."""
    return url.removeprefix("http://").split("/", 1)[0]


def qr_matrix(url: str) -> list[list[bool]]:
    """The QR code's modules (True: dark), without the quiet zone."""
    import segno  # (with its writers' imports: the first window need not wait for them)

    code = segno.make(url, error="m", micro=False)
    return [[bool(v) for v in row] for row in code.matrix]


class ClassPanel(QWidget):
    """The projected panel (see the module docstring)."""

    def __init__(self, texts: LessonTexts, theme: Callable[[], Theme], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("class_panel")
        self.texts = texts
        self.theme = theme
        self.state = PanelState()
        self._matrix: list[list[bool]] = []
        self.setMinimumWidth(300)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)

    def word(self, key: str) -> str:
        return self.texts.app_text("class", key)

    # --- what it shows ------------------------------------------------------------------------

    def show_state(self, state: PanelState) -> None:
        if state.url != self.state.url:
            self._matrix = qr_matrix(state.url) if state.url else []
        self.state = state
        self.setAccessibleName(self.word("mode"))
        self.setAccessibleDescription(" ".join(self.lines()))
        self.update()

    def change(self, **changes: object) -> None:
        self.show_state(replace(self.state, **changes))  # type: ignore[arg-type]

    def count_text(self) -> str:
        s = self.state
        if s.offer is not None:
            return self.word("voting").format(voted=s.voted, joined=max(s.joined, s.voted))
        return ""

    def phones_text(self) -> str:
        n = self.state.phones
        return self.word("phones_one") if n == 1 else self.word("phones").format(n=n)

    def score_text(self) -> str:
        shown = self.state.reveal
        if shown is None:
            return ""
        result = shown[1]
        if result.rounds == 0:  # revealed, but nobody has voted in any round yet
            return self.word("score_none")
        if result.rounds == 1:  # ("1 of 1 times" reads as a slip)
            return self.word("score_first_right" if result.right else "score_first_wrong")
        return self.word("score").format(right=result.right, rounds=result.rounds)

    def rows(self) -> list[tuple[str, float, float, int, list[str]]]:
        """At the reveal, each candidate in the offered order: its label, the model's
        probability, the class's share of the votes, its votes, and its marks."""
        if self.state.reveal is None:
            return []
        offer, result = self.state.reveal
        total = sum(result.votes)
        out = []
        for i, label in enumerate(offer.choices):
            n = result.votes[i] if i < len(result.votes) else 0
            marks = [self.word("favourite")] if i == result.favourite else []
            if i == result.class_pick:
                marks.append(self.word("class_choice"))
            out.append((label, result.probs[i], n / total if total else 0.0, n, marks))
        return out

    def lines(self) -> list[str]:
        """Everything the panel says, in reading order (its accessible description; tests)."""
        s = self.state
        said = [self.word("join"), short_address(s.url), self.word("room").format(code=s.room), self.phones_text()]
        if s.reveal is not None:
            said.append(self.word("reveal_title"))
            for label, prob, share, n, marks in self.rows():
                model = self.word("model_bar").format(pct=percent(prob))
                klass = self.word("class_bar").format(pct=percent(share), n=n)
                said.append(" · ".join([label, model, klass, *marks]))
            said.append(self.score_text())
        elif s.offer is not None:
            said.append(self.count_text())
        else:
            said.append(self.word("waiting"))
        return [line for line in said if line]

    # --- painting -----------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            self.update()  # (the window's theme changed: paint in its colours)
        super().changeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        theme = self.theme()
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        p.fillRect(self.rect(), QColor(theme.background))
        w, h = float(self.width()), float(self.height())
        margin = max(8.0, w * 0.05)
        inner = w - 2 * margin
        u = min(w, h * 0.5)  # the type's unit: a short panel (beside the lesson) keeps room for the reveal
        s = self.state
        y = margin / 2
        y = self._text(p, theme, self.word("join"), y, margin, inner, u / 20, bold=True)
        revealing = s.reveal is not None
        if not revealing or h >= REVEAL_WITH_QR:  # (a short panel's reveal needs the room: the address stays)
            y = self._qr(p, min(inner, h * (0.26 if revealing else 0.4)), margin, y + 4, inner) + 6
        # what a student without a camera types: as large as the room code's line allows
        y = self._text(p, theme, short_address(s.url), y, margin, inner, u / 13, bold=True, fit=True)
        room = self.word("room").format(code=s.room)
        y = self._text(p, theme, room, y, margin, inner, u / (9 if not revealing else 12), bold=True, fit=True)
        y = self._text(p, theme, self.phones_text(), y, margin, inner, u / 24, muted=True)
        y += margin / 2
        p.setPen(QColor(theme.panel_border))
        p.drawLine(int(margin), int(y), int(w - margin), int(y))
        y += margin / 2
        if revealing:
            self._reveal(p, theme, y, margin, inner, h - margin)
        elif s.offer is not None:
            y = self._text(p, theme, self.count_text(), y, margin, inner, u / 9, bold=True, accent=True, fit=True)
            self._choices(p, theme, s.offer, y + margin / 2, margin, inner, u / 20, h - margin / 2)
        else:
            self._text(p, theme, self.word("waiting"), y, margin, inner, u / 20, muted=True)
        p.end()

    def _choices(
        self, p: QPainter, theme: Theme, offer: RoundOffer, y: float, x: float, width: float, px: float, bottom: float
    ) -> None:
        """The round's question and its four choices, numbered as the phones number them. Where
        both do not fit above ``bottom`` (a short panel over the Queue), the choices go first:
        every phone shows the question."""
        line = max(px, self._font(theme, px, True).pixelSize()) * 1.3
        question = self._font(theme, px * 0.8)
        p.setFont(question)
        flags = Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap
        asked = p.boundingRect(QRectF(x, y, width, 10_000), flags, offer.question).height() + px * 0.3
        if y + asked + line * len(offer.choices) <= bottom:
            y = self._text(p, theme, offer.question, y, x, width, px * 0.8, muted=True) + px * 0.3
        for i, choice in enumerate(offer.choices):
            y = self._line(p, theme, f"{i + 1}   {choice}", y, x + width * 0.1, width * 0.9, px, True)

    def _font(self, theme: Theme, px: float, bold: bool = False) -> QFont:
        font = QFont(theme.font_family)
        font.setPixelSize(max(theme.min_px, round(px)))
        font.setBold(bold)
        return font

    def _text(
        self,
        p: QPainter,
        theme: Theme,
        text: str,
        y: float,
        x: float,
        width: float,
        px: float,
        *,
        bold: bool = False,
        muted: bool = False,
        accent: bool = False,
        fit: bool = False,
    ) -> float:
        """Draw ``text`` from ``y`` (wrapped, or with ``fit`` shrunk to one line); the y below it."""
        font = self._font(theme, px, bold)
        if fit:
            while font.pixelSize() > theme.min_px and QFontMetricsF(font).horizontalAdvance(text) > width:
                font.setPixelSize(font.pixelSize() - 1)
        p.setFont(font)
        p.setPen(QColor(theme.accent if accent else theme.muted if muted else theme.foreground))
        flags = Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap
        box = p.boundingRect(QRectF(x, y, width, 10_000), flags, text)
        p.drawText(QRectF(x, y, width, box.height()), flags, text)
        return y + box.height()

    def _qr(self, p: QPainter, size: float, x: float, y: float, width: float) -> float:
        """The code, centred, as large as ``size`` allows with whole-pixel modules; its bottom."""
        n = len(self._matrix)
        if n == 0:
            return y
        module = max(1, int(size // (n + 2 * QUIET)))
        side = module * (n + 2 * QUIET)
        left = int(x + (width - side) / 2)
        top = int(y)
        p.fillRect(left, top, side, side, QColor("#ffffff"))  # light, whatever the theme
        dark = QColor("#000000")
        for r, row in enumerate(self._matrix):
            for c, on in enumerate(row):
                if on:
                    p.fillRect(left + (c + QUIET) * module, top + (r + QUIET) * module, module, module, dark)
        return float(top + side)

    def _reveal(self, p: QPainter, theme: Theme, y: float, x: float, width: float, bottom: float) -> None:
        rows = self.rows()
        score = self.score_text()
        # the title, each row (its name, two bars) and two lines of score fit in the height left
        line = max(float(theme.min_px), min(width / 18, (bottom - y) / (len(rows) * 3.5 + 4.5)))
        y = self._text(p, theme, self.word("reveal_title"), y, x, width, line, bold=True)
        bars = [
            (self.word("model_bar").format(pct=percent(prob)), self.word("class_bar").format(pct=percent(share), n=n))
            for _label, prob, share, n, _marks in rows
        ]
        font = self._font(theme, line * 0.85)
        figures = max((QFontMetricsF(font).horizontalAdvance(t) for pair in bars for t in pair), default=0.0)
        track = max(10.0, width - figures - line * 0.5)  # one track length: the bars compare
        for i, ((label, prob, share, _n, marks), (model, klass)) in enumerate(zip(rows, bars, strict=True)):
            y = self._line(p, theme, " · ".join([f"{i + 1}  {label}", *marks]), y, x, width, line, bold=bool(marks))
            y = self._bar(p, theme, y, x, track, line, prob, theme.bar, model)
            y = self._bar(p, theme, y, x, track, line, share, theme.accent, klass) + line * 0.4
        self._text(p, theme, score, y + line * 0.2, x, width, line * 1.1, bold=True)

    def _line(
        self, p: QPainter, theme: Theme, text: str, y: float, x: float, width: float, px: float, bold: bool
    ) -> float:
        """One left-aligned line, shrunk to fit ``width``."""
        font = self._font(theme, px, bold)
        while font.pixelSize() > theme.min_px and QFontMetricsF(font).horizontalAdvance(text) > width:
            font.setPixelSize(font.pixelSize() - 1)
        p.setFont(font)
        p.setPen(QColor(theme.foreground))
        height = max(px, font.pixelSize()) * 1.3  # (the theme's smallest type can exceed px on a small screen)
        p.drawText(QRectF(x, y, width, height), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
        return y + height

    def _bar(
        self,
        p: QPainter,
        theme: Theme,
        y: float,
        x: float,
        track: float,
        line: float,
        value: float,
        colour: str,
        label: str,
    ) -> float:
        """One bar with its figure written after it (the figure says it, not the colour alone)."""
        p.setFont(self._font(theme, line * 0.85))
        height = line * 0.8
        p.setPen(QColor(theme.panel_border))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(x, y, track, height))
        p.fillRect(QRectF(x, y, max(0.0, min(1.0, value)) * track, height), QColor(colour))
        p.setPen(QColor(theme.foreground))
        p.drawText(
            QRectF(x + track + line * 0.3, y - line * 0.15, 10_000, line * 1.1), Qt.AlignmentFlag.AlignLeft, label
        )
        return y + line

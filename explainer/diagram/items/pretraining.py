"""Training, drawn once at the side: text data -> training tunes parameters -> a fixed model.

It is the part that happens once, long before any request; the model it produces is
drawn frozen (a lock, "fixed") because inference only reads its parameters.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath
from PySide6.QtWidgets import QGraphicsPathItem

from explainer.diagram.items.base import Arrow, Box, Panel, Para, Text, elide, line_height, pen, tag, theme_font, wrap
from explainer.diagram.theme import Theme
from explainer.frames.pretraining import PretrainingValue
from explainer.illustration.formatting import short_count

SOURCES = ("books", "web", "code")  # the kinds of text data drawn (their labels: captions.json panels)


class PretrainingItem(Panel):
    def __init__(self, key: str = "pretraining") -> None:
        super().__init__(key)
        self.data_title = Text(f"{key}/data/title", self)
        self.docs = [Box(f"{key}/data/{s}/doc", self) for s in SOURCES]
        self.doc_lines = [QGraphicsPathItem(self) for _ in SOURCES]
        for s, item in zip(SOURCES, self.doc_lines):
            tag(item, f"{key}/data/{s}/lines")
        self.doc_labels = [Text(f"{key}/data/{s}/label", self) for s in SOURCES]
        self.arrow1 = Arrow(f"{key}/arrow1", self)
        self.train_box = Box(f"{key}/training/box", self)
        self.train_text = Para(f"{key}/training/text", self)
        self.knobs = QGraphicsPathItem(self)
        tag(self.knobs, f"{key}/training/knobs")
        self.arrow2 = Arrow(f"{key}/arrow2", self)
        self.model_box = Box(f"{key}/model/box", self)
        self.model_name = Text(f"{key}/model/name", self)
        self.params = Text(f"{key}/model/params", self)
        self.params_word = Text(f"{key}/model/params_word", self)
        self.lock = QGraphicsPathItem(self)
        tag(self.lock, f"{key}/model/lock")
        self.fixed = Text(f"{key}/model/fixed", self)
        self.once_head = Para(f"{key}/once/head", self)
        self.once_text = Para(f"{key}/once/text", self)
        self.every_head = Para(f"{key}/every/head", self)
        self.every_text = Para(f"{key}/every/text", self)
        self.out_arrow = Arrow(f"{key}/to_loop", self)

    def draw(self, value: PretrainingValue, theme: Theme) -> None:
        top = self.style_frame(theme, value.title)
        # the arrows between the three steps are 30 units long; where a large Text size makes
        # the boxes and the notes under them taller than the panel, shorter, and whatever note
        # still does not fit is cut short (the caption says the same at the pretraining stage)
        for arrow in (30.0, 14.0):
            end = self._draw_steps(value, theme, top, arrow)
            if end <= self.h - 8:
                break
        floor = self.h - 8
        for para in (self.once_head, self.once_text, self.every_head, self.every_text):
            if para.pos().y() + para.height() <= floor:
                continue
            # as many of its lines as fit, the last one cut short; none: it is left out
            f = para.font()
            lines = int((floor - para.pos().y()) // line_height(f))
            if lines >= 1:
                para.setPlainText(wrap(para.toPlainText(), f, self.w - 28, lines))
            para.setVisible(lines >= 1 and para.pos().y() + para.height() <= floor)

    def _draw_steps(self, value: PretrainingValue, theme: Theme, top: float, arrow: float) -> float:
        """Draw data -> training -> model and the notes under them; returns where they end."""
        lw = theme.line_width
        cx = self.w / 2
        y = self._data(value, theme, top + 2)
        self.arrow1.set_arrow([QPointF(cx, y), QPointF(cx, y + arrow)], theme.foreground, lw, 11)
        y = self._training(value, theme, y + arrow + 6)
        self.arrow2.set_arrow([QPointF(cx, y), QPointF(cx, y + arrow)], theme.foreground, lw, 11)
        y = self._model(value, theme, y + arrow + 6)
        return self._notes(value, theme, y)

    def _data(self, value: PretrainingValue, theme: Theme, y: float) -> float:
        """The training data: a page per kind of source, each with its label."""
        w, lw, inner = value.words, theme.line_width, self.w - 28
        df = theme_font(theme, 0.95, True)
        self.data_title.show_text(elide(w("pretraining_data"), df, inner), df, theme.foreground).place(14, y)
        y += self.data_title.boundingRect().height() + 8
        doc_w, doc_h = 48.0, 58.0
        gap = (inner - 3 * doc_w) / 2
        lf = theme_font(theme, 0.85)
        for i, s in enumerate(SOURCES):
            x = 14 + i * (doc_w + gap)
            self.docs[i].set_rect(QRectF(x, y, doc_w, doc_h), 5).style(theme.panel, theme.foreground, lw * 0.75)
            path = QPainterPath()
            for k in range(5):
                ly = y + 12 + k * 9
                path.moveTo(x + 9, ly)
                path.lineTo(x + doc_w - 9 - (12 if k == 4 else 0), ly)
            self.doc_lines[i].setPath(path)
            self.doc_lines[i].setPen(pen(theme.muted, max(1.5, lw * 0.6)))
            # a label is centred under its page, as wide as its page and the gap beside it, and
            # kept inside the panel (at 200 % text "books" is wider than the room left of its centre)
            label = self.doc_labels[i]
            label.show_text(elide(w(f"pretraining_{s}"), lf, doc_w + gap - 6), lf, theme.foreground)
            half = label.boundingRect().width() / 2
            label.place(min(max(x + doc_w / 2, 8 + half), self.w - 8 - half), y + doc_h + 4, "tc")
        y += doc_h + 4 + theme.px(0.85) + 8
        return y

    def _training(self, value: PretrainingValue, theme: Theme, y: float) -> float:
        """Training: knobs being turned, the words under them (the box grows with them)."""
        w, lw, inner = value.words, theme.line_width, self.w - 28
        self.train_text.show_para(
            w("pretraining_training"),
            theme_font(theme, 0.9),
            theme.foreground,
            inner - 12,
            Qt.AlignmentFlag.AlignHCenter,
        )
        tb_h = max(104.0, 50 + self.train_text.height() + 6)
        self.train_box.set_rect(QRectF(14, y, inner, tb_h), 8).style(theme.panel, theme.foreground, lw * 0.75)
        knobs = QPainterPath()
        for k in range(5):
            kx = 30 + k * (inner - 32) / 4
            knobs.moveTo(kx, y + 12)
            knobs.lineTo(kx, y + 42)
            ky = y + 14 + ((k * 7) % 5) * 6
            knobs.addRect(QRectF(kx - 6, ky, 12, 6))
        self.knobs.setPath(knobs)
        self.knobs.setPen(pen(theme.foreground, max(1.5, lw * 0.6)))
        self.knobs.setBrush(QBrush(QColor(theme.frozen)))
        self.train_text.setPos(20, y + 50)
        y += tb_h + 6
        return y

    def _model(self, value: PretrainingValue, theme: Theme, y: float) -> float:
        """The trained model, frozen: its name, the parameter count, the word, the lock and
        "fixed", one under the other (the box grows with them); an arrow out to the request loop."""
        model_name, n_params, w = value.model_name, value.n_params, value.words
        lw, inner, cx = theme.line_width, self.w - 28, self.w / 2
        nf = theme_font(theme, 0.78)
        self.model_name.show_text(elide(model_name or w("pretraining_model"), nf, inner - 16), nf, theme.muted)
        self.model_name.place(cx, y + 8, "tc")
        pf_big = theme_font(theme, 2.0, True)
        count = short_count(n_params) if n_params else "…"
        self.params.show_text(elide(count, pf_big, inner - 8), pf_big, theme.foreground if n_params else theme.muted)
        params_y = y + max(30.0, 8 + self.model_name.boundingRect().height())
        self.params.place(cx, params_y, "tc")
        wf = theme_font(theme, 1.0)
        self.params_word.show_text(elide(w("pretraining_parameters"), wf, inner - 8), wf, theme.foreground)
        word_bottom = params_y + self.params.boundingRect().height()
        self.params_word.place(cx, word_bottom, "tc")
        word_bottom += self.params_word.boundingRect().height()
        ff = theme_font(theme, 1.0, True)
        fixed_h = line_height(ff)
        ly = max(y + 150.0 - 40, word_bottom + max(0.0, fixed_h / 2 - 22) + 2)
        mb_h = max(150.0, ly - y + 22 + fixed_h / 2 + 6)
        self.model_box.set_rect(QRectF(14, y, inner, mb_h), 10).style(theme.panel, theme.frozen, lw * 1.5)
        lock = QPainterPath()
        lx = cx - 46
        lock.addRoundedRect(QRectF(lx, ly + 12, 26, 20), 3, 3)
        lock.moveTo(lx + 6, ly + 12)
        lock.lineTo(lx + 6, ly + 6)
        lock.arcTo(QRectF(lx + 6, ly, 14, 12), 180, -180)
        lock.lineTo(lx + 20, ly + 12)
        self.lock.setPath(lock)
        self.lock.setPen(pen(theme.frozen, max(2.0, lw)))
        self.lock.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        self.fixed.show_text(elide(w("pretraining_fixed"), ff, 14 + inner - 6 - (lx + 34)), ff, theme.frozen).place(
            lx + 34, ly + 22, "ml"
        )
        y += mb_h + 8
        # arrow out to the request loop
        self.out_arrow.set_arrow(
            [QPointF(self.w - 40, y - mb_h / 2 - 8), QPointF(self.w + 20, y - mb_h / 2 - 8)],
            theme.frozen,
            lw,
            11,
            dash=True,
        )
        y += 8
        return y

    def _notes(self, value: PretrainingValue, theme: Theme, y: float) -> float:
        """What is done once (training) and what is done for every request; returns their end."""
        w, inner = value.words, self.w - 28
        hf = theme_font(theme, 0.9, True)
        pf = theme_font(theme, 0.85)
        self.once_head.show_para(w("pretraining_once_head"), hf, theme.foreground, inner)
        self.once_head.setPos(14, y)
        y += self.once_head.height() + 2
        self.once_text.show_para(w("pretraining_once_text"), pf, theme.muted, inner)
        self.once_text.setPos(14, y)
        y += self.once_text.height() + 10
        self.every_head.show_para(w("pretraining_every_head"), hf, theme.accent, inner)
        self.every_head.setPos(14, y)
        y += self.every_head.height() + 2
        self.every_text.show_para(w("pretraining_every_text"), pf, theme.muted, inner)
        self.every_text.setPos(14, y)
        return y + self.every_text.height()

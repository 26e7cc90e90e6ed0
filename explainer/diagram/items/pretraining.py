"""Training, drawn once at the side: text data -> training tunes parameters -> a fixed model.

It is the part that happens once, long before any request; the model it produces is
drawn frozen (a lock, "fixed") because inference only reads its parameters.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath
from PySide6.QtWidgets import QGraphicsPathItem

from explainer.diagram.items.base import Arrow, Box, Panel, Para, Text, elide, pen, tag, theme_font
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
        model_name, n_params, w = value.model_name, value.n_params, value.words
        top = self.style_frame(theme, value.title)
        lw = theme.line_width
        inner = self.w - 28
        y = top + 2
        self.data_title.show_text(w("pretraining_data"), theme_font(theme, 0.95, True), theme.foreground).place(14, y)
        y += self.data_title.boundingRect().height() + 8
        doc_w, doc_h = 48.0, 58.0
        gap = (inner - 3 * doc_w) / 2
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
            self.doc_labels[i].show_text(w(f"pretraining_{s}"), theme_font(theme, 0.85), theme.foreground).place(
                x + doc_w / 2, y + doc_h + 4, "tc"
            )
        y += doc_h + 4 + theme.px(0.85) + 8
        cx = self.w / 2
        self.arrow1.set_arrow([QPointF(cx, y), QPointF(cx, y + 30)], theme.foreground, lw, 11)
        y += 36
        # training: knobs being turned
        tb_h = 104.0
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
        self.train_text.show_para(
            w("pretraining_training"),
            theme_font(theme, 0.9),
            theme.foreground,
            inner - 12,
            Qt.AlignmentFlag.AlignHCenter,
        )
        self.train_text.setPos(20, y + 50)
        y += tb_h + 6
        self.arrow2.set_arrow([QPointF(cx, y), QPointF(cx, y + 30)], theme.foreground, lw, 11)
        y += 36
        # the trained model, frozen
        mb_h = 150.0
        self.model_box.set_rect(QRectF(14, y, inner, mb_h), 10).style(theme.panel, theme.frozen, lw * 1.5)
        nf = theme_font(theme, 0.78)
        self.model_name.show_text(elide(model_name or w("pretraining_model"), nf, inner - 16), nf, theme.muted)
        self.model_name.place(cx, y + 8, "tc")
        self.params.show_text(
            short_count(n_params) if n_params else "…",
            theme_font(theme, 2.0, True),
            theme.foreground if n_params else theme.muted,
        ).place(cx, y + 30, "tc")
        self.params_word.show_text(w("pretraining_parameters"), theme_font(theme, 1.0), theme.foreground)
        self.params_word.place(cx, y + 30 + self.params.boundingRect().height(), "tc")
        ly = y + mb_h - 40
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
        self.fixed.show_text(w("pretraining_fixed"), theme_font(theme, 1.0, True), theme.frozen).place(
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

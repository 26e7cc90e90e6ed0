"""The run as a slide deck (.pptx): one slide per stage, the caption as the speaker's notes.

An instructor who teaches from slides gets the stages as pictures that fill a 16:9 slide, on
the theme's background, each picture described in words for a screen reader (its alternative
text), and what to say in the notes: the caption's heading and text, the same words the app
shows. python-pptx writes the file (the optional ``slides`` extra); LibreOffice Impress,
PowerPoint and Keynote open it.
"""

from __future__ import annotations

import io
from typing import BinaryIO

from explainer.export.shots import Shot

WIDTH_IN, HEIGHT_IN = 13.333, 7.5  # 16:9, PowerPoint's default
DECK_SCALE = 1.2  # the canvas at 1920 px wide: sharp on a projector, light in the file


class DeckWriter:
    def __init__(self, out: BinaryIO, background: str) -> None:
        from pptx import Presentation
        from pptx.util import Inches

        self.out = out
        self.deck = Presentation()
        self.deck.slide_width, self.deck.slide_height = Inches(WIDTH_IN), Inches(HEIGHT_IN)
        self.background = background

    def add(self, shot: Shot) -> None:
        from pptx.dml.color import RGBColor

        slide = self.deck.slides.add_slide(self.deck.slide_layouts[6])  # blank
        fill = slide.background.fill
        fill.solid()
        fill.fore_color.rgb = RGBColor(*bytes.fromhex(self.background.lstrip("#")[:6]))  # type: ignore[no-untyped-call]
        png = io.BytesIO()
        shot.image.save(png, "PNG", compress_level=6)
        png.seek(0)
        w, h = shot.image.size
        sw, sh = int(self.deck.slide_width or 0), int(self.deck.slide_height or 0)
        k = min(sw / w, sh / h)
        pw, ph = int(w * k), int(h * k)
        picture = slide.shapes.add_picture(png, (sw - pw) // 2, (sh - ph) // 2, pw, ph)
        picture.name = f"step {shot.cursor.step}: {shot.cursor.stage.value}"
        picture._element.nvPicPr.cNvPr.set("descr", shot.words)
        heading, text = shot.caption
        slide.notes_slide.notes_text_frame.text = f"{heading}\n{text}" if heading else text

    def close(self) -> None:
        self.deck.save(self.out)


def background_of(theme: str) -> str:
    """The theme's canvas colour, as #rrggbb."""
    from explainer.diagram.theme import THEMES

    return THEMES[theme].background

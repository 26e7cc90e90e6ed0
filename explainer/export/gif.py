"""A GIF written one picture at a time, so a long run never sits in memory.

Pillow's own ``save_all`` gathers every frame before it writes the first (to compare them), which
for a 64-token run held gigabytes. Here each picture gets its own 256-colour palette (a diagram
has few colours; no dithering, which only grows the file) and goes to the file at once, with
its duration: a picture held for several stages is stored once.
"""

from __future__ import annotations

from typing import Any, BinaryIO

MAX_CS = 65535  # a GIF frame lasts at most 655.35 s (16 bits of 1/100 s)


class GifWriter:
    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.started = False

    def add(self, image: Any, seconds: float) -> None:
        """Append ``image`` (Pillow RGB) shown for ``seconds``."""
        from PIL import GifImagePlugin, Image

        frame = image.quantize(256, Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        if not self.started:
            header, _ = GifImagePlugin.getheader(frame, None, {"loop": 0})
            self.out.writelines(header)
            self.started = True
        left = max(2, round(seconds * 100))
        while left > 0:  # a hold longer than a GIF frame can say: the picture again
            cs = min(left, MAX_CS)
            self.out.writelines(GifImagePlugin.getdata(frame, duration=cs * 10, include_color_table=True))
            left -= cs

    def close(self) -> None:
        self.out.write(b";")

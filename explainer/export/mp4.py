"""An MP4 that slide tools play: H.264, yuv420p, its index first ("fast start").

PowerPoint, Keynote, Google Slides and LibreOffice all play H.264 in 4:2:0; the index (moov)
written before the pictures lets a player, or a web page, start before the whole file has
arrived. The muxer moves the index by reopening its file by name, so it writes to a path (the
atomic save's temporary file), never to a stream.

The video has a variable frame rate: a stage is one picture with its time, not the same picture
repeated ``fps`` times a second, so encoding costs one picture per stage, not per frame. Times
fall on the grid of ``fps``; the last picture is stored twice, at its start and just before the
end, so players show it for its whole time.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction
from pathlib import Path
from typing import Any

GOP = 12  # a keyframe every 12 pictures: a player seeks to any stage quickly


class Mp4Writer:
    def __init__(self, path: Path, fps: float) -> None:
        import av

        self.av: Any = av
        self.rate = Fraction(fps).limit_denominator(1001)
        self.container = av.open(str(path), mode="w", format="mp4", options={"movflags": "+faststart"})
        self.stream: Any = None
        self.ticks = 0  # where the next picture starts, in 1/fps
        self.last: Any = None
        self.last_pts = -1

    def _encode(self, image: Any, pts: int) -> None:
        frame = self.av.VideoFrame.from_image(image)
        frame.pts = pts
        frame.time_base = 1 / self.rate
        for packet in self.stream.encode(frame):
            self.container.mux(packet)
        self.last_pts = pts

    def add(self, image: Any, seconds: float) -> None:
        """Append ``image`` (Pillow RGB, even sides, the size of the first) shown for ``seconds``."""
        if self.stream is None:
            stream = self.container.add_stream("libx264", rate=self.rate)
            stream.width, stream.height = image.size
            stream.pix_fmt = "yuv420p"
            stream.time_base = 1 / self.rate
            stream.codec_context.gop_size = GOP
            stream.options = {"crf": "23", "preset": "veryfast", "tune": "stillimage"}
            self.stream = stream
        self._encode(image, self.ticks)
        self.ticks += max(1, round(seconds * self.rate))
        self.last = image

    def close(self) -> None:
        if self.stream is not None:
            if self.ticks - 1 > self.last_pts:
                self._encode(self.last, self.ticks - 1)
            for packet in self.stream.encode():
                self.container.mux(packet)
        self.container.close()

    def abort(self) -> None:
        """Close the file after a failure: its error is the one to report, and the file, a
        temporary one, is removed anyway; a muxer interrupted half-way may fail to close."""
        with contextlib.suppress(Exception):
            self.container.close()

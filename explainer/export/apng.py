"""An animated PNG written one picture at a time (Pillow's ``save_all`` holds every frame).

Each picture is compressed by Pillow as an ordinary PNG; its image data is then stored as the
animation's next frame (IDAT for the first, fdAT after it), with its duration in a frame
control chunk. The frame count sits near the start of the file, so it is written as 0 and set
when the file is closed.
"""

from __future__ import annotations

import io
import struct
import zlib
from typing import Any, BinaryIO

SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_MS = 65535  # a frame's delay is two 16-bit numbers: ms / 1000


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    pos, found = len(SIGNATURE), []
    while pos < len(png):
        (size,) = struct.unpack(">I", png[pos : pos + 4])
        found.append((png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + size]))
        pos += 12 + size
    return found


class ApngWriter:
    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.frames = 0
        self.sequence = 0
        self.actl_at = -1
        self.size: tuple[int, int] | None = None

    def add(self, image: Any, seconds: float) -> None:
        """Append ``image`` (Pillow RGB, the size of the first) shown for ``seconds``."""
        buf = io.BytesIO()
        image.save(buf, "PNG", compress_level=6)
        chunks = _chunks(buf.getvalue())
        if self.size is None:
            self.size = image.size
            self.out.write(SIGNATURE)
            self.out.write(_chunk(b"IHDR", dict(chunks)[b"IHDR"]))
            self.actl_at = self.out.tell()
            self.out.write(_chunk(b"acTL", struct.pack(">II", 0, 0)))  # 0 loops: forever
        data = [body for kind, body in chunks if kind == b"IDAT"]
        left = max(1, round(seconds * 1000))
        while left > 0:  # a hold longer than one frame can say: the picture again
            ms = min(left, MAX_MS)
            w, h = image.size
            control = struct.pack(">IIIIIHHBB", self.sequence, w, h, 0, 0, ms, 1000, 0, 0)
            self.out.write(_chunk(b"fcTL", control))
            self.sequence += 1
            for body in data:
                if self.frames == 0:
                    self.out.write(_chunk(b"IDAT", body))
                else:
                    self.out.write(_chunk(b"fdAT", struct.pack(">I", self.sequence) + body))
                    self.sequence += 1
            self.frames += 1
            left -= ms

    def close(self) -> None:
        self.out.write(_chunk(b"IEND", b""))
        end = self.out.tell()
        self.out.seek(self.actl_at)
        self.out.write(_chunk(b"acTL", struct.pack(">II", self.frames, 0)))
        self.out.seek(end)

"""The figure's font, carried inside the SVG (and the web page, export/web.py): a subset of DejaVu
Sans as an @font-face.

The illustration is laid out for DejaVu Sans's widths; on a machine without it a browser picks
another font, so gaps open between the pieces of a caption, underlines run past their words and
the ␣ marker is an empty box. The SVG therefore carries the glyphs it uses: one subset per face
(regular, bold, oblique), only the characters drawn in it, as WOFF (zlib, which every browser
reads and which needs no compressor beyond fontTools) in base64 inside a ``<style>``.

The family gets a name of its own per figure (``<id prefix>-sans``): the CSS of SVGs inlined in
one web page is shared, so two figures naming the same family would read each other's subset.

DejaVu's licence (Bitstream Vera's, with DejaVu's own changes in the public domain) lets the
fonts be copied, embedded, redistributed and modified (a subset is a modification) provided the
copyright and licence notice travel with every copy (we keep the font's name records 0, 13 and
14: the notice, the licence text and its address), a modified font is not named "Bitstream" or
"Vera", and no copy is sold on its own. (Renderers that do not read @font-face, such as
librsvg, use the font list that follows it; ``--text-as-paths`` is for those.)
"""

from __future__ import annotations

import base64
import io
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

# (weight >= 600, italic) -> DejaVu Sans's file name for that face
FACES = {
    (False, False): "DejaVuSans.ttf",
    (True, False): "DejaVuSans-Bold.ttf",
    (False, True): "DejaVuSans-Oblique.ttf",
    (True, True): "DejaVuSans-BoldOblique.ttf",
}
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts", "/Library/Fonts")


@lru_cache(maxsize=8)
def face_file(bold: bool, italic: bool) -> Path | None:
    """DejaVu Sans's file for the face: fontconfig's answer, else a search of the usual folders."""
    name = FACES[(bold, italic)]
    if shutil.which("fc-match"):
        style = {(False, False): "Book", (True, False): "Bold", (False, True): "Oblique", (True, True): "Bold Oblique"}
        try:
            found = subprocess.run(
                ["fc-match", "--format=%{file}", f"DejaVu Sans:style={style[(bold, italic)]}"],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            found = ""
        if found and Path(found).name == name:
            return Path(found)
    for folder in FONT_DIRS:
        root = Path(os.path.expanduser(folder))
        if root.is_dir():
            for path in sorted(root.rglob(name)):
                return path
    return None


def subset_woff(path: Path, text: str) -> bytes | None:
    """A WOFF of ``path`` with only the glyphs of ``text`` that the font has; None if it has none.
    The same text gives the same bytes (no timestamps)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(path), recalcTimestamp=False)
    cmap = font.getBestCmap() or {}
    chars = sorted({c for c in text if ord(c) in cmap and not c.isspace()} | {" "})
    options = subset.Options()
    options.flavor = "woff"
    options.layout_features = ["kern", "liga"]
    options.name_IDs = [0, 1, 2, 7, 13, 14]  # copyright, family, style, trademark, licence and its URL
    options.name_legacy = True
    options.notdef_outline = True
    options.drop_tables += ["FFTM"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(text="".join(chars))
    subsetter.subset(font)
    buf = io.BytesIO()
    font.flavor = "woff"
    font.save(buf)
    return buf.getvalue()


def font_face_css(family: str, used: dict[tuple[bool, bool], str]) -> str:
    """@font-face rules for the faces used (face -> the characters drawn in it)."""
    rules = []
    for (bold, italic), text in sorted(used.items()):
        path = face_file(bold, italic) or (face_file(bold, False) if italic else None)
        if path is None:
            continue
        data = subset_woff(path, text)
        if data is None:
            continue
        rules.append(
            f"@font-face{{font-family:'{family}';font-weight:{700 if bold else 400};"
            f"font-style:{'italic' if italic else 'normal'};"
            f"src:url(data:font/woff;base64,{base64.b64encode(data).decode('ascii')}) format('woff')}}"
        )
    return "\n".join(rules)

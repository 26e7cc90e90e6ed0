"""The web page's font: the subset of DejaVu Sans its drawings and texts use, inside the page.

The panel drawings place every piece of text for DejaVu Sans's widths (the app's font). A reader
whose machine lacks it would see gaps, overlaps and empty boxes for marks such as ␣, so the page
carries the glyphs it writes: one WOFF per face (regular, bold), only the characters used, in
base64 in an @font-face. WOFF is zlib inside, which fontTools writes without a compressor of its
own and every browser reads; CSP allows it as a data: font.

DejaVu's licence (Bitstream Vera's; DejaVu's changes are public domain) lets the fonts be
embedded and modified (a subset is a modification) provided the copyright and licence notice
travel with the copy: the subset keeps the font's name records for them (0, 13, 14). Characters
DejaVu lacks (CJK, emoji) fall back to the reader's fonts, as they do in the app.
"""

from __future__ import annotations

import base64
import io
import os
import shutil
import subprocess
from collections.abc import Mapping, Set
from functools import lru_cache
from pathlib import Path

FAMILY = "explainer DejaVu Sans"  # the page's own name: it never picks up another installed copy
FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}  # bold? -> the face's file
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts", "/Library/Fonts")


@lru_cache(maxsize=4)
def face_file(bold: bool) -> Path | None:
    """DejaVu Sans's file for the face: what fontconfig names, else a search of the usual folders."""
    name = FILES[bold]
    if shutil.which("fc-match"):
        try:
            found = subprocess.run(
                ["fc-match", "--format=%{file}", f"DejaVu Sans:style={'Bold' if bold else 'Book'}"],
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


def subset_woff(path: Path, chars: Set[str]) -> bytes:
    """A WOFF of ``path`` holding the glyphs of ``chars`` (and kerning); the same characters give
    the same bytes (no timestamps)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(path), recalcTimestamp=False)
    options = subset.Options()
    options.flavor = "woff"
    options.layout_features = ["kern", "liga"]
    options.name_IDs = [0, 1, 2, 7, 13, 14]  # copyright, family, style, trademark, licence and its address
    options.name_legacy = True
    options.notdef_outline = True
    options.drop_tables += ["FFTM"]  # FontForge's timestamps: nothing a browser reads
    subsetter = subset.Subsetter(options)
    subsetter.populate(text="".join(sorted(set(chars) | {" "})))
    subsetter.subset(font)
    buf = io.BytesIO()
    font.save(buf)
    return buf.getvalue()


def font_css(chars: Mapping[bool, Set[str]]) -> str:
    """@font-face rules for the faces (bold? -> the characters written in it) whose file is found;
    without one, the page names DejaVu Sans and the reader's fallbacks instead."""
    rules = []
    for bold, used in sorted(chars.items()):
        path = face_file(bold)
        if path is None or not used:
            continue
        data = base64.b64encode(subset_woff(path, used)).decode("ascii")
        rules.append(
            f"@font-face{{font-family:'{FAMILY}';font-weight:{700 if bold else 400};font-style:normal;"
            f"src:url(data:font/woff;base64,{data}) format('woff')}}"
        )
    return "\n".join(rules)

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

What DejaVu Sans lacks (Chinese and Japanese, Devanagari and the other Indic scripts, emoji)
Qt draws from whichever installed font has it; a reader's browser would look among its own
fonts, and a machine without one shows empty boxes. So each such character comes from an
installed font too, from fontconfig's list in its order of preference for DejaVu Sans (the
order Qt takes its fallbacks in): the font with the most of those characters, a sans face
before a serif or monospaced one (:func:`fallback_fonts`), and only a font whose licence lets
it travel in a page (:data:`PERMITTED_LICENCES`, read from the font's own licence records,
which the subset keeps, and never one that forbids embedding or subsetting). Each is a subset
of exactly those characters, an @font-face of the same family with a ``unicode-range``, so
nothing else in the page or the SVG changes and the browser takes those characters, and only
those, from it.
"""

from __future__ import annotations

import base64
import io
import os
import shutil
import subprocess
from bisect import bisect_right
from dataclasses import dataclass
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


def subset_woff(path: Path, text: str, index: int = 0, extra: str = "") -> bytes:
    """A WOFF of ``path`` (font ``index`` of a collection) with only the glyphs of ``text`` that
    the font has, and those of ``extra`` it has (characters a shaper may add, never drawn by
    themselves), and its space. The same text gives the same bytes (no timestamps). The layout
    features a browser applies stay (kerning and ligatures, and Arabic's joined forms and
    Devanagari's conjuncts, which only shaping reaches); the optional ones go."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    # (lazy: only the tables and glyphs the subset reaches are read, not all of a CJK font; the same bytes)
    with TTFont(str(path), fontNumber=index, recalcTimestamp=False, lazy=True) as font:
        cmap = font.getBestCmap() or {}
        chars = {c for c in text + extra if ord(c) in cmap and not c.isspace()} | {" "}
        options = subset.Options()
        options.flavor = "woff"
        # (fontTools' default features: those a browser applies unasked, the shaping of every script)
        options.name_IDs = [0, 1, 2, 7, 13, 14]  # copyright, family, style, trademark, licence and its URL
        options.name_legacy = True
        options.notdef_outline = True
        options.drop_tables += ["FFTM"]
        subsetter = subset.Subsetter(options)
        subsetter.populate(text="".join(sorted(chars)))
        subsetter.subset(font)
        buf = io.BytesIO()
        font.flavor = "woff"
        font.save(buf)
        return buf.getvalue()


# what a font's licence records must name (in lower case, as they are matched) for it to travel in
# a page: the SIL Open Font License (Noto's, Lohit's), the licence of WenQuanYi's fonts, Bitstream
# Vera's (DejaVu's); each lets a font be embedded and subset when its notice goes with it
PERMITTED_LICENCES = (
    "open font license",
    "scripts.sil.org/ofl",
    "openfontlicense.org",
    "apache license",
    "bitstream vera",
)
_NO_EMBEDDING, _NO_SUBSETTING = 0x0002, 0x0100  # OS/2 fsType: restricted licence embedding; no subsetting
# characters a shaper puts between or after the letters it joins (joiners, variation selectors,
# the dotted circle it writes under a vowel sign that has no letter): each fallback subset keeps
# its own, so a run of its script is shaped in one font
_SHAPER_CHARS = "\u200c\u200d\u25cc" + "".join(chr(c) for c in range(0xFE00, 0xFE10))


@dataclass(frozen=True)
class InstalledFont:
    """One font fontconfig lists: its file (and place in a collection), family and characters."""

    path: Path
    index: int
    family: str
    colour: bool  # its glyphs are pictures (Noto Color Emoji)
    starts: tuple[int, ...]  # the characters it has, as ranges: starts[k]..ends[k]
    ends: tuple[int, ...]

    def has(self, char: str) -> bool:
        k = bisect_right(self.starts, ord(char)) - 1
        return k >= 0 and ord(char) <= self.ends[k]

    @property
    def rank(self) -> int:
        """0 for a sans face, 1 for another (a CJK or emoji font names no style), 2 for a serif,
        monospaced or mathematical one: the page's text is DejaVu Sans."""
        words = self.family.split()
        if any(w in ("Serif", "Mono", "Math") for w in words):
            return 2
        return 0 if "Sans" in words else 1


def _charset(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """fontconfig's %{charset} ("20-7e a0-17f 2c6 ...") as starts and ends."""
    starts, ends = [], []
    for part in text.split():
        first, _, last = part.partition("-")
        starts.append(int(first, 16))
        ends.append(int(last or first, 16))
    return tuple(starts), tuple(ends)


_FORMAT = "%{file}\t%{index}\t%{family[0]}\t%{fontformat}\t%{color}\t%{charset}\n"


@lru_cache(maxsize=4)
def installed_fonts(bold: bool, italic: bool) -> tuple[InstalledFont, ...]:
    """Every scalable font fontconfig knows, in its order of preference for DejaVu Sans in this
    face (``fc-match -a -s``: all of them, untrimmed, so a sans face that a serif one with the same
    characters precedes is still there to be preferred); none without fontconfig."""
    if not shutil.which("fc-match"):
        return ()
    pattern = f"DejaVu Sans:weight={'bold' if bold else 'regular'}:slant={'italic' if italic else 'roman'}"
    try:
        listed = subprocess.run(
            ["fc-match", "-a", "-s", f"--format={_FORMAT}", pattern],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    fonts = []
    for line in listed.splitlines():
        fields = line.split("\t")
        if len(fields) != 6 or fields[3] not in ("TrueType", "CFF") or not fields[1].isdigit():
            continue  # (Type 1 and bitmap fonts: fontTools subsets neither)
        colour = fields[4] == "True"
        fonts.append(InstalledFont(Path(fields[0]), int(fields[1]), fields[2], colour, *_charset(fields[5])))
    return tuple(fonts)


@lru_cache(maxsize=64)
def may_embed(path: Path, index: int = 0) -> bool:
    """Whether the font's licence lets a subset of it travel inside a page or a picture: its
    licence records (name 13 and 14) name a licence of :data:`PERMITTED_LICENCES` and its OS/2
    table allows embedding and subsetting."""
    from fontTools.ttLib import TTFont, TTLibError

    try:
        with TTFont(str(path), fontNumber=index, lazy=True) as font:
            fs_type = font["OS/2"].fsType if "OS/2" in font else 0
            licence = " ".join(font["name"].getDebugName(i) or "" for i in (13, 14)).lower()
    except (OSError, TTLibError, KeyError):
        return False
    if fs_type & 0x000F == _NO_EMBEDDING or fs_type & _NO_SUBSETTING:
        return False
    return any(name in licence for name in PERMITTED_LICENCES)


def fallback_fonts(text: str, bold: bool, italic: bool, primary: Path | None) -> dict[InstalledFont, str]:
    """The characters of ``text`` that ``primary`` (DejaVu Sans's file for the face) lacks, by
    the installed font each is taken from, among those whose licence lets them travel
    (:func:`may_embed`). Fonts are taken one at a time, each time the one that has the most of
    the characters still wanting one (then a sans face before others, then fontconfig's order),
    so a script's punctuation comes from the font of its letters (。 from the font of the Han
    characters beside it, not from a Mongolian font that also has it), as Qt's fallback by
    script takes it; emoji first, from a colour font where one has them, as Qt draws them. A
    character no such font has is left out (a browser draws it as it can)."""
    cmap = _cmap(primary) if primary is not None else frozenset()
    wanted = sorted({c for c in text if ord(c) not in cmap and c.isprintable() and not c.isspace()})
    if not wanted:
        return {}
    fonts = [f for f in installed_fonts(bold, italic) if f.path != primary]
    out: dict[InstalledFont, str] = {}
    emoji = [c for c in wanted if ord(c) >= _EMOJI_PLANE]
    for left, colour_first in ((emoji, True), ([c for c in wanted if ord(c) < _EMOJI_PLANE], False)):
        while left:
            having = [(f, [c for c in left if f.has(c)]) for f in fonts]
            having = [(f, chars) for f, chars in having if chars and may_embed(f.path, f.index)]
            if not having:
                break
            font, chars = min(
                having,
                key=lambda fc: (colour_first and not fc[0].colour, -len(fc[1]), fc[0].rank, fonts.index(fc[0])),
            )
            out[font] = out.get(font, "") + "".join(chars)
            left = [c for c in left if c not in chars]
    return out


_EMOJI_PLANE = 0x1F000  # from here on (mahjong and playing cards, emoji, symbols), a colour font if one has it


@lru_cache(maxsize=8)
def _cmap(path: Path) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    with TTFont(str(path), lazy=True) as font:
        return frozenset((font.getBestCmap() or {}).keys())


def unicode_range(chars: str) -> str:
    """A CSS unicode-range of exactly ``chars``: U+4E2D,U+4E70-4E72,..."""
    codes = sorted({ord(c) for c in chars})
    parts: list[str] = []
    k = 0
    while k < len(codes):
        j = k
        while j + 1 < len(codes) and codes[j + 1] == codes[j] + 1:
            j += 1
        parts.append(f"U+{codes[k]:X}" if j == k else f"U+{codes[k]:X}-{codes[j]:X}")
        k = j + 1
    return ",".join(parts)


def _rule(family: str, bold: bool, italic: bool, data: bytes, chars: str | None = None) -> str:
    where = f"unicode-range:{unicode_range(chars)};" if chars is not None else ""
    return (
        f"@font-face{{font-family:'{family}';font-weight:{700 if bold else 400};"
        f"font-style:{'italic' if italic else 'normal'};{where}"
        f"src:url(data:font/woff;base64,{base64.b64encode(data).decode('ascii')}) format('woff')}}"
    )


def font_face_css(family: str, used: dict[tuple[bool, bool], str]) -> str:
    """@font-face rules for the faces used (face -> the characters drawn in it): DejaVu Sans's
    subset, then one subset per installed font that draws what DejaVu lacks in that face,
    limited to those characters by its unicode-range. Every rule names one weight and style: a
    browser composes a face from the rules with the same descriptors, so a font named for both
    weights at once (``font-weight:400 700``) was a face of its own, which the browser chose
    instead of the others, and the text lost DejaVu's and the other fonts' characters. So a font
    that draws for both weights (one without a bold face: a CJK or an emoji font) is in the page
    twice, each time with only what that weight writes (the bold text is the few headings)."""
    rules = []
    shaping = "".join(c for c in _SHAPER_CHARS if c == "\u25cc" or any(c in text for text in used.values()))
    for (bold, italic), text in sorted(used.items()):
        path = face_file(bold, italic) or (face_file(bold, False) if italic else None)
        if path is None:
            continue
        rules.append(_rule(family, bold, italic, subset_woff(path, text)))
        fallbacks = fallback_fonts(text, bold, italic, path)
        for font in sorted(fallbacks, key=lambda f: (str(f.path), f.index)):
            data = subset_woff(font.path, fallbacks[font], font.index, shaping)
            rules.append(_rule(family, bold, italic, data, fallbacks[font]))
    return "\n".join(rules)

"""Text in every script on the web page: the page carries, beside DejaVu Sans, a subset of an
installed font for each character DejaVu lacks (Chinese, Devanagari, emoji), as faces of the
same family limited by unicode-range, so a reader's machine without such fonts shows the
characters, not empty boxes. Checked from the page's CSS, and in Chromium with every font but
DejaVu hidden from it.
"""

from __future__ import annotations

import base64
import io
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from explainer.export import fonts
from explainer.export.fonts import face_file, font_face_css, may_embed, unicode_range
from tests.conftest import skip_or_fail
from tests.export.test_web_page import page_data

SCRIPTS = "北京是中国的首都。 भारत की राजधानी 🙂🚀"
FACE = re.compile(
    r"@font-face\{font-family:'(?P<family>[^']*)';font-weight:(?P<weight>\d+);font-style:(?P<style>\w+);"
    r"(?:unicode-range:(?P<range>[^;]*);)?src:url\(data:font/woff;base64,(?P<data>[A-Za-z0-9+/=]+)\) format\('woff'\)\}"
)


def fonts_for(query: str) -> bool:
    if shutil.which("fc-list") is None:
        return False
    return bool(
        subprocess.run(["fc-list", query, "family"], capture_output=True, text=True, check=False).stdout.strip()
    )


@pytest.fixture(scope="module")
def script_fonts():
    """Chinese, Devanagari and emoji fonts on this machine (bootstrap installs them)."""
    wanted = {"Chinese": ":lang=zh-cn", "Devanagari": ":lang=hi", "emoji": ":color=true"}
    missing = [name for name, query in wanted.items() if not fonts_for(query)]
    if missing or face_file(False, False) is None:
        skip_or_fail(f"no font for {', '.join(missing) or 'DejaVu Sans'} (packaging/bootstrap.sh installs them)")


def faces(css: str) -> list[tuple[int, set[int] | None, set[int]]]:
    """Each @font-face: its weight, its unicode-range (None: every character) and its cmap."""
    from fontTools.ttLib import TTFont

    out = []
    for m in FACE.finditer(css):
        codes: set[int] | None = None
        if m["range"]:
            codes = set()
            for part in m["range"].split(","):
                first, _, last = part.removeprefix("U+").partition("-")
                codes.update(range(int(first, 16), int(last or first, 16) + 1))
        with TTFont(io.BytesIO(base64.b64decode(m["data"]))) as font:
            out.append((int(m["weight"]), codes, set(font.getBestCmap())))
    return out


def uncovered(css: str, used: dict[int, set[str]]) -> dict[int, str]:
    """The characters of ``used`` (weight -> characters) that no face of that weight draws."""
    found = faces(css)
    out = {}
    for weight, chars in used.items():
        lacking = [
            c
            for c in chars
            if ord(c) > 127
            and c.isprintable()
            and not c.isspace()
            and not any(w == weight and (r is None or ord(c) in r) and ord(c) in cmap for w, r, cmap in found)
        ]
        if lacking:
            out[weight] = "".join(sorted(lacking))
    return out


def test_unicode_range_names_exactly_the_characters():
    assert unicode_range("北京") == "U+4EAC,U+5317"
    assert unicode_range("abcx") == "U+61-63,U+78"
    assert unicode_range("🙂") == "U+1F642"


def _copy_with(tmp_path: Path, name: str, change) -> Path:
    from fontTools.ttLib import TTFont

    source = face_file(False, False)
    if source is None:
        skip_or_fail("DejaVu Sans is not installed")
    with TTFont(str(source)) as font:
        change(font)
        font.save(str(tmp_path / name))
    return tmp_path / name


def test_only_fonts_whose_licence_lets_them_travel_are_embedded(tmp_path):
    source = face_file(False, False)
    if source is None:
        skip_or_fail("DejaVu Sans is not installed")
    assert may_embed(source)  # Bitstream Vera's licence (DejaVu's)

    def restricted(font):
        font["OS/2"].fsType = 0x0002

    def no_subsetting(font):
        font["OS/2"].fsType = 0x0100

    def all_rights_reserved(font):
        for record in font["name"].names:
            if record.nameID in (13, 14):
                record.string = "All rights reserved."

    for change in (restricted, no_subsetting, all_rights_reserved):
        assert not may_embed(_copy_with(tmp_path, f"{change.__name__}.ttf", change)), change.__name__


def test_each_character_dejavu_lacks_comes_from_an_installed_font(script_fonts):
    css = font_face_css("x-sans", {(False, False): "The capital: " + SCRIPTS, (True, False): "北京 भारत"})
    assert uncovered(css, {400: set(SCRIPTS), 700: set("北京भारत")}) == {}
    found = faces(css)
    dejavu = [cmap for w, r, cmap in found if r is None]
    assert len(dejavu) == 2  # the regular and the bold face, for every character
    for weight, codes, cmap in found:
        if codes is not None:  # a fallback: exactly the characters DejaVu lacks that it draws
            assert codes <= cmap and not any(codes & d for d in dejavu), (
                weight,
                unicode_range("".join(map(chr, codes))),
            )
    # the browser composes one face per weight and style: no rule names two weights
    assert all(m["weight"] in ("400", "700") for m in FACE.finditer(css))


def test_the_fonts_are_the_same_bytes_every_time(script_fonts):
    used = {(False, False): SCRIPTS, (True, False): "北京"}
    first = font_face_css("x-sans", used)
    for cached in (fonts.installed_fonts, fonts.may_embed, fonts.face_file):
        cached.cache_clear()
    assert font_face_css("x-sans", used) == first


# --------------------------------------------------------------- a real run's page in a browser


@pytest.fixture(scope="module")
def page(real_engine, script_fonts, tmp_path_factory):
    from explainer.content.assets import load_texts
    from explainer.engine.sampler import SamplingSettings
    from explainer.export.web import export_web
    from explainer.illustration.vocab import vocabulary_of

    run = real_engine.generate(SCRIPTS, SamplingSettings(max_new_tokens=2))
    path = tmp_path_factory.mktemp("web-scripts") / "scripts.html"
    written, _built = export_web(run, path, load_texts(), ("light",), vocabulary=vocabulary_of(real_engine.tokenizer))
    return written


def _drawn(fragment: str, into: dict[int, set[str]]) -> None:
    def walk(node: ET.Element, weight: int) -> None:
        weight = int(float(node.get("font-weight", weight)))
        if node.tag == "text":
            into.setdefault(700 if weight >= 600 else 400, set()).update("".join(node.itertext()))
        for child in node:
            walk(child, weight)

    walk(ET.fromstring(fragment), 400)


@pytest.mark.slow
def test_the_page_carries_a_face_for_every_character_it_writes(page):
    html = page.read_text(encoding="utf-8")
    data = page_data(html.encode("utf-8"))
    used: dict[int, set[str]] = {}
    for fragment in data["drawings"]["light"]:
        _drawn(fragment, used)
    title = re.search(r"<h1>([^<]*)</h1>", html)
    assert title is not None
    used.setdefault(700, set()).update(title.group(1))
    for frame in data["frames"]:
        used[700].update(frame["heading"])
        used[400].update(frame["words"] + frame["position"] + "".join(piece for piece, _ in frame["caption"]))
    assert set(SCRIPTS) - {" "} <= used[400] and set("北京भारत🙂") <= used[700]  # drawn, and the title
    css = html[html.index("<style>") : html.index("</style>")]
    assert uncovered(css, used) == {}


def _only_dejavu(folder: Path) -> dict[str, str]:
    """A fontconfig that knows DejaVu's folder and no other (the machine's rules kept)."""
    dejavu = face_file(False, False)
    assert dejavu is not None
    conf = folder / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n'
        f"<fontconfig><dir>{dejavu.parent}</dir>"
        '<include ignore_missing="yes">/etc/fonts/conf.d</include>'
        f"<cachedir>{folder / 'cache'}</cachedir></fontconfig>\n"
    )
    env = {"FONTCONFIG_FILE": str(conf)}
    listed = subprocess.run(
        ["fc-list", ":lang=hi", "family"], capture_output=True, text=True, env={**os.environ, **env}
    )
    assert listed.stdout.strip() == ""  # no Devanagari font: nor any other but DejaVu's
    return env


@pytest.mark.slow
def test_a_browser_without_those_fonts_draws_them_from_the_page(page, tmp_path):
    """Chromium with every installed font but DejaVu hidden draws the tokens stage exactly as
    with them: the Chinese, Hindi and emoji of the prompt come from the page's own faces (the
    page before them showed boxes), and every face the page names loads."""
    from tests.support.browser import Browser, find_chromium
    from tests.support.images import output_dir

    executable = find_chromium()
    if executable is None:
        skip_or_fail("Chromium is not installed (apt-get install chromium)")
    shots = output_dir().parent / "web"
    shots.mkdir(parents=True, exist_ok=True)
    pictures = []
    for name, env in (("scripts-all-fonts", None), ("scripts-only-dejavu", _only_dejavu(tmp_path))):
        with Browser(executable, width=1400, height=900, env=env) as browser:
            browser.open(page)
            browser.wait_until("document.getElementById('player').dataset.state === 'ready'")
            browser.press("ArrowRight")  # the tokens stage: the prompt in the header and its tokens
            browser.wait_until("document.fonts.status === 'loaded'")
            statuses = browser.evaluate("Array.from(document.fonts).map(f => [f.weight, f.unicodeRange, f.status])")
            assert all(status != "error" for _, _, status in statuses), statuses
            # the faces of Chinese, Devanagari and emoji in both weights (the title is bold) drew
            fallbacks = [status for _, where, status in statuses if where != "U+0-10FFFF"]
            assert fallbacks.count("loaded") >= 6, statuses
            pictures.append(browser.screenshot(shots / f"{name}.png"))
    from PIL import Image

    with Image.open(pictures[0]) as a, Image.open(pictures[1]) as b:
        differ = np.abs(np.asarray(a.convert("RGB")).astype(int) - np.asarray(b.convert("RGB")).astype(int)).max(axis=2)
    assert (differ > 48).sum() < 64, (differ > 48).sum()

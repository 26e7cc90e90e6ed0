"""The web page's builder, without a browser: what the page holds, read back from its HTML.

A synthetic 4-step trace (tests/engine/test_trace.py) keeps these fast; test_web_browser.py
opens a real run's page in Chromium.
"""

from __future__ import annotations

import base64
import json
import re
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path
from typing import Any

import pytest

from explainer.content.assets import load_texts
from explainer.diagram.registry import PANELS
from explainer.errors import ExplainerError
from explainer.export.layout import waiting
from explainer.export.web import CSP, build_page, export_web, parse_place
from explainer.export.web_drawings import DRAWN
from explainer.export.web_run import page_cursors
from explainer.frames import FrameBuilder
from explainer.frames import panels as F
from explainer.frames.describe import describe
from explainer.illustration.walk import Walk
from explainer.resources import data_dir
from explainer.stages import Cursor, Stage
from tests.engine.test_trace import make_trace


def page_data(html: bytes) -> dict[str, Any]:
    """The run the page replays: its one deflated JSON document, as the page's script reads it."""
    blob = re.search(rb'<script type="application/octet-stream" id="run-data">([^<]*)</script>', html)
    assert blob is not None
    data: dict[str, Any] = json.loads(zlib.decompress(base64.b64decode(blob.group(1))))
    return data


@pytest.fixture(scope="module")
def texts():
    return load_texts()


@pytest.fixture(scope="module")
def trace():
    return make_trace(4)


@pytest.fixture(scope="module")
def light(trace, texts):
    return build_page(trace, texts, ("light",))


def test_each_distinct_panel_drawing_is_held_once(trace, texts, light):
    data = page_data(light.html)
    cursors = Walk(trace).cursors()
    builder = FrameBuilder(texts, timings=False)
    frames = [builder.frame(trace, c) for c in cursors]
    assert data["panels"] == list(DRAWN) and F.CAPTION.name not in DRAWN  # the caption is the page's text
    assert len(data["frames"]) == len(cursors) == light.frames
    for name in DRAWN:
        # the panel's value where a frame shows it (a waiting panel is not drawn); the trained
        # model's drawing differs with its arrow into the loop, shown when the loop is
        values = {
            k: (f.panel(name), "loop" in d["shown"]) if name == "pretraining" else f.panel(name)
            for k, (f, d) in enumerate(zip(frames, data["frames"], strict=True))
            if name in d["shown"]
        }
        assert light.counts[name] == len(set(values.values())), name
        # two frames share a drawing exactly when the panel's value is the same
        ids = {k: data["frames"][k]["d"]["light"][data["frames"][k]["shown"].index(name)] for k in values}
        for a in ids:
            for b in ids:
                assert (ids[a] == ids[b]) == (values[a] == values[b]), (name, a, b)
    assert sum(light.counts.values()) == len(data["drawings"]["light"]) == light.drawings["light"]
    # far fewer drawings than one per panel per frame
    assert len(data["drawings"]["light"]) < len(cursors) * len(DRAWN) / 2
    assert {spec.name for spec in PANELS} == set(DRAWN) | {F.CAPTION.name}


def test_frames_carry_their_words(trace, texts, light):
    data = page_data(light.html)
    cursors = Walk(trace).cursors()
    builder = FrameBuilder(texts, timings=False)
    for cursor, f in zip(cursors, data["frames"], strict=True):
        frame = builder.frame(trace, cursor)
        assert f["words"] == describe(frame, texts)  # the screen reader's text is the app's
        assert f["heading"] == frame[F.CAPTION].heading
        assert "".join(piece for piece, _term in f["caption"]) == frame[F.CAPTION].text
        assert f["stage"] == cursor.stage.value
        assert texts.app_text("stages", cursor.stage.value) in f["position"]
    linked = {term for f in data["frames"] for _piece, term in f["caption"] if term}
    assert linked and set(data["terms"]) == linked
    assert all(data["terms"][t] == texts.define(t) for t in linked)
    # N: the append stage of this pass, or of the next one from an append stage
    nt = [f["next_token"] for f in data["frames"]]
    assert cursors[nt[1]] == Cursor(0, Stage.APPEND) and cursors[nt[nt[1]]] == Cursor(1, Stage.APPEND)
    assert nt[-1] is None


def test_page_is_self_contained(light, texts):
    html = light.html.decode("utf-8")
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in html.replace("&#x27;", "'")
    assert "default-src 'none'" in CSP and "connect-src" not in CSP
    data = page_data(light.html)
    everything = html + json.dumps(data, ensure_ascii=False)
    assert not re.search(r"https?://", everything, re.IGNORECASE)  # not a namespace, not a link
    assert not re.search(r"""\b(src|href)=["'](?!#|data:)""", everything)  # nothing to fetch
    assert "@font-face" in html and "data:font/woff;base64," in html  # the font travels with it
    for key in ("reset", "prev", "play", "next", "next_token"):  # the app's words on its buttons
        assert json.dumps(texts.app_text("actions", key), ensure_ascii=False) in html
    assert texts.app_text("web", "title").format(prompt="The cat sat") in html.replace("&quot;", '"')
    assert 'aria-live="polite"' in html and 'role="img"' in html


def test_same_run_gives_the_same_file(trace, texts, light):
    assert build_page(trace, texts, ("light",)).html == light.html


def test_range_locks_the_page(trace, texts):
    start, end = parse_place("1:tokens"), parse_place("2:sampling")
    page = build_page(trace, texts, ("light",), start, end)
    data = page_data(page.html)
    walk = Walk(trace)
    expected = walk.cursors()[walk.index(start) : walk.index(end) + 1]
    assert page.frames == len(expected) == len(data["frames"])
    assert [f["stage"] for f in data["frames"]] == [c.stage.value for c in expected]
    assert data["frames"][0]["position"].startswith("Token 2 of 4")
    # N from inside the range lands inside it; past its end there is nowhere to go
    assert expected[data["frames"][0]["next_token"]] == Cursor(1, Stage.APPEND)
    assert data["frames"][-1]["next_token"] is None
    # only the drawings the range shows
    full = build_page(trace, texts, ("light",))
    assert page.drawings["light"] < full.drawings["light"]


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        ("1:pretraining", None, "not in the run"),
        ("9:tokens", None, "not in the run"),
        ("2:tokens", "1:append", "comes after"),
    ],
)
def test_range_outside_the_run_is_refused(trace, start, end, message):
    with pytest.raises(ExplainerError, match=message):
        page_cursors(trace, parse_place(start), parse_place(end) if end else None)


@pytest.mark.parametrize("text", ["3", "x:tokens", "1:nothing", ""])
def test_place_must_be_step_and_stage(text):
    with pytest.raises(ExplainerError, match="STEP:STAGE"):
        parse_place(text)


def test_all_themes_and_their_switch(trace, texts, light):
    page = build_page(trace, texts, ("dark", "light", "projector"))
    html = page.html.decode("utf-8")
    data = page_data(page.html)
    assert set(data["drawings"]) == {"light", "dark", "projector"}
    assert page.drawings["dark"] == page.drawings["light"] == page.drawings["projector"]
    assert '<html lang="en" data-theme="dark">' in html  # the first is shown first
    options = re.findall(r'<option value="(\w+)">', html)
    assert options == ["dark", "light", "projector"]
    for name in ("light", "dark", "projector"):
        assert f"[data-theme={name}]{{--bg:" in html
    # each theme is drawn in its own colours
    assert "#15191f" not in "".join(data["drawings"]["light"])
    assert data["drawings"]["dark"] != data["drawings"]["light"]
    # one theme: no switch
    assert "<select" not in light.html.decode("utf-8")
    with pytest.raises(ExplainerError, match="unknown theme"):
        build_page(trace, texts, ("sepia",))


def test_written_atomically_and_refused_before_any_work(trace, texts, tmp_path: Path):
    out, page = export_web(trace, tmp_path / "run.html", texts, ("light",), parse_place("0:sampling"))
    assert out.read_bytes() == page.html and not list(tmp_path.glob(".*.tmp"))
    (tmp_path / "folder.html").mkdir()
    with pytest.raises(ExplainerError, match="folder"):
        export_web(trace, tmp_path / "folder.html", texts)
    with pytest.raises(ExplainerError, match="cannot write a web page"):
        export_web(trace, tmp_path / "run.svg", texts)


def test_cli_writes_a_page_from_a_saved_trace(trace, tmp_path: Path, capsys):
    from explainer.cli import main
    from explainer.engine.trace_file import save_trace

    save_trace(trace, tmp_path / "run.trace")
    out = tmp_path / "run.html"
    args = ["export", "--trace", str(tmp_path / "run.trace"), "--out", str(out), "--from", "0:sampling"]
    assert main([*args, "--to", "1:append", "--theme", "all"]) == 0
    data = page_data(out.read_bytes())
    assert len(data["frames"]) == 2 + 6  # sampling and append of pass 1, all of pass 2
    assert set(data["drawings"]) == {"light", "dark", "projector"}
    assert "8 frames" in capsys.readouterr().err
    # the page's options are refused for a figure, and a bad range before any drawing
    assert (
        main(["export", "--trace", str(tmp_path / "run.trace"), "--out", str(tmp_path / "f.svg"), "--to", "1:append"])
        != 0
    )
    assert main([*args[:-1], "7:append"]) != 0
    assert not (tmp_path / "f.svg").exists()


def test_no_frame_shows_a_waiting_panel(trace, texts, light):
    """As the PNG and SVG figures (export/layout.py): a panel with nothing to show yet is left
    out of the frame, not drawn saying "waiting for..."."""
    data = page_data(light.html)
    idle = json.loads((data_dir("assets") / "en" / "captions.json").read_text(encoding="utf-8"))["panels"]
    placeholders = [idle[k] for k in ("embeddings_idle", "probabilities_idle", "kv_empty", "tokens_message")]
    builder = FrameBuilder(texts, timings=False)
    waiting_frames = 0
    for cursor, f in zip(Walk(trace).cursors(), data["frames"], strict=True):
        gone = waiting(builder.frame(trace, cursor))
        assert not gone & set(f["shown"]), (cursor, gone)
        shown = "".join(data["drawings"]["light"][n] for n in f["d"]["light"])
        words = "".join(ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{shown}</svg>').itertext())
        waiting_frames += any(p in words for p in placeholders)
        assert len(f["shown"]) == len(f["d"]["light"])
    assert waiting_frames == 0


def style_rules(html: str) -> dict[str, str]:
    """The page's own CSS rules (outside @media), selector -> declarations."""
    style = re.search(r"<style>(.*?)</style>", html, re.S)
    assert style is not None
    outside = re.sub(r"@media[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}", "", style.group(1))
    return {sel.strip(): body for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", outside)}


def test_a_phone_can_wrap_the_position_line_and_pinch_zoom(light):
    html = light.html.decode("utf-8")
    viewport = re.search(r'<meta name="viewport" content="([^"]*)">', html)
    assert viewport is not None and "width=device-width" in viewport.group(1)
    assert "user-scalable=no" not in viewport.group(1) and "maximum-scale" not in viewport.group(1)
    assert "white-space:pre" not in style_rules(html)[".position"].replace("pre-line", "")


def test_the_picture_leaves_room_for_its_caption(light):
    """Capped by the window's height (its width follows, so the aspect stays)."""
    assert "100vh" in style_rules(light.html.decode("utf-8"))[".ill svg"]


def test_print_keeps_the_frame_and_caption_without_buttons(light):
    html = light.html.decode("utf-8")
    media = re.search(r"@media print\{(.*?)\n\}", html, re.S)
    assert media is not None
    hidden = re.search(r"([^{}]*)\{display:none", media.group(1))
    assert hidden is not None and {".bar", ".keys", "details"} <= {s.strip() for s in hidden.group(1).split(",")}
    assert "break-inside:avoid" in media.group(1)


def test_in_a_frame_the_page_posts_its_height(light):
    html = light.html.decode("utf-8")
    assert "window.parent !== window" in html
    assert 'window.parent.postMessage({ type: "explainer-height", height: height }, "*")' in html


def test_the_description_is_outside_the_closed_details(light):
    """aria-describedby must point at text the accessibility tree has while "Describe this
    frame" is closed: a closed <details> hides its content from it."""
    html = light.html.decode("utf-8")
    target = re.search(r'aria-describedby="([^"]+)"', html)
    assert target is not None
    details = re.search(r"<details.*?</details>", html, re.S)
    assert details is not None and f'id="{target.group(1)}"' not in details.group(0)
    assert re.search(rf'<p class="sr" id="{target.group(1)}"', html)


@pytest.mark.slow
def test_a_run_in_other_scripts_reads_whole_on_the_page(real_engine, texts):
    """A Chinese prompt and a Greek answer: what the page says of the text is what the tokenizers
    library decodes from the same ids, never "\ufffd", and each piece of a character is named by
    its bytes and the character it helps make."""
    from explainer.engine.sampler import SamplingSettings
    from explainer.engine.text_bytes import LIKE_TOKENIZERS
    from explainer.illustration.vocab import vocabulary_of

    prompt = "北京是中国的首都。Say it in Greek."
    run = real_engine.generate(prompt, SamplingSettings(temperature=0.0, max_new_tokens=12), chat=True)
    assert any(t.partial for t in run.prompt_tokens) and any(t.partial for t in run.output_tokens)
    page = build_page(run, texts, ("light",), vocabulary=vocabulary_of(real_engine.tokenizer))
    data = page_data(page.html)
    words = [f["words"] + " " + "".join(p for p, _ in f["caption"]) for f in data["frames"]]
    assert all("\ufffd" not in w for w in words)
    answer = run.answer(specials=False, errors=LIKE_TOKENIZERS).text
    theirs = real_engine.tokenizer.hf.decode([t.id for t in run.output_tokens])
    assert theirs.startswith(answer) and answer.strip()
    assert any(answer.strip() in w for w in words)  # the text so far, at the last frame
    said = texts.describe["bytes_of"].format(bytes="E5 8C", char="北")
    assert any(said in w for w in words)  # the first prompt token told in words at the tokens stage

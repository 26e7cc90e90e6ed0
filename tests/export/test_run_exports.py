"""The run taken to a course as a clip, a deck or pictures: what a course author checks in the
files (frames, durations, codec, index first, slide notes), that a part of the run is enough,
that progress is shown and Cancel leaves nothing behind."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from explainer.export.animation import cursors_shown, frame_name, write_animation, write_deck, write_frames
from explainer.export.layout import parse_panels, preset
from explainer.stages import Cursor, Stage

pytestmark = pytest.mark.slow
SMALL = parse_panels("tokens,caption")


@pytest.fixture(scope="module")
def paris(built_model):
    from tests.lesson.real_traces import trace_for

    return trace_for(built_model, "paris")


@pytest.fixture(scope="module")
def saved(paris, tmp_path_factory):
    from explainer.engine.trace_file import save_trace

    path = tmp_path_factory.mktemp("trace") / "paris.trace"
    save_trace(paris, path)
    return path


def export(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "explainer", "export", *args], capture_output=True, text=True, timeout=timeout
    )


def durations(path: Path) -> list[float]:
    from PIL import Image
    from PIL.GifImagePlugin import GifImageFile
    from PIL.PngImagePlugin import PngImageFile

    with Image.open(path) as im:
        assert isinstance(im, GifImageFile | PngImageFile), im.format  # an animation's formats
        found = []
        for i in range(im.n_frames):
            im.seek(i)
            found.append(float(im.info["duration"]))
    return found


def top_level_boxes(path: Path) -> list[bytes]:
    data, pos, boxes = path.read_bytes(), 0, []
    while pos < len(data):
        (size,) = struct.unpack(">I", data[pos : pos + 4])
        boxes.append(data[pos + 4 : pos + 8])
        pos += size
    return boxes


# --- animations ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["run.gif", "run.png"])
def test_gif_and_apng_have_one_frame_per_stage_each_held_as_asked(paris, tmp_path, name):
    from PIL import Image
    from PIL.GifImagePlugin import GifImageFile
    from PIL.PngImagePlugin import PngImageFile

    cursors = cursors_shown(paris)
    out = write_animation(paris, cursors, tmp_path / name, seconds_per_stage=1.5, scale=0.25, layout=SMALL)
    with Image.open(out) as im:
        assert im.format == ("GIF" if name.endswith(".gif") else "PNG")
        assert isinstance(im, GifImageFile | PngImageFile)
        assert im.n_frames == len(cursors) == 1 + 6 * len(paris.steps)
        im.seek(im.n_frames - 1)
        last = np.asarray(im.convert("RGB"))
    assert durations(out) == [1500] * len(cursors)
    assert last.std() > 5  # the last frame is a picture, not a blank


@pytest.mark.parametrize("name", ["run.gif", "run.png"])
def test_a_stage_that_repeats_the_last_is_held_not_stored_again(paris, tmp_path, name):
    c = cursors_shown(paris)
    out = write_animation(
        paris, [c[1], c[2], c[2], c[3]], tmp_path / name, seconds_per_stage=0.5, scale=0.25, layout=SMALL
    )
    assert durations(out) == [500, 1000, 500]


@pytest.mark.parametrize("name", ["run.gif", "run.png"])
def test_each_picture_is_in_the_file_before_the_next_is_drawn(paris, tmp_path, monkeypatch, name):
    """The fault sweep's case 10: a GIF at scale 2.5 once held every picture until the end
    (gigabytes for a few tokens). Now each is encoded into the file as soon as it is drawn, so memory holds one
    picture whatever the run's length: checked here at 2.5 on the pictures' order of events (the
    sweep, `python -m tests.fault_sweep --only 10`, measures the memory)."""
    import explainer.export.animation as animation
    from explainer.export.apng import ApngWriter
    from explainer.export.gif import GifWriter
    from explainer.export.shots import shots as drawn

    events: list[tuple[str, int]] = []

    def counted(*args, **kwargs):
        for i, shot in enumerate(drawn(*args, **kwargs)):
            events.append(("drawn", i))
            yield shot

    def written(cls):
        add = cls.add

        def add_and_note(self, image, seconds):
            add(self, image, seconds)
            events.append(("in the file", self.out.tell()))

        return add_and_note

    monkeypatch.setattr(animation, "shots", counted)
    monkeypatch.setattr(GifWriter, "add", written(GifWriter))
    monkeypatch.setattr(ApngWriter, "add", written(ApngWriter))
    cursors = cursors_shown(paris)[:4]
    write_animation(paris, cursors, tmp_path / name, seconds_per_stage=1.0, scale=2.5, layout=SMALL)
    kinds = [kind for kind, _ in events]
    assert kinds == ["drawn", "in the file"] * len(cursors)
    sizes = [n for kind, n in events if kind == "in the file"]
    assert sizes == sorted(set(sizes)), sizes  # each picture's bytes went out at once


def test_mp4_is_h264_yuv420p_fast_start_with_one_picture_per_stage(paris, tmp_path):
    import av
    from av.video.frame import VideoFrame

    def start_s(frame: VideoFrame) -> float:
        assert frame.pts is not None and frame.time_base is not None, "a picture without its time"
        return round(float(frame.pts * frame.time_base), 2)

    cursors = cursors_shown(paris)[:5]
    out = write_animation(
        paris, cursors, tmp_path / "run.mp4", seconds_per_stage=0.4, fps=10, scale=0.25, layout=preset("full")
    )
    boxes = top_level_boxes(out)
    assert boxes.index(b"moov") < boxes.index(b"mdat"), boxes  # the index first: plays while loading
    with av.open(str(out)) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == "h264" and stream.codec_context.pix_fmt == "yuv420p"
        frames = list(container.decode(stream))
        assert container.duration is not None and container.duration / 1e6 == pytest.approx(2.0, abs=0.15)
    # a stage is one picture held 0.4 s (variable frame rate), not four copies of it; the last
    # picture is stored again just before the end, so players show it for its whole time
    assert len(frames) == 5 + 1
    starts = [start_s(f) for f in frames]
    assert starts == [0.0, 0.4, 0.8, 1.2, 1.6, 1.9]
    first, last = frames[0].to_ndarray(format="rgb24"), frames[-1].to_ndarray(format="rgb24")
    assert np.abs(first.astype(int) - last.astype(int)).mean() > 1


def test_pictures_are_written_while_the_run_is_drawn(paris, tmp_path):
    """Streaming: when half the stages are drawn, the file being written already holds pictures."""
    seen: list[int] = []

    def progress(what: str, fraction: float) -> None:
        if 0.5 <= fraction < 0.6:
            temps = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
            seen.append(max((p.stat().st_size for p in temps), default=0))

    cursors = cursors_shown(paris)
    write_animation(paris, cursors, tmp_path / "run.png", scale=0.25, progress=progress, layout=SMALL)
    one_picture = 2_000
    assert seen and max(seen) > 3 * one_picture


# --- a part of the run: --from/--to ---------------------------------------------------------


@pytest.mark.parametrize("name", ["clip.gif", "clip.mp4", "clip.png"])
def test_a_clip_of_one_token_from_the_command_line(saved, tmp_path, name):
    out = tmp_path / name
    animate = ["--animate"] if name.endswith(".png") else []
    proc = export("--trace", str(saved), "--from", "1:layers", "--to", "1:append", "--out", str(out), *animate)
    assert proc.returncode == 0, proc.stderr
    assert "(4 stages)" in proc.stderr  # layers, probabilities, sampling, append
    if not name.endswith(".mp4"):
        assert len(durations(out)) == 4


def test_from_and_to_are_refused_for_a_single_figure_and_checked_before_any_work(saved, tmp_path):
    one = export("--trace", str(saved), "--from", "1:layers", "--out", str(tmp_path / "f.svg"))
    assert one.returncode == 2 and "not a single figure" in one.stderr
    bad = export("--trace", str(saved), "--from", "1:nowhere", "--out", str(tmp_path / "c.gif"))
    assert bad.returncode == 2 and "STEP:STAGE" in bad.stderr and "Traceback" not in bad.stderr
    late = export("--trace", str(saved), "--from", "99:tokens", "--out", str(tmp_path / "c.gif"))
    assert late.returncode == 2 and "not in the run" in late.stderr
    assert not list(tmp_path.iterdir())


# --- pictures for slides ------------------------------------------------------------------------


def test_frames_are_numbered_from_0_as_step_counts(paris, tmp_path):
    cursors = cursors_shown(paris)[:8]
    written = write_frames(paris, cursors, tmp_path / "slides", "svg", layout=preset("full"))
    names = sorted(p.name for p in (tmp_path / "slides").iterdir())
    assert names == [p.name for p in written] and len(names) == 8
    assert names[0] == "frame-0000-step0-pretraining.svg" and names[7] == "frame-0007-step1-tokens.svg"
    assert frame_name(12, Cursor(3, Stage.SAMPLING), "png") == "frame-0012-step3-sampling.png"
    for p in written:
        assert b"waiting for" not in p.read_bytes()


def test_frames_of_a_part_of_the_run(saved, tmp_path):
    proc = export("--trace", str(saved), "--from", "1:tokens", "--to", "1:embeddings", "--frames", str(tmp_path / "f"))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "f").iterdir()) == [
        "frame-0000-step1-tokens.png",
        "frame-0001-step1-embeddings.png",
    ]


# --- the deck -----------------------------------------------------------------------------------


def slides_of(path: Path) -> tuple[int, list[str], list[str]]:
    from pptx import Presentation

    deck = Presentation(str(path))
    notes = [s.notes_slide.notes_text_frame.text for s in deck.slides]
    alts = [pic._element.nvPicPr.cNvPr.get("descr") for s in deck.slides for pic in s.shapes]
    return len(deck.slides), notes, alts


def test_a_deck_has_a_slide_per_stage_with_its_caption_as_notes(paris, tmp_path):
    from explainer.content.assets import load_texts

    cursors = cursors_shown(paris)[:7]
    out = write_deck(paris, cursors, tmp_path / "run.pptx", layout=preset("full"), theme="projector")
    count, notes, alts = slides_of(out)
    assert count == 7 and len(alts) == 7
    texts = load_texts()
    for cursor, note in zip(cursors, notes, strict=True):
        assert note.startswith(texts.title(cursor.stage)), note
        assert len(note.splitlines()[1]) > 20  # the caption's text, not just its heading
    assert all(alt and len(alt) > 40 for alt in alts)  # each picture in words for a screen reader
    with zipfile.ZipFile(out) as z:
        assert sum(n.startswith("ppt/media/") for n in z.namelist()) == 7


needs_office = pytest.mark.skipif(
    shutil.which("soffice") is None and os.environ.get("CI") != "true", reason="LibreOffice is not installed"
)


@needs_office
def test_the_deck_opens_in_libreoffice_impress(saved, tmp_path):
    out = tmp_path / "run.pptx"
    proc = export("--trace", str(saved), "--from", "0:pretraining", "--to", "0:append", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    profile = tmp_path / "profile"
    conv = subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{profile}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(tmp_path),
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    pdf = tmp_path / "run.pdf"
    assert pdf.exists(), conv.stdout + conv.stderr
    if shutil.which("pdfinfo"):
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
        assert re.search(r"^Pages:\s+7$", info, re.M), info
    # the picture is on the page: a rendered page is not blank
    png = tmp_path / "page"
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-png", "-r", "30", "-f", "2", "-l", "2", str(pdf), str(png)], check=True)
        from PIL import Image

        page = np.asarray(Image.open(next(tmp_path.glob("page*.png"))).convert("L"))
        assert page.std() > 10


# --- progress and cancel -----------------------------------------------------------------------


def progress_lines(*args: str) -> tuple[list[dict[str, Any]], list[float]]:
    """The JSON progress lines an export with ``args`` printed, after checking they rise to 1."""
    proc = export(*args, "--progress", "json")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stderr.splitlines() if line.startswith("{")]
    fractions = [line["fraction"] for line in lines]
    assert len(lines) > 5 and fractions == sorted(fractions) and fractions[-1] == 1.0
    return lines, fractions


def test_progress_is_shown_as_json_lines_for_the_app(saved, tmp_path):
    lines, _ = progress_lines("--trace", str(saved), "--out", str(tmp_path / "r.gif"), "--scale", "0.25")
    assert all(line["progress"] == "writing r.gif" for line in lines)


def test_a_web_page_shows_its_progress_too(saved, tmp_path):
    """Drawing a page is most of its time (each theme's drawings in turn): the app's dialog moves."""
    _, fractions = progress_lines("--trace", str(saved), "--out", str(tmp_path / "r.html"), "--theme", "all")
    assert fractions[len(fractions) // 3] <= 0.4  # three themes: the first third of the lines is the first theme
    assert (tmp_path / "r.html").stat().st_size > 10_000


def test_progress_on_a_terminal_is_a_bar_with_the_time_left():
    from explainer.commands.output import ProgressPrinter

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    now = [0.0]
    stream = Tty()
    bar = ProgressPrinter(stream, clock=lambda: now[0])
    bar("writing run.mp4", 0.0)
    now[0] = 10.0
    bar("writing run.mp4", 0.25)
    line = stream.getvalue().split("\r")[-1]
    assert "[######------------------]  25.0%" in line and "about 30 s left" in line


def test_cancel_stops_the_export_and_leaves_nothing_behind(saved, tmp_path):
    out = tmp_path / "run.png"
    out.write_bytes(b"the old picture")
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "explainer",
            "export",
            "--trace",
            str(saved),
            "--out",
            str(out),
            "--animate",
            "--scale",
            "1.5",
            "--progress",
            "json",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stderr is not None
    for line in child.stderr:
        if line.startswith('{"progress"'):
            break
    child.send_signal(signal.SIGTERM)  # what the app's Cancel sends
    _, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert out.read_bytes() == b"the old picture"
    assert [p.name for p in tmp_path.iterdir()] == ["run.png"]  # no temporary file left

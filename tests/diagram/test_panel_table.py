"""The panel table and the diagram's registry: one row per panel, typed, and checked at start.

A newcomer adds a panel in the places ARCHITECTURE.md names; these tests are what tells them,
before the app is run, that a piece is missing or wrong.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest
from mypy import api as mypy_api
from PySide6.QtCore import QRectF

from explainer.content.assets import load_texts
from explainer.content.fields import CAPTION_SECTIONS
from explainer.diagram import registry as R
from explainer.diagram.items.header import HeaderItem
from explainer.diagram.scene import LifecycleScene
from explainer.errors import ExplainerError
from explainer.frames import FrameBuilder
from explainer.frames import panels as F
from explainer.frames.frame import Frame
from explainer.illustration.walk import Walk
from tests.support.lesson import model_vocabulary

ROOT = Path(__file__).parents[2]


def test_the_registry_draws_the_table_in_its_order():
    assert tuple(spec.name for spec in R.PANELS) == F.PANEL_NAMES == Frame.panel_names()
    assert all(spec.panel is row for spec, row in zip(R.PANELS, F.PANELS))


def test_a_wrong_item_for_a_panel_is_a_type_error(tmp_path):
    """PanelSpec[V] binds the table's row and the item's draw(): mypy refuses a mismatch."""
    snippet = tmp_path / "new_panel.py"
    snippet.write_text(
        "from explainer.diagram.items.counters import CountersItem\n"
        "from explainer.diagram.registry import PanelSpec\n"
        "from explainer.frames import panels as F\n"
        "RIGHT = PanelSpec(F.COUNTERS, CountersItem)\n"
        "WRONG = PanelSpec(F.TOKENS, CountersItem)\n",
        encoding="utf-8",
    )
    out, err, status = mypy_api.run(["--config-file", str(ROOT / "pyproject.toml"), str(snippet)])
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1, out + err
    assert len(errors) == 1 and "new_panel.py:5:" in errors[0] and "PanelItem[TokensValue]" in errors[0], out


def _mypy(module: Path) -> tuple[int, list[str]]:
    """mypy with the project's config on one module, in its own process, as CI runs it."""
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), str(module)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return run.returncode, [line for line in run.stdout.splitlines() if ": error:" in line]


ROW_IMPORTS = (
    "from explainer.frames.panel import FramePanel\n"
    "from explainer.frames.tokens import TokensValue, describe_tokens, tokens_value\n"
    "from explainer.stages import Stage\n"
)


def test_a_panel_without_a_description_is_a_type_error(tmp_path):
    """A row must say how the screen reader tells its panel: leaving it out (or writing the row by
    position, the texts where the description goes, as rows were written before) is a mypy error,
    not a silent gap in the words; so is another panel's description."""
    snippet = tmp_path / "untold_panel.py"
    snippet.write_text(
        ROW_IMPORTS
        + 'UNTOLD: FramePanel[TokensValue] = FramePanel(name="untold", value=tokens_value, lit_at=frozenset())\n'
        + 'OLD_STYLE: FramePanel[TokensValue] = FramePanel("old", tokens_value, {"tokens_more": ("n",)})\n'
        + "from explainer.frames.layers import describe_layers\n"
        + 'WRONG: FramePanel[TokensValue] = FramePanel(name="wrong", value=tokens_value, describe=describe_layers)\n',
        encoding="utf-8",
    )
    status, errors = _mypy(snippet)
    assert status == 1, errors
    by_line = {n: " ".join(e for e in errors if f"untold_panel.py:{n}:" in e) for n in (4, 5, 7)}
    assert all(any(f"untold_panel.py:{n}:" in e for n in by_line) for e in errors), errors  # no other line
    assert 'Missing named argument "describe"' in by_line[4], errors
    assert "Too many positional arguments" in by_line[5], errors
    assert "LayersValue" in by_line[7], errors  # another panel's words


def test_a_panel_with_its_description_type_checks(tmp_path):
    """The positive control of the test above: the same row with its description is clean."""
    snippet = tmp_path / "told_panel.py"
    snippet.write_text(
        ROW_IMPORTS
        + "TOLD: FramePanel[TokensValue] = FramePanel(\n"
        + '    name="told", value=tokens_value, describe=describe_tokens, lit_at=frozenset({Stage.TOKENS})\n'
        + ")\n",
        encoding="utf-8",
    )
    status, errors = _mypy(snippet)
    assert (status, errors) == (0, [])


def test_every_panel_with_a_rectangle_sits_on_the_canvas_apart_from_the_others():
    canvas = R.PanelSpec(F.HEADER, HeaderItem, QRectF(0, 0, R.WIDTH, R.HEIGHT)).canvas_rect()
    boxes = [(spec.name, spec.canvas_rect()) for spec in R.PANELS if spec.rect is not None]
    assert {name for name, _ in boxes} == set(F.PANEL_NAMES) - {"loop", "flow"}  # the arrows are routed
    for i, (name, rect) in enumerate(boxes):
        assert canvas.contains(rect), name
        for other, rect2 in boxes[i + 1 :]:
            assert not rect.intersects(rect2), (name, other)


def test_a_panel_reads_only_the_texts_its_row_declares(qapp, real_trace, monkeypatch):
    """Each row names the captions.json keys its builder and its item read, so that the start-up
    check (check_texts) covers every text a panel shows; reading an undeclared one is caught
    here, for every stage of three real runs, drawn. (The keys illustration/captions.py reads
    are the loader's, content/fields.py.)"""
    read: set[str] = set()

    class Recording(dict[str, str]):
        def __getitem__(self, key: str) -> str:
            read.add(key)
            return super().__getitem__(key)

    texts = load_texts()
    recording = dataclasses.replace(texts, panels=Recording(texts.panels))
    shared = set(CAPTION_SECTIONS["panels"])
    undeclared: dict[str, set[str]] = {}

    def note(name: str) -> None:
        if extra := read - set(F.PANELS[F.INDEX[name]].texts) - shared:
            undeclared.setdefault(name, set()).update(extra)
        read.clear()

    def frame(m):
        values = []
        for row in F.PANELS:
            read.clear()
            values.append(row.value(m))
            note(row.name)
        return Frame(m.cursor, m.stage, tuple(values))

    monkeypatch.setattr(FrameBuilder, "_frame", staticmethod(frame))
    scene = LifecycleScene(recording)
    scene.set_vocabulary(model_vocabulary())
    for name, item in scene.panels.items():
        panel = cast(R.PanelItem[Any], item)  # each item draws its panel's value, as the scene calls it

        def drawing(value, theme, name=name, original=panel.draw):
            read.clear()
            original(value, theme)
            note(name)

        monkeypatch.setattr(item, "draw", drawing)
    for timings in (True, False):
        scene.set_show_timings(timings)
        scene.show_empty("Loading the model…")
        for name in ("paris", "sampled", "chat"):
            trace = real_trace(name)
            for c in Walk(trace).cursors():
                scene.show_frame(trace, c, animate=False)
                scene.redraw()
    assert undeclared == {}


def test_a_missing_panel_text_is_refused_at_start_naming_file_and_key():
    texts = load_texts()
    panels = {k: v for k, v in texts.panels.items() if k != "kv_empty"}
    with pytest.raises(ExplainerError, match=r"en/captions.json: panels.kv_empty is missing \(the kvcache panel"):
        FrameBuilder(dataclasses.replace(texts, panels=panels))

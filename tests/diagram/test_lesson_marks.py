"""What the lesson adds to the drawing: caption terms as glossary links, the ␣ legend once, and
the chart saying whether its numbers are raw or after the cuts."""

from __future__ import annotations

from urllib.parse import unquote

from PySide6.QtGui import QTextDocument

from explainer.content.assets import load_texts
from explainer.content.glossary import HREF_PREFIX, terms_in
from explainer.illustration.walk import Walk
from explainer.stages import Cursor, Stage
from tests.support.readback import link_fragments

TEXTS = load_texts()


def anchors(doc: QTextDocument) -> list[tuple[str, str]]:
    """(link text, href) of every anchor drawn in a document."""
    return [(frag.text(), frag.charFormat().anchorHref()) for _, frag in link_fragments(doc)]


def test_every_term_of_a_drawn_caption_is_a_link(scene, real_trace):
    seen: set[str] = set()
    for name in ("paris", "sampled", "chat"):
        trace = real_trace(name)
        for cursor in Walk(trace).cursors():
            scene.show_frame(trace, cursor, animate=False)
            text = scene.caption.text.toPlainText()
            links = anchors(scene.caption.text.document())
            linked = [unquote(href[len(HREF_PREFIX) :]) for _, href in links]
            assert all(href.startswith(HREF_PREFIX) for _, href in links)
            assert linked == list(terms_in(text, TEXTS.glossary)), (cursor, text)  # each term once, in order
            for shown, href in links:
                assert TEXTS.glossary.entry(unquote(href[len(HREF_PREFIX) :])) is not None
                assert shown.lower() in text.lower()
            seen.update(linked)
    assert {"token", "prefill", "temperature", "top-k", "top-p"} <= seen


def test_hovering_a_caption_term_shows_its_definition(scene, real_trace, qtbot):
    trace = real_trace("sampled")
    scene.show_frame(trace, Cursor(0, Stage.SAMPLING), animate=False)
    _, href = anchors(scene.caption.text.document())[0]
    with qtbot.waitSignal(scene.term_hovered) as hovered:
        scene.caption.text.linkHovered.emit(href)
    term = hovered.args[0]
    assert scene.caption.text.toolTip() == TEXTS.define(term)
    with qtbot.waitSignal(scene.term_activated) as clicked:
        scene.caption.text.linkActivated.emit(href)
    assert clicked.args == [term]
    scene.caption.text.linkHovered.emit("")
    assert scene.caption.text.toolTip() == ""


def test_the_whitespace_legend_is_drawn_once_when_a_chip_shows_a_mark(scene, real_trace):
    trace = real_trace("paris")
    scene.show_frame(trace, Cursor(0, Stage.TOKENS), animate=False)
    scene.settle()
    legend = [i for i in scene.items() if i.data(0) == "tokens/whitespace" and i.isVisible()]
    assert len(legend) == 1 and legend[0].text() == TEXTS.legend  # “␣capital”: one legend for all chips
    scene.show_frame(trace, Cursor(0, Stage.PRETRAINING), animate=False)
    scene.settle()
    assert not scene.tokens.whitespace.isVisible()  # no chips yet: nothing to explain


def test_the_chart_says_raw_before_the_sampling_stage_and_after_the_cuts_at_it(scene, real_trace):
    trace = real_trace("sampled")
    chart = TEXTS.chart
    scene.show_frame(trace, Cursor(1, Stage.PROBABILITIES), animate=False)
    scene.settle()
    assert scene.probabilities.phase_note.isVisible()
    assert scene.probabilities.phase_note.toPlainText() == chart["raw"]
    scene.show_frame(trace, Cursor(1, Stage.SAMPLING), animate=False)
    scene.settle()
    assert scene.probabilities.phase_note.toPlainText() == chart["after_cuts"]
    greedy = real_trace("paris")
    scene.show_frame(greedy, Cursor(0, Stage.PROBABILITIES), animate=False)
    scene.settle()
    assert scene.probabilities.phase_note.toPlainText() == chart["greedy"]

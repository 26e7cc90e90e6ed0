"""What the scene draws for real traces: read back from the items, compared with the trace."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSimpleTextItem, QGraphicsTextItem

from explainer.content.assets import load_texts
from explainer.diagram import registry as R
from explainer.diagram.theme import THEMES
from explainer.frames.embeddings import sample_vector
from explainer.frames.layers import SKETCH_LAYERS
from explainer.frames.probabilities import N_BARS
from explainer.illustration.formatting import milliseconds, percent
from explainer.illustration.walk import Walk
from explainer.stages import Cursor, Predictor, Stage
from tests.support import readback as rb
from tests.support.lesson import token_text


def test_token_chips_are_the_tokenizers_tokens(scene, real_trace, real_engine):
    trace = real_trace("paris")
    scene.show_frame(trace, Cursor(0, Stage.PRETRAINING), animate=False)
    assert rb.token_chips(scene) == []
    scene.show_frame(trace, Cursor(0, Stage.TOKENS), animate=False)
    expected = [(t.id, t.text) for t in real_engine.tokenizer.encode(trace.prompt)]
    assert rb.token_chips(scene) == expected
    assert rb.output_chip_ids(scene) == []
    texts = [c.label.text() for c in rb.drawn_chips(scene)]
    assert texts[1] == "␣capital"  # visible space
    ids = [c.id_text.text() for c in rb.drawn_chips(scene)]
    assert ids == [str(i) for i, _ in expected]
    assert rb.counters(scene)["context_used"] == len(expected)
    assert rb.counters(scene)["context_window"] == 8192


def test_chat_tokens_include_the_template(scene, real_trace, real_engine):
    trace = real_trace("chat")
    scene.show_frame(trace, Cursor(0, Stage.TOKENS), animate=False)
    chips = rb.token_chips(scene)
    prompt = [(t.id, t.text) for t in trace.prompt_tokens]
    assert chips[:3] == prompt[:3] and chips[-3:] == prompt[-3:]
    assert chips[0][1] == "<|im_start|>"


def test_bars_are_the_steps_probabilities(scene, real_trace):
    trace = real_trace("paris")
    step = trace.steps[0]
    scene.show_frame(trace, Cursor(0, Stage.PROBABILITIES), animate=False)
    bars = rb.bar_values(scene)
    raw = step.sampling.raw
    assert len(bars) == N_BARS + 1
    assert [h for _, h in bars[:-1]] == pytest.approx(raw.probs[:N_BARS], abs=1e-12)
    other, other_height = bars[-1]
    assert other == "other" and other_height == pytest.approx(1 - sum(raw.probs[:N_BARS].tolist()), abs=1e-12)
    assert [label for label, _ in bars[:-1]] == [token_text(trace, i) for i in raw.ids[:N_BARS]]
    assert bars[0][0] == " Paris"
    assert rb.draw_marker(scene) is None


def test_sampling_reshapes_and_cuts(scene, real_trace):
    trace = real_trace("sampled")
    for i, step in enumerate(trace.steps):
        scene.show_frame(trace, Cursor(i, Stage.SAMPLING), animate=False)
        s = step.sampling
        final = dict(zip(s.after_top_p.ids.tolist(), s.after_top_p.probs.tolist()))
        expected = [final.get(t, 0.0) for t in s.raw.ids[:N_BARS].tolist()]
        bars = rb.bar_values(scene)
        assert [h for _, h in bars[:-1]] == pytest.approx(expected, abs=1e-12)
        assert bars[-1][1] == pytest.approx(max(0.0, 1 - sum(expected)), abs=1e-12)
        cut = [g.isVisible() for g in scene.probabilities.ghosts[:N_BARS]]
        assert cut == [v == 0.0 for v in expected]  # cut bars are drawn as grey outlines
        # the draw marker sits at the recorded draw, inside the chosen token's span
        assert rb.draw_marker(scene) == pytest.approx(s.draw, abs=1e-9)
        spans = [seg for seg in scene.probabilities.drawing.cumbar.segments if seg.start <= s.draw < seg.end]
        assert len(spans) == 1 and spans[0].chosen and spans[0].label == s.chosen.text


def test_sampling_phases_match_the_recorded_stages(scene, real_trace):
    trace = real_trace("sampled")
    s = trace.steps[0].sampling
    scene.show_frame(trace, Cursor(0, Stage.SAMPLING), animate=False)
    for phase, lst in enumerate((s.raw, s.after_temperature, s.after_top_k, s.after_top_p)):
        scene.probabilities.set_phase(float(phase))
        table = dict(zip(lst.ids, lst.probs))
        assert [h for _, h in rb.bar_values(scene)[:-1]] == pytest.approx(
            [table.get(t, 0.0) for t in s.raw.ids[:N_BARS]], abs=1e-12
        )
    scene.redraw()  # back to the frame's own end state
    assert rb.bar_values(scene)[0][1] == pytest.approx(s.after_top_p.probs[0])


def test_while_the_bars_move_their_numbers_are_the_models(scene, real_trace):
    """The bars grow in and slide between the sampling phases, but each label writes a number the
    run recorded (the phase nearest), never one part of the way between two."""
    trace = real_trace("sampled")
    s = trace.steps[0].sampling
    chart = scene.probabilities
    cut = load_texts().panels["probabilities_cut"]

    def labels() -> list[str]:
        return [lab.text() for lab in chart.values[:N_BARS] if lab.isVisible()]

    def recorded(lst, cuts: bool = False) -> list[str]:
        """The phase's numbers, and where ``cuts``, the word for a candidate the phase cut."""
        table = dict(zip(lst.ids, lst.probs))
        return [cut if cuts and t not in table else percent(table.get(t, 0.0)) for t in s.raw.ids[:N_BARS]]

    scene.show_frame(trace, Cursor(0, Stage.PROBABILITIES), animate=False)
    chart.grow(0.5)  # half way in
    assert [w for _, w in rb.bar_values(scene)[:3]] == pytest.approx([p / 2 for p in s.raw.probs[:3]])
    assert labels() == recorded(s.raw)
    scene.show_frame(trace, Cursor(0, Stage.SAMPLING), animate=False)
    for t, nearest in ((0.4, s.raw), (0.6, s.after_temperature), (1.7, s.after_top_k), (2.6, s.after_top_p)):
        chart.set_phase(t)
        assert labels() == recorded(nearest, cuts=t >= 1.5), t


def test_greedy_says_no_random_draw(scene, real_trace):
    trace = real_trace("paris")
    scene.show_frame(trace, Cursor(0, Stage.SAMPLING), animate=False)
    assert rb.draw_marker(scene) is None
    assert scene.probabilities.drawing.greedy_note.isVisible()
    assert "greedy: the top token is taken, no random draw" in scene.probabilities.drawing.greedy_note.text()


def test_append_adds_the_sampled_token(scene, real_trace):
    trace = real_trace("sampled")
    for i, step in enumerate(trace.steps):
        scene.show_frame(trace, Cursor(i, Stage.APPEND), animate=False)
        chosen = step.sampling.chosen
        assert rb.token_chips(scene)[-1] == (chosen.id, chosen.text)
        assert rb.output_chip_ids(scene) == [st.sampling.chosen.id for st in trace.steps[: i + 1]]
        assert rb.appended_text(scene) == "".join(st.sampling.chosen.text for st in trace.steps[: i + 1])
        assert scene.loop.lit
        # before the append, the chosen token is not there yet
        scene.show_frame(trace, Cursor(i, Stage.SAMPLING), animate=False)
        assert len(rb.output_chip_ids(scene)) == i
        assert not scene.loop.lit


def test_loop_ends_on_eos_with_the_end_label(scene, real_trace):
    trace = real_trace("chat")
    assert trace.stop_reason == "eos"
    last = Walk(trace).last()
    scene.show_frame(trace, last, animate=False)
    assert rb.token_chips(scene)[-1][1] == "<|im_end|>"
    assert scene.loop.end_text.isVisible() and "end of answer" in scene.loop.end_text.text()
    assert "repeat" not in scene.loop.label.text()
    scene.show_frame(trace, Cursor(last.step - 1, Stage.APPEND), animate=False)
    assert not scene.loop.end_text.isVisible() and "repeat" in scene.loop.label.text()


def test_loop_ends_on_the_length_limit(scene, real_trace):
    trace = real_trace("paris")
    scene.show_frame(trace, Walk(trace).last(), animate=False)
    assert trace.stop_reason == "max_tokens"
    assert "limit reached: 8 tokens" in scene.loop.end_text.text()


def test_layers_show_change_and_lens(scene, real_trace):
    trace = real_trace("paris")
    step = trace.steps[0]
    scene.show_frame(trace, Cursor(0, Stage.EMBEDDINGS), animate=False)
    assert not any(b.isVisible() for b in scene.layers.bars)  # the pass has not reached the layers yet
    scene.show_frame(trace, Cursor(0, Stage.LAYERS), animate=False)
    n = trace.model.n_layers
    assert n == 30 and sum(s.isVisible() for s in scene.layers.slabs) == n
    assert "30" in scene.layers.title.text()
    full = scene.layers.bars[0].rect().width() / min(1.0, step.layers[0].change)
    for i, layer in enumerate(step.layers):
        assert scene.layers.bars[i].rect().width() == pytest.approx(full * min(1.0, layer.change))
        assert scene.layers.lens[i].data(1) == token_text(trace, layer.lens.ids[0])
    assert scene.layers.lens[n - 1].data(1) == " Paris"  # the last layer's guess is the answer
    # neighbouring layers with the same guess share one label (on the first of them)
    guesses = [token_text(trace, layer.lens.ids[0]) for layer in step.layers]
    starts = [i for i in range(n) if i == 0 or guesses[i] != guesses[i - 1]]
    shown = [i for i in range(n) if scene.layers.lens[i].isVisible()]
    assert shown == starts
    assert [scene.layers.runs[i].isVisible() for i in starts] == [
        (starts + [n])[k + 1] - i > 1 for k, i in enumerate(starts)
    ]


def top_three(trace, step: int) -> list[str]:
    """The model's top three candidates at ``step`` as the game writes them (“␣Paris”)."""
    from explainer.content.assets import load_texts
    from explainer.illustration.vocab import TokenNames
    from explainer.lesson.game import new_round
    from tests.support.lesson import model_vocabulary

    rnd = new_round(load_texts(), trace, step, TokenNames(model_vocabulary()))
    assert rnd is not None
    return [c.label for c in sorted(rnd.candidates, key=lambda c: c.rank)[:3]]


def names(text: str, label: str) -> bool:
    """Whether a drawn text names the token the game shows as ``label``: quoted in a sentence,
    or alone, as a lens guess or a bar of the chart label it ("." in a sentence is no answer)."""
    return label in text or text == label.strip("“”")


def test_an_open_guess_names_the_answer_nowhere(scene, real_trace):
    """While the learner guesses a pass's next token, no drawn text names any of the top three
    candidates (the lens guesses, the caption, the chart) but what the pass's embeddings stage
    showed already, before anything of the answer was known (a candidate can be a word of the
    text read so far, as a chip or the token looked up); once the guess is closed they are back."""
    trace = real_trace("paris")
    texts = scene.builder.texts
    scene.set_answer_rule(Predictor.LEARNER, lambda t, c: c.stage is Stage.LAYERS)
    for step in range(len(trace.steps)):
        top = top_three(trace, step)
        scene.show_frame(trace, Cursor(step, Stage.EMBEDDINGS), animate=False)
        before = set(rb.drawn_texts(scene))
        scene.show_frame(trace, Cursor(step, Stage.LAYERS), animate=False)
        drawn = rb.drawn_texts(scene)
        named = [(label, t) for label in top for t in drawn if names(t, label) and t not in before]
        assert not named, f"pass {step + 1} names the answer while the guess is open: {named}"
        assert texts.panels["layers_hidden"] in drawn  # says where the guesses went
        assert any(b.isVisible() for b in scene.layers.bars)  # the change bars stay
        assert not any(lens.isVisible() for lens in scene.layers.lens)
        scene.show_frame(trace, Cursor(step, Stage.PROBABILITIES), animate=False)  # the pick revealed
        drawn = rb.drawn_texts(scene)
        assert texts.panels["layers_hidden"] not in drawn
        assert any(names(t, top[0]) for t in drawn)
        assert top[0].strip("“”") in [lens.text() for lens in scene.layers.lens if lens.isVisible()]
    scene.show_frame(trace, Cursor(0, Stage.LAYERS), animate=False)
    scene.set_answer_rule(Predictor.LEARNER, None)  # the guess closed at the cursor on screen: drawn again at once
    assert "“␣Paris”" in rb.caption_text(scene)
    assert "␣Paris" in [lens.text() for lens in scene.layers.lens if lens.isVisible()]
    state = rb.frame_state(scene)
    scene.redraw()  # closing it redrew the panels that changed: the same as drawing all anew
    assert rb.frame_state(scene) == state


def test_an_open_guess_is_an_input_of_the_frame(real_trace):
    """The switch reaches the frame as an input: the same cursor, with and without it."""
    from explainer.content.assets import load_texts
    from explainer.frames import FrameBuilder
    from explainer.frames import panels as F

    trace = real_trace("paris")
    builder = FrameBuilder(load_texts())
    cursor = Cursor(0, Stage.LAYERS)
    shown, hidden = builder.frame(trace, cursor), builder.with_answer_hidden(Predictor.LEARNER).frame(trace, cursor)
    assert shown == builder.frame(trace, cursor) and hidden != shown
    assert shown[F.LAYERS].guesses and not shown[F.LAYERS].hidden
    assert hidden[F.LAYERS].guesses == () and hidden[F.LAYERS].hidden and hidden[F.LAYERS].settles_at is None
    assert hidden[F.LAYERS].changes == shown[F.LAYERS].changes
    assert "Paris" in shown[F.CAPTION].text and "Paris" not in hidden[F.CAPTION].text
    assert not hidden[F.PROBABILITIES].shown
    assert builder.with_answer_hidden(None) is builder


def test_embeddings_are_the_real_vectors(scene, real_trace):
    trace = real_trace("paris")
    step = trace.steps[0]
    scene.show_frame(trace, Cursor(0, Stage.EMBEDDINGS), animate=False)
    assert scene.embeddings.headline.text() == "576 numbers per token"
    strips = [s for s in scene.embeddings.strips if s.isVisible()]
    assert len(strips) == len(step.tokens)
    for strip, vec in zip(strips, step.embeddings):
        assert strip.values == list(sample_vector(vec))
    # the last token's whole vector, every number, as a grid
    assert scene.embeddings.full.isVisible() and scene.embeddings.full.values == step.embeddings[-1].tolist()
    assert scene.embeddings.full_title.text() == f"all {len(step.embeddings[-1])} numbers of “␣is”"
    # decode reads one token
    scene.show_frame(trace, Cursor(2, Stage.EMBEDDINGS), animate=False)
    assert sum(s.isVisible() for s in scene.embeddings.strips) == 1
    assert scene.embeddings.full.values == trace.steps[2].embeddings[0].tolist()


def test_prefill_then_decode_kv_cache_grows_by_one(scene, real_trace):
    trace = real_trace("paris")
    n_prompt = len(trace.prompt_tokens)
    scene.show_frame(trace, Cursor(0, Stage.TOKENS), animate=False)
    assert rb.kv_blocks(scene) == 0
    assert scene.kvcache.label.text() == f"prefill: all {n_prompt} prompt tokens in one pass"
    scene.show_frame(trace, Cursor(0, Stage.LAYERS), animate=False)
    assert rb.kv_blocks(scene) == n_prompt
    counts = []
    for i in range(1, len(trace.steps)):
        scene.show_frame(trace, Cursor(i, Stage.LAYERS), animate=False)
        counts.append(rb.kv_blocks(scene))
        assert scene.kvcache.label.text() == f"decode: 1 new token; {trace.steps[i].start} cached"
    assert counts == [n_prompt + i + 1 for i in range(len(counts))]


def test_animations_start_from_the_state_before_their_stage(scene, real_trace, qtbot):
    """The cache grows only after the pass has swept the layers, and the random draw appears
    only after the cuts: neither is shown (spoiled) while its animation has not reached it."""
    trace = real_trace("paris")
    scene.set_speed(1.0)
    scene.show_frame(trace, Cursor(0, Stage.EMBEDDINGS), animate=False)
    scene.show_frame(trace, Cursor(0, Stage.LAYERS), animate=True)
    assert scene.is_animating()
    assert rb.kv_blocks(scene) == 0
    assert not any(bar.isVisible() for bar in scene.layers.bars)
    with qtbot.waitSignal(scene.animation_finished, timeout=10_000):
        pass
    assert rb.kv_blocks(scene) == len(trace.prompt_tokens)

    sampled = real_trace("sampled")
    scene.show_frame(sampled, Cursor(1, Stage.PROBABILITIES), animate=False)
    scene.show_frame(sampled, Cursor(1, Stage.SAMPLING), animate=True)
    assert scene.is_animating()
    assert rb.draw_marker(scene) is None
    scene.finish_animation()
    assert rb.draw_marker(scene) is not None


def test_counters_and_caption_have_real_numbers(scene, real_trace):
    trace = real_trace("paris")
    scene.show_frame(trace, Cursor(0, Stage.PROBABILITIES), animate=False)
    c = rb.counters(scene)
    assert milliseconds(trace.ttft_s) in c["timing"] and milliseconds(trace.tpot_s) in c["timing"]
    assert "on CPU" in c["device"]
    assert "TTFT" in scene.counters_item.line1.text() and "ms" in scene.counters_item.line1.text()
    # the app's passes also compute every layer's guess: its times say so (bench's do not)
    with_lens = any(lv.lens is not None for lv in trace.steps[0].layers)
    assert ("incl. layer guesses" in scene.counters_item.line2.text()) == with_lens
    text = rb.caption_text(scene)
    assert f"{100 * trace.steps[0].sampling.raw.probs[0]:.1f} %" in text and "49,152" in text
    scene.show_frame(trace, Cursor(0, Stage.PRETRAINING), animate=False)
    assert "135 M parameters" in rb.caption_text(scene)
    assert scene.pretraining.params.text() == "135 M"


def test_spotlight_dims_the_other_stages(scene, real_trace):
    trace = real_trace("paris")
    scene.show_frame(trace, Cursor(0, Stage.LAYERS), animate=False)
    assert scene.tokens.opacity() == 1.0
    scene.set_spotlight(True)
    dim = scene.theme.dim_opacity
    assert scene.layers.opacity() == 1.0
    assert scene.tokens.opacity() == dim and scene.probabilities.opacity() == dim
    assert scene.pretraining.opacity() == dim
    assert scene.caption.opacity() == 1.0  # the caption always stays readable
    state = rb.frame_state(scene)
    # the dimmed panel's text fades less than its shapes: it stays readable (test_contrast.py)
    assert state["tokens/title"]["opacity"] == scene.theme.dim_text_opacity
    assert state["tokens/frame"]["opacity"] == dim and state["layers/title"]["opacity"] == 1.0
    scene.show_frame(trace, Cursor(0, Stage.PROBABILITIES), animate=False)
    assert scene.probabilities.opacity() == 1.0 and scene.layers.opacity() == dim
    scene.set_spotlight(False)
    assert scene.layers.opacity() == 1.0
    assert rb.frame_state(scene)["tokens/title"]["opacity"] == 1.0
    scene.show_frame(trace, Cursor(0, Stage.LAYERS), animate=False)  # (no spotlight pass now)
    scene.settle()
    texts = [i for i in scene.items() if isinstance(i, QGraphicsSimpleTextItem | QGraphicsTextItem)]
    ignoring = QGraphicsItem.GraphicsItemFlag.ItemIgnoresParentOpacity
    assert texts and all(t.opacity() == 1.0 and not t.flags() & ignoring for t in texts)
    assert all(p.opacity() == 1.0 for p in scene.panels.values())


def test_themes_switch_colours_and_type(scene, real_trace):
    trace = real_trace("paris")
    scene.show_frame(trace, Cursor(0, Stage.PROBABILITIES), animate=False)
    light = rb.frame_state(scene)
    bars = rb.bar_values(scene)
    scene.set_theme(THEMES["projector"])
    proj = rb.frame_state(scene)
    assert scene.backgroundBrush().color().name() == "#000000"
    assert proj["caption/text"]["color"] == "#ffffff" and light["caption/text"]["color"] != "#ffffff"
    assert proj["caption/text"]["font"][1] > light["caption/text"]["font"][1]
    assert proj["tokens/frame"]["stroke"][1] > light["tokens/frame"]["stroke"][1]
    assert rb.bar_values(scene) == bars  # same data, new look
    scene.set_theme(THEMES["dark"])
    assert rb.frame_state(scene)["caption/text"]["color"] == THEMES["dark"].foreground


def test_step_back_restores_the_frame_exactly(scene, real_trace):
    trace = real_trace("sampled")
    lesson = Walk(trace)
    cursors = lesson.cursors()[:16]
    states = []
    for c in cursors:
        scene.show_frame(trace, c, animate=False)
        states.append(rb.frame_state(scene))
    assert json.loads(json.dumps(states[-1])) == states[-1]  # a JSON-able summary
    for c, st in reversed(list(zip(cursors, states))):
        scene.show_frame(trace, c, animate=False)
        assert rb.frame_state(scene) == st, c


def test_animated_transitions_end_in_the_instant_frame(scene, real_trace, qtbot):
    trace = real_trace("sampled")
    lesson = Walk(trace)
    scene.set_speed(8.0)
    c = lesson.first()
    scene.show_frame(trace, c, animate=False)
    seen_animating = 0
    while (n := lesson.next(c)) is not None and n.step < 2:
        scene.show_frame(trace, n, animate=True)
        if scene.is_animating():
            seen_animating += 1
            with qtbot.waitSignal(scene.animation_finished, timeout=5000):
                pass
        animated = rb.frame_state(scene)
        scene.show_frame(trace, n, animate=False)
        assert animated == rb.frame_state(scene), n
        # and back: exactly the earlier frame
        before = rb.frame_state(scene)
        scene.show_frame(trace, c, animate=True)  # stepping back does not animate
        assert not scene.is_animating()
        scene.show_frame(trace, n, animate=False)
        assert rb.frame_state(scene) == before
        c = n
    assert seen_animating >= 6


def test_finish_animation_is_deterministic(scene, real_trace):
    trace = real_trace("sampled")
    scene.set_speed(1.0)
    for stage in (Stage.EMBEDDINGS, Stage.LAYERS, Stage.PROBABILITIES, Stage.SAMPLING, Stage.APPEND):
        prev = Walk(trace).prev(Cursor(1, stage))
        scene.show_frame(trace, prev, animate=False)
        scene.show_frame(trace, Cursor(1, stage), animate=True)
        assert scene.is_animating(), stage
        scene.finish_animation()
        assert not scene.is_animating()
        finished = rb.frame_state(scene)
        scene.show_frame(trace, Cursor(1, stage), animate=False)
        assert rb.frame_state(scene) == finished


def test_speed_zero_jumps_to_the_end(scene, real_trace):
    trace = real_trace("paris")
    scene.set_speed(0)
    scene.show_frame(trace, Cursor(0, Stage.PRETRAINING), animate=False)
    scene.show_frame(trace, Cursor(0, Stage.TOKENS), animate=True)
    assert not scene.is_animating()


def test_prefill_chips_travel_together(scene, real_trace):
    """Read while the travel runs: the animator draws a transition's first phase at its start
    (t = 0) when it starts it, so the chips are in flight as soon as the frame is shown."""
    trace = real_trace("paris")
    scene.set_speed(1.0)
    scene.show_frame(trace, Cursor(0, Stage.TOKENS), animate=False)
    scene.show_frame(trace, Cursor(0, Stage.EMBEDDINGS), animate=True)
    assert scene.is_animating()
    flying = [t for t in scene.travellers if t.isVisible()]
    assert len(flying) == len(trace.prompt_tokens)
    scene.finish_animation()
    assert not any(t.isVisible() for t in scene.travellers)
    scene.show_frame(trace, Cursor(1, Stage.TOKENS), animate=False)
    scene.show_frame(trace, Cursor(1, Stage.EMBEDDINGS), animate=True)
    assert scene.is_animating()
    assert sum(t.isVisible() for t in scene.travellers) == 1  # decode: one token
    scene.finish_animation()


def test_long_prompt_elides_and_stays_inside(scene, real_trace):
    trace = real_trace("long")
    scene.show_frame(trace, Walk(trace).last(), animate=False)
    chips = rb.token_chips(scene)
    n_total = len(trace.prompt_tokens) + len(trace.steps)
    assert len(chips) < n_total
    assert scene.tokens.more.isVisible()
    hidden = n_total - len(chips)
    assert scene.tokens.more.label.text() == f"… {hidden:,} more"
    assert chips[-1] == (trace.steps[-1].sampling.chosen.id, trace.steps[-1].sampling.chosen.text)
    assert chips[0] == (trace.prompt_tokens[0].id, trace.prompt_tokens[0].text)
    panel = R.TOKENS.canvas_rect()
    for c in rb.drawn_chips(scene) + [scene.tokens.more]:
        assert panel.contains(c.sceneBoundingRect()), c.token
    # the embeddings of a long prefill are elided too
    scene.show_frame(trace, Cursor(0, Stage.EMBEDDINGS), animate=False)
    assert scene.embeddings.more.isVisible() and "more tokens" in scene.embeddings.more.text()
    assert R.EMBEDDINGS.canvas_rect().contains(scene.embeddings.more.sceneBoundingRect())


def test_everything_stays_on_the_canvas(scene, real_trace):
    canvas = scene.sceneRect()
    for theme in THEMES.values():
        scene.set_theme(theme)
        for name in ("chat", "sampled", "long"):
            trace = real_trace(name)
            for c in (Cursor(0, Stage.TOKENS), Cursor(0, Stage.SAMPLING), Walk(trace).last()):
                scene.show_frame(trace, c, animate=False)
                for item in scene.items():
                    if item.isVisible() and item.data(0):
                        r = item.sceneBoundingRect()
                        assert canvas.contains(r) or r.isEmpty(), (theme.name, name, c, item.data(0), r)


def test_odd_unicode_renders(scene, real_trace, real_engine, tmp_path):
    from explainer.diagram.render import render_scene_png

    trace = real_trace("unicode")
    scene.show_frame(trace, Cursor(0, Stage.TOKENS), animate=False)
    expected = [(t.id, t.text) for t in real_engine.tokenizer.encode(trace.prompt)]
    drawn = rb.token_chips(scene)
    # byte pieces are labelled by their bytes (wider chips), so a middle run may be elided
    assert any(
        drawn[:i] == expected[:i] and drawn[i:] == expected[len(expected) - (len(drawn) - i) :]
        for i in range(len(drawn) + 1)
    ), drawn
    labels = [c.label.text() for c in scene.tokens.chips if c.isVisible() and c.token is not None]
    assert any(label.startswith("⟨") for label in labels)  # a piece of a character shows its bytes
    assert not any("\ufffd" in label for label in labels)
    scene.show_frame(trace, Walk(trace).last(), animate=False)
    out = render_scene_png(scene, tmp_path / "u.png", scale=0.5)
    assert out.stat().st_size > 1000


def test_show_empty(scene):
    scene.show_empty("Loading the model…")
    assert rb.token_chips(scene) == [] and rb.bar_values(scene) == []
    assert rb.caption_text(scene) == "Loading the model…"
    assert scene.pretraining.isVisible() and sum(s.isVisible() for s in scene.layers.slabs) == SKETCH_LAYERS


def test_growing_trace_snapshots_keep_animating(scene, real_trace, qtbot):
    import copy

    full = real_trace("paris")
    snap = copy.copy(full)
    snap.steps = full.steps[:1]
    snap.stop_reason = None
    scene.set_speed(4.0)
    scene.show_frame(snap, Cursor(0, Stage.APPEND), animate=False)
    scene.show_frame(full, Cursor(1, Stage.TOKENS), animate=True)  # a newer snapshot of the same request
    assert scene.is_animating()
    with qtbot.waitSignal(scene.animation_finished, timeout=5000):
        pass


def test_a_slow_pass_keeps_the_timings_inside_their_panel(scene, real_trace):
    """Measured times make the counters' lines longer on a slow machine; they stay in the panel."""
    import dataclasses

    trace = real_trace("paris")
    slow = dataclasses.replace(trace, steps=[dataclasses.replace(s, forward_s=12345.678) for s in trace.steps])
    scene.show_frame(slow, Cursor(1, Stage.LAYERS), animate=False)
    panel = R.COUNTERS.canvas_rect()
    for line in (scene.counters_item.line1, scene.counters_item.line2):
        assert line.isVisible() and panel.contains(line.sceneBoundingRect()), line.text()
    assert "12345.7 s" in scene.counters_item.line2.text()  # long times read in seconds


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_the_draw_marker_never_overlaps_its_sentence(scene, real_trace, theme):
    """The number above the draw marker sits below the sentence "random draw 0.596 lands on …",
    in every theme and all through the marker's fall (falling, it once crossed the sentence)."""
    trace = real_trace("sampled")
    scene.set_theme(THEMES[theme])
    for step in range(len(trace.steps)):
        scene.show_frame(trace, Cursor(step, Stage.SAMPLING), animate=False)
        scene.settle()
        p = scene.probabilities
        for t in (0.0, 0.5, 1.0):  # the animation's start, middle and end
            p.set_draw(True, t)
            title, label = p.drawing.draw_title.sceneBoundingRect(), p.drawing.marker_label.sceneBoundingRect()
            assert p.drawing.marker_label.isVisible() and not title.intersects(label), (theme, step, t)

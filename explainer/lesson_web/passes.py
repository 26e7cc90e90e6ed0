"""What the page offers at each pass of the run: Predict's round, Your turn's recorded endings,
what-if's step, and the chart as a table at each frame.

- **Predict**: the round the app offers at the pass (:func:`~explainer.lesson.game.new_round`,
  with the run's seed, so the same four in the same order) and the reveal each of its four picks
  gets (:func:`~explainer.lesson.game.reveal`): the page shows the one the learner picks.
- **Your turn**: at the first passes, each top candidate with the model's ending from it: the
  run's own from its pick, a recorded continuation (explainer/lesson_web/recorded.py) from the
  others, each token with the probability the model gave it, as the window's tab shows them.
- **What if?**: what the browser's sampler needs besides the pass's scores (logits.py): the
  recorded random number, the token the run took and its label, which table of labels names the
  candidates after this pass's text.
- **The chart as a table**: :func:`~explainer.frames.chart_table.chart_table` of each frame, worded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explainer.content.texts import LessonTexts
from explainer.engine.text_bytes import TextStream, characters
from explainer.engine.trace import Trace
from explainer.frames import Frame
from explainer.frames.chart_table import chart_table
from explainer.illustration.formatting import percent, quoted, visible
from explainer.illustration.vocab import TokenNames
from explainer.lesson.game import new_round, reveal
from explainer.lesson_web.recorded import CANDIDATES, YOUR_TURN_PASSES, Recorded


def round_data(texts: LessonTexts, trace: Trace, step: int, names: TokenNames) -> dict[str, Any] | None:
    """Predict at ``step``: the round and each pick's reveal (None: too few candidates for one)."""
    rnd = new_round(texts, trace, step, names, trace.settings.seed or 0)
    if rnd is None:
        return None
    reveals = {c.id: reveal(texts, trace, rnd, c.id, names) for c in rnd.candidates}
    first = next(iter(reveals.values()))
    return {
        "question": rnd.question,
        "candidates": [{"id": c.id, "label": c.label, "pct": percent(c.prob), "rank": c.rank} for c in rnd.candidates],
        "top": rnd.top.id,
        "reveals": {str(i): {"correct": r.correct, "message": r.message} for i, r in reveals.items()},
        "explanation": first.explanation,  # (greedy vs sampled: the same whatever was picked)
    }


def ending(trace: Trace, start: int, names: TokenNames) -> dict[str, Any]:
    """The text and the tokens of ``trace`` from ``start`` on, each token with the probability the
    model gave it, decoded as one stream after the unfinished character before ``start`` (the
    window's Your turn tab shows an ending the same way: ui/your_turn.py ``ending``)."""
    names.use(trace)
    steps = trace.steps[start:]
    before = trace.unfinished_before(start)
    chosen = [s.sampling.chosen for s in steps]
    chars = characters([t.data for t in chosen], before)
    stream = TextStream()
    stream.push(before)
    return {
        "text": "".join(stream.push(t.data) for t in chosen),
        "tokens": [
            [visible(names.display(t, ch)), percent(s.sampling.chosen_raw_prob), trace.learner_picked(s.index)]
            for s, t, ch in zip(steps, chosen, chars)
        ],
    }


def your_turn_data(trace: Trace, step: int, names: TokenNames, recorded: Recorded) -> dict[str, Any]:
    """The top candidates at ``step``, each with the ending the model wrote from it."""
    s = trace.steps[step].sampling
    before = trace.unfinished_before(step)
    ids = [int(i) for i in s.raw.ids[:CANDIDATES].tolist()]
    labels = names.candidates(ids, before)
    out = []
    for rank, (token, label, prob) in enumerate(zip(ids, labels, s.raw.probs.tolist())):
        run = trace if token == s.chosen.id else recorded.continuations[(step, token)]
        out.append(
            {
                "id": token,
                "label": quoted(label),
                "pct": percent(float(prob)),
                "model": token == s.chosen.id,
                "top": rank == 0,
                "ending": ending(run, step, TokenNames(names.vocabulary)),
            }
        )
    return {"candidates": out}


def whatif_step(trace: Trace, step: int, names: TokenNames, table: int) -> dict[str, Any] | None:
    """What the browser's what-if needs at ``step`` besides its scores (None: none recorded)."""
    st = trace.steps[step]
    if st.logits is None:
        return None
    s = st.sampling
    return {
        "draw": s.draw,
        "chosen": s.chosen.id,
        "recorded_label": quoted(names.label(s.chosen, trace.unfinished_before(step))),
        "labels": table,
    }


def chart_rows(texts: LessonTexts, frame: Frame) -> dict[str, Any]:
    """The chart at ``frame`` as rows of words (app.json chart_table), most likely first."""
    table = chart_table(frame)
    word = texts.app["chart_table"]

    def yes_no(flag: bool | None) -> str:
        return "" if flag is None else word["yes"] if flag else word["no"]

    rows = [
        [
            visible(r.label) if r.label else word["other"],
            percent(r.raw),
            percent(r.final) if r.final is not None else "",
            yes_no(r.kept),
            yes_no(r.chosen),
        ]
        for r in table.rows
    ]
    return {"state": table.state.value, "rows": rows, "greedy": table.greedy}


def chart_tables(texts: LessonTexts, frames: Sequence[Frame]) -> tuple[list[dict[str, Any]], list[int]]:
    """The distinct tables of ``frames`` and, per frame, the number of its table."""
    tables: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    index = []
    for frame in frames:
        rows = chart_rows(texts, frame)
        key = repr(rows)
        if key not in seen:
            seen[key] = len(tables)
            tables.append(rows)
        index.append(seen[key])
    return tables, index


def passes_data(
    texts: LessonTexts, trace: Trace, names: TokenNames, recorded: Recorded, whatif_passes: int, label_table: list[int]
) -> dict[str, Any]:
    """Predict, Your turn and what-if per pass (``label_table[step]``: the number of the table of
    labels for the candidates after that pass's text)."""
    steps = range(len(trace.steps))
    return {
        "rounds": [round_data(texts, trace, i, names) for i in steps],
        "your_turn": [your_turn_data(trace, i, names, recorded) for i in steps if i < YOUR_TURN_PASSES],
        "whatif": [whatif_step(trace, i, names, label_table[i]) if i < whatif_passes else None for i in steps],
    }

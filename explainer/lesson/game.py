"""Predict the next token: a small game on the model's real probabilities.

Before the chart is revealed, the learner picks one of four candidates for a step of the run:
the model's real top three plus one long shot from further down the recorded list, shuffled.
The reveal scores the pick against the step's *raw* probabilities (the model's own, before any
sampling setting): right means the model's favourite, and the reveal says how likely the pick
really was. When the run's sampler took another token than the favourite, the reveal explains
greedy versus sampled with the step's real numbers.

Everything is deterministic given ``seed`` (the long shot and the order come from a generator
seeded with the seed and the step), so tests, replays and a saved lesson show the same round.
Python's own generator, not numpy's (as lesson/questions.py): numpy imports numpy.random on
first use, and the first round was its first use in the window's process, on the GUI thread in
the middle of the first run, where it was the one GUI block past a frame's time that
`bench --gui` met in nearly every run.
The score is a frozen :class:`GameState`; with the passes played this run (:class:`Play`) it is
part of the learner's record, :class:`explainer.lesson.state.LessonState`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from itertools import chain
from typing import Any

from explainer.content.texts import LessonTexts
from explainer.engine.text_bytes import byte_label, spell
from explainer.engine.trace import TokenRef, Trace
from explainer.illustration.characters import MAX_CODE_POINTS_PER_CHAR, count, last
from explainer.illustration.formatting import is_special, percent, quoted
from explainer.illustration.vocab import TokenNames

N_TOP = 3  # the model's real top candidates in a round
LONG_SHOT_FROM = 10  # the long shot comes from below the chart's ten bars when the list allows
CONTEXT_CHARS = 40  # how much of the text before the step the question quotes


@dataclass(frozen=True)
class Candidate:
    id: int
    label: str  # as the chart writes it, e.g. “␣Paris”
    prob: float  # raw probability at this step
    rank: int  # 0 = the model's favourite


@dataclass(kw_only=True, frozen=True)
class Round:
    """One round: the four candidates in the order shown, and what the run really did."""

    step: int
    context: str  # the end of the text the model saw, for the question
    candidates: tuple[Candidate, ...]  # shuffled
    top: Candidate  # the right answer: the most likely token
    chosen_id: int  # what the sampler actually picked at this step
    chosen_label: str
    question: str  # the prompt of the round, in words


@dataclass(frozen=True)
class Reveal:
    correct: bool
    pick: Candidate
    top: Candidate
    ranked: tuple[Candidate, ...]  # the four candidates by probability, for the revealed chart
    message: str  # right or wrong, with the pick's real probability
    explanation: str  # greedy vs sampled, with this step's numbers


@dataclass(frozen=True)
class Play:
    """A pass played this run: the round as it was offered and its reveal (shown again when the
    learner comes back to the pass, so a pass is scored once)."""

    round: Round
    reveal: Reveal


def _context_end(trace: Trace, step: int) -> str:
    """The last words before ``step``, read backwards from the step only as far as the quote
    needs: every frame of an 8k-token prompt asks for it, and the whole text is long. The tokens
    are decoded together, so a character of several tokens reads as itself; one the text leaves
    unfinished before the step shows as its bytes (the next token may finish it)."""
    before = chain((s.sampling.chosen for s in reversed(trace.steps[:step])), reversed(trace.prompt_tokens))
    tokens: list[TokenRef] = []
    text = ""
    for token in before:
        if is_special(token.text):
            continue
        tokens.append(token)
        if token.raw is not None:
            continue  # (a piece: the tokens before it may hold the rest of its character)
        # whitespace runs collapse to one space, so the end of the collapsed whole is the
        # collapsed end: once that is longer than the quote, earlier tokens cannot change it
        text = " ".join(spell(t.data for t in reversed(tokens)).text.split())
        if len(text) > CONTEXT_CHARS * MAX_CODE_POINTS_PER_CHAR or count(text) > CONTEXT_CHARS:
            break
    spelled = spell(t.data for t in reversed(tokens))
    text = " ".join(spelled.text.split()) + (byte_label(spelled.unfinished) if spelled.unfinished else "")
    return f"“{text if count(text) <= CONTEXT_CHARS else '…' + last(text, CONTEXT_CHARS - 1)}”"


def _playable(label: str) -> bool:
    """A long shot a learner can read: not a control token, not blank, not a byte piece or #id."""
    return bool(label.strip()) and not is_special(label) and not label.startswith(("#", "⟨")) and "\ufffd" not in label


def new_round(texts: LessonTexts, trace: Trace, step: int, names: TokenNames, seed: int = 0) -> Round | None:
    """A round for ``trace.steps[step]``; None when the step recorded fewer than four candidates."""
    s = trace.steps[step]
    names.use(trace)
    raw = s.sampling.raw
    ids = [int(i) for i in raw.ids.tolist()]
    probs = [float(p) for p in raw.probs.tolist()]
    if len(ids) < N_TOP + 1:
        return None
    before = trace.unfinished_before(step)
    labels = names.candidates(ids, before)
    cands = [Candidate(i, quoted(label), p, r) for r, (i, label, p) in enumerate(zip(ids, labels, probs))]
    top = cands[:N_TOP]
    taken = {c.label for c in top}
    below = [c for c in cands[N_TOP:] if c.prob > 0 and _playable(names(c.id)) and c.label not in taken]
    pool = [c for c in below if c.rank >= LONG_SHOT_FROM] or below
    if not pool:
        return None
    rng = random.Random(((seed & 0xFFFFFFFF) << 32) | (step & 0xFFFFFFFF))
    long_shot = pool[rng.randrange(len(pool))]
    four = [*top, long_shot]
    rng.shuffle(four)
    shuffled = tuple(four)
    context = _context_end(trace, step)
    chosen = s.sampling.chosen
    return Round(
        step=step,
        context=context,
        candidates=shuffled,
        top=top[0],
        chosen_id=chosen.id,
        chosen_label=quoted(names.label(chosen, before)),
        question=texts.text("game", "ask").format(context=context),
    )


class Rounds:
    """The rounds of one run, each made once, on first asking: stepping back and forth over a
    pass must stay cheap, and the same pass must offer the same four.

    This is a memo of :func:`new_round` (everything in a round follows from the trace and its
    seed), not the learner's record. It is one run's: while a run is generated every step
    arrives as a new snapshot of the same run, so the owner calls :meth:`clear` when a new run
    starts rather than the memo guessing from the trace object.
    """

    def __init__(self) -> None:
        self._made: dict[int, Round | None] = {}

    def at(self, texts: LessonTexts, trace: Trace, step: int, names: TokenNames) -> Round | None:
        if step not in self._made:
            self._made[step] = new_round(texts, trace, step, names, trace.settings.seed or 0)
        return self._made[step]

    def clear(self) -> None:
        self._made = {}


def explain_choice(texts: LessonTexts, trace: Trace, step: int, names: TokenNames) -> str:
    """Greedy vs sampled, with the real numbers: why the run took the token it took."""
    s = trace.steps[step].sampling
    names.use(trace)
    before = trace.unfinished_before(step)
    top = quoted(names.candidates([int(s.raw.ids[0])], before)[0])
    chosen = quoted(names.label(s.chosen, before))
    if s.draw is None or s.chosen.id == int(s.raw.ids[0]):
        return texts.text("game", "greedy_same").format(chosen=chosen, top=top)
    st = trace.settings
    kept = f"{s.kept:,}"
    return texts.text("game", "sampled_other").format(
        temperature=f"{st.temperature:g}",
        kept=kept,
        draw=f"{s.draw:.3f}",
        chosen=chosen,
        chosen_raw_pct=percent(s.chosen_raw_prob),
        chosen_pct=percent(s.chosen_prob),
        top=top,
        top_pct=percent(float(s.raw.probs[0])),
    )


def reveal(texts: LessonTexts, trace: Trace, rnd: Round, pick_id: int, names: TokenNames) -> Reveal:
    """Score a pick: right when it is the model's most likely token."""
    pick = next((c for c in rnd.candidates if c.id == pick_id), None)
    if pick is None:
        raise ValueError(f"token {pick_id} is not one of this round's candidates")
    correct = pick.id == rnd.top.id
    key = "right" if correct else "wrong"
    message = texts.text("game", key).format(
        pick=pick.label, pick_pct=percent(pick.prob), top=rnd.top.label, top_pct=percent(rnd.top.prob)
    )
    ranked = tuple(sorted(rnd.candidates, key=lambda c: c.rank))
    return Reveal(correct, pick, rnd.top, ranked, message, explain_choice(texts, trace, rnd.step, names))


@dataclass(frozen=True)
class GameState:
    """The score: rounds played, right picks, the current and the best streak."""

    played: int = 0
    score: int = 0
    streak: int = 0
    best: int = 0

    def after(self, result: Reveal) -> GameState:
        streak = self.streak + 1 if result.correct else 0
        return replace(
            self,
            played=self.played + 1,
            score=self.score + int(result.correct),
            streak=streak,
            best=max(self.best, streak),
        )

    def text(self, texts: LessonTexts) -> str:
        return texts.text("game", "score").format(
            score=self.score, played=self.played, streak=self.streak, best=self.best
        )

    def to_dict(self) -> dict[str, int]:
        return {"played": self.played, "score": self.score, "streak": self.streak, "best": self.best}

    @classmethod
    def from_dict(cls, data: object) -> GameState:
        """Tolerant: unreadable or inconsistent numbers give a fresh score."""
        if not isinstance(data, dict):
            return cls()
        vals: dict[str, Any] = {k: data.get(k) for k in ("played", "score", "streak", "best")}
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in vals.values()):
            return cls()
        st = cls(**vals)
        ok = st.score <= st.played and st.streak <= st.best <= st.score
        return st if ok else cls()

"""What one request recorded, step by step: the contract between the engine and the views.

The engine fills a Trace while the model runs; the views only read it; a user saves it and
opens it again later (see trace_file.py). The numbers a pass records (embeddings, each layer's
change, guesses and attention, the sampler's candidate lists) are numpy arrays, one per output
and step, never Python floats in lists: a long prompt records millions of numbers, and a step
is recorded with one array write per output. Probabilities are kept at float32, as shown;
embeddings and attention weights, which are only ever drawn as colours and bars, at float16.

Every record is checked when it is appended or loaded (``append_step`` and ``check_trace``, in
trace_checks.py), with errors naming the exact field, because a trace that loads but is
inconsistent would make the views draw nonsense.

Records holding arrays compare with :func:`~explainer.engine.trace_equality.record_eq` (every
field, arrays by dtype, shape and value), so a field added to a record is part of ``==`` at once;
TokenRef and ModelInfo hold plain values and keep the dataclass's own ``==`` and hash.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal, overload

import numpy as np

from explainer.engine.sampler import SamplingSettings
from explainer.engine.text_bytes import SHOWN, Spelled, is_control, is_whole, spell
from explainer.engine.trace_equality import record_eq

PHASES = ("prefill", "decode")
STOP_REASONS = ("eos", "max_tokens", "context")
Phase = Literal["prefill", "decode"]
StopReason = Literal["eos", "max_tokens", "context"]
ATTENTION_TOP = 16  # attended positions kept per layer and head


@dataclass(frozen=True, slots=True)
class TokenRef:
    """A token id and its text as the tokenizer shows it.

    A token that is only part of a character (byte-level tokens split CJK, emoji, Greek...) has no
    text of its own: ``text`` is then its bytes decoded with U+FFFD, as the files of earlier
    versions hold it, and ``raw`` keeps the bytes themselves, so the text a run spells can be
    decoded whole (engine/text_bytes.py). ``raw`` is None for every token that reads on its own,
    whose bytes are its text's UTF-8.
    """

    id: int
    text: str
    raw: bytes | None = None

    @classmethod
    def of(cls, token_id: int, data: bytes) -> TokenRef:
        """The token ``token_id`` whose bytes are ``data``."""
        return cls(token_id, data.decode("utf-8", "replace"), None if is_whole(data) else data)

    @property
    def data(self) -> bytes:
        """The bytes this token adds to the text."""
        return self.text.encode("utf-8", "surrogatepass") if self.raw is None else self.raw

    @property
    def partial(self) -> bool:
        """Only part of a character: shown by its bytes."""
        return self.raw is not None


@dataclass(eq=False, slots=True)
class TopList:
    """The n most likely ids (int32) with their probabilities (float32), and the mass outside them."""

    ids: np.ndarray
    probs: np.ndarray
    rest: float

    __eq__ = record_eq


@dataclass(kw_only=True, eq=False, slots=True)
class StepSampling:
    """How the token of one step was picked: the top of every stage, and the draw.

    ``draw`` is None for greedy decoding; ``chosen_prob`` is the chosen token's final probability
    and ``chosen_raw_prob`` its probability before any temperature or cut. The engine makes one
    from the sampler's result with :func:`explainer.engine.trace_sampling.step_sampling`.
    """

    raw: TopList
    after_temperature: TopList
    after_top_k: TopList
    after_top_p: TopList
    kept: int
    draw: float | None
    chosen: TokenRef
    chosen_prob: float
    chosen_raw_prob: float

    @property
    def stages(self) -> tuple[TopList, TopList, TopList, TopList]:
        return self.raw, self.after_temperature, self.after_top_k, self.after_top_p

    __eq__ = record_eq


@dataclass(frozen=True, eq=False, slots=True)
class LayerView:
    """One layer of a :class:`Layers` record, read as plain values."""

    change: float
    lens: TopList | None
    attention_ids: np.ndarray  # int32 [heads, K]: the positions most attended to (-1: none)
    attention_weights: np.ndarray  # float16 [heads, K]

    __eq__ = record_eq


@dataclass(eq=False, slots=True)
class Layers:
    """What every layer did at the last read position, one row per layer.

    ``change`` is |h_l - h_(l-1)| / |h_(l-1)| for the last position's hidden state; ``lens_*`` are
    each layer's top guesses if the model stopped after it (final norm + output head; None when
    not computed); ``attention_*`` are, per head, the ``ATTENTION_TOP`` positions the last read
    token attends to most and their weights, most attended first (-1 and 0 pad a short context).
    """

    change: np.ndarray  # float32 [n_layers]
    lens_ids: np.ndarray | None  # int32 [n_layers, k]
    lens_probs: np.ndarray | None  # float32 [n_layers, k]
    attention_ids: np.ndarray  # int32 [n_layers, heads, K]
    attention_weights: np.ndarray  # float16 [n_layers, heads, K]

    def __len__(self) -> int:
        return len(self.change)

    @overload
    def __getitem__(self, i: int) -> LayerView: ...

    @overload
    def __getitem__(self, i: slice) -> list[LayerView]: ...

    def __getitem__(self, i: int | slice) -> LayerView | list[LayerView]:
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        lens = None
        if (
            self.lens_ids is not None
            and self.lens_probs is not None
            and self.lens_ids.shape[1]
            and self.lens_ids[i, 0] >= 0
        ):
            probs = self.lens_probs[i]
            lens = TopList(self.lens_ids[i], probs, max(0.0, 1.0 - float(probs.sum(dtype=np.float64))))
        return LayerView(float(self.change[i]), lens, self.attention_ids[i], self.attention_weights[i])

    def __iter__(self) -> Iterator[LayerView]:
        return (self[i] for i in range(len(self)))

    @property
    def has_lens(self) -> bool:
        return self.lens_ids is not None

    def guesses(self) -> list[int | None]:
        """Each layer's top lens guess (None: not computed)."""
        if self.lens_ids is None or self.lens_ids.shape[1] == 0:
            return [None] * len(self)
        return [int(i) if i >= 0 else None for i in self.lens_ids[:, 0].tolist()]

    __eq__ = record_eq


@dataclass(kw_only=True, eq=False, slots=True)
class Step:
    """One forward pass and the token sampled from it.

    ``start`` is the number of tokens already in the KV cache before the pass; ``tokens`` are the
    tokens read in it (the whole prompt for prefill, one token for decode). ``embeddings`` holds
    one row per read token ([n_tokens, width], float16): the first ``width`` of the model's
    ``embedding_dim`` numbers. ``logits`` are the model's raw scores for the next token (float32,
    one per vocabulary entry), so the sampler can be rerun on them with other settings ("what
    if?"); None in traces saved before they were recorded.
    """

    index: int
    phase: Phase
    start: int
    tokens: list[TokenRef]
    embeddings: np.ndarray
    embedding_dim: int
    layers: Layers
    sampling: StepSampling
    forward_s: float
    sample_s: float
    logits: np.ndarray | None = None

    @property
    def end(self) -> int:
        """Tokens in the context after this pass."""
        return self.start + len(self.tokens)

    __eq__ = record_eq


@dataclass(frozen=True, slots=True)
class Branch:
    """Marks a run that continues another from a token the learner picked ("Your turn").

    At step ``step`` the token was the learner's choice, not the sampler's: the step records the
    model's real probabilities there, and ``steps[step].sampling.chosen`` is the learner's token.
    ``model_pick`` is what the original run (same prompt, same settings and seed) chose at that
    step. The steps before it repeat the original's tokens; the ones after are the model's own.
    """

    step: int
    model_pick: TokenRef
    by_class: bool = False  # the token was a class's most-voted one (class mode), not one learner's


@dataclass(kw_only=True, frozen=True, slots=True)
class ModelInfo:
    """The model a trace was recorded with (shown in the UI, checked against the steps)."""

    name: str
    provider: str  # where it ran, as the UI says it: "CPU" or "CUDA"
    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    vocab_size: int
    context_length: int
    n_params: int
    license: str = ""  # the weights' licence as its publisher names it ("" where the file does not say)


@dataclass(kw_only=True, eq=False, slots=True)
class Trace:
    """Everything one request recorded. Build with :meth:`new` and :meth:`append`; save and open
    with :mod:`explainer.engine.trace_file` (``save_trace``, ``load_trace``)."""

    model: ModelInfo
    prompt: str
    chat: bool
    settings: SamplingSettings
    prompt_tokens: list[TokenRef]
    steps: list[Step] = field(default_factory=list)
    stop_reason: StopReason | None = None
    created: str = ""
    branch: Branch | None = None  # set when the learner picked a token of this run (see Branch)

    @classmethod
    def new(
        cls,
        model: ModelInfo,
        prompt: str,
        chat: bool,
        settings: SamplingSettings,
        prompt_tokens: list[TokenRef],
        branch: Branch | None = None,
    ) -> Trace:
        """An empty trace stamped with the current UTC time."""
        created = datetime.now(UTC).isoformat(timespec="seconds")
        return cls(
            model=model,
            prompt=prompt,
            chat=chat,
            settings=settings,
            prompt_tokens=list(prompt_tokens),
            created=created,
            branch=branch,
        )

    def learner_picked(self, step_index: int) -> bool:
        """Whether the token of that step was the learner's choice rather than the sampler's."""
        return self.branch is not None and self.branch.step == step_index

    # --- derived numbers the views show ---------------------------------

    @property
    def ttft_s(self) -> float | None:
        """Time to first token: the prefill pass plus its sampling, None before it ran."""
        if not self.steps:
            return None
        return self.steps[0].forward_s + self.steps[0].sample_s

    @property
    def tpot_s(self) -> float | None:
        """Time per output token: median over decode steps (robust to one slow step)."""
        times = [s.forward_s + s.sample_s for s in self.steps if s.phase == "decode"]
        return statistics.median(times) if times else None

    @property
    def output_tokens(self) -> list[TokenRef]:
        """The token chosen at each step, in order (including a final end-of-sequence token)."""
        return [s.sampling.chosen for s in self.steps]

    @property
    def text(self) -> str:
        """The prompt followed by the text the chosen tokens spell (a character the last ones
        leave unfinished is left out: see :meth:`answer`)."""
        return self.prompt + self.answer().text

    def answer(self, steps: int | None = None, specials: bool = True, errors: str = SHOWN) -> Spelled:
        """What the first ``steps`` chosen tokens spell (all of them by default), decoded as one
        stream; ``specials=False`` leaves out control tokens such as ``<|im_end|>``; ``errors``:
        how bytes that make no character are written (engine/text_bytes.py)."""
        chosen = self.output_tokens if steps is None else [s.sampling.chosen for s in self.steps[:steps]]
        return spell((t.data for t in chosen if specials or not is_control(t.text)), errors)

    def unfinished_before(self, step_index: int) -> bytes:
        """The bytes of a character the answer leaves unfinished before the given step's token
        (b"" when the text so far ends whole): what a candidate at that step may finish."""
        first = step_index
        while first > 0 and self.steps[first - 1].sampling.chosen.raw is not None:
            first -= 1  # (a token that reads on its own ends any character before it)
        return spell(s.sampling.chosen.data for s in self.steps[first:step_index]).unfinished

    def context_used(self, step_index: int) -> int:
        """Tokens in the context after the given step's pass."""
        return self.steps[step_index].end

    __eq__ = record_eq

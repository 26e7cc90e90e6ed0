"""The sampler that shows its work.

Picking the next token is where "the model" turns into "the answer", so the app
shows each stage separately: the raw distribution, the effect of temperature,
of top-k and of top-p, and finally the random draw.  Every stage is a full
vocabulary probability vector so the UI can draw any of them, and the final
choice is a pure function of the recorded numbers
(:func:`explainer.engine.ranking.pick_from`, whose module says the draw's
convention), so a marker drawn on the cumulative bar lands exactly on the token
that was chosen.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from explainer.engine.ranking import pick_from, ranked, renormalise, top_order
from explainer.engine.sampling_limits import MAX_NEW_TOKENS_LIMIT, MAX_TEMPERATURE
from explainer.errors import ExplainerError

TOP_P_TOLERANCE = 1e-12


class InvalidSetting(ExplainerError):
    """A sampling setting out of range; ``field`` names it (``temperature``, ``top_k``, ``top_p``,
    ``seed`` or ``max_new_tokens``), so a settings panel can mark the field without reading the
    message."""

    def __init__(self, field: str, message: str, hint: str) -> None:
        super().__init__(message, hint)
        self.field = field


def _is_int(value: object) -> bool:
    """True for real integers; bool is excluded because True is not a top-k."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class SamplingSettings:
    """How the next token is picked.

    ``temperature`` 0 means greedy (always the most likely token);
    ``top_k`` 0 and ``top_p`` 1 switch those cuts off; ``seed`` None means
    "pick a fresh seed" (the sampler records the one it used).
    Construction does not validate, so a settings panel can hold an invalid
    value and show the error from :meth:`validate`.
    """

    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int | None = None
    max_new_tokens: int = 64

    def validate(self) -> None:
        """Raise :class:`InvalidSetting` for the first invalid setting; the only place settings are checked."""
        t = self.temperature
        if not _is_real(t) or not math.isfinite(t):
            raise InvalidSetting(
                "temperature",
                f"Temperature must be a finite number, got {t!r}.",
                "Use 0 for greedy decoding or a value such as 0.7.",
            )
        if t < 0:
            raise InvalidSetting(
                "temperature",
                f"Temperature cannot be negative (got {t}).",
                "Use 0 for greedy decoding or a positive value such as 0.7.",
            )
        if t > MAX_TEMPERATURE:
            raise InvalidSetting(
                "temperature",
                f"Temperature {t} is above the maximum of {MAX_TEMPERATURE:g}.",
                "Above about 2 the output is already close to random; use a value between 0 and 2.",
            )
        k = self.top_k
        if not _is_int(k):
            raise InvalidSetting(
                "top_k",
                f"Top-k must be a whole number, got {k!r}.",
                "Use 0 to switch top-k off, or a count such as 40.",
            )
        if k < 0:
            raise InvalidSetting(
                "top_k",
                f"Top-k cannot be negative (got {k}).",
                "Use 0 to switch top-k off, or a count such as 40.",
            )
        p = self.top_p
        if not _is_real(p) or math.isnan(p) or not 0.0 < p <= 1.0:
            raise InvalidSetting(
                "top_p",
                f"Top-p must be greater than 0 and at most 1, got {p!r}.",
                "Use 1 to switch top-p off, or a value such as 0.9.",
            )
        n = self.max_new_tokens
        if not _is_int(n) or not 1 <= n <= MAX_NEW_TOKENS_LIMIT:
            raise InvalidSetting(
                "max_new_tokens",
                f"Max new tokens must be a whole number from 1 to {MAX_NEW_TOKENS_LIMIT}, got {n!r}.",
                "Short answers need 32 to 128 tokens.",
            )
        s = self.seed
        if s is not None and (not _is_int(s) or s < 0):
            raise InvalidSetting(
                "seed",
                f"Seed must be empty or a whole number of 0 or more, got {s!r}.",
                "Leave the seed empty for a fresh random seed each run.",
            )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (floats stay floats, seed may be None)."""
        return {
            "temperature": float(self.temperature),
            "top_k": int(self.top_k),
            "top_p": float(self.top_p),
            "seed": None if self.seed is None else int(self.seed),
            "max_new_tokens": int(self.max_new_tokens),
        }

    @classmethod
    def from_dict(cls, d: object) -> SamplingSettings:
        """Build and validate settings; missing keys take defaults, unknown keys are errors."""
        if not isinstance(d, dict):
            raise ExplainerError(
                f"Sampling settings must be a mapping, got {type(d).__name__}.",
                "The settings were saved by another program or are damaged.",
            )
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known, key=str)
        if unknown:
            raise ExplainerError(
                f"Unknown sampling setting(s): {', '.join(map(str, unknown))}.",
                f"Known settings are: {', '.join(sorted(known))}.",
            )
        settings = cls(**{**asdict(cls()), **d})
        settings.validate()
        # Normalise ints given for float fields so a JSON round trip compares equal.
        return cls(
            temperature=float(settings.temperature),
            top_k=int(settings.top_k),
            top_p=float(settings.top_p),
            seed=None if settings.seed is None else int(settings.seed),
            max_new_tokens=int(settings.max_new_tokens),
        )


@dataclass(kw_only=True)
class SampleResult:
    """Every stage of one sampling decision, as full-vocabulary float64 arrays.

    Each stage sums to 1 with zeros where a cut removed a token.  With top-k
    off ``after_top_k`` equals ``after_temperature``; with top-p 1
    ``after_top_p`` equals ``after_top_k``.  ``draw`` is the uniform number in
    [0, 1) that picked ``chosen`` from ``after_top_p`` (see :func:`~explainer.engine.ranking.pick_from`);
    it is None for greedy decoding.
    """

    raw: np.ndarray
    after_temperature: np.ndarray
    after_top_k: np.ndarray
    after_top_p: np.ndarray
    kept: int
    draw: float | None
    chosen: int


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Numerically stable softmax of ``logits / temperature`` in float64."""
    x = np.asarray(logits, dtype=np.float64)
    # Shift before dividing: the largest term becomes exp(0) = 1 and tiny
    # temperatures give -inf (probability 0) instead of inf - inf = NaN.
    e = np.exp((x - x.max()) / float(temperature))
    out: np.ndarray = e / e.sum()
    return out


def _check_logits(logits: np.ndarray) -> np.ndarray:
    arr = np.asarray(logits)
    if (
        arr.ndim != 1
        or arr.size == 0
        or not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer))
    ):
        raise ExplainerError(
            f"Expected a 1-D vector of real logits, got shape {arr.shape} of {arr.dtype}.",
            "This is a bug in the engine: the model output was not sliced to the last position.",
        )
    x = arr.astype(np.float64)
    if not np.all(np.isfinite(x)):
        bad = int(np.count_nonzero(~np.isfinite(x)))
        raise ExplainerError(
            f"The model produced {bad} non-finite logit(s) (NaN or infinity).",
            "The model file may be damaged or the model ran out of numeric range; try another model or precision.",
        )
    return x


@dataclass(frozen=True)
class SamplingStages:
    """The four distributions of one sampling decision, before any random draw.

    Full-vocabulary float64 arrays as in :class:`SampleResult`. ``greedy_choice`` is the token
    greedy decoding takes (temperature 0: no draw is needed, every stage after the raw one is
    one-hot on it); None when a draw decides.
    """

    raw: np.ndarray
    after_temperature: np.ndarray
    after_top_k: np.ndarray
    after_top_p: np.ndarray
    kept: int
    greedy_choice: int | None

    def choice(self, draw: float | None) -> int:
        """The token these stages choose: the greedy one, else the one ``draw`` picks."""
        if self.greedy_choice is not None:
            return self.greedy_choice
        if draw is None:
            raise ExplainerError("A sampled choice needs a random draw.", "This is a bug in the engine.")
        return pick_from(self.after_top_p, draw)


def sampling_stages(logits: np.ndarray, settings: SamplingSettings) -> SamplingStages:
    """Every stage of the sampler for ``logits`` and ``settings``, without the draw.

    The one place the distributions are computed: :meth:`Sampler.sample` calls it, and so does
    the lesson's "what if?", which reshapes a recorded step's logits with other settings and
    must show exactly the sampler's numbers. ``settings`` are used as given (validate first).
    """
    x = _check_logits(logits)
    raw = softmax(x)
    s = settings
    if s.temperature == 0:
        chosen = int(np.argmax(x))
        one_hot = np.zeros_like(raw)
        one_hot[chosen] = 1.0
        return SamplingStages(raw, one_hot, one_hot.copy(), one_hot.copy(), 1, chosen)

    after_t = softmax(x, s.temperature)

    after_k = after_t.copy()
    if 0 < s.top_k < after_t.size:
        after_k = renormalise(after_t, top_order(after_t, s.top_k))

    after_p = after_k.copy()
    if s.top_p < 1.0:
        order = ranked(after_k)  # the nucleus is among them
        cum = np.cumsum(after_k[order])
        n = int(np.searchsorted(cum, s.top_p - TOP_P_TOLERANCE, side="left")) + 1
        n = max(1, min(n, order.size))
        after_p = renormalise(after_k, order[:n])

    return SamplingStages(raw, after_t, after_k, after_p, int(np.count_nonzero(after_p > 0)), None)


class Sampler:
    """Turns logits into a token, one step at a time, recording every stage.

    Same seed and same logits sequence give the same tokens.  With no seed a
    fresh one is drawn from OS entropy and kept in :attr:`seed`, so any run
    can be replayed with ``settings.seed = sampler.seed``.
    """

    def __init__(self, settings: SamplingSettings) -> None:
        settings.validate()
        self.settings = settings
        if settings.seed is None:
            # 63 bits: a non-negative int that also survives JSON readers that use int64.
            state = np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0]
            self.seed: int = int(state >> np.uint64(1))
        else:
            self.seed = int(settings.seed)
        self._rng = np.random.Generator(np.random.PCG64(self.seed))

    @property
    def effective_settings(self) -> SamplingSettings:
        """The settings with the seed actually used: what a trace should record."""
        return SamplingSettings(
            temperature=self.settings.temperature,
            top_k=self.settings.top_k,
            top_p=self.settings.top_p,
            seed=self.seed,
            max_new_tokens=self.settings.max_new_tokens,
        )

    def sample(self, logits: np.ndarray, forced: int | None = None) -> SampleResult:
        """Pick the next token from one position's logits (vocabulary-sized, 1-D).

        The distributions come from :func:`sampling_stages`, the same function the lesson's
        "what if?" calls on recorded logits, so both always agree; only the draw is the
        sampler's own (one number from its generator, none for greedy decoding).

        ``forced``: the token to take instead of the draw's ("Your turn", or a branch repeating
        the original run's tokens). The distributions are computed as always and the draw is
        still taken from the generator, so the random stream stays where a normal run with the
        same settings would have it: the n-th step of any run with this seed uses the n-th draw,
        forced or not, and the steps after a forced one continue exactly as a normal run would.
        """
        st = sampling_stages(logits, self.settings)
        if forced is not None and not 0 <= forced < st.raw.size:
            raise ExplainerError(
                f"Cannot take token {forced}: the vocabulary has {st.raw.size} tokens.",
                "This is a bug in explainer; please report it.",
            )
        draw = None if st.greedy_choice is not None else float(self._rng.random())  # (forced too: above)
        return SampleResult(
            raw=st.raw,
            after_temperature=st.after_temperature,
            after_top_k=st.after_top_k,
            after_top_p=st.after_top_p,
            kept=st.kept,
            draw=draw,
            chosen=st.choice(draw) if forced is None else int(forced),
        )

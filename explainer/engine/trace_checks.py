"""The rules a trace keeps to, checked when a step is appended and when a file is loaded.

Types alone cannot say that a decode step reads the token chosen by the step before it, or that
every layer row has one entry per layer; a trace that breaks such a rule would still load and
the views would draw nonsense from it. Each check raises a :class:`TraceError` whose path names
the exact field (``steps[3].layers.attention``), so a damaged file is reported, not drawn.

The schema (trace.py) does not know these rules: whoever builds a trace step by step appends
through :func:`append_step`, and whoever reads one from a file ends with :func:`check_trace`.
"""

from __future__ import annotations

import numpy as np

from explainer.engine.prompt_size import check_prompt_size
from explainer.engine.trace import Layers, Step, Trace
from explainer.errors import ExplainerError

PROB_TOLERANCE = 1e-6  # engines may compute in float32 before converting


class TraceError(ExplainerError):
    """A trace that cannot be read or is inconsistent; the message names the field.

    Raised by the checks here and by the file readers (trace_file.py and the modules it uses), so
    that opening any damaged file fails with this one error and a message a user can act on."""


def trace_error(path: str, what: str) -> TraceError:
    """The error for the field at ``path`` (empty: the whole file), with the hint every damaged
    file gets."""
    return TraceError(
        f"{path}: {what}" if path else what, "The trace file is damaged or was written by another program."
    )


def append_step(trace: Trace, step: Step) -> None:
    """Add the next step to ``trace``, refusing one that does not follow from the trace so far."""
    check_step(trace, step, len(trace.steps), trace.steps[-1] if trace.steps else None)
    trace.steps.append(step)


def check_prompt(trace: Trace) -> None:
    """A prompt read from a trace passes the bound a typed one does (engine/prompt_size.py): no
    longer than its context's worth of its own longest token. A huge prompt in a trace once
    made a web page of its size and ate memory many times that, where typing it is refused."""
    longest = max((len(t.text.encode("utf-8", "surrogatepass")) for t in trace.prompt_tokens), default=1)
    try:
        check_prompt_size(trace.prompt, trace.model.context_length, max(1, longest))
    except ExplainerError as e:
        raise trace_error("prompt", e.message) from None


def check_trace(trace: Trace) -> None:
    """Every rule over the whole trace: the prompt's size, prompt tokens within the vocabulary,
    then each step."""
    check_prompt(trace)
    vocab = trace.model.vocab_size
    for i, t in enumerate(trace.prompt_tokens):
        if not 0 <= t.id < vocab:
            raise trace_error(f"prompt_tokens[{i}].id", f"token id {t.id} is outside the vocabulary of {vocab}")
    prev: Step | None = None
    for i, step in enumerate(trace.steps):
        check_step(trace, step, i, prev)
        prev = step
    b = trace.branch
    if b is not None:
        if not 0 <= b.step < len(trace.steps):
            raise trace_error("branch.step", f"the learner's pick must be at one of the {len(trace.steps)} steps")
        if not 0 <= b.model_pick.id < vocab:
            raise trace_error(
                "branch.model_pick.id", f"token id {b.model_pick.id} is outside the vocabulary of {vocab}"
            )


def check_step(trace: Trace, step: Step, i: int, prev: Step | None) -> None:
    """The rules a step must keep to follow ``prev`` in ``trace``; the error names the field."""
    p = f"steps[{i}]"
    m = trace.model
    if step.index != i:
        raise trace_error(f"{p}.index", f"expected {i}, got {step.index}")
    if prev is None:
        if step.phase != "prefill":
            raise trace_error(f"{p}.phase", f"the first step must be 'prefill', got {step.phase!r}")
        if step.start != 0:
            raise trace_error(f"{p}.start", f"the first step must start at 0, got {step.start}")
        if step.tokens != trace.prompt_tokens:
            raise trace_error(f"{p}.tokens", "the first step must read exactly the prompt tokens")
    else:
        if step.phase != "decode":
            raise trace_error(f"{p}.phase", f"steps after the first must be 'decode', got {step.phase!r}")
        if step.start != prev.end:
            raise trace_error(f"{p}.start", f"expected {prev.end} (where steps[{i - 1}] ended), got {step.start}")
        if len(step.tokens) != 1:
            raise trace_error(f"{p}.tokens", f"a decode step reads exactly 1 token, got {len(step.tokens)}")
        if step.tokens[0] != prev.sampling.chosen:
            raise trace_error(
                f"{p}.tokens[0]",
                f"expected the token chosen at steps[{i - 1}] ({prev.sampling.chosen.id}), got {step.tokens[0].id}",
            )
    if step.end > m.context_length:
        raise trace_error(p, f"context of {step.end} tokens exceeds the model's {m.context_length}")
    emb = step.embeddings
    if emb.ndim != 2:
        raise trace_error(f"{p}.embeddings", f"expected one row of numbers per token, got shape {list(emb.shape)}")
    if emb.shape[0] != len(step.tokens):
        raise trace_error(f"{p}.embeddings", f"expected {len(step.tokens)} vectors (one per token), got {emb.shape[0]}")
    if not 1 <= emb.shape[1] <= step.embedding_dim:
        raise trace_error(
            f"{p}.embeddings", f"vectors must all have the same length, from 1 to embedding_dim={step.embedding_dim}"
        )
    check_layers(step.layers, f"{p}.layers", m.n_layers, step.end)
    if step.logits is not None and (step.logits.shape != (m.vocab_size,) or not np.all(np.isfinite(step.logits))):
        raise trace_error(f"{p}.logits", f"expected {m.vocab_size} finite scores, one per vocabulary entry")
    for t, what in [(t, f"tokens[{j}]") for j, t in enumerate(step.tokens)] + [
        (step.sampling.chosen, "sampling.chosen")
    ]:
        if not 0 <= t.id < m.vocab_size:
            raise trace_error(f"{p}.{what}", f"token id {t.id} is outside the vocabulary of {m.vocab_size}")


def check_layers(layers: Layers, p: str, n_layers: int, context: int) -> None:
    """The rules for one step's layer rows: one per layer, finite changes, probabilities in [0, 1]
    and attended positions inside the context."""
    if len(layers) != n_layers:
        raise trace_error(p, f"expected {n_layers} layers, got {len(layers)}")
    if layers.change.shape != (n_layers,) or not np.all(np.isfinite(layers.change)) or np.any(layers.change < 0):
        raise trace_error(f"{p}.change", f"expected {n_layers} finite numbers of at least 0")
    if (layers.lens_ids is None) != (layers.lens_probs is None):
        raise trace_error(f"{p}.lens", "guesses and their probabilities must come together")
    if layers.lens_ids is not None and layers.lens_probs is not None:
        if layers.lens_ids.shape != layers.lens_probs.shape or layers.lens_ids.shape[:1] != (n_layers,):
            raise trace_error(
                f"{p}.lens",
                f"expected one row of guesses and probabilities per layer, got shapes "
                f"{list(layers.lens_ids.shape)} and {list(layers.lens_probs.shape)}",
            )
        probs = layers.lens_probs
        if not np.all(np.isfinite(probs)) or np.any(probs < 0) or np.any(probs > 1 + PROB_TOLERANCE):
            raise trace_error(f"{p}.lens", "probabilities must be numbers from 0 to 1")
    ids, weights = layers.attention_ids, layers.attention_weights
    if ids.ndim != 3 or ids.shape[0] != n_layers or ids.shape != weights.shape:
        raise trace_error(
            f"{p}.attention",
            f"expected [layers, heads, positions] arrays for {n_layers} layers, got "
            f"shapes {list(ids.shape)} and {list(weights.shape)}",
        )
    if np.any(ids < -1) or np.any(ids >= context):
        raise trace_error(f"{p}.attention", f"positions must be within the {context} tokens of the context")
    w = weights.astype(np.float32)
    if not np.all(np.isfinite(w)) or np.any(w < 0) or np.any(w > 1 + 1e-3):
        raise trace_error(f"{p}.attention", "weights must be numbers from 0 to 1")

"""Continuous batching: several requests decoded together, one new token each per pass.

Why: a decode step of one request reads every weight of the model for one token. A class's
queue holds tens of requests; decoding B of them in one pass reads the weights once for B tokens
(the CPU graph takes input_ids [B, 1] and each row's own past length, see model/onnx_llama.py).

How: one cache buffer per layer and kind, [slots, n_kv, C, hd], in fresh anonymous memory (zero
pages cost nothing until written, as KVCache's). A request's prompt is read alone (B = 1) into
its slot, a [1, ...] view of the buffer that ONNX Runtime shares, not copies; a decode pass binds
the first n slots, [n, ...], so the running requests are kept in slots 0 .. n-1: when one ends,
the last slot's filled positions move into its place. A request joins at the next pass once its
prompt is read, and leaves at the pass where it stops (iteration-level batching).

Each request keeps its own sampler (so its own seed), limits and stop reason, and its trace is
recorded step by step by Engine.record_step, as when it runs alone: its tokens are the same and
its probabilities agree within float32 rounding of the batched products (tests/engine/
test_batch.py). A step's forward_s is the whole pass's time, shared by its rows.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from explainer.engine.generate import Engine
from explainer.engine.runtime import KVCache, ModelRuntime, PassOutput
from explainer.engine.sampler import Sampler, SamplingSettings
from explainer.engine.trace import Step, TokenRef, Trace
from explainer.errors import ExplainerError


class BatchCache:
    """`slots` caches in one buffer per layer and kind, the running ones first."""

    def __init__(self, runtime: ModelRuntime, slots: int) -> None:
        import onnxruntime as ort

        if runtime.cache_device != "cpu" or runtime.graph != "cpu":
            raise ExplainerError("batched decoding runs the CPU graph only", "run the class on the CPU")
        c = runtime.config
        shape = (slots, c["n_kv_heads"], c["context_length"], c["head_dim"])
        nbytes = int(np.prod(shape)) * 4
        self._memory = [mmap.mmap(-1, nbytes) for _ in runtime.cache_names]  # zero pages until written
        self.arrays = [np.frombuffer(m, np.float32).reshape(shape) for m in self._memory]
        # a slot's view is C-contiguous, so ONNX Runtime reads and writes the buffer itself
        self.slots = [
            KVCache([ort.OrtValue.ortvalue_from_numpy(a[b : b + 1]) for a in self.arrays], shape[2], keep=[])
            for b in range(slots)
        ]
        self._firsts: dict[int, list[Any]] = {}  # n -> OrtValues over slots 0 .. n-1
        self.active = 0

    def first(self, n: int) -> list[Any]:
        """OrtValues [n, n_kv, C, hd] over the first n slots (one per layer and kind)."""
        import onnxruntime as ort

        if n not in self._firsts:
            self._firsts[n] = [ort.OrtValue.ortvalue_from_numpy(a[:n]) for a in self.arrays]
        return self._firsts[n]

    def claim(self) -> KVCache:
        """The next free slot, empty."""
        if self.active == len(self.slots):
            raise ExplainerError("every slot of the batch is taken", "wait for a request to end")
        slot = self.slots[self.active]
        slot.length = 0
        self.active += 1
        return slot

    def release(self, b: int) -> None:
        """Free slot b; the last running slot's filled positions move into it."""
        last = self.active - 1
        if b != last:
            n = self.slots[last].length
            for a in self.arrays:
                a[b, :, :n] = a[last, :, :n]
            self.slots[b].length = n
        self.slots[last].length = 0
        self.active -= 1


def decode_pass(runtime: ModelRuntime, batch: BatchCache, ids: list[int], lens: bool) -> list[PassOutput]:
    """One pass of the first len(ids) slots, one new token each; every row's output as a pass of
    its own would give it (its attention top-K without the positions past its own length)."""
    import time

    n, n_layers = len(ids), runtime.config["n_layers"]
    caches = batch.slots[:n]
    past = np.array([c.length for c in caches], np.int64)
    if int(past.max()) + 1 > caches[0].capacity:
        raise ExplainerError("a request does not fit the context window", "ask for fewer new tokens")
    m = n_layers - 1 if lens else 0  # lens rows per request (see ModelRuntime.forward)
    lens_layers = np.array([layer * n + b for b in range(n) for layer in range(m)], np.int64)
    start = time.perf_counter()
    outs = runtime.run_rows(np.array(ids, np.int64).reshape(n, 1), past, batch.first(n), lens_layers, True)
    host = {name: value.numpy() for name, value in outs.items()}
    seconds = time.perf_counter() - start
    hidden = host["hidden_last"].reshape(n_layers, n, -1)
    top_ids = host["attention_top_ids"].reshape(n_layers, n, *host["attention_top_ids"].shape[1:])
    top_w = host["attention_top_weights"].reshape(top_ids.shape)
    results = []
    for b, cache in enumerate(caches):
        cache.length += 1
        keep = min(top_ids.shape[-1], cache.length)
        beyond = top_ids[:, b] >= cache.length  # weight 0: another row's longer context
        order = np.argsort(beyond, axis=-1, kind="stable")[..., :keep]
        rows = np.r_[b * m : (b + 1) * m, n * m + b]
        results.append(
            PassOutput(
                logits=host["logits"][b, -1],
                embeddings=host["embeddings"][b],
                hidden_last=hidden[:, b],
                attention_top_ids=np.take_along_axis(top_ids[:, b], order, axis=-1),
                attention_top_weights=np.take_along_axis(top_w[:, b], order, axis=-1),
                lens_ids=host["lens_ids"][rows],
                lens_probs=host["lens_probs"][rows],
                seconds=seconds,
            )
        )
    return results


@dataclass(kw_only=True)
class Running:
    """A request in the batch: its own trace, sampler and limits, and the token it reads next."""

    trace: Trace
    sampler: Sampler
    settings: SamplingSettings
    lens: bool
    on_step: Callable[[Trace, Step], None] | None
    next_token: TokenRef
    cache: KVCache
    tag: Any = None  # the caller's name for it


class BatchDecoder:
    """Requests decoded together, up to `slots` at a time; see the module's docstring."""

    def __init__(self, engine: Engine, slots: int) -> None:
        self.engine = engine
        self.cache = BatchCache(engine.runtime, slots)
        self.running: list[Running] = []  # running[b] decodes in slot b

    @property
    def free(self) -> int:
        return len(self.cache.slots) - len(self.running)

    def admit(
        self,
        prompt: str,
        settings: SamplingSettings,
        chat: bool = False,
        lens: bool = True,
        on_step: Callable[[Trace, Step], None] | None = None,
        tag: Any = None,
        should_stop: Callable[[], bool] | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> Trace | None:
        """Read a request's prompt alone into a free slot and take its first token. Returns its
        trace if that already ended it, else None: it decodes with the batch from the next pass."""
        engine = self.engine
        settings.validate()
        prepared = engine.prepare(prompt, chat)
        sampler = Sampler(settings)
        trace = Trace.new(engine.model_info(), prompt, chat, sampler.effective_settings, prepared.tokens, None)
        slot = self.cache.claim()
        try:
            result = engine._read(prepared.tokens, slot, lens, should_stop, on_progress)
        except BaseException:
            self.cache.release(self.cache.active - 1)
            raise
        chosen = engine.record_step(trace, sampler, prepared.tokens, 0, result, lens)
        if on_step:
            on_step(trace, trace.steps[-1])
        trace.stop_reason = engine.stop_reason(chosen.id, 1, settings, slot.length)
        if trace.stop_reason:
            self.cache.release(self.cache.active - 1)
            return trace
        self.running.append(
            Running(
                trace=trace,
                sampler=sampler,
                settings=settings,
                lens=lens,
                on_step=on_step,
                next_token=chosen,
                cache=slot,
                tag=tag,
            )
        )
        return None

    def step(self) -> list[Running]:
        """One pass over every running request; returns those that ended with it (their
        trace's stop_reason says why), no longer in the batch."""
        if not self.running:
            return []
        engine = self.engine
        lens = any(r.lens for r in self.running)
        starts = [r.cache.length for r in self.running]
        results = decode_pass(engine.runtime, self.cache, [r.next_token.id for r in self.running], lens)
        ended = []
        for b, (r, result) in enumerate(zip(self.running, results, strict=True)):
            chosen = engine.record_step(r.trace, r.sampler, [r.next_token], starts[b], result, r.lens)
            if r.on_step:
                r.on_step(r.trace, r.trace.steps[-1])
            r.next_token = chosen
            r.trace.stop_reason = engine.stop_reason(chosen.id, len(r.trace.steps), r.settings, r.cache.length)
            if r.trace.stop_reason:
                ended.append(b)
        done = []
        for b in reversed(ended):  # from the last: the slot moved into b is still running
            done.append(self.running[b])
            self.cache.release(b)
            last = self.running.pop()
            if b < len(self.running):
                self.running[b] = last
                last.cache = self.cache.slots[b]
        done.reverse()
        return done

    def drop_all(self) -> list[Running]:
        """End every running request where it is (the class stopped); returns them."""
        dropped, self.running = self.running, []
        for _ in dropped:
            self.cache.release(self.cache.active - 1)
        return dropped

"""The request loop: prefill the prompt, then decode one token at a time, recording a Trace.

Prefill reads every prompt token in one pass (in chunks of PREFILL_CHUNK so a very long prompt
needs bounded memory; the chunks are still one recorded step, because to the learner it is one
phase). onnxruntime's arena keeps the largest pass's activations for the rest of the session,
so larger chunks leave it larger for good, and they did not read a long prompt any faster on a
2-core CPU. Decode reads only the token chosen last, against
the KV cache. The loop stops on the end-of-sequence token, the max-new-tokens limit, or a full
context window, and says which.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from explainer.engine.prompt_size import check_prompt_size
from explainer.engine.runtime import KVCache, ModelRuntime, PassOutput
from explainer.engine.sampler import Sampler, SamplingSettings
from explainer.engine.tokenizer import TextTokenizer, load_tokenizer
from explainer.engine.trace import ATTENTION_TOP, Branch, Layers, ModelInfo, Step, StopReason, TokenRef, Trace
from explainer.engine.trace_checks import TraceError, append_step
from explainer.engine.trace_sampling import step_sampling
from explainer.errors import Cancelled, ExplainerError, out_of_memory

if TYPE_CHECKING:
    from explainer.model.build import BuiltModel

PREFILL_CHUNK = 256
ATTENTION_PASS_MAX = 64  # longest pass that also returns attention weights (see Engine._read)
TOP_N = 50  # candidates kept per distribution in the trace: more than any chart shows


@dataclass
class PreparedPrompt:
    text: str  # what the model reads (the prompt, or the prompt inside the chat template)
    tokens: list[TokenRef]


class Engine:
    """A built model ready to answer prompts: runtime + tokenizer + chat template."""

    def __init__(self, built: BuiltModel, device: str | None = None, threads: int | None = None) -> None:
        self.built = built
        self.config = built.config
        self.runtime = ModelRuntime(built.onnx_path, built.config, device, threads)
        self.tokenizer: TextTokenizer = load_tokenizer(built.tokenizer_path)
        self.display_name = built.display_name
        self.license = built.license
        self._chat_template = built.chat_template

    @property
    def eos_id(self) -> int:
        return int(self.config["eos_id"])

    def model_info(self) -> ModelInfo:
        c = self.config
        return ModelInfo(
            name=self.display_name,
            provider=self.runtime.device_label,
            n_layers=c["n_layers"],
            d_model=c["d_model"],
            n_heads=c["n_heads"],
            n_kv_heads=c["n_kv_heads"],
            vocab_size=c["vocab_size"],
            context_length=c["context_length"],
            n_params=c["n_params"],
            license=self.license,
        )

    def prepare(self, prompt: str, chat: bool = False) -> PreparedPrompt:
        """Check the prompt and turn it into the tokens the model will read."""
        if not isinstance(prompt, str) or not prompt.strip():
            raise ExplainerError("the prompt is empty", "type some text for the model to continue")
        try:
            prompt.encode("utf-8")
        except UnicodeEncodeError:
            raise ExplainerError(
                "the prompt contains characters that are not valid Unicode text",
                "retype or re-paste the text; broken emoji halves are a common cause",
            ) from None
        limit = self.config["context_length"]
        check_prompt_size(prompt, limit, self.tokenizer.max_token_bytes)
        text = self._chat_template.replace("{prompt}", prompt) if chat else prompt
        tokens = [TokenRef.of(i, self.tokenizer.token_bytes(i)) for i in self.tokenizer.encode_ids(text)]
        bos = self.tokenizer.bos_id
        if self.tokenizer.add_bos and bos is not None and (not tokens or tokens[0].id != bos):
            tokens.insert(0, TokenRef.of(bos, self.tokenizer.token_bytes(bos)))  # (Gemma: "<bos>" first)
        if len(tokens) > limit - 1:
            raise ExplainerError(
                f"the prompt is {len(tokens)} tokens long, but the model reads at most {limit} "
                "and needs room to answer",
                f"shorten it to under {limit - 1} tokens",
            )
        return PreparedPrompt(text, tokens)

    def generate(
        self,
        prompt: str,
        settings: SamplingSettings,
        chat: bool = False,
        lens: bool = True,
        on_step: Callable[[Trace, Step], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        forced: Sequence[int] = (),
        branch: Branch | None = None,
    ) -> Trace:
        """Run one request to its end and return everything it recorded.

        `on_progress(tokens_read, tokens_total)` follows the prompt's prefill: it is called
        with 0 before the first chunk and after every chunk, because an 8k-token prompt takes
        tens of seconds on a CPU. `should_stop` is asked before every pass, prefill chunks
        included, so a stop takes effect within one chunk; it raises Cancelled.

        `forced[i]`, where given, is the token step i takes instead of the sampler's pick (the
        sampler still records the model's probabilities and keeps its random stream, see
        Sampler.sample); `branch` is recorded in the trace to say which of them the learner chose
        (see :meth:`continue_from`, the one caller that passes them)."""
        try:
            return self._generate(prompt, settings, chat, lens, on_step, should_stop, on_progress, forced, branch)
        except MemoryError as exc:  # numpy's allocations (the trace, the host copies)
            raise out_of_memory(
                "record this run", "close other programs, or use a shorter prompt or fewer new tokens"
            ) from exc

    def _generate(
        self,
        prompt: str,
        settings: SamplingSettings,
        chat: bool,
        lens: bool,
        on_step: Callable[[Trace, Step], None] | None,
        should_stop: Callable[[], bool] | None,
        on_progress: Callable[[int, int], None] | None,
        forced: Sequence[int] = (),
        branch: Branch | None = None,
    ) -> Trace:
        settings.validate()
        prepared = self.prepare(prompt, chat)
        sampler = Sampler(settings)
        trace = Trace.new(self.model_info(), prompt, chat, sampler.effective_settings, prepared.tokens, branch)
        cache = self.runtime.new_cache()
        reading = prepared.tokens
        while True:
            start = cache.length
            prefill = not trace.steps
            result = self._read(reading, cache, lens, should_stop, on_progress if prefill else None)
            i = len(trace.steps)
            chosen = self.record_step(
                trace, sampler, reading, start, result, lens, forced[i] if i < len(forced) else None
            )
            if on_step:
                on_step(trace, trace.steps[-1])
            trace.stop_reason = self.stop_reason(chosen.id, len(trace.steps), settings, cache.length)
            if trace.stop_reason:
                return trace
            reading = [chosen]

    def record_step(
        self,
        trace: Trace,
        sampler: Sampler,
        reading: list[TokenRef],
        start: int,
        result: PassOutput,
        lens: bool,
        forced: int | None = None,
    ) -> TokenRef:
        """Sample the pass's next token with the request's own sampler and append the step to its
        trace; returns the token chosen. A batched decode records each row's step here too, so a
        request's trace reads the same whether it ran alone or in a batch."""
        t0 = time.perf_counter()
        sample = sampler.sample(result.logits, forced)
        sample_s = time.perf_counter() - t0
        chosen = TokenRef.of(sample.chosen, self.tokenizer.token_bytes(sample.chosen))
        step = Step(
            index=len(trace.steps),
            phase="prefill" if not trace.steps else "decode",
            start=start,
            tokens=list(reading),
            embeddings=result.embeddings.astype(np.float16),
            embedding_dim=int(result.embeddings.shape[1]),
            layers=layers_record(result, lens),
            sampling=step_sampling(sample, TOP_N, chosen),
            forward_s=result.seconds,
            sample_s=sample_s,
            logits=result.logits.astype(np.float32),
        )
        try:
            append_step(trace, step)
        except TraceError as exc:  # not a damaged file: the model's own files disagree
            raise ExplainerError(
                f"the model produced a step that does not fit its own description ({exc.message})",
                "its files disagree with each other (config.json, tokenizer.json); "
                "the model must be rebuilt: run `explainer model build --force`",
            ) from None
        return chosen

    def stop_reason(self, chosen: int, steps: int, settings: SamplingSettings, length: int) -> StopReason | None:
        """Why a request ends after a step that chose `chosen`, its `steps`-th, with `length`
        positions in its cache: "eos", "max_tokens", "context", or None to go on."""
        if chosen == self.eos_id:
            return "eos"
        if steps >= settings.max_new_tokens:
            return "max_tokens"
        if length >= self.config["context_length"]:
            return "context"
        return None

    def continue_from(
        self,
        original: Trace,
        step: int,
        token_id: int,
        lens: bool = True,
        on_step: Callable[[Trace, Step], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> Trace:
        """ "Your turn": the same request as ``original``, with the learner's token at ``step``.

        The model reads the same prompt with the same settings and seed; steps before ``step``
        take the original's tokens (the forward passes are recomputed, cheaper than keeping a KV
        cache per step), step ``step`` records the model's real probabilities
        but takes ``token_id``, and from there the model continues on its own, drawing from the
        same random stream as the original (Sampler.sample). The trace's ``branch`` says so."""
        if not 0 <= step < len(original.steps):
            raise ExplainerError(
                f"there is no step {step} in this run to continue from",
                "pick a token at a sampling stage of the run on screen",
            )
        if not 0 <= token_id < self.config["vocab_size"]:
            raise ExplainerError(f"token {token_id} is not in the vocabulary", "pick a bar of the chart")
        forced = [s.sampling.chosen.id for s in original.steps[:step]] + [int(token_id)]
        return self.generate(
            original.prompt,
            original.settings,
            original.chat,
            lens,
            on_step,
            should_stop,
            forced=forced,
            branch=Branch(step, original.steps[step].sampling.chosen),
        )

    def _read(
        self,
        tokens: list[TokenRef],
        cache: KVCache,
        lens: bool,
        should_stop: Callable[[], bool] | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> PassOutput:
        """One recorded pass; a long prompt is read in chunks whose times add up.

        Only the last token's attention is recorded, and a pass that returns attention holds
        every S x T weight per head, so a prompt longer than ATTENTION_PASS_MAX is read in
        chunks that skip the weights, then its last token alone. Before every chunk it asks
        `should_stop` (raising Cancelled): a stop during a long prefill waits for one chunk."""
        ids = [t.id for t in tokens]
        if len(ids) > ATTENTION_PASS_MAX:
            body = ids[:-1]
            passes = [body[i : i + PREFILL_CHUNK] for i in range(0, len(body), PREFILL_CHUNK)] + [ids[-1:]]
        else:
            passes = [ids]
        spent = 0.0
        embeddings = []
        done = 0
        if on_progress:
            on_progress(done, len(ids))
        for n, chunk in enumerate(passes):
            if should_stop and should_stop():
                raise Cancelled()
            last = n == len(passes) - 1
            out = self.runtime.forward(chunk, cache, lens=lens and last, attention=last)
            spent += out.seconds
            embeddings.append(out.embeddings)
            done += len(chunk)
            if on_progress:
                on_progress(done, len(ids))
        out.embeddings = np.concatenate(embeddings) if len(embeddings) > 1 else embeddings[0]
        out.seconds = spent
        return out


def layers_record(out: PassOutput, lens: bool) -> Layers:
    """What the trace keeps of a pass's layers: how much each changed the last token's state, its
    lens guesses, and the positions each head attended to most (the graph's top-K, padded to
    ATTENTION_TOP with -1 / 0 when the context is shorter): one array per output."""
    hidden = out.hidden_last.astype(np.float64)
    before = np.vstack([out.embeddings[-1:].astype(np.float64), hidden[:-1]])
    change = np.linalg.norm(hidden - before, axis=1) / np.maximum(np.linalg.norm(before, axis=1), 1e-12)
    n_layers, heads, k = out.attention_top_ids.shape
    att_ids = np.full((n_layers, heads, ATTENTION_TOP), -1, np.int32)
    att_weights = np.zeros((n_layers, heads, ATTENTION_TOP), np.float16)
    att_ids[..., :k] = out.attention_top_ids
    att_weights[..., :k] = out.attention_top_weights
    return Layers(
        change=change.astype(np.float32),
        lens_ids=out.lens_ids.astype(np.int32) if lens else None,
        lens_probs=out.lens_probs.astype(np.float32) if lens else None,
        attention_ids=att_ids,
        attention_weights=att_weights,
    )

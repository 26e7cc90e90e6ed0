"""One ONNX Runtime session over a built model, and the KV cache that lives beside it.

Why a class of its own: the provider question ("is this really running on the GPU?") and the
cache's home are concerns of the runtime, not of the generation loop. Both devices go through
the same IO-binding path, so there is one code path to test.

onnxruntime-gpu happily imports on a machine without a GPU and, when asked for CUDA, prints
loader errors and silently runs on the CPU. So we only ask for CUDA when a CUDA driver with at
least one device is present, silence the loader while the session is created, and report what
`session.get_providers()` says actually runs.

The graph. A CUDA session loads model.cuda.onnx (model/onnx_attention_cuda.py), whose every
compute node has a CUDA kernel, and keeps the KV cache in device buffers: each pass binds
present to past's own device memory (ScatterND writes the new positions in place), and only
the outputs the trace records are copied to the host. A CPU session loads model.onnx
(GroupQueryAttention), its cache in host memory. `graph="cuda"` runs the CUDA graph on whatever
provider the session has (the CPU too: that is how CI checks its numerics and this path).
TF32 is switched off on CUDA: float32 products stay float32, as the 2e-3 check needs.
Which provider ran each node is `explainer.engine.placement`'s question (the session profile).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from explainer.errors import ExplainerError, out_of_memory

DEVICE_ENV = "EXPLAINER_DEVICE"  # auto (default), cpu or cuda
CUDA_GRAPH = "model.cuda.onnx"  # beside model.onnx (model/convert.py MODEL_CUDA_ONNX)
CUDA_OPTIONS = {"use_tf32": "0"}  # exact float32 matrix products


def cuda_device_count() -> int:
    """Devices the CUDA driver sees, without touching onnxruntime (so without its noise)."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if lib.cuInit(0) != 0 or lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value


def _providers(device: str) -> list[str]:
    import onnxruntime as ort

    if device not in ("auto", "cpu", "cuda"):
        raise ExplainerError(f"unknown device '{device}'", "use auto, cpu or cuda")
    want_cuda = device != "cpu" and cuda_device_count() > 0
    if want_cuda and "CUDAExecutionProvider" in ort.get_available_providers():
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    if device == "cuda":
        raise ExplainerError(
            "no usable CUDA GPU was found",
            "run without --device cuda (the CPU works), or install the NVIDIA driver",
        )
    return ["CPUExecutionProvider"]


@dataclass(kw_only=True)
class PassOutput:
    """What one forward pass produced, as host arrays, for the last new position where noted."""

    logits: np.ndarray  # [vocab] for the last new token
    embeddings: np.ndarray  # [S, d_model] for every new token
    hidden_last: np.ndarray  # [n_layers, d_model] residual stream after each layer, last token
    attention_top_ids: np.ndarray  # int64 [n_layers, n_heads, K] positions the last token attends
    # to most, strongest first (K = ATTENTION_TOP, or every position when there are fewer)
    attention_top_weights: np.ndarray  # float32 [n_layers, n_heads, K] their softmax weights
    lens_ids: np.ndarray  # [n_layers, k] top guesses of each layer through the output head
    lens_probs: np.ndarray  # [n_layers, k] (with lens=False: the last layer's alone, [1, k])
    seconds: float


class KVCache:
    """Keys and values of every token read so far, in buffers that hold the whole context window.

    The graph writes each pass's keys and values into these buffers in place (its `present`
    outputs are bound to the same memory as its `past` inputs), so a decode step copies one
    position per layer instead of the whole cache. The buffers are fresh anonymous memory:
    pages the model never wrote cost no RAM, so a short prompt's cache stays small though the
    buffers have room for the whole context window.
    """

    def __init__(self, values: list[Any], capacity: int, keep: list[Any]) -> None:
        self.values = values  # OrtValues [1, n_kv_heads, capacity, head_dim]: key0, value0, key1, ...
        self.capacity = capacity
        self.length = 0
        self._keep = keep  # the host memory behind `values`


class ModelRuntime:
    """Loads model.onnx on the best available device and runs forward passes over a cache."""

    def __init__(
        self,
        onnx_path: Path,
        config: dict[str, Any],
        device: str | None = None,
        threads: int | None = None,
        graph: str | None = None,
        profile_prefix: str | None = None,
    ) -> None:
        """`threads`: CPU threads for one pass (default: ONNX Runtime's, one per core). An
        interactive caller passes it (the app: every core, inference/runner.py app_threads), which
        also keeps idle threads from spinning on the cores the GUI thread draws with.
        `graph`: "cpu" or "cuda" (default: the CUDA graph on CUDA when it was built).
        `profile_prefix`: write ONNX Runtime's session profile there (see placement.py)."""
        import onnxruntime as ort

        device = device or os.environ.get(DEVICE_ENV, "auto")
        self.config = config
        providers = _providers(device)
        on_cuda = "CUDAExecutionProvider" in providers
        cuda_graph = onnx_path.with_name(CUDA_GRAPH)
        if graph is None:
            graph = "cuda" if on_cuda and cuda_graph.is_file() else "cpu"
        self.graph = graph
        if graph == "cuda":
            onnx_path = cuda_graph
        self.onnx_path = onnx_path
        options = ort.SessionOptions()
        options.log_severity_level = 3  # loader chatter is not for learners; we check below
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads is not None:
            options.intra_op_num_threads = max(1, threads)
            # idle workers that spin would still take the core we meant to leave free
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if profile_prefix is not None:
            options.enable_profiling = True
            options.profile_file_prefix = profile_prefix
        start = time.perf_counter()
        try:
            if "CUDAExecutionProvider" in providers and hasattr(ort, "preload_dlls"):
                with contextlib.suppress(Exception):
                    ort.preload_dlls()
            chosen: list[Any] = [(p, CUDA_OPTIONS) if p == "CUDAExecutionProvider" else p for p in providers]
            self.session = ort.InferenceSession(str(onnx_path), options, providers=chosen)
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises many kinds for a damaged graph
            raise ExplainerError(
                f"cannot load the model graph {onnx_path.name} ({type(exc).__name__})",
                "the built model may be damaged: run `explainer model build --force`",
            ) from None
        self.load_seconds = time.perf_counter() - start
        self.provider = self.session.get_providers()[0]
        self.device = "cuda" if self.provider == "CUDAExecutionProvider" else "cpu"
        self.requested = list(providers)
        # the cache lives on the device when the whole graph runs there (the CUDA graph)
        self.cache_device = "cuda" if self.device == "cuda" and graph == "cuda" else "cpu"
        n = config["n_layers"]
        self.cache_names = [f"past.{i}.{kv}" for i in range(n) for kv in ("key", "value")]
        self._host_outputs = [o.name for o in self.session.get_outputs() if not o.name.startswith("present.")]

    @property
    def device_label(self) -> str:
        """What the UI and reports say: 'CUDA' or 'CPU'."""
        return "CUDA" if self.device == "cuda" else "CPU"

    def new_cache(self) -> KVCache:
        """Empty buffers for a whole context window. With the CUDA graph on CUDA they are
        device memory, zeroed once (the mask hides the positions not yet written, but a NaN in
        uninitialised memory would still poison a softmax row). Otherwise host memory: the CPU
        graph's float32 GroupQueryAttention has a CPU kernel only (onnxruntime's CUDA one takes
        float16/bfloat16), so with that graph on CUDA it runs on the CPU too, where its cache
        must live for the buffer to be shared between `past` and `present`."""
        import mmap

        import onnxruntime as ort

        c = self.config
        shape = (1, c["n_kv_heads"], c["context_length"], c["head_dim"])
        if self.cache_device == "cuda":
            zeros = np.zeros(shape, np.float32)
            device = [ort.OrtValue.ortvalue_from_numpy(zeros, "cuda", 0) for _ in self.cache_names]
            return KVCache(device, shape[2], keep=[])
        nbytes = int(np.prod(shape)) * 4
        memory = [mmap.mmap(-1, nbytes) for _ in self.cache_names]  # zero pages until written
        arrays = [np.frombuffer(m, np.float32).reshape(shape) for m in memory]
        values = [ort.OrtValue.ortvalue_from_numpy(a) for a in arrays]
        return KVCache(values, shape[2], keep=[memory, arrays])

    def forward(self, ids: list[int], cache: KVCache, lens: bool = False, attention: bool = True) -> PassOutput:
        """Read `ids` after the cached tokens; the cache grows in place.

        `attention=False` skips the last token's attention weights (the attention_* arrays are
        then zeros): the graph takes a faster path on a long prefill chunk and
        never holds its S x T weights. `lens` reads every layer through the output head."""
        n_layers = self.config["n_layers"]
        if cache.length + len(ids) > cache.capacity:
            raise ExplainerError(
                f"{cache.length + len(ids)} tokens do not fit the context window of {cache.capacity}",
                "shorten the prompt or ask for fewer new tokens",
            )
        start = time.perf_counter()
        lens_layers = np.arange(n_layers - 1 if lens else 0, dtype=np.int64)
        outs = self.run_rows(
            np.array([ids], np.int64), np.array([cache.length], np.int64), cache.values, lens_layers, attention
        )
        cache.length += len(ids)

        def host(name: str) -> np.ndarray:
            array: np.ndarray = outs[name].numpy()
            return array

        # The clock stops once every stage is in host memory: that is what a user waits for.
        result = PassOutput(
            logits=host("logits")[0, -1],
            embeddings=host("embeddings")[0],
            hidden_last=host("hidden_last"),
            attention_top_ids=host("attention_top_ids"),
            attention_top_weights=host("attention_top_weights"),
            lens_ids=host("lens_ids"),
            lens_probs=host("lens_probs"),
            seconds=0.0,
        )
        result.seconds = time.perf_counter() - start
        return result

    def run_rows(
        self, ids: np.ndarray, past: np.ndarray, cache_values: list[Any], lens_layers: np.ndarray, attention: bool
    ) -> dict[str, Any]:
        """One pass over rows `ids` [B, S] whose caches hold `past` [B] positions; the caches'
        OrtValues [B, n_kv, C, hd] are written in place. Returns the host outputs by name."""
        binding = self.session.io_binding()
        binding.bind_cpu_input("input_ids", ids)
        binding.bind_cpu_input("num_logits", np.array([1], np.int64))
        binding.bind_cpu_input("past_length", past)
        binding.bind_cpu_input("attention", np.array(attention))
        # the last layer's guess is the logits row's own top-k, the graph's last lens row
        binding.bind_cpu_input("lens_layers", lens_layers)
        for name, value in zip(self.cache_names, cache_values):
            binding.bind_ortvalue_input(name, value)
            binding.bind_ortvalue_output(name.replace("past.", "present."), value)
        for name in self._host_outputs:
            binding.bind_output(name, "cpu")
        try:
            self.session.run_with_iobinding(binding)
        except Exception as exc:  # onnxruntime reports a failed allocation as a plain runtime error
            if "allocate" in str(exc).lower():
                raise out_of_memory(
                    f"run the model on {ids.size:,} tokens after {int(past.max()):,}",
                    "close other programs, or use a shorter prompt or fewer new tokens",
                ) from exc
            raise
        return dict(zip(self._host_outputs, binding.get_outputs()[len(self.cache_names) :]))

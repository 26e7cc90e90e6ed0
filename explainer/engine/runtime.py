"""One ONNX Runtime session over a built model, and the KV cache that lives beside it.

Why a class of its own: the provider question ("is this really running on the GPU?") and the
cache's home (device memory on CUDA, via IO binding) are concerns of the runtime, not of the
generation loop. Both devices go through the same IO-binding path, so there is one code path to
test: on CPU the "device" is simply host memory.

onnxruntime-gpu happily imports on a machine without a GPU and, when asked for CUDA, prints
loader errors and silently runs on the CPU. So we only ask for CUDA when a CUDA driver with at
least one device is present, silence the loader while the session is created, and report what
`session.get_providers()` says actually runs.
"""

from __future__ import annotations

import ctypes
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explainer.errors import ExplainerError

DEVICE_ENV = "EXPLAINER_DEVICE"  # auto (default), cpu or cuda


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


@dataclass
class PassOutput:
    """What one forward pass produced, as host arrays, for the last new position where noted."""

    logits: np.ndarray  # [vocab] for the last new token
    embeddings: np.ndarray  # [S, d_model] for every new token
    hidden_last: np.ndarray  # [n_layers, d_model] residual stream after each layer, last token
    attention_last: np.ndarray  # [n_layers, n_heads, T] last token's attention weights
    lens_ids: np.ndarray  # [n_lens, k]
    lens_probs: np.ndarray  # [n_lens, k]
    seconds: float


class KVCache:
    """Keys and values of every token read so far, as OrtValues on the session's device."""

    def __init__(self, values: list, length: int) -> None:
        self.values = values  # [key0, value0, key1, value1, ...]
        self.length = length


class ModelRuntime:
    """Loads model.onnx on the best available device and runs forward passes over a cache."""

    def __init__(self, onnx_path: Path, config: dict, device: str | None = None,
                 threads: int | None = None) -> None:
        """`threads`: CPU threads for one pass (default: ONNX Runtime's, one per core). An
        interactive caller passes fewer, so the GUI thread keeps a core to draw with."""
        import onnxruntime as ort

        device = device or os.environ.get(DEVICE_ENV, "auto")
        self.config = config
        providers = _providers(device)
        options = ort.SessionOptions()
        options.log_severity_level = 3  # loader chatter is not for learners; we check below
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads is not None:
            options.intra_op_num_threads = max(1, threads)
            # idle workers that spin would still take the core we meant to leave free
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        start = time.perf_counter()
        try:
            if "CUDAExecutionProvider" in providers and hasattr(ort, "preload_dlls"):
                try:
                    ort.preload_dlls()
                except Exception:
                    pass
            self.session = ort.InferenceSession(str(onnx_path), options, providers=providers)
        except Exception as exc:
            raise ExplainerError(
                f"cannot load the model graph {onnx_path.name} ({type(exc).__name__})",
                "the built model may be damaged: run `explainer model build --force`",
            ) from None
        self.load_seconds = time.perf_counter() - start
        self.provider = self.session.get_providers()[0]
        self.device = "cuda" if self.provider == "CUDAExecutionProvider" else "cpu"
        self._output_names = [o.name for o in self.session.get_outputs()]
        n = config["n_layers"]
        self._cache_names = [f"past.{i}.{kv}" for i in range(n) for kv in ("key", "value")]

    @property
    def device_label(self) -> str:
        """What the UI and reports say: 'CUDA' or 'CPU'."""
        return "CUDA" if self.device == "cuda" else "CPU"

    def new_cache(self) -> KVCache:
        import onnxruntime as ort

        c = self.config
        empty = np.zeros((1, c["n_kv_heads"], 0, c["head_dim"]), np.float32)
        values = [ort.OrtValue.ortvalue_from_numpy(empty, self.device, 0) for _ in self._cache_names]
        return KVCache(values, 0)

    def forward(self, ids: list[int], cache: KVCache, lens: bool = False) -> PassOutput:
        """Read `ids` after the cached tokens; the cache grows in place."""
        n_layers = self.config["n_layers"]
        start = time.perf_counter()
        binding = self.session.io_binding()
        binding.bind_cpu_input("input_ids", np.array([ids], np.int64))
        binding.bind_cpu_input("num_logits", np.array([1], np.int64))
        lens_layers = np.arange(n_layers if lens else 0, dtype=np.int64)
        binding.bind_cpu_input("lens_layers", lens_layers)
        for name, value in zip(self._cache_names, cache.values):
            binding.bind_ortvalue_input(name, value)
        for name in self._output_names:
            binding.bind_output(name, self.device if name.startswith("present.") else "cpu")
        self.session.run_with_iobinding(binding)
        outs = dict(zip(self._output_names, binding.get_outputs()))
        cache.values = [outs[name.replace("past.", "present.")] for name in self._cache_names]
        cache.length += len(ids)

        def host(name: str) -> np.ndarray:
            return outs[name].numpy()

        # The clock stops once every stage is in host memory: that is what a user waits for.
        result = PassOutput(
            logits=host("logits")[0, -1],
            embeddings=host("embeddings")[0],
            hidden_last=host("hidden_last"),
            attention_last=host("attention_last"),
            lens_ids=host("lens_ids"),
            lens_probs=host("lens_probs"),
            seconds=0.0,
        )
        result.seconds = time.perf_counter() - start
        return result

"""What a GGUF file holds, checked before any work starts: the architecture, its shape, the
quantization of every tensor, and whether this machine has the memory to build it.

`inspect_gguf(path)` is the one call a caller needs before building a GGUF it was handed (the
`model add` command, the app's "Open model (GGUF)…"): it returns the model's `ModelConfig` or raises
one `ExplainerError` that says what is wrong (not a GGUF, truncated, an architecture or a
quantization we do not run, a missing entry, too little memory, with the figures).

The supported architectures, as llama.cpp writes them (`general.architecture`):

- `llama` (SmolLM2, TinyLlama, Llama 3.x, Mistral-style models): RMSNorm, SwiGLU, RoPE with
  the Q/K rows permuted by llama.cpp's converter (undone when reading);
- `qwen2`: as llama plus biases on the query, key and value projections, rows not permuted;
- `gemma3`: per-head RMSNorm of queries and keys (QK-norm), norms before and after attention
  and the FFN, GELU-tanh gated FFN, the embedding scaled by sqrt(d_model), and a sliding window
  on the local layers (every 6th layer is global), with its own RoPE base. llama.cpp's
  converter stores Gemma's RMSNorm weights with the 1 of Gemma's `(1 + weight)` already added,
  so every norm here multiplies by the stored weight, as llama.cpp's own kernels do.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explainer.errors import ExplainerError

if TYPE_CHECKING:
    from gguf import GGUFReader

SUPPORTED_ARCHITECTURES = ("llama", "qwen2", "gemma3")
SUPPORTED_QUANTS = ("F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q4_K", "Q5_K", "Q6_K")
GEMMA3_GLOBAL_EVERY = 6  # llama.cpp's gemma3: layers i with i % 6 == 5 attend globally
GEMMA3_LOCAL_ROPE_BASE = 10000.0  # llama.cpp's default for gemma3's sliding-window layers
# A build holds about five float32 copies of the weights at its peak (the dequantised arrays,
# the graph's initializers, the bytes written out and the packed copies onnxruntime makes when
# it checks the result; README, Measured figures, has Gemma 3 270M's).
BUILD_COPIES = 5


@dataclass(kw_only=True, frozen=True)
class ModelConfig:
    """The shape of a decoder-only model: everything the graph builder and the views need.

    The fields after `eos_id` have the defaults of a Llama model, so a config.json written
    before other architectures existed reads as the Llama model it describes."""

    name: str
    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    d_ff: int
    vocab_size: int
    context_length: int
    rope_base: float
    rms_eps: float
    bos_id: int
    eos_id: int
    architecture: str = "llama"
    head_dim: int = 0  # 0: d_model // n_heads (gemma3 states its own: 256 for a d_model of 640)
    qkv_bias: bool = False  # qwen2
    qk_norm: bool = False  # gemma3
    post_norms: bool = False  # gemma3: a norm after attention and after the FFN, before the residual
    activation: str = "silu"  # the gated FFN's: "silu" (SwiGLU) or "gelu_tanh" (GeGLU)
    embedding_scale: float = 1.0  # gemma3: sqrt(d_model)
    sliding_window: int = 0  # 0: none; else the local layers attend to this many positions
    global_every: int = 0  # with a sliding window: layer i is global when (i + 1) % global_every == 0
    rope_local_base: float = 0.0  # the local layers' RoPE base (0: rope_base)
    rope_scale: float = 1.0  # linear RoPE scaling of the global layers (positions divided by it)
    attention_scale: float = 0.0  # 0: 1 / sqrt(head_dim)
    logit_softcap: float = 0.0  # 0: none; else logits = cap * tanh(logits / cap)
    tied_output: bool = True  # the output head is the token embedding
    license: str = ""

    def __post_init__(self) -> None:
        if not self.head_dim:
            object.__setattr__(self, "head_dim", self.d_model // max(self.n_heads, 1))

    def is_local(self, layer: int) -> bool:
        """Whether layer `layer` attends through the sliding window only."""
        if not self.sliding_window:
            return False
        return not (self.global_every and (layer + 1) % self.global_every == 0)

    @property
    def scale(self) -> float:
        return self.attention_scale or 1.0 / math.sqrt(self.head_dim)

    @property
    def n_params(self) -> int:
        """Parameter count with a tied output head counted once, as model cards do."""
        d, f, hd = self.d_model, self.d_ff, self.head_dim
        q, kv = self.n_heads * hd, self.n_kv_heads * hd
        per_layer = 2 * d + d * q * 2 + 2 * d * kv + 3 * d * f
        per_layer += (q + 2 * kv) if self.qkv_bias else 0
        per_layer += 2 * hd if self.qk_norm else 0
        per_layer += 2 * d if self.post_norms else 0
        head = 0 if self.tied_output else self.vocab_size * d
        return self.vocab_size * d + head + self.n_layers * per_layer + d

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "n_params": self.n_params}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelConfig:
        fields = cls.__dataclass_fields__
        return cls(**{k: data[k] for k in fields if k in data})


def _missing(key: str, arch: str) -> ExplainerError:
    return ExplainerError(
        f"the GGUF file has no '{key}' entry, which a {arch} model needs",
        "the file is incomplete or was written by a converter we do not know; get a complete GGUF",
    )


def _field(reader: GGUFReader, key: str, default: object = None, arch: str = "model") -> Any:
    field = reader.fields.get(key)
    if field is None:
        if default is not None:
            return default
        raise _missing(key, arch)
    try:
        return field.contents()
    except Exception as exc:  # noqa: BLE001 - the reader raises plain errors on a damaged entry
        raise ExplainerError(f"the GGUF entry '{key}' cannot be read ({exc})", "the file is damaged") from None


def architecture_of(reader: GGUFReader) -> str:
    arch = _field(reader, "general.architecture")
    if arch not in SUPPORTED_ARCHITECTURES:
        raise ExplainerError(
            f"the GGUF file holds a '{arch}' model, which explainer cannot run",
            f"supported architectures: {', '.join(SUPPORTED_ARCHITECTURES)}",
        )
    return str(arch)


def read_config(reader: GGUFReader) -> ModelConfig:
    """The model's config from the GGUF's metadata (refusing an architecture we do not run)."""
    arch = architecture_of(reader)

    def get(key: str, default: object = None) -> Any:
        return _field(reader, f"{arch}.{key}", default, arch)

    n_heads = int(get("attention.head_count"))
    d_model = int(get("embedding_length"))
    tokens = reader.fields.get("tokenizer.ggml.tokens")
    embd = next((t for t in reader.tensors if t.name == "token_embd.weight"), None)
    vocab_default = len(tokens.data) if tokens else (int(embd.shape[1]) if embd is not None else None)
    vocab = int(get("vocab_size", vocab_default))
    head_dim = int(get("attention.key_length", d_model // n_heads if n_heads > 0 else 0))
    gemma = arch == "gemma3"
    rope_scaling = str(get("rope.scaling.type", "none"))
    rope_scale = float(get("rope.scaling.factor", 1.0)) if rope_scaling == "linear" else 1.0
    names = {t.name for t in reader.tensors}
    config = ModelConfig(
        name=str(_field(reader, "general.name", arch)),
        n_layers=int(get("block_count")),
        d_model=d_model,
        n_heads=n_heads,
        n_kv_heads=int(get("attention.head_count_kv", n_heads)),
        d_ff=int(get("feed_forward_length")),
        vocab_size=vocab,
        context_length=int(get("context_length")),
        rope_base=float(get("rope.freq_base", 10000.0)),
        rms_eps=float(get("attention.layer_norm_rms_epsilon")),
        bos_id=int(_field(reader, "tokenizer.ggml.bos_token_id", 1)),
        eos_id=int(_field(reader, "tokenizer.ggml.eos_token_id", 2)),
        architecture=arch,
        head_dim=head_dim,
        qkv_bias="blk.0.attn_q.bias" in names,
        qk_norm=gemma,
        post_norms=gemma,
        activation="gelu_tanh" if gemma else "silu",
        embedding_scale=math.sqrt(d_model) if gemma else 1.0,
        sliding_window=int(get("attention.sliding_window", 0)) if gemma else 0,
        global_every=GEMMA3_GLOBAL_EVERY if gemma else 0,
        rope_local_base=float(get("rope.local.freq_base", GEMMA3_LOCAL_ROPE_BASE)) if gemma else 0.0,
        rope_scale=rope_scale,
        attention_scale=0.0,
        logit_softcap=float(get("final_logit_softcapping", 0.0)),
        tied_output="output.weight" not in names,
        license=str(_field(reader, "general.license", "")),
    )
    _check_shape(config)
    return config


# Upper bounds: far above any model this app can run on a laptop, and low enough that no loop
# or table sized by them (the expected tensors' names, the RoPE tables) can exhaust memory; a
# block_count of 2^32 - 1 once made gigabytes of tensor names before any message.
MAX_LAYERS = 1024
MAX_WIDTH = 65_536
MAX_HEADS = 1024
MAX_VOCAB = 4_194_304
MAX_CONTEXT = 1_048_576


def _check_shape(c: ModelConfig) -> None:
    """Numbers that would make no model (or a graph onnxruntime refuses) are refused here, and so
    are numbers past any real model's (the bounds above)."""
    checks = [
        (1 <= c.n_layers <= MAX_LAYERS, "block_count"),
        (1 <= c.d_model <= MAX_WIDTH, "embedding_length"),
        (
            1 <= c.n_kv_heads <= c.n_heads <= MAX_HEADS and c.n_heads % c.n_kv_heads == 0,
            "attention.head_count_kv",
        ),
        (2 <= c.head_dim <= MAX_WIDTH and c.head_dim % 2 == 0, "attention.key_length"),
        (1 <= c.d_ff <= MAX_WIDTH * 16, "feed_forward_length"),
        (2 <= c.vocab_size <= MAX_VOCAB, "vocab_size"),
        (2 <= c.context_length <= MAX_CONTEXT, "context_length"),
        (c.rope_base > 0 and math.isfinite(c.rope_base), "rope.freq_base"),
        (0 < c.rms_eps < 1, "attention.layer_norm_rms_epsilon"),
        (0 <= c.bos_id < c.vocab_size, "tokenizer.ggml.bos_token_id"),
        (0 <= c.eos_id < c.vocab_size, "tokenizer.ggml.eos_token_id"),
    ]
    for ok, key in checks:
        if not ok:
            raise ExplainerError(f"the GGUF entry '{key}' has a value no model can have", "the file is damaged")


def check_quantizations(reader: GGUFReader) -> dict[str, int]:
    """The number of tensors of each quantization type; an unsupported type is refused by name."""
    counts: dict[str, int] = {}
    for t in reader.tensors:
        kind = t.tensor_type.name
        if kind not in SUPPORTED_QUANTS:
            raise ExplainerError(
                f"tensor '{t.name}' is stored as {kind}, a quantization explainer cannot read exactly",
                f"supported: {', '.join(SUPPORTED_QUANTS)}; choose another quantization of the model",
            )
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def weight_elements(reader: GGUFReader) -> int:
    return sum(int(t.n_elements) for t in reader.tensors)


def build_memory_bytes(reader: GGUFReader) -> int:
    """About how much memory building this GGUF takes at its peak."""
    return BUILD_COPIES * 4 * weight_elements(reader)


def available_memory() -> int:
    import psutil

    return int(psutil.virtual_memory().available)


def check_memory(name: str, need: int, available: int | None = None) -> None:
    free = available_memory() if available is None else available
    if need > free:
        raise ExplainerError(
            f"building {name} needs about {need / 1e9:.1f} GB of memory, and {free / 1e9:.1f} GB is free",
            "close other programs, or choose a smaller model or quantization",
        )


LAYER_TENSORS = {
    # field: (GGUF name, architectures that have it)
    "attn_norm": ("attn_norm", ("llama", "qwen2", "gemma3")),
    "wq": ("attn_q", ("llama", "qwen2", "gemma3")),
    "wk": ("attn_k", ("llama", "qwen2", "gemma3")),
    "wv": ("attn_v", ("llama", "qwen2", "gemma3")),
    "wo": ("attn_output", ("llama", "qwen2", "gemma3")),
    "ffn_norm": ("ffn_norm", ("llama", "qwen2", "gemma3")),
    "w_gate": ("ffn_gate", ("llama", "qwen2", "gemma3")),
    "w_up": ("ffn_up", ("llama", "qwen2", "gemma3")),
    "w_down": ("ffn_down", ("llama", "qwen2", "gemma3")),
    "q_norm": ("attn_q_norm", ("gemma3",)),
    "k_norm": ("attn_k_norm", ("gemma3",)),
    "post_attn_norm": ("post_attention_norm", ("gemma3",)),
    "post_ffn_norm": ("post_ffw_norm", ("gemma3",)),
}


def expected_tensors(config: ModelConfig) -> list[str]:
    """The tensors a model of this config must have (biases when the config says so)."""
    names = ["token_embd.weight", "output_norm.weight"]
    for i in range(config.n_layers):
        for gguf_name, archs in LAYER_TENSORS.values():
            if config.architecture in archs:
                names.append(f"blk.{i}.{gguf_name}.weight")
        if config.qkv_bias:
            names += [f"blk.{i}.attn_{x}.bias" for x in "qkv"]
    return names


def inspect_gguf(path: Path, available: int | None = None) -> ModelConfig:
    """Open and check a GGUF before building it; returns its config.

    Raises one ExplainerError for a missing file, a file that is not a GGUF or is cut short,
    an unsupported architecture or quantization, a missing metadata entry or tensor, or too
    little free memory (`available` bytes, or what the system says is available)."""
    from explainer.model.gguf_open import open_gguf

    return check_reader(open_gguf(Path(path)), available)


def check_reader(reader: GGUFReader, available: int | None = None) -> ModelConfig:
    """inspect_gguf's checks on a GGUF already open (a caller that reads more of its metadata,
    explainer/model/added.py, opens it once)."""
    config = read_config(reader)
    check_quantizations(reader)
    names = {t.name for t in reader.tensors}
    if config.n_layers > len(names):  # each layer has tensors of its own: before listing them
        raise ExplainerError(
            f"the GGUF says the model has {config.n_layers:,} layers, but the file holds {len(names):,} tensors",
            "the file is damaged",
        )
    for name in expected_tensors(config):
        if name not in names:
            raise ExplainerError(
                f"the GGUF file has no tensor '{name}', which a {config.architecture} model needs",
                "the file is incomplete",
            )
    check_memory(config.name, build_memory_bytes(reader), available)
    return config

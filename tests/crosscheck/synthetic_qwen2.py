"""Write a synthetic Qwen2 GGUF for the manual cross-check (not run in CI).

No real Qwen2 file is reachable from the development machine, so transformers_reference.py
checks the qwen2 path of the converter on a model written here: random weights (seeded; a few
layers, q/k/v biases, an output head of its own, quantised Q4_1 with a Q8_0 embedding, as
tests/model/tiny_gguf.py writes them) that carries a real tokenizer, SmolLM2's byte-level BPE
vocabulary and merges copied from its GGUF's metadata, under Qwen2's own pre-tokenizer
("qwen2"), so that transformers builds the tokenizer and the model from the file alone.

Run it with the app's environment (it needs only numpy and gguf), from the repository root:

    .venv/bin/python tests/crosscheck/synthetic_qwen2.py PATH/TO/SmolLM2-135M-Instruct.Q4_1.gguf /tmp/Synthetic-Qwen2.Q4_1.gguf
    .venv/bin/python -m explainer model add /tmp/Synthetic-Qwen2.Q4_1.gguf
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gguf import GGUFReader, GGUFWriter  # noqa: E402

from tests.model.tiny_gguf import TINY_QWEN2, write_tiny_gguf  # noqa: E402

CONFIG = replace(
    TINY_QWEN2,
    name="Synthetic Qwen2",
    n_layers=4,
    d_model=128,
    n_heads=4,
    n_kv_heads=2,
    head_dim=32,
    d_ff=256,
    context_length=2048,
    rope_base=1e6,
    rms_eps=1e-6,
)


def main(source: Path, out: Path) -> int:
    reader = GGUFReader(str(source))

    def field(key: str):
        return reader.fields[key].contents()

    tokens = field("tokenizer.ggml.tokens")

    def tokenizer(w: GGUFWriter) -> None:
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("qwen2")
        w.add_token_list(tokens)
        w.add_token_types(field("tokenizer.ggml.token_type"))
        w.add_token_merges(field("tokenizer.ggml.merges"))
        w.add_add_bos_token(False)
        w.add_unk_token_id(field("tokenizer.ggml.unknown_token_id"))
        w.add_pad_token_id(field("tokenizer.ggml.padding_token_id"))
        w.add_chat_template(field("tokenizer.chat_template"))
        w.add_license("apache-2.0")

    config = replace(
        CONFIG,
        vocab_size=len(tokens),
        bos_id=field("tokenizer.ggml.bos_token_id"),
        eos_id=field("tokenizer.ggml.eos_token_id"),
    )
    write_tiny_gguf(out, config, seed=2026, metadata=tokenizer)
    print(f"wrote {out}: qwen2, {config.n_layers} layers, d_model {config.d_model}, vocab {config.vocab_size}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))

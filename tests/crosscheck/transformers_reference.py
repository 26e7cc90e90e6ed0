"""Manual cross-check against an independent implementation (not run in CI).

Hugging Face transformers can load the same GGUF file itself (its own dequantiser, its own
un-permutation of Q/K, its own tokenizer) and run it in torch float32. This script compares its
greedy text and next-token probabilities with `explainer generate --json`.

Run it from a separate virtual environment, never the app's (torch is not our dependency):

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch transformers accelerate gguf
    /tmp/refvenv/bin/python tests/crosscheck/transformers_reference.py .venv/bin/explainer PATH/TO/SmolLM2-135M-Instruct.Q4_1.gguf

Result on 2026-11-29 (7 prompts incl. code, French, Japanese, emoji; 12 tokens each):
greedy text identical, token ids identical, worst |p_ours - p_ref| over the top 20 = 5.5e-06.
Again with the 4-bit MatMulNBits graph (converter 2): identical text and ids, worst 5.6e-06.
"""
import json
import subprocess
import sys
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

gguf = Path(sys.argv[2])
gguf_dir, fn = str(gguf.parent), gguf.name
tok = AutoTokenizer.from_pretrained(gguf_dir, gguf_file=fn)
model = AutoModelForCausalLM.from_pretrained(gguf_dir, gguf_file=fn, dtype=torch.float32)
model.eval()
prompts = ["The capital of France is", "def fibonacci(n):", "Water boils at", "Les chats sont", "1, 2, 3, 4,", "日本の首都は", "The best thing about 🍕 is"]
worst = 0
for p in prompts:
    ids = tok(p, return_tensors="pt", add_special_tokens=False).input_ids
    out = subprocess.run([sys.argv[1], "generate", "--prompt", p, "--max-new-tokens", "12", "--json"], capture_output=True, text=True)
    ours = json.loads(out.stdout)
    assert [t["id"] for t in ours["prompt_tokens"]] == ids[0].tolist(), (p, ids, ours["prompt_tokens"])
    with torch.no_grad():
        gen = model.generate(ids, max_new_tokens=12, do_sample=False)
        logits = model(gen[:, :-1]).logits[0].double()
    probs = torch.softmax(logits, -1)
    n = ids.shape[1]
    ref_ids = gen[0, n:].tolist()
    our_ids = [s["token"]["id"] for s in ours["steps"]]
    diff = 0
    for k, s in enumerate(ours["steps"]):
        if k >= len(ref_ids) or our_ids[:k + 1] != ref_ids[:k + 1]:
            break
        for c in s["top"]:
            diff = max(diff, abs(c["prob"] - probs[n - 1 + k, c["id"]].item()))
    worst = max(worst, diff)
    print(f"{p!r}: greedy match={our_ids == ref_ids[:len(our_ids)]} max|dp|={diff:.2e} ours={tok.decode(our_ids)!r} ref={tok.decode(ref_ids)!r}")
print("worst", worst)

"""`explainer generate` and `explainer bench` as a user runs them (needs the built model)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from explainer.engine.tokenizer import load_tokenizer

pytestmark = pytest.mark.slow


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "explainer", *args], input=stdin, capture_output=True, timeout=600)


def test_generate_json_reports_steps_and_timings(built_model):
    proc = run("generate", "--prompt", "The capital of France is", "--max-new-tokens", "4", "--json")
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    assert out["model"]["provider"] in ("CPUExecutionProvider", "CUDAExecutionProvider")
    assert [t["text"] for t in out["prompt_tokens"]] == ["The", " capital", " of", " France", " is"]
    first = out["steps"][0]
    assert first["phase"] == "prefill" and first["token"]["text"] == " Paris"
    assert len(first["top"]) == 20 and first["top"][0]["text"] == " Paris"
    assert first["top"][0]["prob"] == pytest.approx(0.77, abs=0.01)
    assert [s["phase"] for s in out["steps"][1:]] == ["decode"] * 3
    assert out["stop_reason"] == "max_tokens"
    assert out["ttft_s"] > 0 and out["tpot_s"] > 0


def test_generate_streams_text(built_model):
    proc = run("generate", "--prompt", "The capital of France is", "--max-new-tokens", "2")
    assert proc.returncode == 0
    assert proc.stdout.decode().startswith("The capital of France is Paris")
    assert "time to first token" in proc.stderr.decode()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--prompt", "  "], "the prompt is empty"),
        (["--prompt", "hi", "--temperature", "-1"], "emperature"),
        (["--prompt", "hi", "--top-p", "1.5"], "top"),
        (["--prompt", "hi", "--top-k", "0", "--top-p", "0"], "top"),
        (["--prompt", "hi", "--max-new-tokens", "0"], "new"),
        (["--prompt-file", "/nonexistent/prompt.txt"], "no prompt file"),
    ],
)
def test_generate_bad_input_is_one_clear_message(built_model, args, message):
    proc = run("generate", *args)
    err = proc.stderr.decode()
    assert proc.returncode == 2
    assert message.lower() in err.lower()
    assert "Traceback" not in err


def test_generate_rejects_invalid_utf8_from_stdin(built_model):
    proc = run("generate", "--prompt", "-", stdin=b"caf\xe9\n")
    assert proc.returncode == 2
    assert "not valid UTF-8" in proc.stderr.decode()


def test_generate_without_a_built_model_says_how_to_build(tmp_path):
    proc = run("--cache-dir", str(tmp_path), "generate", "--prompt", "hi")
    assert proc.returncode == 2
    assert "explainer model build" in proc.stderr.decode()
    assert "Traceback" not in proc.stderr.decode()


def test_no_loader_noise_and_the_real_provider_is_reported(built_model):
    from explainer.engine.runtime import cuda_device_count

    proc = run("generate", "--prompt", "Hello", "--max-new-tokens", "1", "--json")
    err = proc.stderr.decode()
    assert proc.returncode == 0
    assert err.strip() == "", f"unexpected output on stderr: {err[:500]}"
    provider = json.loads(proc.stdout)["model"]["provider"]
    assert provider == ("CUDAExecutionProvider" if cuda_device_count() else "CPUExecutionProvider")


def test_streamed_text_never_splits_a_character(built_model):
    """CJK and emoji take several byte tokens each; the stream shows whole characters only, and
    `--json` gives the answer's whole text and each token's bytes, as the tokenizers library
    decodes the same ids."""
    tokenizer = load_tokenizer(built_model.tokenizer_path)
    greedy = ("--prompt", "日本の首都は", "--temperature", "0")
    out = json.loads(run("generate", *greedy, "--max-new-tokens", "8", "--json").stdout)
    ids = [s["token"]["id"] for s in out["steps"]]
    pieces = [s["token"] for s in out["steps"] if s["token"]["text"] is None]
    assert pieces  # the answer has tokens that are only part of a character: they carry their bytes
    assert all(bytes.fromhex(p["bytes"]) == tokenizer.token_bytes(p["id"]) for p in pieces)
    whole = next(k for k in range(len(ids), 0, -1) if "\ufffd" not in tokenizer.hf.decode(ids[:k]))
    cut = next(k for k in range(1, len(ids) + 1) if tokenizer.hf.decode(ids[:k]).endswith("\ufffd"))
    for n in (whole, cut):  # a run that ends on a whole character, and one cut in the middle of one
        theirs = tokenizer.hf.decode(ids[:n])
        out = json.loads(run("generate", *greedy, "--max-new-tokens", str(n), "--json").stdout)
        streamed = run("generate", *greedy, "--max-new-tokens", str(n))
        assert "\ufffd" not in out["answer"] and "\ufffd" not in streamed.stdout.decode()
        assert streamed.stdout.decode() == "日本の首都は" + out["answer"]
        if n == whole:
            assert out["answer"] == theirs and out["unfinished"] == ""
        else:  # nothing of the unfinished character is printed, and the run says so
            assert out["answer"] + "\ufffd" == theirs and out["unfinished"] == tokenizer.token_bytes(ids[n - 1]).hex()
            assert "the last token is part of a character" in streamed.stderr.decode()


def test_a_chat_answer_does_not_print_its_end_token_unless_asked(built_model):
    args = ("generate", "--chat", "--prompt", "Say hi", "--max-new-tokens", "40")
    plain, shown = run(*args), run(*args, "--show-special")
    assert plain.returncode == 0 and shown.returncode == 0
    assert "eos" in plain.stderr.decode()  # the reply ended with <|im_end|>
    assert "<|im_end|>" not in plain.stdout.decode()
    assert shown.stdout.decode().rstrip().endswith("<|im_end|>")
    assert shown.stdout.decode().replace("<|im_end|>", "") == plain.stdout.decode()

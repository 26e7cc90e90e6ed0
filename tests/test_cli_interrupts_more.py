"""Ctrl-C while the CLI loads its libraries, during `model add` and during `bench`: exit 130, one
line, nothing half-made left (issue 34). A real SIGINT to a real process, sent when a condition is
seen (a line on stderr, a file, a library mapped into the process), not after a guessed sleep.

Before the fix, a Ctrl-C while PySide6 or ONNX Runtime initialised ended in SIGSEGV (-11),
SIGABRT (-6), SIGINT (-2, after "interrupted") or "ImportError: initialization failed ... this
is a bug" (explainer/interrupts.py): the tests that send it while those libraries are mapped but
not yet imported failed 7 times in 8.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OLD = b"the old file, which must stay whole"
WAIT_S = 120  # the longest any condition may take on a slow, busy machine


def start(args: list[str], cwd: Path, **env: str) -> subprocess.Popen[bytes]:
    """`explainer ARGS` in a session of its own (so that SIGINT can go to its whole process group,
    as a terminal's Ctrl-C does)."""
    return subprocess.Popen(
        [sys.executable, "-m", "explainer", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": ROOT, **env},
        start_new_session=True,
    )


def wait_until(proc: subprocess.Popen[bytes], seen: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not seen():
        assert proc.poll() is None, f"ended before {what}: {proc.communicate()[1].decode()}"
        assert time.monotonic() < deadline, f"no {what} within {WAIT_S} s"
        time.sleep(0.002)


def wait_line(proc: subprocess.Popen[bytes], text: bytes) -> bytes:
    """stderr up to and with the first line that has ``text``."""
    assert proc.stderr is not None
    err = b""
    while text not in err:
        line = proc.stderr.readline()
        assert line, f"ended before {text!r}: {err.decode()}"
        err += line
    return err


def mapped(proc: subprocess.Popen[bytes], library: str) -> Callable[[], bool]:
    def seen() -> bool:
        try:
            with open(f"/proc/{proc.pid}/maps") as maps:
                return library in maps.read()
        except OSError:
            return False

    return seen


def ctrl_c(proc: subprocess.Popen[bytes], err: bytes = b"") -> tuple[int, str, bytes]:
    """SIGINT to the process group; its exit code, stderr, stdout. Every process of the group is gone."""
    os.killpg(proc.pid, signal.SIGINT)
    out, rest = proc.communicate(timeout=WAIT_S)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("a child process outlived the interrupted command")
    return proc.returncode, (err + rest).decode("utf-8", "replace"), out


def assert_interrupted(code: int, err: str) -> None:
    assert code == 130, err
    assert "Traceback" not in err and "bug" not in err
    assert err.strip().splitlines()[-1] == "interrupted", err


# ------------------------------------------------------------------ while the libraries load


@pytest.fixture(scope="module")
def saved_run(real_trace, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from explainer.engine.trace_file import save_trace

    path = tmp_path_factory.mktemp("run") / "run.trace"
    save_trace(real_trace("paris"), path)
    return path


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc/PID/maps (Linux)")


@needs_proc
@pytest.mark.parametrize("library", ["_multiarray_umath", "libshiboken6", "QtGui"])
def test_ctrl_c_while_export_loads_numpy_or_qt_exits_130(saved_run, tmp_path, tmp_cache, library):
    (tmp_path / "out.svg").write_bytes(OLD)
    proc = start(["export", "--trace", str(saved_run), "--out", "out.svg"], tmp_path, QT_QPA_PLATFORM="offscreen")
    wait_until(proc, mapped(proc, library), f"{library} loaded")
    code, err, _ = ctrl_c(proc)
    assert_interrupted(code, err)
    assert os.listdir(tmp_path) == ["out.svg"] and (tmp_path / "out.svg").read_bytes() == OLD


@needs_proc
@pytest.mark.parametrize("library", ["_multiarray_umath", "onnxruntime_pybind11"])
def test_ctrl_c_while_generate_loads_numpy_or_onnx_runtime_exits_130(built_model, tmp_path, library):
    (tmp_path / "run.trace").write_bytes(OLD)
    proc = start(["generate", "--prompt", "hi", "--max-new-tokens", "4", "--save-trace", "run.trace"], tmp_path)
    wait_until(proc, mapped(proc, library), f"{library} loaded")
    code, err, _ = ctrl_c(proc)
    assert_interrupted(code, err)
    assert os.listdir(tmp_path) == ["run.trace"] and (tmp_path / "run.trace").read_bytes() == OLD


def test_a_ctrl_c_during_an_import_comes_when_the_import_is_whole(tmp_path):
    """The mechanism, without timing: a module that is interrupted while it is imported is
    imported whole, and the KeyboardInterrupt comes right after."""
    (tmp_path / "slow_module.py").write_text(
        "import signal, time\nsignal.raise_signal(signal.SIGINT)\ntime.sleep(0.2)\nWHOLE = True\n"
    )
    script = (
        "import sys, time\n"
        "from explainer import interrupts\n"
        "interrupts.install()\n"
        "try:\n"
        "    import slow_module\n"
        "    time.sleep(5)\n"
        "except KeyboardInterrupt:\n"
        "    print(sys.modules['slow_module'].WHOLE)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"},
        capture_output=True,
        timeout=60,
    )
    assert done.stdout == b"True\n", done.stderr.decode()


def test_the_cli_module_loads_nothing_heavy_before_main_handles_ctrl_c():
    """The `explainer` script imports explainer.cli before it calls main(): a Ctrl-C then is
    Python's own KeyboardInterrupt, so that import must be short."""
    heavy = "('numpy', 'PySide6', 'onnxruntime')"
    code = f"import sys, explainer.cli; print(sorted(m for m in {heavy} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": ROOT}, capture_output=True)
    assert done.stdout == b"[]\n", done.stderr.decode()


# ------------------------------------------------------------------ model add


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


ADD_MOMENTS = [b"checking the file", b"building tokenizer: 0%", b"converting", b"building model.onnx"]


@pytest.mark.parametrize("moment", ADD_MOMENTS)
def test_ctrl_c_during_model_add_keeps_the_earlier_build_whole(tmp_cache, tiny_model_gguf, tmp_path, moment):
    """A model added before, which this add rebuilds (its converter is out of date): after Ctrl-C
    it is byte for byte what it was, with nothing beside it in the cache."""
    from explainer.model.added import add_gguf

    built = add_gguf(tiny_model_gguf).built
    info_path = built.dir / "build.json"
    info = json.loads(info_path.read_text())
    info_path.write_text(json.dumps({**info, "converter_version": "an older one"}))
    models = tmp_cache / "models"
    before, gguf = snapshot(models), tiny_model_gguf.read_bytes()
    proc = start(["model", "add", str(tiny_model_gguf)], tmp_path)
    code, err, out = ctrl_c(proc, wait_line(proc, moment))
    assert_interrupted(code, err)
    assert out == b"" and snapshot(models) == before and tiny_model_gguf.read_bytes() == gguf
    assert not [p for p in tmp_cache.rglob("*") if p.name.endswith(".tmp")]


@pytest.mark.parametrize("moment", [b"building tokenizer: 0%", b"building model.onnx"])
def test_ctrl_c_during_a_first_model_add_leaves_no_model_folder(tmp_cache, tiny_model_gguf, tmp_path, moment):
    proc = start(["model", "add", str(tiny_model_gguf)], tmp_path)
    code, err, out = ctrl_c(proc, wait_line(proc, moment))
    assert_interrupted(code, err)
    models = tmp_cache / "models"
    assert out == b"" and (not models.exists() or os.listdir(models) == [])
    assert not [p for p in tmp_cache.rglob("*") if p.name.endswith(".tmp")]


# ------------------------------------------------------------------ bench


@needs_proc
@pytest.mark.parametrize("after", [0.0, 2.0])
def test_ctrl_c_during_bench_prints_no_half_report(built_model, tmp_path, after):
    """While ONNX Runtime loads the model, and while it is measured."""
    proc = start(["bench"], tmp_path)
    wait_until(proc, mapped(proc, "onnxruntime_pybind11"), "ONNX Runtime loaded")
    time.sleep(after)
    code, err, out = ctrl_c(proc)
    assert_interrupted(code, err)
    assert out == b""


def _anything(folder: Path, pattern: str) -> Callable[[], bool]:
    return lambda: any(folder.rglob(pattern))


@pytest.mark.parametrize("moment", ["*.svg", "run.trace", "*run.mp4*"])
def test_ctrl_c_during_bench_export_leaves_no_temporary_folder_and_no_child(built_model, tmp_path, moment):
    """`bench --export` draws figures into a temporary folder, then exports a whole run in child
    processes: Ctrl-C (to the process group, as a terminal sends it) while the figures are drawn,
    when the run is saved, and while a child writes the MP4."""
    pytest.importorskip("av")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = start(["bench", "--export", "--tokens", "2"], tmp_path, TMPDIR=str(tmp), QT_QPA_PLATFORM="offscreen")
    wait_until(proc, _anything(tmp, moment), f"{moment} in the temporary folder")
    code, err, out = ctrl_c(proc)
    assert_interrupted(code, err)
    assert out == b"" and os.listdir(tmp) == []

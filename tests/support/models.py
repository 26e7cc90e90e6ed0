"""The models the lesson's tests run for: the real default model, a tiny second one, and Gemma 3.

The lesson must be true of every model a user opens (issue 20), so the caption and pseudo-locale
tests run for each. The second is a tiny random Llama with a real byte-level tokenizer, a chat
template and a licence of its own (tests/model/tiny_gguf.py), built by `model add`'s own code into a
cache of the test session's: it has other layers, widths, vocabulary, context and licence than the
default, and, being random, writes byte pieces that make no character alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explainer.engine.trace import Trace
from explainer.illustration.vocab import Vocabulary
from explainer.model.build import BuiltModel
from tests.lesson.real_traces import REQUESTS

SECOND_LICENCE = "tiny-licence-2"


def add_into(gguf: Path, cache: Path) -> Any:
    """`model add`'s own build of ``gguf`` into ``cache``; the process's cache setting is left
    as it was, so the other tests still find the default model where it is."""
    from explainer.model import paths
    from explainer.model.added import add_gguf

    saved = paths._override
    paths.set_cache_dir(cache)
    try:
        return add_gguf(gguf).built
    finally:
        paths._override = saved


def model_code_hash() -> str:
    """A hash of what builds a model: explainer/model/'s code and the onnx and gguf libraries'
    versions. A build kept from an earlier session is used only while they are the same."""
    import hashlib

    import gguf
    import onnx

    import explainer.model

    root = Path(explainer.model.__file__).parent
    h = hashlib.sha256(f"onnx {onnx.__version__} gguf {getattr(gguf, '__version__', '?')}".encode())
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def kept_cache(kind: str) -> Path:
    """A cache for a test model's build that outlives the session, in the user's cache beside the
    download it is built from: ``<cache>/test-builds/<kind>-<model_code_hash>``. Builds of other
    versions of the code are removed (one kept a kind)."""
    import shutil

    from explainer.model.paths import cache_root

    folder = cache_root() / "test-builds"
    here = folder / f"{kind}-{model_code_hash()}"
    for old in folder.glob(f"{kind}-*"):
        if old != here:
            shutil.rmtree(old, ignore_errors=True)
    return here


def add_into_kept(gguf: Path, kind: str) -> Any:
    """`model add`'s build of ``gguf`` into the kept cache of ``kind``, one session at a time: two
    pytest-xdist workers (or two sessions) that both need it wait on a file lock beside the
    builds, so one builds and the other finds the build done (`model add` looks it up by the
    GGUF's hash) instead of both writing the same folder."""
    from filelock import FileLock

    from explainer.model.paths import cache_root

    folder = cache_root() / "test-builds"
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(folder / f"{kind}.lock"):
        return add_into(gguf, kept_cache(kind))


def build_second_model(root: Path) -> Any:
    """Build the second model into ``root``/cache."""
    from tests.model.tiny_gguf import write_tiny_model_gguf

    gguf = root / "Tiny-Second.Q4_1.gguf"
    write_tiny_model_gguf(gguf, seed=11, licence=SECOND_LICENCE, n_layers=3)
    return add_into(gguf, root / "cache")


@dataclass
class LessonModel:
    """One model the lesson runs on: its engine's runs (cached) and the vocabulary that labels them."""

    kind: str  # "default", "second" or "gemma"
    engine: Any
    vocabulary: Vocabulary | None
    _traces: dict[str, Trace] = field(default_factory=dict)
    _real: Callable[[str], Trace] | None = None  # the default model's session-wide real_trace(name)

    def trace(self, name: str) -> Trace:
        if self._real is not None:
            return self._real(name)
        if name not in self._traces:
            prompt, settings, chat = REQUESTS[name]
            self._traces[name] = self.engine.generate(prompt, settings, chat=chat, lens=True)
        return self._traces[name]


def copy_with_a_flipped_bit(built: BuiltModel, cache: Path, file: str = "model.onnx.data") -> Path:
    """A copy of the built model ``built`` in ``cache`` (its models/ folder), with one bit of
    ``file`` flipped halfway through: the same size, so only its hash tells (issue 34). The
    shared cache is not touched. Returns the copy's folder."""
    import shutil

    target = cache / "models" / built.dir.name
    shutil.copytree(built.dir, target)
    with open(target / file, "r+b") as f:
        middle = (target / file).stat().st_size // 2
        f.seek(middle)
        byte = f.read(1)[0]
        f.seek(middle)
        f.write(bytes([byte ^ 0x01]))
    return target

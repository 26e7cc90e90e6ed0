"""Build a model: fetch the GGUF, convert it to ONNX, build the tokenizer.

Everything is written into ``<model_dir>.partial-<pid>`` first; ``build.json`` is
written last, then the directory is swapped into place with renames. A crash or
Ctrl-C therefore never leaves a half-built model that looks complete; leftovers
are removed by the next build.

Builds of one model take turns through a lock file in the cache (``locks/build-<name>.lock``):
two `explainer model build` started at once (two terminals, or the app and a terminal) would
otherwise both download and convert, and the second swap would replace the first's result.
The second waits, then finds the model built and reuses it. The lock is the `filelock`
package's: flock on POSIX, msvcrt on Windows, released by the OS if the holder dies.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explainer.errors import ExplainerError
from explainer.model.checks import (
    HASHED_ON_LOAD_BYTES,
    check_config,
    check_hashes,
    check_tokenizer_config,
    file_hashes,
    read_small_json,
)
from explainer.model.manifest import DEFAULT_MODEL, Manifest, load_manifest
from explainer.model.paths import cache_root, downloads_dir, ensure_writable_dir, model_dir
from explainer.model.rebuild import rebuild_hint

if TYPE_CHECKING:
    from explainer.model.gguf_open import OpenGguf

BUILD_INFO = "build.json"
MODEL_ONNX = "model.onnx"
CONFIG_JSON = "config.json"
TOKENIZER_JSON = "tokenizer.json"
TOKENIZER_CONFIG_JSON = "tokenizer_config.json"
REQUIRED_FILES = (MODEL_ONNX, CONFIG_JSON, TOKENIZER_JSON)
BUILD_FORMAT = 1

Progress = Callable[[str, float], None]
Log = Callable[[str], None]


def _noop_progress(phase: str, fraction: float) -> None:
    pass


def _noop_log(message: str) -> None:
    pass


@dataclass(frozen=True)
class BuiltModel:
    """A built model on disk."""

    name: str
    dir: Path
    config: dict[str, Any]
    build_info: dict[str, Any]
    manifest: Manifest | None = field(default=None, compare=False)

    @property
    def onnx_path(self) -> Path:
        return self.dir / MODEL_ONNX

    @property
    def tokenizer_path(self) -> Path:
        return self.dir / TOKENIZER_JSON

    @property
    def display_name(self) -> str:
        """The name people know the model by: its manifest's, else the one its build recorded."""
        if self.manifest is not None:
            return self.manifest.display_name
        return str(self.build_info.get("display_name") or self.name)

    @property
    def license(self) -> str:
        """The weights' licence as its publisher names it ("" where nobody said)."""
        if self.manifest is not None:
            return self.manifest.license
        return str(self.build_info.get("license") or "")

    @property
    def chat_template(self) -> str:
        """The chat template with ``{prompt}`` where the user's message goes."""
        if self.manifest is not None:
            return self.manifest.chat_template
        template = self.build_info.get("chat_template")
        return template if isinstance(template, str) and "{prompt}" in template else "{prompt}"

    @property
    def architecture(self) -> str:
        if self.manifest is not None:
            return str(self.manifest.architecture.get("type", "llama"))
        return str(self.build_info.get("architecture") or "llama")

    @property
    def gguf_path(self) -> Path | None:
        """The source GGUF in the download cache, if it is still there."""
        p = self.build_info.get("gguf_path")
        return Path(p) if p and Path(p).is_file() else None


def _converter_version() -> str | None:
    import importlib

    try:
        convert = importlib.import_module("explainer.model.convert")
    except ImportError:
        return None
    v = getattr(convert, "CONVERTER_VERSION", None)
    return None if v is None else str(v)


def _corrupt(name: str, why: str, hint: str = "run `explainer model build --force`") -> ExplainerError:
    return ExplainerError(f"the files of model {name} are corrupt or incomplete ({why})", hint)


def load_built(name: str = DEFAULT_MODEL) -> BuiltModel:
    """Return the built model ``name`` or raise a clear :class:`ExplainerError`."""
    d = model_dir(name)
    if not d.is_dir():
        raise ExplainerError(
            f"model {name} is not built yet",
            "run `explainer model build` (downloads ~93 MB once)",
        )
    if not (d / BUILD_INFO).exists():
        raise _corrupt(name, f"{BUILD_INFO} is missing")
    info = read_small_json(d / BUILD_INFO, name)
    for fname in REQUIRED_FILES:
        if not (d / fname).exists():  # (one that is there but not a file is named when it is read)
            raise _corrupt(name, f"{fname} is missing")
    built_by, current = info.get("converter_version"), _converter_version()
    if built_by is not None and current is not None and str(built_by) != current:
        # The graph's inputs and outputs change with the converter: an old graph would load,
        # then fail on its first pass with onnxruntime's words instead of ours.
        raise ExplainerError(
            f"model {name} was built by an older version of explainer (converter {built_by}; "
            f"this version needs {current})",
            "run `explainer model build` to rebuild it",
        )
    config = read_small_json(d / CONFIG_JSON, name)
    check_config(name, config)
    if (d / TOKENIZER_CONFIG_JSON).exists():
        check_tokenizer_config(name, read_small_json(d / TOKENIZER_CONFIG_JSON, name), config)
    # the fields first (a message naming one), then whether every file is whole and unchanged
    files, rebuild = info.get("files"), rebuild_hint(name, info)  # (an added model's own command)
    if isinstance(files, dict):
        for rel, size in files.items():
            p = d / rel
            if not p.is_file():
                raise _corrupt(name, f"{rel} is missing", rebuild)
            if isinstance(size, int) and p.stat().st_size != size:
                raise _corrupt(name, f"{rel} has {p.stat().st_size} bytes, expected {size}", rebuild)
    check_hashes(name, d, info.get("sha256"), HASHED_ON_LOAD_BYTES, rebuild)  # same size, other bytes: found here
    try:
        manifest: Manifest | None = load_manifest(name)
    except ExplainerError:
        manifest = None
    return BuiltModel(name=name, dir=d, config=config, build_info=info, manifest=manifest)


def verify_built(name: str = DEFAULT_MODEL) -> list[str]:
    """Every check of :func:`load_built`, and the hash of every file, the large ones too (a
    flipped byte in model.onnx.data is found here). Returns the files whose hash was checked."""
    built = load_built(name)
    hashes = built.build_info.get("sha256")
    if not isinstance(hashes, dict):
        raise ExplainerError(
            f"model {name} was built before builds recorded their files' hashes, so it cannot be verified",
            "rebuild it to record them: `explainer model build --force`",
        )
    return check_hashes(name, built.dir, hashes, None, rebuild_hint(name, built.build_info))


def is_up_to_date(manifest: Manifest) -> bool:
    try:
        built = load_built(manifest.name)
    except ExplainerError:
        return False
    info = built.build_info
    return (
        info.get("build_format") == BUILD_FORMAT
        and info.get("manifest_key") == manifest.build_key
        and info.get("gguf_sha256") == manifest.source.gguf_sha256
        and info.get("converter_version") == _converter_version()
    )


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        import psutil

        return bool(psutil.pid_exists(pid))
    except ImportError:  # pragma: no cover
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


def clean_stale(name: str) -> list[Path]:
    """Remove ``<name>.partial-<pid>`` / ``<name>.old-<pid>`` dirs of dead builds."""
    parent = model_dir(name).parent
    removed: list[Path] = []
    if not parent.is_dir():
        return removed
    for kind in ("partial", "old"):
        for p in parent.glob(f"{name}.{kind}-*"):
            suffix = p.name.rsplit("-", 1)[-1]
            if suffix.isdigit() and _pid_alive(int(suffix)):
                continue  # another build is running right now
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
    return removed


def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    from importlib import metadata

    for dist in ("onnx", "onnxruntime-gpu", "onnxruntime", "gguf", "tokenizers", "explainer"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return out


def _file_sizes(d: Path) -> dict[str, int]:
    return {
        str(p.relative_to(d)): p.stat().st_size for p in sorted(d.rglob("*")) if p.is_file() and p.name != BUILD_INFO
    }


def _swap_into_place(partial: Path, final: Path) -> None:
    old = final.parent / f"{final.name}.old-{os.getpid()}"
    if final.exists():
        if old.exists():
            shutil.rmtree(old)
        os.replace(final, old)
    try:
        os.replace(partial, final)
    except BaseException:
        if old.exists() and not final.exists():
            os.replace(old, final)
        raise
    shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def _build_turn(name: str, progress: Progress, log: Log) -> Iterator[bool]:
    """Hold the build lock of model ``name``; yields whether another build held it first."""
    from filelock import FileLock, Timeout

    lock = FileLock(str(ensure_writable_dir(cache_root() / "locks") / f"build-{name}.lock"))
    waited = False
    try:
        lock.acquire(timeout=0)
    except Timeout:
        waited = True
        log(f"another build of model {name} is running; waiting for it to finish")
        progress("waiting for another build", 0.0)
        lock.acquire()
    try:
        yield waited
    finally:
        lock.release()


def build_model(
    name: str = DEFAULT_MODEL,
    force: bool = False,
    progress: Progress | None = None,
    log: Log | None = None,
) -> BuiltModel:
    """Build model ``name`` into the cache (idempotent unless ``force``)."""
    progress = progress or _noop_progress
    log = log or _noop_log
    manifest = load_manifest(name)
    final = model_dir(name)
    if not force and is_up_to_date(manifest):  # needs no write: a read-only cache is fine
        log(f"model {name} is already built in {final}")
        return load_built(name)
    ensure_writable_dir(final.parent)
    with _build_turn(name, progress, log) as waited:
        clean_stale(name)
        # A build we waited for is as fresh as the one `force` asks for.
        if (waited or not force) and is_up_to_date(manifest):
            by = " (by the build we waited for)" if waited else ""
            log(f"model {name} is already built in {final}{by}")
            return load_built(name)
        return _build(manifest, final, progress, log)


def _build(manifest: Manifest, final: Path, progress: Progress, log: Log) -> BuiltModel:
    """Fetch, convert and swap into place; the caller holds the build lock."""
    name = manifest.name

    started = time.monotonic()
    from explainer.model.fetch import fetch_gguf
    from explainer.model.gguf_open import OpenGguf

    gguf_path = fetch_gguf(manifest, downloads_dir(), progress)
    fields = {
        "name": manifest.name,
        "display_name": manifest.display_name,
        "license": manifest.license,
        "manifest_key": manifest.build_key,
        "gguf_sha256": manifest.source.gguf_sha256,
    }
    return _convert_into(name, OpenGguf(gguf_path), final, fields, started, progress, log)


def _convert_into(
    name: str, gguf: OpenGguf, final: Path, fields: dict[str, Any], started: float, progress: Progress, log: Log
) -> BuiltModel:
    """Convert `gguf` into a partial directory, write build.json last, swap it into place.

    The tokenizer and the weights come from the one reader of `gguf` (opened once: parsing
    Gemma 3's metadata is slower than dequantising its weights); the tokenizer is built
    first, so that the converter can let the reader go before it builds the graphs."""
    try:
        from explainer.model.convert import convert_gguf
    except ImportError as exc:
        raise ExplainerError(
            "the GGUF -> ONNX converter (explainer.model.convert) is not available",
            f"this checkout is incomplete ({exc}); update it and retry",
        ) from exc

    gguf_path = gguf.path
    partial = final.parent / f"{final.name}.partial-{os.getpid()}"
    if partial.exists():
        shutil.rmtree(partial)
    partial.mkdir(parents=True)
    try:
        progress("building tokenizer", 0.0)
        from explainer.model.tokenizer_build import build_tokenizer

        build_tokenizer(gguf.reader, partial / TOKENIZER_JSON)
        progress("building tokenizer", 1.0)
        log(f"converting {gguf_path.name} to ONNX")
        convert_gguf(gguf, partial, progress)  # it releases the reader once it has the weights
        for fname in (MODEL_ONNX, CONFIG_JSON):
            if not (partial / fname).is_file():
                raise ExplainerError(
                    f"the converter did not write {fname}",
                    "this is a bug in explainer; please report it",
                )

        info = {
            "build_format": BUILD_FORMAT,
            **fields,
            "gguf_path": str(gguf_path),
            "converter_version": _converter_version(),
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "build_seconds": round(time.monotonic() - started, 2),
            "versions": _versions(),
            "files": _file_sizes(partial),
            "sha256": file_hashes(partial, BUILD_INFO),
        }
        tmp_info = partial / (BUILD_INFO + ".tmp")
        tmp_info.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp_info, partial / BUILD_INFO)
        check_hashes(name, partial, info["sha256"], None)  # what was written reads back the same
        _swap_into_place(partial, final)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    log(f"model {name} built in {final} ({info['build_seconds']:.1f} s)")
    return load_built(name)

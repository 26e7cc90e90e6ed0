"""`explainer export --lesson`: a saved run becomes a SCORM 1.2 package (its manifest at the zip's
root, one SCO, every file listed) or a page of at most 5 MB for 8 tokens, with progress as every
export reports it; a damaged or foreign trace is refused as any export refuses it, and options
that draw something else are refused before any work."""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from explainer.engine.trace_file import save_trace
from explainer.lesson_web.page import CSP
from explainer.lesson_web.scorm import MANIFEST, PAGE
from tests.lesson_web.conftest import blocks

SIZE_8_TOKENS = 5_000_000  # bytes: the page of an 8-token run (issue 51)
NS = {"cp": "http://www.imsproject.org/xsd/imscp_rootv1p1p2", "adlcp": "http://www.adlnet.org/xsd/adlcp_rootv1p2"}


def explainer(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-m", "explainer", "export", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=600,
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--out", "lesson.svg"], "cannot write the lesson to 'lesson.svg'"),
        (["--out", "lesson.html", "--stage", "tokens"], "--stage is not for --lesson"),
        (["--out", "lesson.html", "--from", "0:tokens"], "--from is not for --lesson"),
        (["--frames", "pictures/"], "--frames is not for --lesson"),
        ([], "--lesson needs --out"),
    ],
)
def test_what_the_lesson_cannot_be_is_refused_before_any_work(tmp_path, args, says):
    done = explainer("--lesson", "--prompt", "Hi", *args, cwd=tmp_path)
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_damaged_trace_is_refused(tmp_path):
    bad = tmp_path / "run.trace"
    bad.write_bytes(b"PK\x03\x04 not a trace at all")
    done = explainer("--lesson", "--trace", str(bad), "--out", "lesson.zip", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("error:"), done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.trace"]


@pytest.mark.slow
def test_a_saved_run_becomes_a_scorm_package(lesson_trace, tmp_path):
    saved = tmp_path / "run.trace"
    save_trace(lesson_trace, saved)
    done = explainer("--lesson", "--trace", str(saved), "--out", "lesson.zip", "--progress", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    phases = {line["progress"] for line in lines}
    assert {"recording the runs the page offers", "drawing the web page", "writing the lesson"} <= phases
    assert "wrote " in done.stderr.splitlines()[-1]
    with zipfile.ZipFile(tmp_path / "lesson.zip") as z:
        names = z.namelist()
        manifest = ET.fromstring(z.read(MANIFEST))
        page = z.read(PAGE)
    assert MANIFEST in names and "/" not in MANIFEST  # at the zip's root
    assert manifest.findtext("cp:metadata/cp:schemaversion", namespaces=NS) == "1.2"
    resources = manifest.findall("cp:resources/cp:resource", NS)
    assert len(resources) == 1 and resources[0].get(f"{{{NS['adlcp']}}}scormtype") == "sco"
    listed = {f.get("href") for f in resources[0].findall("cp:file", NS)}
    assert listed | {MANIFEST} == set(names)  # every file of the package is listed
    item = manifest.find("cp:organizations/cp:organization/cp:item", NS)
    assert item is not None and item.get("identifierref") == resources[0].get("identifier")
    lesson = blocks(page)["lesson-data"]
    assert lesson["run"]["steps"] == len(lesson_trace.steps)


@pytest.mark.slow
def test_an_8_token_page_is_within_5_mb_and_runs_only_its_own_scripts(built_lesson, lesson_trace):
    page = built_lesson.page
    assert len(lesson_trace.steps) == 8
    print(f"\n8-token lesson page: {len(page) / 1e6:.2f} MB")
    assert len(page) <= SIZE_8_TOKENS
    csp = html.unescape(page.split(b'http-equiv="Content-Security-Policy" content="', 1)[1].split(b'"', 1)[0].decode())
    assert csp.startswith(CSP.split("{")[0]) and "default-src 'none'" in csp
    assert "script-src 'sha256-" in csp and "'unsafe-inline'" not in csp.split("script-src", 1)[1]

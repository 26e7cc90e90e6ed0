"""Trace files made to cost memory or hang the reader (tests/support/trace_bombs.py) are each
refused cleanly, with words naming what is wrong, by a process whose address space is limited
to about 1.5 GB: a reader that allocated from a declared size, inflated a bomb, read a device
whole or waited on a FIFO would fail, crash or time out instead (issue 19)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.support.trace_bombs import CASES

LIMIT = 1536 << 20

SCRIPT = textwrap.dedent(
    """
    import json, resource, sys
    from pathlib import Path
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    from explainer.engine.trace_file import load_trace
    from explainer.errors import ExplainerError
    try:
        load_trace(Path(sys.argv[1]))
    except ExplainerError as e:
        print(json.dumps({{"refused": e.message, "hint": e.hint, "type": type(e).__name__}}))
    else:
        print(json.dumps({{"opened": True}}))
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and mkfifo as on Linux")
@pytest.mark.parametrize("name", sorted(CASES))
def test_every_bomb_is_refused_within_the_memory_limit(tmp_path, name):
    make, words = CASES[name]
    path = make(tmp_path)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(limit=LIMIT), str(path)],
        capture_output=True,
        timeout=120,
        env=env,
        cwd=os.getcwd(),
    )
    err = proc.stderr.decode()
    assert proc.returncode == 0 and "Traceback" not in err, err
    result = json.loads(proc.stdout)
    assert "refused" in result, result
    assert result["type"] == "TraceError" and result["hint"]
    import re

    assert re.search(words, result["refused"]), result["refused"]


FUZZ = textwrap.dedent(
    """
    import resource, sys, tempfile
    from pathlib import Path
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    from hypothesis import HealthCheck, given, settings, strategies as st
    from explainer.engine.trace_checks import TraceError
    from explainer.engine.trace_file import load_trace
    from tests.support.trace_bombs import CASES

    folder = Path(tempfile.mkdtemp())
    made = {{name: CASES[name][0](folder) for name in CASES}}
    # the small ones: a file of its own size read into memory must leave the limit its meaning
    FILES = sorted(n for n, p in made.items() if p.is_file() and p.stat().st_size < 8 << 20)
    bombs = {{name: made[name].read_bytes() for name in FILES}}
    assert len(FILES) >= 6, FILES

    @settings(max_examples={examples}, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(name=st.sampled_from(FILES),
           changes=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), max_size=4),
           cut=st.one_of(st.none(), st.floats(0.5, 1)))
    def fuzz(name, changes, cut):
        data = bytearray(bombs[name])
        for where, value in changes:
            data[int(where * len(data))] = value
        if cut is not None:
            data = data[: int(cut * len(data))]
        path = folder / "fuzzed.trace"
        path.write_bytes(bytes(data))
        try:
            load_trace(path)
        except TraceError as e:
            assert e.message and e.hint
        # (a change can also undo a bomb: a valid trace opening is no failure)

    fuzz()
    print("ok")
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as on Linux")
def test_random_corruptions_of_the_bombs_are_refused_within_the_memory_limit():
    """Hypothesis corrupts the size bombs further (bytes changed, the file cut short), all in one
    process limited to about 1.5 GB: a reader that allocated from a corrupted size would hit the
    limit as a MemoryError (not a TraceError), and the run would fail."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", FUZZ.format(limit=LIMIT, examples=120)],
        capture_output=True,
        timeout=600,
        env=env,
        cwd=os.getcwd(),
    )
    assert proc.returncode == 0 and proc.stdout.decode().strip().endswith("ok"), proc.stderr.decode()[-3000:]

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

"""The fault sweep's script (tests/fault_sweep.py) keeps working: two of its fastest cases, one
that reads a copy of the built model, run through the same code, judged the same way. Its time
and memory are printed by the script, never asserted here (a shared CI machine)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fault_sweep import selected, sweep


@pytest.mark.slow
def test_the_sweep_runs_its_cases_and_judges_them(built_model: object, tmp_path: Path) -> None:
    rows = sweep(selected("1,16a"), tmp_path, print_rows=False)
    assert [r.case for r in rows] == ["1", "16a"]
    for row in rows:
        assert row.exit == 2 and not row.traceback, row
        assert [p for p in row.problems if not p.startswith("over ")] == [], row
    assert rows[0].message == "error: standard input is closed, so `-` has nothing to read"
    assert rows[1].message.startswith("error: could not write the output")
    assert rows[1].stderr_lines == 2  # the error and its hint

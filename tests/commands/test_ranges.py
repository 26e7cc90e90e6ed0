"""Every numeric option of every command has a range, stated in its --help and checked when the
command line is read (the fault sweep: `bench --gui --tokens -1` and `--tokens 10^23` hung)."""

from __future__ import annotations

import argparse

import pytest

from explainer.cli import build_parser
from explainer.commands.ranges import span


def _parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


def _numeric_options():
    found = []
    for path, parser in _parsers(build_parser()):
        for action in parser._actions:
            if action.option_strings and action.type is not None and action.type not in (str,):
                found.append((path, action))
    return found


def test_every_numeric_option_states_its_range_in_its_help():
    options = _numeric_options()
    flags = {a.option_strings[0] for _, a in options}
    # (the options the sweep hit, and the sampling ones every generating command has)
    assert {"--tokens", "--max-new-tokens", "--steps", "--scale", "--top-k", "--seed", "--class-port"} <= flags
    for path, action in options:
        bounds = getattr(action.type, "bounds", None)
        assert bounds is not None, f"{' '.join(path)} {action.option_strings[0]} has no stated range"
        _kind, lo, hi, above_lo = bounds
        assert span(lo, hi, above_lo=above_lo) in (action.help or ""), (path, action.option_strings)


@pytest.mark.parametrize(("path", "action"), _numeric_options(), ids=lambda v: getattr(v, "dest", None) or "-".join(v))
def test_every_numeric_option_refuses_what_is_outside_its_range(path, action, capsys):
    kind, lo, hi, above_lo = action.type.bounds
    flag = action.option_strings[0]
    too_big = "99999999999999999999999"
    bad = ["nan", "inf", "-1e400", too_big, str(hi + 1) if kind is int else str(hi * 2 + 1)]
    bad.append(str(lo) if above_lo else str(lo - 1))
    for value in bad:
        with pytest.raises(SystemExit) as stop:
            build_parser().parse_args([*path, f"{flag}={value}"])
        assert stop.value.code == 2, (flag, value)
        assert "use " in capsys.readouterr().err or kind is int  # (int("nan") is "not a whole number")
    good = [hi] if above_lo else [lo, hi]
    for value in good:
        args = build_parser().parse_args([*path, f"{flag}={kind(value)}"])
        assert getattr(args, action.dest) == kind(value)

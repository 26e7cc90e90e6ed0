"""`explainer --class`'s options reach the window: the address, the port and the per-address cap
(`--class-phones-per-address`), which becomes the room's Limits when class mode starts."""

from __future__ import annotations

import pytest

from explainer import cli
from explainer.classroom import network, room
from explainer.classroom.room import Limits
from explainer.commands import gui


def test_the_cli_s_copies_of_the_class_defaults_are_the_server_s():
    assert gui.CLASS_PORT == network.DEFAULT_PORT
    assert Limits().phones_per_address == gui.PHONES_PER_ADDRESS
    assert gui.MAX_PHONES_PER_ADDRESS == room.MAX_PHONES_PER_ADDRESS


@pytest.mark.parametrize(
    ("argv", "class_at"),
    [
        (["--class"], (None, 8765, None)),
        (["--class", "--class-bind", "127.0.0.1", "--class-port", "0"], ("127.0.0.1", 0, None)),
        (["--class-phones-per-address", "300"], (None, 8765, 300)),  # (class mode on, as --class-bind)
        (["--class", "--class-phones-per-address=1"], (None, 8765, 1)),
        ([], None),
    ],
)
def test_the_class_options_reach_run_app(argv, class_at, monkeypatch):
    import explainer.ui.app as app

    started: list[object] = []

    def run_app(model=None, open_file=None, class_at=None) -> int:
        started.append(class_at)
        return 0

    monkeypatch.setattr(app, "run_app", run_app)
    assert cli.main(argv) == 0
    assert started == [class_at]


@pytest.mark.parametrize("value", ["0", "10001", "-3", "six", "1e3"])
def test_a_cap_out_of_range_is_one_clear_line(value, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.build_parser().parse_args(["--class-phones-per-address", value])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--class-phones-per-address" in err and ("use 1 to 10,000" in err or "not a whole number" in err)


def test_the_cap_becomes_the_room_s_limits_when_class_mode_starts():
    """app._start_class hands ClassMode.start the Limits the flag asks for."""
    from unittest.mock import create_autospec

    import explainer.ui.app as app
    from explainer.classroom.events import StartFailed
    from explainer.ui.classroom.mode import ClassMode

    mode = create_autospec(ClassMode, instance=True)
    mode.start.return_value = StartFailed("not started here", "(a test)")
    app._start_class(mode, "127.0.0.1", 0, 300)
    app._start_class(mode, "127.0.0.1", 0)
    assert [c.args for c in mode.start.call_args_list] == [
        ("127.0.0.1", 0, Limits().sharing(300)),
        ("127.0.0.1", 0, None),
    ]


def test_a_shared_address_raises_its_cap_and_its_request_rate_with_it():
    default = Limits()
    hall = default.sharing(300)
    assert hall.phones_per_address == 300
    assert hall.rate == default.rate * 50 and hall.burst == default.burst * 50  # 300 phones, not 6
    assert default.sharing(2) == Limits(phones_per_address=2)  # a lower cap keeps the rate
    assert (hall.phones, hall.connections, hall.idle_s) == (default.phones, default.connections, default.idle_s)
    for wrong in (0, 10_001):
        with pytest.raises(ValueError, match="1 to 10000"):
            default.sharing(wrong)

"""The watch over the server's connections, without a network (watch.py): which are closed for
sitting idle, and which make room past the cap."""

from __future__ import annotations

from explainer.classroom.watch import Watch


class Conn:
    """A connection as the watch sees it: it can be closed."""

    def __init__(self, name: str) -> None:
        self.name, self.closed = name, False

    def force_close(self) -> None:
        self.closed = True

    def __repr__(self) -> str:
        return self.name


def test_a_connection_not_in_a_request_is_closed_once_idle_for_idle_s():
    now = [0.0]
    watch = Watch(idle_s=15, cap=100, clock=lambda: now[0])
    silent, phone, channel = Conn("silent"), Conn("phone"), Conn("channel")
    assert watch.sweep([silent, phone, channel]) == []  # first seen now
    watch.began(phone)
    watch.ended(phone)  # answered at 0: idle from then
    now[0] = 10.0
    watch.began(channel)  # a live channel: in its request for as long as it is open
    watch.began(phone)
    watch.ended(phone)  # answered again at 10
    now[0] = 15.0
    assert watch.sweep([silent, phone, channel]) == [silent] and silent.closed
    now[0] = 40.0
    assert watch.sweep([phone, channel]) == [phone] and not channel.closed


def test_past_the_cap_idle_connections_make_room_silent_ones_and_the_oldest_first():
    now = [0.0]
    watch = Watch(idle_s=15, cap=3, clock=lambda: now[0])
    phone = Conn("phone")
    watch.sweep([phone])
    watch.began(phone)
    watch.ended(phone)  # a phone's keep-alive connection, idle
    now[0] = 1.0
    silent = [Conn(f"silent{i}") for i in range(3)]
    channel = Conn("channel")
    watch.began(channel)
    crowd = [phone, *silent, channel]
    assert watch.make_room(crowd) == 0  # two closed: the oldest silent ones, not the phone's
    assert [c for c in crowd if c.closed] == silent[:2]
    again = Conn("again")  # closed ones still listed until their sockets go: not counted twice
    assert watch.make_room([*crowd, again]) == 0 and [c for c in crowd if c.closed] == silent
    assert watch.make_room([channel, Conn("a"), Conn("b"), Conn("c")]) == 0


def test_when_every_connection_is_in_a_request_none_is_closed_and_it_says_how_many_over():
    watch = Watch(idle_s=15, cap=2, clock=lambda: 0.0)
    busy = [Conn(f"channel{i}") for i in range(4)]
    for connection in busy:
        watch.began(connection)
    assert watch.make_room(busy) == 2 and not any(c.closed for c in busy)


def test_it_forgets_the_connections_that_are_gone():
    watch = Watch(idle_s=15, cap=100, clock=lambda: 0.0)
    crowd = [Conn(str(i)) for i in range(50)]
    for connection in crowd[:10]:
        watch.began(connection)
    watch.sweep(crowd)
    assert watch.remembered() == 50
    watch.sweep(crowd[:5])
    assert watch.remembered() == 5

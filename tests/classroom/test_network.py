"""Where class mode listens: the interfaces listed in order, the default, and the one-line problems."""

from __future__ import annotations

import socket
from types import SimpleNamespace

import pytest

from explainer.classroom import network
from explainer.content.assets import load_texts


def words() -> dict[str, str]:
    texts = load_texts()
    return {k: texts.app_text("class", k) for k in network_keys()}


def network_keys() -> tuple[str, ...]:
    return (
        "no_network",
        "no_network_hint",
        "not_an_address",
        "not_here",
        "not_here_hint",
        "port_busy",
        "port_busy_hint",
    )


def nic(*addrs: str) -> list[SimpleNamespace]:
    return [SimpleNamespace(family=socket.AF_INET6 if ":" in a else socket.AF_INET, address=a) for a in addrs] + [
        SimpleNamespace(family=getattr(socket, "AF_PACKET", 17), address="aa:bb:cc:dd:ee:ff")
    ]


def up(flag: bool) -> SimpleNamespace:
    return SimpleNamespace(isup=flag)


LAPTOP = {
    "lo": nic("127.0.0.1", "::1"),
    "docker0": nic("172.17.0.1"),
    "wlan0": nic("192.168.1.23", "fe80::1%wlan0", "2001:db8::5"),
    "eth0": nic("10.0.0.7"),
}
STATS = {"lo": up(True), "docker0": up(False), "wlan0": up(True), "eth0": up(True)}


def test_up_non_loopback_first_ipv4_before_ipv6_loopback_last() -> None:
    found = network.addresses(LAPTOP, STATS)
    listed = [(a.interface, a.address) for a in found]
    assert listed[:2] in (
        [("wlan0", "192.168.1.23"), ("eth0", "10.0.0.7")],
        [("eth0", "10.0.0.7"), ("wlan0", "192.168.1.23")],
    )
    assert listed[-2:] == [("lo", "127.0.0.1"), ("lo", "::1")]
    assert ("wlan0", "fe80::1") in listed  # the zone is dropped
    assert listed.index(("docker0", "172.17.0.1")) > listed.index(("wlan0", "2001:db8::5"))  # down after up
    assert all(a.address != "aa:bb:cc:dd:ee:ff" for a in found)


def test_default_is_the_first_up_private_ipv4() -> None:
    found = network.addresses(LAPTOP, STATS)
    chosen = network.default_address(found)
    assert chosen is not None and chosen.address in ("192.168.1.23", "10.0.0.7")
    assert network.no_network(found, words()) is None


def test_only_loopback_says_no_network_and_suggests_a_hotspot() -> None:
    found = network.addresses(
        {"lo": nic("127.0.0.1", "::1"), "eth0": nic("10.0.0.7")}, {"lo": up(True), "eth0": up(False)}
    )
    assert network.default_address(found) is None
    problem = network.no_network(found, words())
    assert problem is not None and "hotspot" in problem.hint


def test_an_address_not_on_this_machine() -> None:
    found = network.addresses(LAPTOP, STATS)
    problem = network.not_here("192.168.77.77", found, words())
    assert problem is not None and "192.168.77.77" in problem.message
    assert network.not_here("10.0.0.7", found, words()) is None
    assert network.not_here("0.0.0.0", found, words()) is None
    bad = network.not_here("not-an-ip", found, words())
    assert bad is not None and "not-an-ip" in bad.message


def test_a_busy_port_is_named_with_what_to_do() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        problem = network.port_busy("127.0.0.1", port, words())
        assert problem is not None and str(port) in problem.message and "0" in problem.hint
    assert network.port_busy("127.0.0.1", 0, words()) is None


def test_the_real_machine_lists_its_loopback_last() -> None:
    found = network.addresses()
    loopbacks = [i for i, a in enumerate(found) if a.loopback]
    assert loopbacks, "every machine has a loopback"
    assert loopbacks == list(range(len(found) - len(loopbacks), len(found)))
    found_check = network.check("127.0.0.1", 0, found, words())
    assert found_check is None


@pytest.mark.parametrize("key", network_keys())
def test_words_exist(key: str) -> None:
    assert words()[key]

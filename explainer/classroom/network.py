"""Where class mode can listen: this machine's network interfaces and their addresses.

The instructor must see before the server starts which address the phones will use, and pick
another when the first guess is wrong (a VPN's address, a second adapter). The default is the
first interface that is up, not the loopback, with a private IPv4 address: the address a phone
on the same Wi-Fi or hotspot reaches. When only the loopback is left, no phone can reach the
laptop at all, and the line says so with what to do (a laptop hotspot), instead of a server
that starts and is never reached.

Qt-free: psutil reads the interfaces; the words are app.json's "class" section, passed in.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import psutil

Words = Mapping[str, str]
DEFAULT_PORT = 8765  # easy to say aloud in a lecture hall; 0 picks any free port


@dataclass(frozen=True, slots=True)
class Address:
    """One address of one interface, as the start dialog lists it."""

    interface: str
    address: str
    version: int  # 4 or 6
    up: bool
    loopback: bool
    private: bool  # a private range (10/8, 172.16/12, 192.168/16, fc00::/7): a local network's

    @property
    def usable(self) -> bool:
        """A phone could reach it: up, not the loopback, not a link-local address."""
        ip = ipaddress.ip_address(self.address)
        return self.up and not self.loopback and not ip.is_link_local


@dataclass(frozen=True, slots=True)
class Problem:
    """Why class mode cannot listen there, in one line, and what to do."""

    message: str
    hint: str


def _address(interface: str, text: str, up: bool) -> Address | None:
    text = text.split("%", 1)[0]  # an IPv6 zone ("fe80::1%eth0") is the interface's, not the address's
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    return Address(interface, str(ip), ip.version, up, ip.is_loopback, ip.is_private and not ip.is_link_local)


def _order(a: Address) -> tuple[int, int, int, int]:
    return (a.loopback, not a.up, a.version, not a.private)


def addresses(if_addrs: Mapping[str, Any] | None = None, if_stats: Mapping[str, Any] | None = None) -> list[Address]:
    """Every IPv4 and IPv6 address of this machine: the interfaces that are up and not the
    loopback first (IPv4 before IPv6, private before public), the loopback last. ``if_addrs`` and
    ``if_stats``: psutil's ``net_if_addrs()`` and ``net_if_stats()`` (a test gives its own)."""
    if_addrs = psutil.net_if_addrs() if if_addrs is None else if_addrs
    if_stats = psutil.net_if_stats() if if_stats is None else if_stats
    found: list[Address] = []
    for name, entries in if_addrs.items():
        stats = if_stats.get(name)
        up = bool(stats.isup) if stats is not None else False
        for entry in entries:
            if entry.family not in (socket.AF_INET, socket.AF_INET6):
                continue
            made = _address(name, entry.address, up)
            if made is not None and made not in found:
                found.append(made)
    return sorted(found, key=_order)


def default_address(found: list[Address]) -> Address | None:
    """The first up, non-loopback, private IPv4 address; else any usable one; None: none."""
    usable = [a for a in found if a.usable]
    for a in usable:
        if a.version == 4 and a.private:
            return a
    return usable[0] if usable else None


def no_network(found: list[Address], words: Words) -> Problem | None:
    """Only the loopback (or nothing up): no phone can reach this machine."""
    if any(a.usable for a in found):
        return None
    return Problem(words["no_network"], words["no_network_hint"])


def not_here(bind: str, found: list[Address], words: Words) -> Problem | None:
    """``bind`` is not an address of this machine (the wildcard addresses are everyone's)."""
    try:
        wanted = str(ipaddress.ip_address(bind.strip("[]")))
    except ValueError:
        return Problem(words["not_an_address"].format(address=bind), words["not_here_hint"])
    if wanted in ("0.0.0.0", "::") or any(a.address == wanted for a in found):
        return None
    return Problem(words["not_here"].format(address=bind), words["not_here_hint"])


def port_busy(bind: str, port: int, words: Words) -> Problem | None:
    """Another program listens on ``bind``:``port`` already (port 0 is never busy)."""
    if port == 0:
        return None
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((bind.strip("[]"), port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return Problem(words["port_busy"].format(port=port), words["port_busy_hint"])
    return None


def check(bind: str, port: int, found: list[Address], words: Words) -> Problem | None:
    """The first reason class mode cannot listen on ``bind``:``port``, or None."""
    return not_here(bind, found, words) or port_busy(bind, port, words)

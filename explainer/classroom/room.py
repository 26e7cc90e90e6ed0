"""The room: its code, the phones in it, the open round, the votes and the class's score.

Pure and Qt-free, so every rule a hostile phone could test (a second vote, a vote for a round
that is not open or a choice not offered, one laptop minting ids to stuff a vote, a flood of
requests) is checked here without a network. The server's thread votes while the GUI thread
offers and reveals rounds, so one lock guards the state.

A phone is only a random device id the server issued at join: nothing about the student (no
name, no address kept with it), and it is gone when class mode stops.
"""

from __future__ import annotations

import enum
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from explainer.classroom.events import RoundOffer, RoundResult, VotesChanged

# letters and digits no one mixes up when read off a projector (no 0/O, 1/I/L, 2/Z, 5/S, 8/B, 6/G)
ALPHABET = "ACDEFHJKMNPQRTUVWXY3479"
ROOM_LENGTH = 4
MAX_ROUNDS = 500  # rounds whose votes are kept (a lecture has tens)
MAX_PHONES_PER_ADDRESS = 10_000  # the per-address cap's highest setting (a hall behind one address)


def new_room_code(choice: Callable[[str], str] = secrets.choice) -> str:
    """A 4-character room code from :data:`ALPHABET`, drawn by ``secrets``."""
    return "".join(choice(ALPHABET) for _ in range(ROOM_LENGTH))


def new_device_id() -> str:
    """A phone's id: 128 random bits, so no one guesses another phone's id."""
    return secrets.token_urlsafe(16)


@dataclass(kw_only=True, frozen=True, slots=True)
class Limits:
    """What one room tolerates; the defaults suit a lecture hall, a benchmark of many phones on
    one loopback address raises the per-address ones."""

    phones: int = 1000  # device ids in the room at most
    phones_per_address: int = 6  # one laptop cannot mint ids to stuff a vote (a reload or two is fine)
    rate: float = 20.0  # requests a second from one address, on average
    burst: float = 60.0  # requests one address may make at once (a page load is a handful)
    addresses: int = 4096  # addresses whose rate is remembered (the oldest is forgotten first)
    connections: int = 500  # open connections at most (idle ones are closed to make room: watch.py)
    idle_s: float = 15.0  # a connection not in a request (silent, trickling a head, idle) is closed after this
    read_s: float = 10.0  # a request's body (4 KB at most) must have come within this
    write_s: float = 15.0  # a live channel whose phone takes no bytes for this long is dropped
    channel_rate: float = 0.5  # a phone may reopen its live channel once every 2 s on average
    channel_burst: float = 10.0  # and this many times at once (a reload, a flaky Wi-Fi)
    full_wait_s: int = 30  # Retry-After when the queue is full: a few answers' time
    busy_wait_s: int = 5  # Retry-After when every connection is taken

    def sharing(self, phones_per_address: int) -> Limits:
        """These limits for a hall whose phones reach the server through fewer addresses (a
        NAT, a proxy): ``phones_per_address`` phones may join from one address, and that
        address's request rate and burst grow in proportion (never below these), so the hall's
        page loads and votes are not refused as one phone's flood."""
        if not 1 <= phones_per_address <= MAX_PHONES_PER_ADDRESS:
            raise ValueError(f"phones per address: 1 to {MAX_PHONES_PER_ADDRESS}, not {phones_per_address}")
        scale = max(1.0, phones_per_address / self.phones_per_address)
        return replace(self, phones_per_address=phones_per_address, rate=self.rate * scale, burst=self.burst * scale)


class VoteRefusal(enum.Enum):
    """Why a vote was not counted; the value is the phone page's words' key (class_page.json)."""

    UNKNOWN_PHONE = "unknown_phone"
    NO_ROUND = "no_round"
    WRONG_ROUND = "wrong_round"
    NO_SUCH_CHOICE = "no_such_choice"
    ALREADY_VOTED = "already_voted"


class JoinRefusal(enum.Enum):
    ROOM_FULL = "room_full"
    TOO_MANY_PHONES = "too_many_phones"  # this address has joined too many phones


class RateLimiter:
    """A token bucket per address: ``rate`` a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: float, addresses: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.addresses, self.clock = rate, burst, addresses, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # address -> (tokens, when)

    def take(self, address: str) -> float:
        """Spend one of ``address``'s tokens: 0.0 when it had one (the request goes on), else the
        seconds until it will have one (nothing spent): what a refusal's Retry-After says."""
        now = self.clock()
        tokens, when = self._buckets.pop(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - when) * self.rate)
        wait = 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate
        self._buckets[address] = (tokens if wait else tokens - 1.0, now)
        while len(self._buckets) > self.addresses:
            self._buckets.popitem(last=False)
        return wait

    def allow(self, address: str) -> bool:
        return self.take(address) == 0.0


def class_pick(votes: Sequence[int], probs: Sequence[float]) -> int | None:
    """The most-voted choice; a tie goes to the likelier choice; None when no one voted."""
    if not any(votes):
        return None
    return max(range(len(votes)), key=lambda i: (votes[i], probs[i], -i))


class Room:
    """The phones, the round open now and its votes, and the score over revealed rounds."""

    def __init__(self, code: str | None = None, limits: Limits | None = None) -> None:
        self.code = code or new_room_code()
        self.limits = limits or Limits()
        self._lock = threading.Lock()
        self._phones: dict[str, str] = {}  # device id -> the address that joined it (for its cap only)
        self._per_address: dict[str, int] = {}
        self._offer: RoundOffer | None = None
        self._votes: dict[str, int] = {}  # device -> choice, in the open round
        # every round offered (the last MAX_ROUNDS): its labels and its votes, so a reveal shown
        # again on the way back gives each phone its own vote in that round
        self._rounds: OrderedDict[int, tuple[RoundOffer, dict[str, int]]] = OrderedDict()
        self._scored: dict[int, bool] = {}  # round id -> the class picked the model's favourite
        self._result: RoundResult | None = None

    def matches(self, code: str) -> bool:
        """The room code as a phone typed or followed it (any case)."""
        return secrets.compare_digest(code.upper().encode(), self.code.encode())

    # --- phones -------------------------------------------------------------------------------

    def join(self, address: str) -> str | JoinRefusal:
        with self._lock:
            if len(self._phones) >= self.limits.phones:
                return JoinRefusal.ROOM_FULL
            if self._per_address.get(address, 0) >= self.limits.phones_per_address:
                return JoinRefusal.TOO_MANY_PHONES
            device = new_device_id()
            self._phones[device] = address
            self._per_address[address] = self._per_address.get(address, 0) + 1
            return device

    def knows(self, device: object) -> bool:
        with self._lock:
            return isinstance(device, str) and device in self._phones

    def phones(self) -> int:
        with self._lock:
            return len(self._phones)

    # --- rounds -------------------------------------------------------------------------------

    def offer(self, offer: RoundOffer) -> None:
        with self._lock:
            self._offer = offer
            self._votes = {}
            self._rounds[offer.round_id] = (offer, self._votes)
            while len(self._rounds) > MAX_ROUNDS:
                self._rounds.popitem(last=False)
            self._result = None

    def end_round(self) -> RoundOffer | None:
        """No round open (later votes are refused); the ended round, if one was open."""
        with self._lock:
            ended, self._offer = self._offer, None
            return ended

    @staticmethod
    def _tally_of(votes: dict[str, int], n: int) -> tuple[int, ...]:
        tally = [0] * n
        for choice in votes.values():
            tally[choice] += 1
        return tuple(tally)

    def open_round(self) -> RoundOffer | None:
        with self._lock:
            return self._offer

    def offered(self, round_id: int) -> RoundOffer | None:
        """Round ``round_id`` as it was offered, if it was the last one (open or not)."""
        with self._lock:
            found = self._rounds.get(round_id)
            return None if found is None else found[0]

    def vote(self, device: object, round_id: object, choice: object) -> VotesChanged | VoteRefusal:
        """Count one phone's vote in the open round, or say why not (nothing changed then)."""
        with self._lock:
            if not isinstance(device, str) or device not in self._phones:
                return VoteRefusal.UNKNOWN_PHONE
            offer = self._offer
            if offer is None:
                return VoteRefusal.NO_ROUND
            if type(round_id) is not int or round_id != offer.round_id:
                return VoteRefusal.WRONG_ROUND
            if type(choice) is not int or not 0 <= choice < len(offer.choices):
                return VoteRefusal.NO_SUCH_CHOICE
            if device in self._votes:
                return VoteRefusal.ALREADY_VOTED
            self._votes[device] = choice
            return self._changed(offer)

    def _changed(self, offer: RoundOffer) -> VotesChanged:
        tally = self._tally_of(self._votes, len(offer.choices))
        return VotesChanged(offer.round_id, len(self._votes), len(self._phones), tally)

    def tally(self) -> VotesChanged | None:
        """The open round's count now (None: no round open)."""
        with self._lock:
            return None if self._offer is None else self._changed(self._offer)

    def vote_of(self, device: str, round_id: int) -> int | None:
        """What this phone voted in ``round_id`` (None: not at all, or a round long gone)."""
        with self._lock:
            found = self._rounds.get(round_id)
            return None if found is None else found[1].get(device)

    # --- the reveal ---------------------------------------------------------------------------

    def result(self, round_id: int, probs: Sequence[float], favourite: int) -> RoundResult:
        """Round ``round_id`` revealed with the class's votes, its pick and the score so far
        (a round revealed twice counts once; a round without a vote does not count). The round
        is ended if it was open."""
        with self._lock:
            if self._offer is not None and self._offer.round_id == round_id:
                self._offer = None
            found = self._rounds.get(round_id)
            votes = self._tally_of(found[1], len(found[0].choices)) if found else (0,) * len(probs)
            pick = class_pick(votes, probs)
            if pick is not None:  # a round nobody voted in is no round of the class's score
                self._scored[round_id] = pick == favourite
            right = sum(self._scored.values())
            return RoundResult(
                round_id=round_id,
                probs=tuple(probs),
                votes=votes,
                favourite=favourite,
                class_pick=pick,
                right=right,
                rounds=len(self._scored),
            )

    def reveal(self, result: RoundResult) -> None:
        """Remember the reveal the phones were sent (a phone that joins later sees it too)."""
        with self._lock:
            self._result = result
            if self._offer is not None and self._offer.round_id == result.round_id:
                self._offer = None

    def last_result(self) -> RoundResult | None:
        with self._lock:
            return self._result

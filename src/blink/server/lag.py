"""Each seat's lag, measured by the server: its round trip and jitter (sans-I/O).

The server never trusts a time a client reports. It measures the round trip itself, on the
client's own ``ping``: its ``pong`` carries a fresh random ``probe``, which the client sends
back at once in a ``ping`` with ``echo``; the time from the one to the other on the server's
clock is one sample of the seat's round trip. A :class:`LagMeter` smooths the samples as TCP
does (RFC 6298: the smoothed round trip moves an eighth of the way to each sample, the
variation a quarter) and the variation is shown as the jitter. A client can make its lag look
larger by answering late, never smaller: an ``echo`` counts only for a probe the seat was
sent, and a probe is random.

Every ``pong`` to a connection in a room carries every seat's figures (:func:`pong`), so each
player sees their own lag and their opponents', with no frame of its own and no timer. See
docs/protocol.md ("Lag").
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Generic, Protocol, TypeVar

import msgspec

from blink.server.protocol import LagFigures, Ping, Pong

__all__ = [
    "MAX_CAP_MS",
    "OPTION",
    "PROBES_KEPT",
    "AllowanceRule",
    "Held",
    "LagMeter",
    "RaceQueue",
    "pong",
]

T = TypeVar("T")


class Cancellable(Protocol):
    """A timer the driver armed."""

    def cancel(self) -> None:
        """Do not fire."""
        ...


PROBES_KEPT: Final = 4
"""Probes a seat may have unanswered; an older one is forgotten (its answer no longer counts)."""

_GAIN: Final = 1 / 8
_VAR_GAIN: Final = 1 / 4


class LagMeter:
    """One seat's measured round trip and jitter, in seconds of the server's clock."""

    __slots__ = ("jitter", "probes", "rtt", "samples")

    def __init__(self) -> None:
        self.probes: OrderedDict[int, float] = OrderedDict()
        """The probes sent and not answered yet, with when they were sent."""
        self.rtt: float | None = None
        """The smoothed round trip (``None`` before the first sample)."""
        self.jitter = 0.0
        """The smoothed variation of the round trip."""
        self.samples = 0

    def probe(self, nonce: int, now: float) -> None:
        """A probe ``nonce`` leaves at ``now``."""
        self.probes[nonce] = now
        while len(self.probes) > PROBES_KEPT:
            self.probes.popitem(last=False)

    def answer(self, nonce: int, now: float) -> float | None:
        """The echo of probe ``nonce`` came at ``now``: the round-trip sample it gives (and
        the figures it updates), or ``None`` for a probe that was not sent (or is
        forgotten)."""
        sent = self.probes.pop(nonce, None)
        if sent is None:
            return None
        sample = max(0.0, now - sent)
        if self.rtt is None:
            self.rtt = sample
        else:
            self.jitter += _VAR_GAIN * (abs(self.rtt - sample) - self.jitter)
            self.rtt += _GAIN * (sample - self.rtt)
        self.samples += 1
        return sample

    @property
    def one_way(self) -> float | None:
        """Half the smoothed round trip: the estimate of the seat's one-way lag."""
        return None if self.rtt is None else self.rtt / 2

    def figures(self) -> LagFigures | None:
        """The figures a ``pong`` shows (whole milliseconds), ``None`` before any sample."""
        if self.rtt is None:
            return None
        return LagFigures(rtt_ms=round(self.rtt * 1000), jitter_ms=round(self.jitter * 1000))


def pong(
    msg: Ping,
    now: float,
    nonce: int,
    meters: Sequence[LagMeter] | None,
    seat: int | None,
) -> Pong:
    """The answer to ``msg`` at ``now`` from a connection of a room whose seats' meters are
    ``meters`` (``None``: not in a room yet), sitting at ``seat`` (``None``: a spectator).

    An ``echo`` is counted for the seat; a fresh ping (no ``echo``) of a seated connection is
    answered with probe ``nonce`` (random, the caller's), to be echoed at once."""
    meter = None if meters is None or seat is None else meters[seat]
    probe: int | msgspec.UnsetType = msgspec.UNSET
    if meter is not None:
        if msg.echo is not None:
            meter.answer(msg.echo, now)
        else:
            meter.probe(nonce, now)
            probe = nonce
    lag: list[LagFigures | None] | msgspec.UnsetType = (
        msgspec.UNSET if meters is None else [m.figures() for m in meters]
    )
    return Pong(t=msg.t, server_ms=round(now * 1000), probe=probe, lag=lag)


# --- the lag allowance ----------------------------------------------------------------------

OPTION: Final = "lag_allowance_ms"
"""The room option that turns the allowance on: its cap in milliseconds (absent or 0: off)."""

MAX_CAP_MS: Final = 250
"""The largest cap a room may ask for."""


class AllowanceRule(msgspec.Struct, frozen=True):
    """A room's lag allowance: at most ``cap`` seconds of compensation for a play, paid from
    a seat's quota of at most ``quota_max`` seconds that refills at ``refill`` seconds per
    second (lichess's lag quota is the model)."""

    cap: float
    quota_max: float
    refill: float

    @classmethod
    def of(cls, options: dict[str, object]) -> AllowanceRule | None:
        """The rule of a room's options, ``None`` when the allowance is off: a quota of three
        caps, refilled by half a cap a second."""
        ms = options.get(OPTION)
        if not isinstance(ms, int) or ms <= 0:
            return None
        cap = min(ms, MAX_CAP_MS) / 1000
        return cls(cap=cap, quota_max=3 * cap, refill=cap / 2)


class _Quota:
    __slots__ = ("at", "left")

    def __init__(self, left: float, at: float | None) -> None:
        self.left = left
        self.at = at

    def available(self, rule: AllowanceRule, now: float) -> float:
        if self.at is None:
            return self.left
        return min(rule.quota_max, self.left + rule.refill * max(0.0, now - self.at))

    def spend(self, rule: AllowanceRule, amount: float, now: float) -> None:
        self.left = self.available(rule, now) - amount
        self.at = now


@dataclass(slots=True)
class Held(Generic[T]):
    """A play held until no play still to come may be ordered before it."""

    effective: float
    """Its arrival minus its seat's compensation: what plays are ordered by."""
    release: float
    """When no later arrival of another seat can be ordered before it."""
    arrival: float
    order: int
    seat: int
    item: T


class RaceQueue(Generic[T]):
    """Plays ordered by arrival minus a capped allowance for their seat's one-way lag.

    A play arriving at ``t`` from a seat whose compensation is ``c`` (its one-way lag, at most
    the cap and what is left of its quota, which it spends) counts as made at ``t - c``. It is
    held until no other seat's play, arriving later, could count as made before it: another
    seat's compensation is at most ``m`` (its one-way lag, the cap, its quota), so that is
    ``t - c + m``, at most the cap after it came, and at once when nobody has more lag than
    its seat. Held plays leave in the order of when they count as made (:meth:`due`). So a
    high-lag seat gains at most the cap, and a play that came more than the cap before
    another is never put after it. Pure: times are passed in (seconds of the server's clock).
    """

    __slots__ = ("counter", "held", "quotas", "rule", "timer")

    def __init__(self, rule: AllowanceRule, seats: int) -> None:
        self.rule = rule
        self.quotas = [_Quota(rule.quota_max, None) for _ in range(seats)]
        self.held: list[Held[T]] = []
        self.counter = 0
        self.timer: Cancellable | None = None
        """The driver's timer armed at the next release (the caller's to keep)."""

    def most(self, seat: int, one_way: float | None, now: float) -> float:
        """The compensation ``seat`` could have now (nothing is spent)."""
        lag = 0.0 if one_way is None else max(0.0, one_way)
        return min(lag, self.rule.cap, max(0.0, self.quotas[seat].available(self.rule, now)))

    def offer(self, seat: int, item: T, now: float, one_ways: list[float | None]) -> Held[T]:
        """A play of ``seat`` arrives at ``now`` (``one_ways``: each seat's measured one-way
        lag, ``None`` when unmeasured or a bot): it is held (see :meth:`due`)."""
        comp = self.most(seat, one_ways[seat], now)
        self.quotas[seat].spend(self.rule, comp, now)
        others = [self.most(s, one_ways[s], now) for s in range(len(one_ways)) if s != seat]
        effective = now - comp
        release = max(now, effective + max(others, default=0.0))
        self.counter += 1
        held = Held(effective, release, now, self.counter, seat, item)
        self.held.append(held)
        self.held.sort(key=lambda h: (h.effective, h.order))
        return held

    def due(self, now: float) -> list[Held[T]]:
        """The held plays to apply at ``now``, in order: from the first, each whose release
        has come (one that has not holds back those after it)."""
        out: list[Held[T]] = []
        while self.held and self.held[0].release <= now:
            out.append(self.held.pop(0))
        return out

    def next_release(self) -> float | None:
        """When the first held play may leave (``None``: nothing is held)."""
        return self.held[0].release if self.held else None

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
from typing import Final

import msgspec

from blink.server.protocol import LagFigures, Ping, Pong

__all__ = ["PROBES_KEPT", "LagMeter", "pong"]

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

"""A client's estimate of the server's clock, NTP-style, from its ``ping``/``pong`` exchanges.

A ping leaves at ``sent`` and its pong comes back at ``received`` (both on the client's own
clock); the pong says the server's clock, ``server``, when the server read the ping. Were the
two ways equally long, the server's clock read ``server`` at ``(sent + received) / 2``: the
offset is their difference, wrong by at most half the round trip's asymmetry. As NTP's clock
filter does, the estimate keeps the sample with the shortest round trip among the last few
(the one least delayed by queues). Pure: times are passed in.
"""

from __future__ import annotations

from collections import deque
from typing import Final

__all__ = ["SAMPLES_KEPT", "ClockOffset"]

SAMPLES_KEPT: Final = 8
"""The samples the estimate picks its best from."""


class ClockOffset:
    """The offset of the server's clock from the client's (``server - client``), in the
    unit the times are given in."""

    __slots__ = ("samples",)

    def __init__(self) -> None:
        self.samples: deque[tuple[float, float]] = deque(maxlen=SAMPLES_KEPT)
        """The last ``(round trip, offset)`` samples."""

    def sample(self, sent: float, server: float, received: float) -> None:
        """One ping sent at ``sent`` and answered at ``received`` (client's clock), which the
        server read at ``server`` (server's clock)."""
        if received < sent:
            return
        self.samples.append((received - sent, server - (sent + received) / 2))

    @property
    def offset(self) -> float | None:
        """The best estimate (``None`` before any sample)."""
        if not self.samples:
            return None
        return min(self.samples)[1]

    @property
    def rtt(self) -> float | None:
        """The round trip of the sample the estimate is taken from."""
        if not self.samples:
            return None
        return min(self.samples)[0]

    def local(self, server: float) -> float | None:
        """The client's time at which the server's clock reads ``server``."""
        offset = self.offset
        return None if offset is None else server - offset

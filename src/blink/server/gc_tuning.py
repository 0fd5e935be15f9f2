"""Python's garbage collections kept short and off the server's hot path (:class:`GcTuning`)."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from typing import Final

__all__ = ["GcTuning"]


class GcTuning:
    """Keep Python's garbage collections short and off the hot path.

    Two kinds of pause made the whole p99 tail of the load benchmark:

    - A full (generation 2) collection walks every live object: with 1,000 live games (about
      300,000 objects) that is a pause of about a quarter of a second, with tens of games a
      few milliseconds. When started with an interval, what exists after start-up is frozen
      (never walked again) and the full collection runs every ``interval`` seconds from a loop
      timer instead of after every ten young collections (``blink serve``: every 10 minutes;
      only reference cycles wait for it, mostly those of closed connections).
    - Young collections are triggered by allocations minus deallocations, so while the
      server frees old objects as fast as it makes new ones (finished plays leaving the resume
      buffers, say) no collection comes for a long time and the young generation grows to tens
      of thousands of live objects: one collection then took 50 ms. A loop timer also collects
      the two young generations every :attr:`YOUNG_TICK` seconds, so each collection has little
      to walk (a median of 0.2 ms and at most about 2.5 ms with 1,000 live games, where
      collecting the middle generation only every eighth tick made pauses of 4-5 ms five
      times a second, enough to lift the benchmark's p99 from 7-9 ms to 15 ms). The
      automatic collections stay on as a backstop.

    An idle server need not wake 40 times a second for that: when the process used less than
    :attr:`IDLE_SHARE` of a core since the last tick, the next comes twice as late, up to
    :attr:`IDLE_TICK`; the first busy tick brings it back to :attr:`YOUNG_TICK`. The allocation
    counts cannot tell idle from busy (the case above keeps them low), the CPU time can: a
    process that allocates runs. ``cpu_clock`` is the process's CPU seconds (tests give their
    own).

    Without an interval Python's collector is left as it is.
    """

    YOUNG_TICK: Final = 0.025
    IDLE_TICK: Final = 1.0
    IDLE_SHARE: Final = 0.02

    def __init__(
        self, interval: float | None, cpu_clock: Callable[[], float] = time.process_time
    ) -> None:
        self.interval = interval
        self.cpu_clock = cpu_clock
        self.saved = gc.get_threshold()
        self.timer: asyncio.TimerHandle | None = None
        self.young: asyncio.TimerHandle | None = None
        self.tick = self.YOUNG_TICK
        """The delay before the next young collection."""
        self._cpu = 0.0

    def start(self) -> None:
        """Freeze what exists, move full collections to the interval's timer and start the
        young ticks (nothing without an interval); in a running event loop."""
        if self.interval is None:
            return
        gc.collect()
        gc.freeze()
        gc.set_threshold(self.saved[0], self.saved[1], 1_000_000_000)
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(self.interval, self._full)
        self._cpu = self.cpu_clock()
        self.young = loop.call_later(self.tick, self._young)

    def _full(self) -> None:
        gc.collect()
        if self.interval is not None:
            self.timer = asyncio.get_running_loop().call_later(self.interval, self._full)

    def _young(self) -> None:
        gc.collect(1)
        self.tick = self.next_tick()
        self.young = asyncio.get_running_loop().call_later(self.tick, self._young)

    def next_tick(self) -> float:
        """The delay after a tick: :attr:`YOUNG_TICK` if the process was busy since the last
        one, else the last delay doubled, up to :attr:`IDLE_TICK`."""
        cpu, self._cpu = self._cpu, self.cpu_clock()
        if self._cpu - cpu >= self.IDLE_SHARE * self.tick:
            return self.YOUNG_TICK
        return min(self.tick * 2, self.IDLE_TICK)

    def stop(self) -> None:
        """Stop the timers and give Python's collector back its own settings."""
        if self.timer is None:
            return
        self.timer.cancel()
        self.timer = None
        if self.young is not None:
            self.young.cancel()
            self.young = None
        gc.set_threshold(*self.saved)
        gc.unfreeze()

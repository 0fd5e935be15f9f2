"""The server's garbage-collection timers (`blink.server.gc_tuning.GcTuning`): young
collections every 25 ms while the process works, backing off to one a second while it idles,
full collections on their own interval, Python's settings given back at the end. The CPU
clock is the test's own, so nothing hinges on the machine's speed."""

from __future__ import annotations

import asyncio
import gc

from blink.server.gc_tuning import GcTuning


class CpuClock:
    """A process CPU clock the test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_an_idle_process_ticks_ever_later_and_a_busy_one_every_25_ms() -> None:
    cpu = CpuClock()
    tuning = GcTuning(600.0, cpu_clock=cpu)
    ticks = []
    for _ in range(8):  # nothing used: twice as late each time, up to a second
        tuning.tick = tuning.next_tick()
        ticks.append(tuning.tick)
    assert ticks == [0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0]
    # Idle work below 2 % of a core (timers, the leases' checks) keeps it idle.
    cpu.now += 0.019
    assert tuning.next_tick() == 1.0
    # Work comes: the next tick is at 25 ms again, and stays there while it lasts.
    tuning.tick = 1.0
    cpu.now += 0.02
    tuning.tick = tuning.next_tick()
    assert tuning.tick == GcTuning.YOUNG_TICK
    for _ in range(5):
        cpu.now += 0.001  # 4 % of a core over 25 ms
        tuning.tick = tuning.next_tick()
        assert tuning.tick == GcTuning.YOUNG_TICK


def test_the_timers_follow_the_tick_and_stop_gives_python_its_settings_back() -> None:
    saved = gc.get_threshold()
    frozen = gc.get_freeze_count()

    async def run() -> None:
        cpu = CpuClock()
        tuning = GcTuning(600.0, cpu_clock=cpu)
        tuning.start()
        loop = asyncio.get_running_loop()
        try:
            assert gc.get_threshold()[2] == 1_000_000_000 and gc.get_freeze_count() > frozen
            assert tuning.young is not None and tuning.timer is not None
            assert tuning.timer.when() - loop.time() > 599
            # The timer's own call, made now (between t0 and t1 on the loop's clock, however
            # slow the machine): idle, so the next is 50 ms after it.
            t0 = loop.time()
            tuning._young()
            t1 = loop.time()
            assert t0 + 0.05 <= tuning.young.when() <= t1 + 0.05
            cpu.now += 0.01  # busy: 25 ms
            t0 = loop.time()
            tuning._young()
            t1 = loop.time()
            assert t0 + 0.025 <= tuning.young.when() <= t1 + 0.025
        finally:
            tuning.stop()
        assert tuning.young is None and tuning.timer is None

    asyncio.run(run())
    assert gc.get_threshold() == saved and gc.get_freeze_count() == 0


def test_without_an_interval_nothing_changes() -> None:
    saved = gc.get_threshold()

    async def run() -> None:
        tuning = GcTuning(None)
        tuning.start()
        assert tuning.young is None and tuning.timer is None and gc.get_threshold() == saved
        tuning.stop()

    asyncio.run(run())

"""A live Go Blink bot decides in a worker thread: the event loop runs on while it thinks, and
an action decided in a view that has since changed is not submitted."""

from __future__ import annotations

import asyncio
import threading

import pytest

from blink.games.goblink.bots import GreedyBot, make_gobot
from blink.games.goblink.engine import GoAction, GoGame, GoView
from blink.games.goblink.live import LiveGoBot, in_daemon_thread

from .helpers import run_with_a_stuck_bot

pytestmark = pytest.mark.timeout(120)


class HeldBot:
    """A greedy bot whose every decision waits until the test releases it (a slow search)."""

    name = "held"

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.inner = GreedyBot(seat, 1)
        self.deciding = threading.Event()
        self.release = threading.Event()
        self.threads: list[threading.Thread] = []

    def act(self, view: GoView) -> GoAction:
        """The greedy bot's action, once released."""
        self.threads.append(threading.current_thread())
        self.deciding.set()
        assert self.release.wait(60), "the test never released the bot"
        return self.inner.act(view)


async def _until(flag: threading.Event) -> None:
    """Wait on the loop (never blocking it) until ``flag`` is set."""
    while not flag.is_set():
        await asyncio.sleep(0.005)


async def test_the_loop_runs_while_the_bot_decides_and_then_it_acts() -> None:
    game = GoGame.new(2, seed=5, dealer=0, turn_limit=200)
    seat = game.current
    assert seat is not None
    bot = HeldBot(seat)
    submitted: list[GoAction] = []

    def submit(action: GoAction) -> None:
        game.apply(action)
        submitted.append(action)

    live = LiveGoBot(lambda: bot, seat, lambda: game.view(seat), submit, 0.0)
    live.start()
    await asyncio.wait_for(_until(bot.deciding), 30)
    # The decision is pending in another thread, and this coroutine runs on the loop meanwhile.
    ticks = 0
    for _ in range(50):
        await asyncio.sleep(0)
        ticks += 1
    assert ticks == 50 and submitted == [] and live.thinking is not None
    assert bot.threads and threading.current_thread() not in bot.threads
    bot.release.set()
    thinking = live.thinking
    await asyncio.wait_for(thinking, 30)
    assert len(submitted) == 1 and submitted[0].player == seat
    live.stop()


async def test_an_action_decided_in_a_view_that_changed_is_not_submitted() -> None:
    game = GoGame.new(2, seed=9, dealer=1, turn_limit=200)
    seat = game.current
    assert seat is not None
    bot = HeldBot(seat)
    submitted: list[GoAction] = []

    def submit(action: GoAction) -> None:
        game.apply(action)
        submitted.append(action)

    live = LiveGoBot(lambda: bot, seat, lambda: game.view(seat), submit, 0.0)
    live.start()
    await asyncio.wait_for(_until(bot.deciding), 30)
    # The seat acts by other means (as the turn timer would) while the bot is deciding.
    other = make_gobot("greedy", seat, 2).act(game.view(seat))
    game.apply(other)
    moved_on = game.view(seat)
    bot.deciding.clear()
    bot.release.set()
    thinking = live.thinking
    assert thinking is not None
    await asyncio.wait_for(thinking, 30)
    assert submitted == []  # the stale decision was dropped
    if moved_on.outcome is None and moved_on.current == seat:
        # Still its turn: it decides again, in the new view, and acts.
        await asyncio.wait_for(_until(bot.deciding), 30)
        while not submitted:
            await asyncio.sleep(0.005)
        assert submitted[0].player == seat
    live.stop()


async def test_a_stopped_bot_drops_its_decision() -> None:
    game = GoGame.new(3, seed=2, dealer=2, turn_limit=200)
    seat = game.current
    assert seat is not None
    bot = HeldBot(seat)
    submitted: list[GoAction] = []
    live = LiveGoBot(lambda: bot, seat, lambda: game.view(seat), submitted.append, 0.0)
    live.start()
    await asyncio.wait_for(_until(bot.deciding), 30)
    live.stop()
    assert live.thinking is None
    bot.release.set()
    for _ in range(20):
        await asyncio.sleep(0.01)
    assert submitted == []


async def test_a_decision_in_a_daemon_thread_returns_or_raises_on_the_loop() -> None:
    seen: list[threading.Thread] = []

    def work() -> int:
        seen.append(threading.current_thread())
        return 7

    assert await in_daemon_thread(work, "seven") == 7
    assert seen[0].daemon and seen[0].name == "seven"
    assert seen[0] is not threading.current_thread()

    def fail() -> int:
        raise ValueError("no decision")

    with pytest.raises(ValueError, match="no decision"):
        await in_daemon_thread(fail, "fails")


async def test_a_cancelled_decision_is_dropped_when_it_ends() -> None:
    started, release = threading.Event(), threading.Event()

    def work() -> int:
        started.set()
        release.wait(60)
        return 1

    loop = asyncio.get_running_loop()
    errors: list[dict[str, object]] = []
    loop.set_exception_handler(lambda _, context: errors.append(context))
    try:
        task = asyncio.ensure_future(in_daemon_thread(work, "held"))
        await asyncio.wait_for(_until(started), 30)
        (thread,) = [t for t in threading.enumerate() if t.name == "held"]
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        release.set()  # the thread ends later and its result goes nowhere, without an error
        while thread.is_alive():
            await asyncio.sleep(0.005)
        for _ in range(5):  # the thread's hand-over to the loop runs on the loop's next turns
            await asyncio.sleep(0)
        assert errors == []
    finally:
        loop.set_exception_handler(None)


# The bot's decision never ends: without daemon threads, the loop's shutdown (asyncio.run's
# end) would wait for it for ever.
STOP_WHILE_DECIDING = """
import asyncio
from blink.games.goblink.engine import GoGame
from blink.games.goblink.live import LiveGoBot

async def main():
    game = GoGame.new(2, seed=5, dealer=0, turn_limit=200)
    seat = game.current
    bot = Stuck(seat)
    live = LiveGoBot(lambda: bot, seat, lambda: game.view(seat), game.apply, 0.0)
    live.start()
    while not bot.deciding.is_set():
        await asyncio.sleep(0.005)
    live.stop()
    print("stopped while deciding", flush=True)

asyncio.run(main())
"""


def test_a_process_stopping_its_bots_does_not_wait_for_a_decision() -> None:
    run_with_a_stuck_bot(STOP_WHILE_DECIDING, "stopped while deciding")

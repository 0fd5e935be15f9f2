"""Helpers for driving the terminal client by key presses in tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from blink.games.classic.engine import Action, IllegalAction, Phase, PlayerView
from blink.games.classic.tui.app import BlinkApp
from blink.games.classic.tui.table import ManualClock, Stage, Table


async def wait_for(
    pilot: Pilot[object], cond: Callable[[], bool], timeout: float = 30.0, step: float = 0.02
) -> None:
    """Wait (in real time) until ``cond()`` holds; fail after a generous ``timeout``."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await pilot.pause(step)
    await pilot.pause()


def keys_for_play(app: BlinkApp, seat: int, view: PlayerView) -> list[str] | None:
    """The key presses that make one legal play for ``seat`` (None: no legal play)."""
    plays = view.legal_plays()
    if not plays:
        return None
    km = app.router.maps[seat]
    play = plays[0]
    slot = view.hand.index(play.card)
    fits = {p.pile for p in plays if p.card is play.card}
    keys = [km.cards[slot][0]]
    if len(fits) == 2:
        left, _right = app.router.sides(view.players, seat)
        keys.append(km.left[0] if play.pile == left else km.right[0])
    return keys


async def press_one_move(pilot: Pilot[object], app: BlinkApp, seat: int) -> bool:
    """Press the keys for one move of ``seat`` (a play, or a choice in a stall)."""
    view = app.table.view(seat)
    if view is None:
        return False
    if view.phase is Phase.CHOOSING and view.my_choice is None and view.hand:
        await pilot.press(app.router.maps[seat].cards[0][0])
        return True
    keys = keys_for_play(app, seat, view)
    if keys is None:
        return False
    await pilot.press(*keys)
    return True


def stage(app: BlinkApp) -> Stage:
    """The table's stage now."""
    return app.table.status().stage


async def settle() -> None:
    """Let other tasks run once."""
    await asyncio.sleep(0)


class ManualLiveBot:
    """A live bot on a manual clock: the plans of ``LiveBot``, due in virtual time.

    Like :class:`blink.games.classic.bots.live.LiveBot`, it re-plans from a fresh view on every
    ``notify`` and holds one pending action; the action falls due at ``clock() + delay`` and is
    submitted by :meth:`VirtualTime.advance` when the clock gets there, never by a timer. A
    refused action makes the bot forget its plan and look again.
    """

    def __init__(
        self,
        bot: Any,
        get_view: Callable[[], PlayerView],
        submit: Callable[[Action], object],
        clock: ManualClock,
    ) -> None:
        self.bot = bot
        self.get_view = get_view
        self.submit = submit
        self.clock = clock
        self.running = False
        self.pending: Action | None = None
        self.due: float | None = None
        """When ``pending`` is to be submitted (the manual clock's seconds)."""

    def start(self) -> None:
        """Begin: plan from the current view."""
        self.running = True
        self.notify()

    def stop(self) -> None:
        """Drop the pending action and stop reacting."""
        self.running = False
        self.pending = self.due = None

    def notify(self) -> None:
        """The game changed: plan again (the same plan keeps its due time, as the bot says)."""
        if not self.running:
            return
        now = self.clock()
        intent = self.bot.plan(self.get_view(), now=now)
        if intent is None:
            self.pending = self.due = None
        else:
            self.pending, self.due = intent.action, now + max(0.0, intent.delay)

    def fire(self) -> None:
        """Submit the pending action (it is due); a refusal means a fresh look."""
        action, self.pending, self.due = self.pending, None, None
        if action is None or not self.running:
            return
        try:
            self.submit(action)
        except IllegalAction:
            reset = getattr(self.bot, "reset", None)
            if callable(reset):
                reset()
        self.notify()


class VirtualTime:
    """Time for a local table and its bots that moves only when the test moves it.

    Give a ``LocalTable`` ``clock=vt.clock`` and ``live_bot=vt.live_bot``; then
    :meth:`advance` plays out the time in between: the bots' actions in the order they fall
    due, the table's own timers (reveal, flip, default choices) as their times pass. The same
    calls give the same game on any machine, however busy.
    """

    def __init__(self, start: float = 1000.0) -> None:
        self.clock = ManualClock(start)
        self.bots: list[ManualLiveBot] = []
        """Every live bot the table started (stopped ones too, until the next advance)."""

    def live_bot(
        self, bot: Any, get_view: Callable[[], PlayerView], submit: Callable[[Action], object]
    ) -> ManualLiveBot:
        """The table's live-bot maker: a bot on this clock."""
        live = ManualLiveBot(bot, get_view, submit, self.clock)
        self.bots.append(live)
        return live

    def advance(self, table: Table, seconds: float, step: float = 0.005) -> None:
        """Move the clock ``seconds`` on, ``step`` at most at a time, running what falls due."""
        end = self.clock.now + seconds
        while True:
            t = min(self.clock.now + step, end)
            self._fire_until(table, t)
            self.clock.now = t
            table.tick()
            if t >= end:
                return

    def _fire_until(self, table: Table, t: float) -> None:
        """Submit every bot action due by ``t``, earliest first, each at its own time."""
        for _ in range(10_000):
            self.bots = [b for b in self.bots if b.running]
            due = [b for b in self.bots if b.due is not None and b.due <= t]
            if not due:
                return
            bot = min(due, key=lambda b: b.due or 0.0)
            self.clock.now = max(self.clock.now, bot.due or 0.0)
            table.tick()  # the table's timers up to now come first
            if bot.due is not None and bot.due <= self.clock.now:
                bot.fire()
        raise AssertionError("the bots kept acting without time passing")

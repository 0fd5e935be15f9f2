"""Helpers for driving the terminal client by key presses in tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from textual.pilot import Pilot

from blink.games.classic.engine import Phase, PlayerView
from blink.tui.app import BlinkApp
from blink.tui.keys import pile_sides
from blink.tui.table import Stage


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
        left, _right = pile_sides(view.players, seat)
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

"""A live game's house bots, started and stopped for the room (no I/O).

Each bot of a seat with a bot is made by the room's table (:meth:`Table.live_bot
<blink.model.table.Table.live_bot>`) with its seat's seed, a view of the game for its seat
only, and a ``submit`` that hands its actions to the room; the room's own path judges them as
any player's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from blink.model.base import GameDefinition
from blink.model.table import Table
from blink.server.room.seats import GameState, Seat
from blink.server.settings import Settings

__all__ = ["start_bots", "stop_bots"]

log = logging.getLogger("blink.server")


def start_bots(
    g: GameState,
    seats: list[Seat],
    table: Table,
    definition: GameDefinition[Any, Any, Any, Any],
    settings: Settings,
    submit: Callable[[int, Any], None],
    code: str,
) -> None:
    """Start the bots of ``g``'s bot seats (none while its countdown holds it: they start
    when it ends); each sees the game through its seat's view and acts through
    ``submit(seat, action)``. A bot that cannot start is logged (room ``code``) and left out."""
    if g.table.holding:
        return
    for s in seats:
        seed = g.bot_seeds[s.seat] if s.seat < len(g.bot_seeds) else None
        if s.kind != "bot" or s.bot is None or seed is None:
            continue
        seat = s.seat
        try:
            bot = table.live_bot(
                s.bot,
                seat,
                seed,
                lambda seat=seat: definition.view(g.game, seat),  # type: ignore[misc]
                lambda action, seat=seat: submit(seat, action),  # type: ignore[misc]
                settings.clock,
                settings.bot_delay,
            )
            bot.start()
        except Exception:
            log.exception("could not start the bot of seat %d in room %s", seat, code)
            continue
        g.bots.append(bot)


def stop_bots(g: GameState) -> None:
    """Stop ``g``'s bots (each failure logged) and forget them."""
    for b in g.bots:
        try:
            b.stop()
        except Exception:
            log.exception("bot stop failed")
    g.bots.clear()

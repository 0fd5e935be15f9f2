"""A live game rebuilt from what was stored of it (no I/O): its deal's state, its action log
and its bots' seeds, as a node that takes a room over (a restart, a failover) finds them.

The actions are not applied again here: ``state`` is the engine's state after them (the
storage driver replays the log through the game's definition). What is rebuilt is the room's
own bookkeeping: the sequence numbers, the time of the last action, each seat's count of
actions, and the answer to each client id of the log (an ``ack``), so that a client resending
an action it had in flight when the old node went gets its answer again, never a second
application.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from blink.model.base import GameDefinition
from blink.server.protocol import Ack, encode
from blink.server.room.clock import TableClock
from blink.server.room.seats import GameState, Seat, restored_bot_seeds

__all__ = ["Step", "rebuilt_game"]

Step: TypeAlias = tuple[int, Any, int | None, int | None, str | None]
"""One stored action: ``(seq, action, t, seat, client id)`` (``t`` in milliseconds of the
game's clock; ``seat`` and the client id ``None`` for the referee's or a bot's)."""


def rebuilt_game(
    definition: GameDefinition[Any, Any, Any, Any],
    seats: list[Seat],
    table: TableClock,
    deal_seed: int | None,
    ids: tuple[int, int, int],
    started_wall: float,
    state: Any,
    steps: list[Step],
    bot_seeds: list[int | None] | None,
) -> GameState:
    """The live state of game ``ids`` (its id, number in the series and series number) from
    the engine's ``state`` after ``steps``, with ``table`` as its referee's clock; every
    client id of ``steps`` is remembered as answered on its seat (``seats``). ``bot_seeds``
    as stored (``None``: a game stored before games kept them, see
    :func:`~blink.server.room.seats.restored_bot_seeds`, with ``deal_seed``)."""
    gid, number, series_number = ids
    g = GameState(
        id=gid,
        number=number,
        series_number=series_number,
        game=state,
        started_wall=started_wall,
        table=table,
        actions_by_seat=[0] * len(seats),
        bot_seeds=restored_bot_seeds(seats, bot_seeds, deal_seed),
    )
    for seq, action, t, seat, client_id in steps:
        g.seq = seq
        g.last_t = t or 0
        actor = definition.seat_of(action)
        if actor is not None:
            g.actions_by_seat[actor] += 1
        if client_id is not None and seat is not None:
            seats[seat].remember(client_id, encode(Ack(id=client_id, game=g.id, seq=seq)))
    g.persisted = g.seq
    return g

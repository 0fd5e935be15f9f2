"""The updates a client missed, for a ``hello`` with ``game`` and ``last_seq`` (sans-I/O).

A room keeps the frames of its game's last updates in a ring (``Settings.resume_buffer``, 64),
as they were sent. The ring does not always hold what a client missed: a spectator's frames
are built only while the room has a spectator (one who was the only spectator missed updates
that have none), and a room rebuilt from the database (a restart, or on a cluster the node
that takes the room over after its holder died) starts with an empty ring. Then the window
of the ring is rebuilt from the game itself: the engine's state keeps every accepted action
with its time, the stored log's on a rebuilt room, which is the same on every node. The deal
is dealt again and the actions applied again; each update of the window gets every seat's
and the spectators' frames as :func:`blink.server.room.updates.build_update` built them (the
referee's waits replayed on the times of the actions; a wait still under way has its live
deadline). The ring is then the rebuilt window, for the next clients who resume.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

from blink.server.protocol import Stall, Turn
from blink.server.room.clock import TableClock, timings
from blink.server.room.seats import GameState
from blink.server.room.shape import RoomShape
from blink.server.room.updates import update_frames

__all__ = ["missed", "rebuild_ring"]

log = logging.getLogger("blink.server")


def missed(room: RoomShape, g: GameState, seat: int | None, last_seq: int) -> list[str] | None:
    """The ``update`` frames of game ``g`` after ``last_seq``, up to the last one stored, as
    ``seat`` (``None``: a spectator) gets them; ``None`` when they are not given (older than
    the ring's window: a snapshot is sent instead). ``last_seq`` is below ``g.persisted``."""
    window = room.settings.resume_buffer
    if g.persisted - last_seq > window:
        return None
    frames = _from_ring(g, seat, last_seq)
    if frames is None:
        try:
            rebuild_ring(room, g)
        except Exception:
            log.exception("room %s: the updates of game %d could not be rebuilt", room.code, g.id)
            return None
        frames = _from_ring(g, seat, last_seq)
    return frames


def _from_ring(g: GameState, seat: int | None, last_seq: int) -> list[str] | None:
    """The frames after ``last_seq`` for ``seat`` when the ring holds every one of them."""
    if not g.ring or g.ring[0][0] > last_seq + 1:
        return None
    out = []
    for s, frames in g.ring:
        if s > last_seq:
            f = frames.get(seat)
            if f is None:
                return None
            out.append(f)
    return out if len(out) == g.persisted - last_seq else None


def rebuild_ring(room: RoomShape, g: GameState) -> None:
    """Make ``g``'s ring the frames of its last ``resume_buffer`` stored updates, for every
    seat and the spectators, replayed from the deal (see the module's documentation)."""
    definition = room.definition
    history = list(definition.history(g.game))[: g.persisted]
    if len(history) != g.persisted:
        raise ValueError(f"the game holds {len(history)} actions, not {g.persisted}")
    first = max(1, g.persisted - room.settings.resume_buffer + 1)
    state = definition.new(room.players, deck=g.game.deck, options=definition.options_of(g.game))
    referee = TableClock(definition, timings(room.settings, definition.info.timings))
    now = room.settings.clock()
    t0 = now - g.last_t / 1000 if g.t0 is None else g.t0
    receivers: list[int | None] = [*range(room.players), None]
    ring: deque[tuple[int, dict[int | None, str]]] = deque()
    referee.update(state, t0)
    for seq, (action, t) in enumerate(history, start=1):
        events = definition.apply(state, action, t)
        at = t0 + (t or 0) / 1000
        if seq >= first:
            stall, turn = _waits(room, g, referee, state, at, now)
            frames = update_frames(
                definition, room.game_name, g.id, seq, t or 0, state, events,
                receivers, stall, turn,
            )  # fmt: skip
            ring.append((seq, frames))
        referee.update(state, at)
    g.ring = ring


def _waits(
    room: RoomShape, g: GameState, referee: TableClock, state: Any, at: float, now: float
) -> tuple[Stall | None, Turn | None]:
    """The ``stall`` and ``turn`` of a replayed update leaving ``state`` at ``at``: as the
    replayed referee saw them then, or, for the wait still under way, as the room's own
    referee sees it now (its deadline may have started over since, after a restart)."""
    pending = room.definition.referee(state)
    live = g.table.referee
    if pending is not None and pending.key == live.key and live.deadline is not None:
        return g.table.peek(state, now)
    return referee.peek(state, at)

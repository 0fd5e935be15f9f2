"""What one applied action sends and stores, built before the room changes anything; and the
snapshot of a game.

:func:`build_update` makes every receiver's ``update`` frame (each from that receiver's view
and the events as redacted for it), the ack and the storage record of an action the engine has
just applied; :func:`undo_last` rebuilds the engine's state without that action, for when
building failed. Nothing here changes a room: the room takes what is built, or puts the engine
back and changes nothing else (:meth:`blink.server.room.room.Room.apply`).
:func:`build_snapshot` and :func:`build_game_end` make a room's ``snapshot`` (as one receiver
may see the game) and ``game_end`` frames.
"""

from __future__ import annotations

from typing import Any

import msgspec

from blink.match import Series
from blink.model.base import GameDefinition, Outcome, Timer
from blink.model.table import Table
from blink.server import room_writes as rw
from blink.server.protocol import Ack, GameEnd, Snapshot, Stall, Turn, Update, encode
from blink.server.room.clock import ms_left, server_ms
from blink.server.room.seats import GameState, Pending, Seat

__all__ = ["build_game_end", "build_snapshot", "build_update", "undo_last", "update_frames"]


def build_snapshot(
    definition: GameDefinition[Any, Any, Any, Any],
    game_name: str,
    seats: list[Seat],
    series: Series,
    g: GameState,
    seat: int | None,
    now: float,
) -> str:
    """The ``snapshot`` frame of a room's game ``g`` for ``seat`` (``None``: a spectator) at
    ``now``: the whole view with the room's ``seats``, the referee's wait (a stall, a turn, a
    countdown) and the ``series``."""
    view = definition.view_to_wire(definition.view(g.game, seat), True)
    view["seats"] = msgspec.to_builtins([s.info() for s in seats])
    deadline = g.table.deadline_of(Timer.COUNTDOWN)
    return encode(
        Snapshot(
            game_kind=game_name,
            game=g.id,
            number=g.number,
            seq=g.seq,
            view=view,
            stall=g.table.stall_wire(now),
            turn=g.table.turn_wire(now),
            countdown_ms=None if deadline is None else ms_left(deadline, now),
            countdown_at=None if deadline is None else server_ms(deadline),
            series=series.to_dict(),
        )
    )


def build_game_end(
    game_name: str,
    table: Table,
    series: Series,
    g: GameState,
    outcome: Outcome,
    record_url: str,
    between_games: float,
) -> GameEnd:
    """The ``game_end`` of a room's finished game ``g`` (its ``series`` already counts it;
    the next game starts ``between_games`` seconds on, unless the series is over)."""
    return GameEnd(
        game_kind=game_name,
        game=g.id,
        number=g.number,
        seq=g.seq,
        outcome={"winners": list(outcome.winners), "reason": outcome.reason, "tie": outcome.is_tie},
        figures=table.figures(g.game, list(g.actions_by_seat), g.last_t),
        series=series.to_dict(),
        record_url=record_url,
        next_in_ms=None if series.over else round(between_games * 1000),
    )


def build_update(
    definition: GameDefinition[Any, Any, Any, Any],
    game_name: str,
    g: GameState,
    receivers: list[int | None],
    action: Any,
    events: list[Any],
    seat: int | None,
    msg_id: str | None,
    t: int,
    now: float,
    default_for: int | None = None,
) -> tuple[Pending, rw.ActionAppended]:
    """The frames for ``receivers`` (seats; ``None``: the spectators), the ack of ``msg_id``
    and the storage record of ``action``, applied to ``g`` at ``t`` with ``events``
    (``default_for``: the seat the table took ``action`` for at its deadline)."""
    seq = g.seq + 1
    # The referee is asked without changing its clock: the room changes only once all is built.
    stall, turn = g.table.peek(g.game, now)
    frames = update_frames(
        definition,
        game_name,
        g.id,
        seq,
        t,
        g.game,
        events,
        receivers,
        stall,
        turn,
        default_for,
    )
    ack = None
    if msg_id is not None and seat is not None:
        ack = encode(Ack(id=msg_id, game=g.id, seq=seq))
    job = rw.ActionAppended(
        g.id, seq, definition.record_codec.encode_action(action, t), seat, msg_id
    )
    return Pending(seq, frames, seat, msg_id, ack, bool(g.game.over)), job


def update_frames(
    definition: GameDefinition[Any, Any, Any, Any],
    game_name: str,
    game: int,
    seq: int,
    t: int,
    state: Any,
    events: list[Any],
    receivers: list[int | None],
    stall: Stall | None,
    turn: Turn | None,
    default_for: int | None = None,
) -> dict[int | None, str]:
    """Each receiver's ``update`` frame (``None``: the spectators) of action ``seq`` of game
    ``game``, applied at ``t`` with ``events``, leaving ``state``: each from that receiver's
    view and the events as redacted for it, with the referee's ``stall`` and ``turn``
    (``default_for``: the seat the table took the action for at its deadline)."""
    # Each event is turned into JSON once; a receiver gets that shared form only when the
    # redaction leaves the event as it is for them (nothing hidden), else its own form.
    shared = [(e, definition.event_to_wire(e)) for e in events]
    frames: dict[int | None, str] = {}
    for r in receivers:
        wire: list[dict[str, Any]] = []
        for e, w in shared:
            h = definition.redact(e, r)
            if h is not e:
                w = definition.event_to_wire(h)
            if w is not None:
                wire.append(w)
        frames[r] = encode(
            Update(
                game_kind=game_name,
                game=game,
                seq=seq,
                t=t,
                events=wire,
                view=definition.view_to_wire(definition.view(state, r), False),
                stall=stall,
                turn=turn,
                default_for=default_for,
            )
        )
    return frames


def undo_last(definition: GameDefinition[Any, Any, Any, Any], players: int, state: Any) -> Any:
    """``state`` without its last action: the same deal again, and every action before it."""
    history = list(definition.history(state))[:-1]
    again = definition.new(players, deck=state.deck, options=definition.options_of(state))
    for action, t in history:
        definition.apply(again, action, t)
    return again

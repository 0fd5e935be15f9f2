"""Classic Blink's replay frames: a verified record laid out step by step for the viewer.

Built with the engine from the record (see docs/protocol.md, the replay document); pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from blink.games.classic.engine import ClassicGame, Event, Played
from blink.games.classic.record import GameRecord
from blink.games.classic.wire import event_to_wire
from blink.model.replays import card_list, seat_names

__all__ = ["classic_event", "classic_game_replay"]


classic_event = event_to_wire
"""One classic engine event as a JSON object (``None`` for the deal): the encoder of the
WebSocket ``update`` events, :func:`blink.games.classic.wire.event_to_wire`; replay events are
unredacted, so
``refilled`` and ``chose`` always carry their card."""


def _classic_frame(
    game: ClassicGame,
    action: dict[str, Any] | None,
    t: int | None,
    events: Sequence[Event],
    plays_by: Sequence[int],
) -> dict[str, Any]:
    n = game.players
    outcome = game.outcome
    return {
        "t": t,
        "action": action,
        "phase": game.phase.value,
        "tops": [str(game.top(i)) for i in range(n)],
        "depth": [len(game.pile(i)) for i in range(n)],
        "hands": [card_list(game.hand(p)) for p in range(n)],
        "draws": [len(game.draw_pile(p)) for p in range(n)],
        "plays": list(plays_by),
        "chosen": [None if p not in game.choices else str(game.choices[p]) for p in range(n)],
        "outcome": None
        if outcome is None
        else {"winners": list(outcome.winners), "reason": outcome.reason},
        "events": [d for d in (classic_event(e) for e in events) if d is not None],
    }


def classic_game_replay(record: GameRecord) -> dict[str, Any]:
    """The frames of a classic record, verified by the engine.

    Raises :class:`~blink.model.records.RecordError` (``index``: the failing action) when the record
    does not verify (:meth:`~blink.model.records.Record.verify`).
    """
    record.verify()
    game = ClassicGame(record.deck, record.players, record.ruleset, record.sizes)
    plays_by = [0] * game.players
    frames = [_classic_frame(game, None, None, (), plays_by)]
    for action, t in record.actions:
        events = game.apply(action, t)
        for e in events:
            if isinstance(e, Played):
                plays_by[e.player] += 1
        frames.append(
            _classic_frame(game, record.codec.encode_action(action, None), t, events, plays_by)
        )
    return {
        "players": game.players,
        "names": seat_names(record.names, game.players),
        "ruleset": record.ruleset.name,
        "sizes": list(game.sizes),
        "result": record.result,
        "frames": frames,
    }

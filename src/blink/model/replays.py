"""Replay frames: a game record verified by the engine and laid out step by step for a viewer.

The browser's replay viewer shows a record one step at a time. Rather than carrying its own copy
of the rules, it asks the server, which builds the frames with the engines from records read by
the record format's loader (:func:`blink.model.records.load`). Each game lays out its own frames
(its
definition's ``replay``); :func:`definition_replay` is a layout for any game, from the views of
every seat. Pure functions: no I/O, no clock.

A replay document (see docs/protocol.md, `POST /api/replays`)::

    {"format": "blink-replay", "version": 1, "game": NAME,
     "series": null | {"best_of", "score", "ties", "winner"},
     "meta": {...the record's meta...},
     "games": [Game, ...]}

One ``Game`` per game (one for a single record, every game of a series). Its ``frames`` list has
one frame per step: frame 0 is the deal, frame ``k`` the table after the record's action ``k - 1``
with that action, its time ``t`` (ms, or ``None``) and the events it caused, unredacted (a
finished game's record holds the whole deck, so a replay shows every hand). Cards are in card
notation (``"4YS"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from blink.model.base import GameDefinition
from blink.model.records import AnyRecord, RecordError, SeriesRecord, load
from blink.model.registry import UnknownGame, get_game

__all__ = [
    "REPLAY_FORMAT",
    "REPLAY_VERSION",
    "card_list",
    "definition_replay",
    "read_record",
    "replay_document",
    "seat_names",
]

REPLAY_FORMAT: Final = "blink-replay"
REPLAY_VERSION: Final = 1


def read_record(data: object) -> AnyRecord | SeriesRecord:
    """Read any record ``blink replay`` accepts: a game record of any game, or a series.

    The record format's loader, :func:`blink.model.records.load`; raises its
    :class:`~blink.model.records.RecordError` (the game's own subclass, once the game is known)
    saying what is wrong.
    """
    return load(data)


def seat_names(names: Sequence[str], players: int) -> list[str]:
    """A name for every seat: the record's, or ``Player N``."""
    out = [n or f"Player {i + 1}" for i, n in enumerate(names[:players])]
    while len(out) < players:
        out.append(f"Player {len(out) + 1}")
    return out


def card_list(cards: Sequence[object]) -> list[str]:
    """Cards in card notation."""
    return [str(c) for c in cards]


def definition_replay(
    definition: GameDefinition[Any, Any, Any, Any], record: AnyRecord
) -> dict[str, Any]:
    """Frames for any game, from its definition: after each action, every seat's view.

    For a game without a layout of its own. Raises :class:`~blink.model.records.RecordError` when
    the
    record does not verify.
    """
    record.verify()
    state = definition.new(record.players, deck=record.deck, options=record.options)
    players = state.players

    def frame(action: Any, t: int | None, events: Sequence[Any]) -> dict[str, Any]:
        outcome = state.outcome
        wire = (definition.event_to_wire(e) for e in events)
        return {
            "t": t,
            "action": None if action is None else definition.action_to_wire(action),
            "views": [definition.view_to_wire(definition.view(state, s)) for s in range(players)],
            "outcome": None
            if outcome is None
            else {"winners": list(outcome.winners), "reason": str(outcome.reason)},
            "events": [d for d in wire if d is not None],
        }

    frames = [frame(None, None, ())]
    for action, t in record.actions:
        frames.append(frame(action, t, definition.apply(state, action, t)))
    return {
        "players": players,
        "names": seat_names(record.names, players),
        "result": record.result,
        "frames": frames,
    }


# --- documents ------------------------------------------------------------------------------


def _game_replay(record: AnyRecord) -> dict[str, Any]:
    try:
        definition = get_game(record.game_name)
    except UnknownGame as exc:
        raise RecordError(str(exc)) from None
    replay: dict[str, Any] = definition.replay(record)
    return replay


def replay_document(data: object) -> dict[str, Any]:
    """The replay of any record ``blink replay`` accepts (a parsed JSON value).

    Raises :class:`~blink.model.records.RecordError` with ``reason`` and ``index`` (and ``game`` in
    a
    series) when the record cannot be read or does not verify.
    """
    record = read_record(data)
    doc: dict[str, Any] = {
        "format": REPLAY_FORMAT,
        "version": REPLAY_VERSION,
        "game": record.game_name,
    }
    if not isinstance(record, SeriesRecord):
        return doc | {"series": None, "meta": dict(record.meta), "games": [_game_replay(record)]}
    series = record.series_from(record.verify())
    return doc | {
        "series": {
            "best_of": record.best_of,
            "score": list(series.score),
            "ties": series.ties,
            "winner": series.winner,
        },
        "meta": dict(record.meta),
        "games": [_game_replay(g) for g in record.games],
    }

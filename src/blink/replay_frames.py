"""Replay frames: a game record verified by the engine and laid out step by step for a viewer.

The browser's replay viewer shows a record one step at a time. Rather than carrying its own copy
of the rules, it asks the server, which builds the frames here with the engines
(:mod:`blink.games.classic.engine`, :mod:`blink.games.goblink.engine`) from records read by the
record format's loader (:func:`blink.records.load`). Pure functions: no I/O, no clock.

A replay document (see docs/protocol.md, `POST /api/replays`)::

    {"format": "blink-replay", "version": 1, "game": "classic" | "goblink",
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

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from blink.games.classic.engine import (
    ClassicGame,
    Event,
    Played,
)
from blink.games.classic.record import GameRecord
from blink.games.classic.wire import event_to_wire
from blink.games.goblink.engine import Asked as GoAsked
from blink.games.goblink.engine import Dealt as GoDealt
from blink.games.goblink.engine import GoGame, Passed, event_to_dict, value_to_wire
from blink.games.goblink.record import GoRecord
from blink.records import AnyRecord, RecordError, SeriesRecord, load

__all__ = [
    "GAME_REPLAYS",
    "REPLAY_FORMAT",
    "REPLAY_VERSION",
    "classic_event",
    "classic_game_replay",
    "go_game_replay",
    "read_record",
    "replay_document",
]

REPLAY_FORMAT: Final = "blink-replay"
REPLAY_VERSION: Final = 1


def read_record(data: object) -> AnyRecord | SeriesRecord:
    """Read any record ``blink replay`` accepts: a game record of any game, or a series.

    The record format's loader, :func:`blink.records.load`; raises its
    :class:`~blink.records.RecordError` (the game's own, such as
    :class:`~blink.games.goblink.record.GoRecordError`, once the game is known) saying what is
    wrong.
    """
    return load(data)


def _names(names: Sequence[str], players: int) -> list[str]:
    out = [n or f"Player {i + 1}" for i, n in enumerate(names[:players])]
    while len(out) < players:
        out.append(f"Player {len(out) + 1}")
    return out


def _cards(cards: Sequence[object]) -> list[str]:
    return [str(c) for c in cards]


# --- classic --------------------------------------------------------------------------------


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
        "hands": [_cards(game.hand(p)) for p in range(n)],
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

    Raises :class:`~blink.records.RecordError` (``index``: the failing action) when the record
    does not verify (:meth:`~blink.records.Record.verify`).
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
        "names": _names(record.names, game.players),
        "ruleset": record.ruleset.name,
        "sizes": list(game.sizes),
        "result": record.result,
        "frames": frames,
    }


# --- Go Blink -------------------------------------------------------------------------------


def _go_frame(
    game: GoGame,
    action: dict[str, Any] | None,
    t: int | None,
    events: Sequence[Any],
    asks: int,
) -> dict[str, Any]:
    outcome = game.outcome
    return {
        "t": t,
        "action": action,
        "phase": game.phase.value,
        "current": game.current,
        "hands": [_cards(game.hand(p)) for p in range(game.players)],
        "draw": len(game.draw_pile()),
        "asks": asks,
        "matches": len(game.discard()),
        "turns": game.turns,
        "outcome": None
        if outcome is None
        else {"winners": list(outcome.winners), "reason": outcome.reason},
        "events": [event_to_dict(e) for e in events if not isinstance(e, GoDealt)],
    }


def go_game_replay(record: GoRecord) -> dict[str, Any]:
    """The frames of a Go Blink record, verified by the engine.

    Besides the frames, the game holds the whole ask log (``asks``: each ask with the cards
    passed) and the matches laid down (``matches``), in order; both only grow, so a frame gives
    how many of each have happened (``asks``, ``matches``). Raises
    :class:`~blink.games.goblink.record.GoRecordError` when the record does not verify.
    """
    record.verify()
    game = GoGame(record.deck, record.players, record.dealer, record.turn_limit)
    passed_cards: list[list[str]] = []
    frames = [_go_frame(game, None, None, game.events, 0)]
    for action, t in record.actions:
        events = game.apply(action, t)
        for e in events:
            if isinstance(e, GoAsked):
                passed_cards.append([])
            elif isinstance(e, Passed) and e.cards is not None:
                passed_cards[-1] = _cards(e.cards)
        frames.append(
            _go_frame(game, record.codec.encode_action(action, None), t, events, len(passed_cards))
        )
    view = game.view(None)
    asks = []
    for a, cards in zip(view.asks, passed_cards, strict=True):
        attribute, value = value_to_wire(a.value)
        asks.append(
            {
                "seat": a.player,
                "target": a.target,
                "attribute": attribute,
                "value": value,
                "passed": a.passed,
                "cards": cards,
                "drew": a.drew,
                "target_drew": a.target_drew,
            }
        )
    return {
        "players": game.players,
        "names": _names(record.names, game.players),
        "dealer": game.dealer,
        "turn_limit": game.turn_limit,
        "result": record.result,
        "asks": asks,
        "matches": [{"seat": p, "cards": _cards(cards)} for p, cards in game.discard()],
        "frames": frames,
    }


# --- documents ------------------------------------------------------------------------------

GAME_REPLAYS: Final[Mapping[str, Callable[[Any], dict[str, Any]]]] = {
    "classic": classic_game_replay,
    "goblink": go_game_replay,
}
"""The frames of one game's record, by the record's ``game`` (each game lays out its own)."""


def _game_replay(record: AnyRecord) -> dict[str, Any]:
    frames = GAME_REPLAYS.get(record.game_name)
    if frames is None:
        raise RecordError(f"{record.codec.label} records have no replay viewer yet")
    return frames(record)


def replay_document(data: object) -> dict[str, Any]:
    """The replay of any record ``blink replay`` accepts (a parsed JSON value).

    Raises :class:`~blink.records.RecordError` with ``reason`` and ``index`` (and ``game`` in a
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

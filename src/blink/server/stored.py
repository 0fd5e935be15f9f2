"""Stored games read and written through each game's record codec, for any game.

A game row keeps its deal (the deck order, the players) and, in its ``ruleset`` column, the
game's name with the options part of its record (``{"game": ..., **encode_options}``); every
accepted action is a row of the action log in the record's action form. So a stored game is
rebuilt (a restart, a record download) by the game's own codec, and nothing here knows a game.
Rows written before games were named this way hold a classic ruleset object and a ``sizes``
column: they are read as the default game's (:func:`options_part`).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from blink.cards import parse_card
from blink.model.records import AnyCodec
from blink.model.registry import DEFAULT_GAME, get_game
from blink.server.storage import LoadedGame

__all__ = ["Step", "deal_column", "game_of", "options_part", "rebuild", "record_of"]


class Step(NamedTuple):
    """One stored action, decoded."""

    seq: int
    action: Any
    t: int | None
    seat: int | None
    client_id: str | None


def _codec(game: str) -> AnyCodec:
    codec: AnyCodec = get_game(game).record_codec
    return codec


def deal_column(game: str, state: Any) -> str:
    """The ``ruleset`` column of a new game row: the game's name and its record options."""
    codec = _codec(game)
    options = codec.record(state).options
    return json.dumps({"game": game, **codec.encode_options(state.players, options)})


def game_of(lg: LoadedGame) -> str:
    """The game a stored game row is of."""
    name = lg.ruleset.get("game") if isinstance(lg.ruleset, dict) else None
    return name if isinstance(name, str) else DEFAULT_GAME


def options_part(lg: LoadedGame) -> dict[str, Any]:
    """The options part of a stored game's record (older rows converted)."""
    stored = dict(lg.ruleset) if isinstance(lg.ruleset, dict) else {}
    if "game" in stored:
        stored.pop("game")
        return stored
    sizes = list(lg.sizes) if lg.sizes else None
    return {"variant": {"players": lg.players, "sizes": sizes}, "ruleset": stored}


def rebuild(lg: LoadedGame) -> tuple[Any, list[Step]]:
    """The stored game's state after every action of its log, and the decoded log.

    Raises the codec's :class:`~blink.model.records.RecordError` or
    :class:`~blink.model.records.Refused` for a row or an action it cannot take."""
    codec = _codec(game_of(lg))
    players, options = codec.decode_options(options_part(lg), lg.players)
    state = codec.deal([parse_card(c) for c in lg.deck], players, options)
    steps: list[Step] = []
    for i, (seq, raw, seat, client_id) in enumerate(lg.actions):
        action, t = codec.decode_action(raw, i)
        codec.apply(state, action, t)
        steps.append(Step(seq, action, t, seat, client_id))
    return state, steps


def record_of(lg: LoadedGame) -> Any:
    """The record of a stored game (its game's record type), with the row's names and meta
    (``bots``: each seat's bot spec, ``None`` for a person's, when a bot played)."""
    state, _ = rebuild(lg)
    meta: dict[str, Any] = {
        "game": lg.id,
        "number": lg.number,
        "series": lg.series_number,
        "started": lg.started_at,
        "ended": lg.ended_at,
    }
    if any(lg.bots):
        meta["bots"] = list(lg.bots)
    return _codec(game_of(lg)).record(state, list(lg.names), meta)

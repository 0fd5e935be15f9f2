"""Stored games read and written through each game's record codec, for any game.

A game row keeps its deal (the deck order, the players) and, in its ``deal_options`` column,
the game's name with the options part of its record (``{"game": ..., **encode_options}``);
every accepted action is a row of the action log in the record's action form. So a stored game
is rebuilt (a restart, a record download) by the game's own codec, and nothing here knows a
game. (Rows written before games were named this way were moved to this form by the migration
``0016_deal_options``.)
"""

from __future__ import annotations

from typing import Any, NamedTuple

from blink.cards import parse_card
from blink.model.records import MALFORMED, AnyCodec, RecordError, Refused
from blink.model.registry import DEFAULT_GAME, get_game
from blink.server.storage import LoadedGame

__all__ = [
    "Step",
    "Unreadable",
    "check",
    "game_of",
    "options_part",
    "rebuild",
    "record_of",
]


class Unreadable(Exception):
    """A stored game that does not replay: its deal cannot be dealt, an action of its log
    cannot be read or is refused by the game (``index``: that action's ``seq`` in the action
    log, ``None`` for the deal or the record), or its record cannot be made. ``reason`` is a
    code (the record's or the game's own, ``malformed`` otherwise); ``str()`` is one
    sentence."""

    def __init__(self, game_id: int, index: int | None, reason: str, detail: str) -> None:
        where = "its deal or record" if index is None else f"action {index}"
        super().__init__(f"game {game_id} does not replay: {where}: {detail}")
        self.game_id, self.index, self.reason, self.detail = game_id, index, reason, detail


def _unreadable(lg: LoadedGame, index: int | None, exc: Exception) -> Unreadable:
    if isinstance(exc, RecordError):
        return Unreadable(lg.id, index, exc.reason, exc.detail)
    if isinstance(exc, Refused):
        return Unreadable(lg.id, index, exc.code, exc.message)
    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return Unreadable(lg.id, index, MALFORMED, detail)


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


def game_of(lg: LoadedGame) -> str:
    """The game a stored game row is of."""
    name = lg.deal_options.get("game") if isinstance(lg.deal_options, dict) else None
    return name if isinstance(name, str) else DEFAULT_GAME


def options_part(lg: LoadedGame) -> dict[str, Any]:
    """The options part of a stored game's record: its deal options but the game's name."""
    stored = dict(lg.deal_options) if isinstance(lg.deal_options, dict) else {}
    stored.pop("game", None)
    return stored


def rebuild(lg: LoadedGame) -> tuple[Any, list[Step]]:
    """The stored game's state after every action of its log, and the decoded log.

    Raises :class:`Unreadable` for a row or an action the game's codec cannot take (whatever
    it raised: a stored row may hold anything)."""
    try:
        codec = _codec(game_of(lg))
        players, options = codec.decode_options(options_part(lg), lg.players)
        state = codec.deal([parse_card(c) for c in lg.deck], players, options)
    except Exception as exc:
        raise _unreadable(lg, None, exc) from exc
    steps: list[Step] = []
    for i, (seq, raw, seat, client_id) in enumerate(lg.actions):
        try:
            action, t = codec.decode_action(raw, i)
            codec.apply(state, action, t)
        except Exception as exc:
            raise _unreadable(lg, seq, exc) from exc
        steps.append(Step(seq, action, t, seat, client_id))
    return state, steps


def record_of(lg: LoadedGame) -> Any:
    """The record of a stored game (its game's record type), with the row's names and meta
    (``bots``: each seat's bot spec, ``None`` for a person's, when a bot played). Raises
    :class:`Unreadable` for a game that does not replay."""
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
    try:
        return _codec(game_of(lg)).record(state, list(lg.names), meta)
    except Exception as exc:
        raise _unreadable(lg, None, exc) from exc


def check(lg: LoadedGame) -> Unreadable | None:
    """Why the stored game does not replay (``None``: it does): a finished game down to its
    record, an unfinished one down to its last action (as a restart rebuilds it)."""
    try:
        if lg.ended_at is None:
            rebuild(lg)
        else:
            record_of(lg)
    except Unreadable as exc:
        return exc
    return None

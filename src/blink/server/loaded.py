"""The rows :class:`blink.server.storage.Storage` reads back: rooms with their seats and
games, games with their action logs."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LoadedGame", "LoadedRoom", "LoadedSeat", "game_from_row"]


@dataclass
class LoadedSeat:
    """A seat row."""

    seat: int
    kind: str
    bot: str | None
    name: str | None
    token_hash: str | None
    left: bool


@dataclass
class LoadedGame:
    """A game row with its action log (for rebuilding)."""

    id: int
    series_number: int
    number: int
    players: int
    deal_options: dict[str, Any]
    """Its game's name and the options part of its record (``{"game": ..., **options}``)."""
    deck: list[str]
    names: list[str]
    started_at: float
    ended_at: float | None
    result: dict[str, Any] | None
    actions: list[tuple[int, dict[str, Any], int | None, str | None]] = field(default_factory=list)
    bot_seeds: list[int | None] | None = None
    """Each seat's bot seed (``None``: a game stored before games kept them)."""
    room_code: str = ""
    public: bool = True  # whether its room is (Storage.load_game tells)
    bots: list[str | None] = field(default_factory=list)
    """Each seat's bot spec (``None`` for a person's seat), from its room's seats
    (Storage.load_game tells): the record's ``meta.bots``, so clients name bots themselves."""
    room_options: dict[str, Any] = field(default_factory=dict)
    """Its room's options (Storage.load_game tells: a daily room's day)."""
    paused: bool = False
    """A practice game paused by its player (it is restored paused)."""


@dataclass
class LoadedRoom:
    """A room row with its seats and the games of its current series."""

    code: str
    created_at: float
    players: int
    best_of: int
    public: bool
    status: str
    series_number: int
    seats: list[LoadedSeat]
    games: list[LoadedGame]
    game: str = "classic"
    """The room's game (its name in :mod:`blink.model.registry`)."""
    options: dict[str, Any] = field(default_factory=dict)
    """The options it was opened with (its game's and the room's)."""


def game_from_row(r: Any) -> LoadedGame:
    """A game row (without its log)."""
    return LoadedGame(
        id=r.id,
        series_number=r.series_number,
        number=r.number,
        players=r.players,
        deal_options=json.loads(r.deal_options),
        deck=r.deck.split(),
        names=json.loads(r.names),
        started_at=r.started_at,
        ended_at=r.ended_at,
        result=json.loads(r.result) if r.result else None,
        bot_seeds=json.loads(r.bot_seeds) if r.bot_seeds else None,
        paused=bool(r.paused),
    )

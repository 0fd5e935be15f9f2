"""What a room asks the database to keep, as plain records: the room core's storage output.

A room does no I/O. Each change it must keep (a new room and its seats, a status, a seat
freed or left, a game dealt, an accepted action, a game's end, a practice pause) is one of the
records here, handed to its host (:meth:`blink.server.room.host.RoomHost.store`); the storage
driver turns each into SQL (:func:`blink.server.jobs.job_of`), so the columns, their names and
their encodings are the driver's, and importing the room core loads no database library.

The records are frozen msgspec Structs with typed fields, in the room's own terms: a room's
options and a game's deal options, whatever its game (no column of one game's).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from blink.model.records import AnyCodec
from blink.model.registry import get_game

__all__ = [
    "ActionAppended",
    "GameDealt",
    "GameFinished",
    "GamePaused",
    "NewRoom",
    "NewSeat",
    "RoomSeries",
    "RoomStatus",
    "RoomWrite",
    "SeatFreed",
    "SeatLeft",
    "deal_options",
]


class RoomWrite(msgspec.Struct, frozen=True):
    """A change a room asks to keep (each kind is a subclass)."""


class NewSeat(msgspec.Struct, frozen=True):
    """A seat of a new room, as it is when the room is made."""

    seat: int
    kind: str
    """``human`` or ``bot``."""
    bot: str | None
    """The bot's spec, for a bot's seat."""
    name: str | None
    token_hash: str | None
    """The hash of the seat's token (a seat held from the start: a tournament's)."""


class NewRoom(RoomWrite, frozen=True):
    """A new room and its seats (waiting, first series). Its result is ``False``, and nothing
    is kept, when a room with that code exists already: the caller draws another code."""

    code: str
    created_at: float
    game: str
    players: int
    best_of: int
    public: bool
    options: dict[str, Any]
    seats: tuple[NewSeat, ...]


class RoomStatus(RoomWrite, frozen=True):
    """A room's status changed (``waiting``, ``countdown``, ``playing``, ``finished``...)."""

    code: str
    status: str


class RoomSeries(RoomWrite, frozen=True):
    """A room started series ``series_number`` (a rematch)."""

    code: str
    series_number: int


class SeatFreed(RoomWrite, frozen=True):
    """A seat was given up before the first game: free again (no token, no name)."""

    code: str
    seat: int


class SeatLeft(RoomWrite, frozen=True):
    """A seat's player left for good."""

    code: str
    seat: int


class GameDealt(RoomWrite, frozen=True):
    """A new game of a room: its deal (the deck in card notation) and its players."""

    id: int
    room_code: str
    series_number: int
    number: int
    """The game's number in its series (from 1)."""
    players: int
    deal_options: str
    """The game's name and its record options, as JSON (:func:`deal_options`)."""
    deck: tuple[str, ...]
    names: list[str]
    started_at: float
    bot_seeds: list[int | None]


class ActionAppended(RoomWrite, frozen=True):
    """An accepted action, in its game's record form, appended to the game's log."""

    game_id: int
    seq: int
    action: dict[str, Any]
    seat: int | None
    client_id: str | None


class GameFinished(RoomWrite, frozen=True):
    """A game ended with its result (the game's record result)."""

    game_id: int
    ended_at: float
    result: dict[str, Any]


class GamePaused(RoomWrite, frozen=True):
    """A practice game was paused or resumed (a restart restores it paused)."""

    game_id: int
    paused: bool


def deal_options(game: str, state: Any) -> str:
    """A new game's stored deal options: the game's name and its record options, as JSON
    (what :mod:`blink.server.stored` reads back through the game's record codec)."""
    codec: AnyCodec = get_game(game).record_codec
    options = codec.record(state).options
    return json.dumps({"game": game, **codec.encode_options(state.players, options)})

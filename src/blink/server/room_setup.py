"""Opening a room from its options (``POST /api/rooms``, ``POST /api/quick``).

The options are checked (a classic room's ruleset, handicap, series and bot seats; a Go Blink
room's players and bots), the creator takes a seat and gets its token (a profile's secret when
one is given), and the room is registered in the hub and stored before it is answered.
"""

from __future__ import annotations

import json
import time
from typing import Any, Final

from pydantic import BaseModel, Field

from blink.cards import STANDARD_DECK
from blink.games.classic.definition import CLASSIC
from blink.games.classic.rules import DealError, Ruleset, get_ruleset, parse_handicap
from blink.games.goblink.bots import GoBotError
from blink.match import Series, SeriesError
from blink.model.registry import DEFAULT_GAME, get_game
from blink.server import storage as st
from blink.server.bots import BotError, check_spec
from blink.server.errors import ApiError, ProfileError
from blink.server.go_rooms import GAME_KIND, GoRoom, check_gobot
from blink.server.hub import Hub
from blink.server.profiles import seat_token
from blink.server.rooms import Room, Seat, hash_token

__all__ = [
    "FEWEST_PLAYERS",
    "GAMES",
    "MOST_PLAYERS",
    "CreateRoom",
    "claim_seat",
    "create_go_room",
    "create_room",
    "store_new_room",
]

GAMES: Final = (CLASSIC.info.name, GAME_KIND)
"""The games rooms are opened for (registry names): classic rooms here, Go Blink rooms with
:func:`create_go_room`."""

FEWEST_PLAYERS: Final = min(get_game(name).info.min_players for name in GAMES)
"""The fewest seats of a room of any game (each game's own range is checked on creation)."""
MOST_PLAYERS: Final = max(get_game(name).info.max_players for name in GAMES)
"""The most seats of a room of any game."""


class CreateRoom(BaseModel):
    """Options of a new room (``players``: the default game's default unless given)."""

    players: int = Field(
        get_game(DEFAULT_GAME).info.default_players, ge=FEWEST_PLAYERS, le=MOST_PLAYERS
    )
    game: str = Field(DEFAULT_GAME, max_length=16)
    seats: list[str | None] | None = None
    best_of: int = Field(1, ge=1, le=15)
    handicap: str = Field("", max_length=32)
    ruleset: str = Field("official", max_length=32)
    name: str = Field("Player", min_length=1, max_length=24)
    take_seat: int | None = 0
    public: bool = True
    profile_secret: str | None = Field(None, max_length=128)


async def create_room(h: Hub, body: CreateRoom) -> dict[str, Any]:
    """Create a room from its options (``POST /api/rooms``): a classic room here, a Go Blink
    room with :func:`create_go_room`. Raises :class:`ApiError` for options that do not fit."""
    if body.game == GAME_KIND:
        return await create_go_room(h, body)
    info = CLASSIC.info
    if body.game != info.name:
        raise ApiError(400, "bad_options", f"unknown game {body.game!r} ({', '.join(GAMES)})")
    players = body.players
    if not info.min_players <= players <= info.max_players:
        raise ApiError(400, "bad_options", f"classic Blink is for {info.player_range} players")
    seat_specs = body.seats if body.seats is not None else [None] * players
    if len(seat_specs) != players:
        raise ApiError(400, "bad_options", f"seats must list {players} seats")
    try:
        ruleset: Ruleset = get_ruleset(body.ruleset)
    except ValueError as exc:
        raise ApiError(400, "bad_options", str(exc)) from None
    try:
        Series(body.best_of, players)
    except SeriesError as exc:
        raise ApiError(400, "bad_options", str(exc)) from None
    try:
        sizes = parse_handicap(body.handicap, players, len(STANDARD_DECK))
    except DealError as exc:
        raise ApiError(400, "bad_options", str(exc)) from None
    seat_list: list[Seat] = []
    for i, spec in enumerate(seat_specs):
        if spec is None:
            seat_list.append(Seat(i, "human"))
            continue
        try:
            norm = check_spec(spec)
        except BotError as exc:
            raise ApiError(
                503 if exc.code == "bots_unavailable" else 400, exc.code, exc.message
            ) from None
        seat_list.append(Seat(i, "bot", bot=norm, name=f"Bot ({norm})"))
    take = body.take_seat
    token = None
    if take is not None:
        take = claim_seat(seat_list, take)
        if take is None:
            raise ApiError(
                400, "bad_seat", f"seat {body.take_seat} is not a free seat for a person"
            )
        token = seat_token(h, body.profile_secret)
        seat_list[take].token_hash = hash_token(token)
        seat_list[take].name = body.name
    code = h.new_code()
    room = Room(
        h, code, players, body.best_of, ruleset.name, sizes, body.public, seat_list, time.time()
    )
    await store_new_room(h, room)
    room.maybe_start()
    return {
        "code": code,
        "join_url": f"/play/{code}",
        "watch_url": f"/watch/{code}",
        "seat": take,
        "token": token,
        "room": room.info(),
    }


def _seat_token(hub: Hub, secret: str | None) -> str:
    """A fresh seat token, or the profile secret when one is given (the seat then carries it).

    Raises :class:`ApiError` (``no_such_profile``) for an unknown secret.
    """
    try:
        return seat_token(hub, secret)
    except ProfileError as exc:
        raise ApiError(exc.status, exc.code, exc.message) from None


async def create_go_room(hub: Hub, body: CreateRoom) -> dict[str, Any]:
    """Create a Go Blink room from a ``CreateRoom`` body (``POST /api/rooms``, ``game: goblink``).

    Seats are ``null`` (a person) or a Go Blink bot name; raises :class:`ApiError`.
    """
    try:
        players = get_game(GAME_KIND).info.check_players(int(body.players))
    except ValueError as exc:
        raise ApiError(400, "bad_options", str(exc)) from None
    seat_specs = body.seats if body.seats is not None else [None] * players
    if len(seat_specs) != players:
        raise ApiError(400, "bad_options", f"seats must list {players} seats")
    try:
        Series(body.best_of, players)
    except ValueError as exc:
        raise ApiError(400, "bad_options", str(exc)) from None
    seat_list: list[Seat] = []
    for i, spec in enumerate(seat_specs):
        if spec is None:
            seat_list.append(Seat(i, "human"))
            continue
        try:
            name = check_gobot(spec)
        except GoBotError as exc:
            raise ApiError(400, "bad_bot", str(exc)) from None
        seat_list.append(Seat(i, "bot", bot=name, name=f"Bot {i + 1} ({name})"))
    take = body.take_seat
    token = None
    if take is not None:
        take = claim_seat(seat_list, take)
        if take is None:
            raise ApiError(
                400, "bad_seat", f"seat {body.take_seat} is not a free seat for a person"
            )
        token = _seat_token(hub, getattr(body, "profile_secret", None))
        seat_list[take].token_hash = hash_token(token)
        seat_list[take].name = body.name
    code = hub.new_code()
    room = GoRoom(hub, code, players, body.best_of, body.public, seat_list, time.time())
    await store_new_room(hub, room)
    room.maybe_start()
    return {
        "code": code,
        "join_url": f"/?go={code}",
        "watch_url": f"/?gowatch={code}",
        "seat": take,
        "token": token,
        "room": room.info(),
    }


def claim_seat(seats: list[Seat], take: int) -> int | None:
    """The seat a room's creator takes: ``take`` when it is a seat for a person, or the first
    such seat when ``take`` is 0 (the default); ``None`` when there is no such seat."""
    if 0 <= take < len(seats) and seats[take].kind == "human":
        return take
    humans = [s.seat for s in seats if s.kind == "human"]
    return humans[0] if take == 0 and humans else None


async def store_new_room(hub: Hub, room: Room) -> None:
    """Register a new room in the hub and write it with its seats; undo the registration if
    the write fails."""
    hub.rooms[room.code] = room
    try:
        await hub.storage.run(
            st.job_insert_room(
                {
                    "code": room.code,
                    "created_at": room.created_at,
                    "players": room.players,
                    "best_of": room.best_of,
                    "ruleset": room.ruleset,
                    "sizes": None if room.sizes is None else json.dumps(list(room.sizes)),
                    "public": room.public,
                    "status": "waiting",
                    "series_number": 1,
                },
                [
                    {
                        "room_code": room.code,
                        "seat": s.seat,
                        "kind": s.kind,
                        "bot": s.bot,
                        "name": s.name,
                        "token_hash": s.token_hash,
                        "left": False,
                    }
                    for s in room.seats
                ],
            )
        )
    except Exception:
        hub.rooms.pop(room.code, None)
        raise

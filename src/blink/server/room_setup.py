"""Opening a room from its options (``POST /api/rooms``, ``POST /api/quick``), for any game.

The options are checked by the room's game (its player range, its table's room options and
bots), the series too; the creator takes a seat and gets its token (a profile's secret when
one is given), and the room is registered in the hub and stored before it is answered.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec
from pydantic import BaseModel, Field

from blink.match import Series, SeriesError
from blink.model.registry import (
    DEFAULT_GAME,
    NoTable,
    UnknownGame,
    all_games,
    games,
    get_game,
    get_table,
)
from blink.model.table import BadMessage
from blink.server import lag
from blink.server.bot_accounts.service import mark_seats
from blink.server.errors import ApiError, ProfileError
from blink.server.hub import CODE_ATTEMPTS, Hub
from blink.server.jobs import job_of
from blink.server.profiles import seat_token
from blink.server.protocol import RoomInfo
from blink.server.room import admission, practice
from blink.server.room.room import Room, Seat, hash_token

__all__ = [
    "FEWEST_PLAYERS",
    "MOST_PLAYERS",
    "CreateRoom",
    "check_admitted",
    "check_room",
    "claim_seat",
    "create_room",
    "open_paired_room",
    "open_reserved_room",
    "room_games",
    "store_new_room",
]


def room_games() -> tuple[str, ...]:
    """The games rooms are opened for: every registered game with a live table."""
    return tuple(g.name for g in all_games() if g.has_table)


FEWEST_PLAYERS: Final = min(g.info.min_players for g in games())
"""The fewest seats of a room of any game (each game's own range is checked on creation)."""
MOST_PLAYERS: Final = max(g.info.max_players for g in games())
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
    lag_allowance_ms: int = Field(0, ge=0, le=lag.MAX_CAP_MS)
    """The lag allowance's cap (0: off; see :mod:`blink.server.room.races`)."""
    practice: bool = False
    """A practice game against bots: never rated, with a pause
    (:mod:`blink.server.room.practice`)."""
    bot_accounts: bool = False
    """Bot accounts may take the room's free seats (a bot account's own room always admits
    them; :mod:`blink.server.room.admission`)."""


async def create_room(
    h: Hub, body: CreateRoom, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Create a room from its options (``POST /api/rooms``); ``extra``: room options of the
    server's own beside the table's (a daily room's day and deal seed). Raises
    :class:`ApiError` for options that do not fit its game."""
    players, options, seat_list = _room_parts(body, extra)
    take = body.take_seat
    token = None
    if take is not None:
        take = claim_seat(seat_list, take)
        if take is None:
            raise ApiError(
                400, "bad_seat", f"seat {body.take_seat} is not a free seat for a person"
            )
        token = _seat_token(h, body.profile_secret)
        seat_list[take].token_hash = hash_token(token)
        seat_list[take].name = body.name
        mark_seats(h, [seat_list[take]])
    host_bot = take is not None and seat_list[take].bot_account is not None
    options = {**options, **admission.room_options(body.bot_accounts, host_bot)}
    room, info = await _open(h, body, players, options, seat_list)
    return {
        "code": room.code,
        "join_url": info.join_url,
        "watch_url": info.watch_url,
        "seat": take,
        "token": token,
        "room": msgspec.to_builtins(info),
    }


async def open_paired_room(
    h: Hub, game: str, players: int, people: list[tuple[str, str | None]]
) -> tuple[str, list[str]]:
    """A private room of ``game`` for the people quick play paired (``people``: each one's
    name and profile secret, in seat order), every seat taken: its code and each seat's token.

    The room is checked, stored and started as :func:`create_room` does. Raises
    :class:`ApiError` as it does (and ``no_such_profile`` for an unknown secret).
    """
    body = CreateRoom(game=game, players=players, public=False, take_seat=None)
    players, options, seat_list = _room_parts(body)
    if len(people) != players:
        raise ApiError(400, "bad_options", f"{players} people are needed, not {len(people)}")
    tokens = []
    for seat, (name, secret) in zip(seat_list, people, strict=True):
        token = _seat_token(h, secret)
        seat.token_hash = hash_token(token)
        seat.name = name
        tokens.append(token)
    room, _info = await _open(h, body, players, options, seat_list)
    return room.code, tokens


def check_room(body: CreateRoom) -> None:
    """Check a room's options against its game before opening it (:class:`ApiError`)."""
    _room_parts(body)


async def open_reserved_room(
    h: Hub, body: CreateRoom, holders: list[tuple[str, str]], extra: Mapping[str, Any]
) -> Room:
    """A room of ``body``'s options (with ``extra`` ones) whose every seat is reserved:
    ``holders`` gives each seat's name and the hash of the token that takes it (a bot
    account's seat: its live token's). Checked, stored and started as :func:`create_room`
    does; raises :class:`ApiError` as it does."""
    players, options, seat_list = _room_parts(body, extra)
    if len(holders) != players:
        raise ApiError(400, "bad_options", f"{players} players are needed, not {len(holders)}")
    for seat, (name, token_hash) in zip(seat_list, holders, strict=True):
        seat.token_hash = token_hash
        seat.name = name
    room, _info = await _open(h, body, players, options, seat_list)
    return room


async def _open(
    h: Hub, body: CreateRoom, players: int, options: dict[str, Any], seat_list: list[Seat]
) -> tuple[Room, RoomInfo]:
    """Store a new room and start it (on a single node): the room and its info."""
    created = h.settings.wall_clock()
    mark_seats(h, seat_list)
    room = Room(h, "", body.game, players, body.best_of, options, body.public, seat_list, created)
    await store_new_room(h, room)
    info = room.info()
    if not h.hand_off(room):  # a cluster node: the node that serves it starts it
        room.maybe_start()
        info = room.info()
    return room, info


def _room_parts(
    body: CreateRoom, extra: Mapping[str, Any] | None = None
) -> tuple[int, dict[str, Any], list[Seat]]:
    """A new room's number of seats, options and seats (bots named, people free), checked
    by its game. Raises :class:`ApiError` for options that do not fit."""
    try:
        definition = get_game(body.game)
        table = get_table(body.game)
    except (UnknownGame, NoTable):
        raise ApiError(
            400, "bad_options", f"unknown game {body.game!r} ({', '.join(room_games())})"
        ) from None
    try:
        players = definition.info.check_players(body.players)
    except ValueError as exc:
        raise ApiError(400, "bad_options", str(exc)) from None
    seat_specs = body.seats if body.seats is not None else [None] * players
    if len(seat_specs) != players:
        raise ApiError(400, "bad_options", f"seats must list {players} seats")
    try:
        Series(body.best_of, players)
        options = table.room_options({"ruleset": body.ruleset, "handicap": body.handicap}, players)
        if body.lag_allowance_ms:
            options = {**options, lag.OPTION: body.lag_allowance_ms}
        if extra:
            options = {**options, **extra}
    except (SeriesError, ValueError) as exc:
        raise ApiError(400, "bad_options", str(exc)) from None
    seat_list: list[Seat] = []
    for i, spec in enumerate(seat_specs):
        if spec is None:
            seat_list.append(Seat(i, "human"))
            continue
        try:
            norm = table.check_bot(spec, players)
            title = table.bot_title(norm)
        except BadMessage as exc:
            status = 503 if exc.code == "bots_unavailable" else 400
            raise ApiError(status, exc.code, exc.message) from None
        seat_list.append(Seat(i, "bot", bot=norm, name=f"{title} {i + 1}"))
    if body.practice:
        refused = practice.check_practice(seat_list, bool(extra))
        if refused is not None:
            raise ApiError(400, *refused)
        options = {**options, practice.OPTION: True}
    return players, options, seat_list


def _seat_token(hub: Hub, secret: str | None) -> str:
    """A fresh seat token, or the profile secret when one is given (the seat then carries it).

    Raises :class:`ApiError` (``no_such_profile``) for an unknown secret.
    """
    try:
        return seat_token(hub, secret)
    except ProfileError as exc:
        raise ApiError(exc.status, exc.code, exc.message) from None


def check_admitted(h: Hub, room: Room, token: str) -> None:
    """Refuse a seat of ``room`` to ``token`` when it is a bot account's and the room does not
    admit bots (``403 bots_not_admitted``; :mod:`blink.server.room.admission`)."""
    if admission.admits_bots(room.options):
        return
    probe = Seat(0, "human")
    probe.token_hash = hash_token(token)
    mark_seats(h, [probe])
    if probe.bot_account is not None:
        raise ApiError(403, admission.CODE, admission.MESSAGE)


def claim_seat(seats: list[Seat], take: int) -> int | None:
    """The seat a room's creator takes: ``take`` when it is a seat for a person, or the first
    such seat when ``take`` is 0 (the default); ``None`` when there is no such seat."""
    if 0 <= take < len(seats) and seats[take].kind == "human":
        return take
    humans = [s.seat for s in seats if s.kind == "human"]
    return humans[0] if take == 0 and humans else None


async def store_new_room(hub: Hub, room: Room) -> None:
    """Give a new room a code and write it with its seats, then register it in the hub.

    The code is the database's to grant: the room's row is inserted with a drawn code and
    committed before anyone is told the code, and a code that any room already has (on this
    server or another sharing the database) is refused by the primary key and drawn again, up
    to :data:`~blink.server.hub.CODE_ATTEMPTS` times. Raises :class:`ApiError`
    (``503 no_free_code``) when every code drawn was taken.
    """
    for _ in range(CODE_ATTEMPTS):
        code = hub.new_code()
        if code is None:
            continue
        room.code = code
        if await hub.storage.run(job_of(room.new_room_write())):
            hub.code_claimed(room.code)
            hub.rooms[room.code] = room
            return
    raise ApiError(
        503, "no_free_code", f"no free room code was found in {CODE_ATTEMPTS} tries; try again"
    )

"""A room described: for the clients (its ``room`` frame, the REST listing) and for storage
(the rows of a new room). Functions of a :class:`blink.server.room.room.Room`, which calls them,
taken as what they read of it (:class:`DescribedRoom`)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Final, Protocol
from urllib.parse import quote

from blink.match import Series
from blink.server import room_writes as rw
from blink.server.protocol import GameMeta, RoomInfo, RoomSummary
from blink.server.room.admission import admits_bots, host_is_bot
from blink.server.room.clock import timings
from blink.server.room.seats import Peer
from blink.server.room.shape import RoomShape

__all__ = [
    "DEAL_SEED",
    "HIDDEN_OPTIONS",
    "UNCLAIMED_LISTED",
    "DescribedRoom",
    "fixed_deal_seed",
    "listed",
    "new_room_write",
    "room_info",
    "room_summary",
]

DEAL_SEED: Final = "deal_seed"
"""The room option of a fixed deal's seed: every game of the room is dealt from it."""

HIDDEN_OPTIONS: Final = frozenset({DEAL_SEED})
"""Room options that are stored but never shown (a fixed deal's seed tells the deal)."""


class DescribedRoom(RoomShape, Protocol):
    """What describing a room reads of it, besides its :class:`RoomShape`."""

    @property
    def best_of(self) -> int:
        """The length of its series."""
        ...

    @property
    def public(self) -> bool:
        """Whether the lobby may list it."""
        ...

    @property
    def created_at(self) -> float:
        """When it was opened (``settings.wall_clock``)."""
        ...

    @property
    def spectators(self) -> Collection[Peer]:
        """Its spectators' connections."""
        ...

    @property
    def series(self) -> Series:
        """Its series under way."""
        ...

    @property
    def series_number(self) -> int:
        """The number of its series under way (a rematch starts the next)."""
        ...

    @property
    def games(self) -> list[GameMeta]:
        """The games of its series under way."""
        ...


def _ruleset(options: dict[str, Any]) -> str | None:
    """The ``ruleset`` option's name, for games that have one (``RoomInfo.ruleset``, kept for
    the clients of the first, classic, rooms; ``options`` holds every game's options)."""
    value = options.get("ruleset")
    return None if value is None else str(value)


def _sizes(options: dict[str, Any]) -> list[int] | None:
    """The ``sizes`` option (classic's draw-pile handicap), as ``RoomInfo.sizes``."""
    value = options.get("sizes")
    return None if value is None else list(value)


def room_info(room: DescribedRoom) -> RoomInfo:
    """The room: its game, options, seats, status, series and games."""
    info = room.definition.info
    turn_time = timings(room.settings, info.timings).turn
    turn = None if info.real_time or turn_time is None else round(turn_time * 1000)
    return RoomInfo(
        code=room.code,
        game=room.game_name,
        players=room.players,
        best_of=room.best_of,
        options={k: v for k, v in room.options.items() if k not in HIDDEN_OPTIONS},
        ruleset=_ruleset(room.options),
        sizes=_sizes(room.options),
        status=room.status,
        seats=[s.info() for s in room.seats],
        spectators=len(room.spectators),
        series=room.series.to_dict(),
        series_number=room.series_number,
        games=room.games,
        join_url=f"/play/{room.code}",
        watch_url=f"/watch/{room.code}",
        public=room.public,
        turn_ms=turn,
        tournament_url=_tournament_url(room.options.get("tournament")),
        paused=room.game is not None and room.game.table.paused,
        bot_accounts=admits_bots(room.options),
        host_bot=host_is_bot(room.options),
    )


def _tournament_url(tid: object) -> str | None:
    """The tournament page of a match room (its options name the tournament)."""
    return f"/tournament.html?id={quote(tid, safe='')}" if isinstance(tid, str) and tid else None


UNCLAIMED_LISTED: Final = 120.0
"""Seconds a new public room that none of its players has come to yet stays listed."""


def listed(room: DescribedRoom) -> bool:
    """Whether the lobby lists ``room`` among the live games (``GET /api/rooms`` and its event
    stream): a public room that is not over, with one of its players connected, or a game of
    bots only, or a new room for :data:`UNCLAIMED_LISTED` seconds while its players come.

    A room whose players all left is not listed (there is nobody to join or watch playing:
    its game waits for them), and is listed again when one of them comes back.
    """
    if not room.public or room.status in ("finished", "closed"):
        return False
    humans = [s for s in room.seats if s.kind == "human"]
    if not humans or any(s.conns for s in humans):
        return True
    fresh = room.settings.wall_clock() - room.created_at < UNCLAIMED_LISTED
    return fresh and not any(s.connected_once for s in humans)


def room_summary(room: DescribedRoom) -> RoomSummary:
    """The room as ``GET /api/rooms`` lists it."""
    return RoomSummary(
        code=room.code,
        game=room.game_name,
        players=room.players,
        best_of=room.best_of,
        ruleset=_ruleset(room.options),
        status=room.status,
        open_seats=[s.seat for s in room.seats if not s.taken],
        seats=[s.info() for s in room.seats],
        spectators=len(room.spectators),
        bot_accounts=admits_bots(room.options),
        host_bot=host_is_bot(room.options),
    )


def new_room_write(room: DescribedRoom) -> rw.NewRoom:
    """The record that keeps a new room and its seats."""
    seats = tuple(rw.NewSeat(s.seat, s.kind, s.bot, s.name, s.token_hash) for s in room.seats)
    return rw.NewRoom(
        code=room.code,
        created_at=room.created_at,
        game=room.game_name,
        players=room.players,
        best_of=room.best_of,
        public=room.public,
        options=room.options,
        seats=seats,
    )


def fixed_deal_seed(options: dict[str, Any]) -> int | None:
    """A room's own deal seed (option ``deal_seed``: every game of the room is that deal), or
    ``None``."""
    fixed = options.get(DEAL_SEED)
    return fixed if isinstance(fixed, int) and not isinstance(fixed, bool) else None

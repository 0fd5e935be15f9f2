"""The room endpoints: ``/api/rooms`` (create, list, look up, join, the lobby's event stream),
``/api/quick`` and quick play's queue (the ``/api/queue`` WebSocket).

Opening a room (checking its options, seating its creator, storing it) is
:mod:`blink.server.room_setup`; the live game in a room is played over the WebSocket.
"""

from __future__ import annotations

from typing import Any

import msgspec
from fastapi import APIRouter, Depends, Request, Response, WebSocket
from pydantic import BaseModel, Field

from blink.model.registry import DEFAULT_GAME, NoTable, UnknownGame, get_game, get_table
from blink.server import bus, room_setup
from blink.server import jobs as st
from blink.server.bot_accounts.service import mark_seats
from blink.server.errors import ApiError
from blink.server.feeds import Feeds
from blink.server.hub import Hub
from blink.server.profiles import seat_token
from blink.server.quickplay import QuickPlay, serve_queue
from blink.server.room.room import Room, hash_token
from blink.server.room_setup import CreateRoom
from blink.server.routes.bots import BotDep
from blink.server.routes.deps import (
    HubDep,
    WritableHubDep,
    check_lookup,
    check_room_creation,
    count_miss,
)
from blink.server.sse import event_stream, frame

__all__ = ["JoinRoom", "QuickGame", "router"]

router = APIRouter()


class QuickGame(BaseModel):
    """Options of a quick game against a bot (``players``: the default game's default)."""

    bot: str | None = Field(None, max_length=64)
    name: str = Field("Player", min_length=1, max_length=24)
    game: str = Field(DEFAULT_GAME, max_length=16)
    players: int = Field(
        get_game(DEFAULT_GAME).info.default_players,
        ge=room_setup.FEWEST_PLAYERS,
        le=room_setup.MOST_PLAYERS,
    )
    best_of: int = Field(1, ge=1, le=15)
    ruleset: str = Field("official", max_length=32)
    handicap: str = Field("", max_length=32)
    profile_secret: str | None = Field(None, max_length=128)
    practice: bool = False
    """A practice game: never rated, with a pause (:mod:`blink.server.room.practice`)."""


class JoinRoom(BaseModel):
    """Taking a seat."""

    name: str = Field("Player", min_length=1, max_length=24)
    seat: int | None = None
    profile_secret: str | None = Field(None, max_length=128)


@router.post("/api/rooms", status_code=201, dependencies=[Depends(check_room_creation)])
async def create_room(h: WritableHubDep, body: CreateRoom, bot: BotDep) -> dict[str, Any]:
    """Create a room; the creator takes a seat and gets its secret token (a bot account's,
    with ``Authorization: Bearer``: its token)."""
    if bot is not None:
        body = body.model_copy(update={"profile_secret": bot.token, "name": bot.name})
    return await room_setup.create_room(h, body)


@router.post("/api/quick", status_code=201, dependencies=[Depends(check_room_creation)])
async def quick_game(h: WritableHubDep, body: QuickGame, account: BotDep) -> dict[str, Any]:
    """A private room against bots, ready to play (two seats unless ``players`` says); a
    bot account (``Authorization: Bearer``) plays house bots this way."""
    if account is not None:
        body = body.model_copy(update={"profile_secret": account.token, "name": account.name})
    try:
        table = get_table(body.game)
    except (UnknownGame, NoTable):
        raise ApiError(400, "bad_options", f"unknown game {body.game!r}") from None
    bot = body.bot or table.default_bot
    if bot is None:
        raise ApiError(503, "bots_unavailable", "bots are not available on this server")
    players = body.players
    return await room_setup.create_room(
        h,
        CreateRoom(
            game=body.game,
            players=players,
            seats=[None] + [bot] * (players - 1),
            best_of=body.best_of,
            handicap=body.handicap,
            ruleset=body.ruleset,
            name=body.name,
            take_seat=0,
            public=False,
            profile_secret=body.profile_secret,
            practice=body.practice,
        ),
    )


@router.get("/api/rooms")
async def list_rooms(h: HubDep) -> dict[str, Any]:
    """Rooms you can join or watch, newest first: every node's (those the others announced
    on the bus), as the lobby's stream lists them."""
    feeds: Feeds = h.feeds  # type: ignore[attr-defined]
    return {"rooms": feeds.listing()}


class _LobbySource:
    """The lobby's stream: every node's open public rooms (``rooms``) and the players online
    and waiting in quick play's queue (``counts``), then each room's change (``room``: its
    summary, ``null`` once it is not open), the counts when they change, and ``games`` when a
    public game finished (fetch ``GET /api/games?status=finished`` again)."""

    def __init__(self, feeds: Feeds, quickplay: QuickPlay) -> None:
        self.feeds = feeds
        self.quickplay = quickplay
        self._counts: tuple[int, int] | None = None

    def _all(self) -> bytes:
        return frame("rooms", {"rooms": self.feeds.listing()})

    def _counts_frame(self) -> list[bytes]:
        """The counts of every node, when they differ from those this stream was sent."""
        counts = self.quickplay.totals()
        if counts == self._counts:
            return []
        self._counts = counts
        return [frame("counts", {"online": counts[0], "waiting": counts[1]})]

    async def start(self) -> list[bytes]:
        return [self._all(), *self._counts_frame()]

    async def changed(self, events: list[bus.Event]) -> list[bytes]:
        if any(isinstance(e, bus.Resync | bus.RoomsAnnounced) for e in events):
            self._counts = None
            return [self._all(), frame("games", {}), *self._counts_frame()]
        out = [
            frame("room", self.feeds.room_json(e)) for e in events if isinstance(e, bus.RoomChanged)
        ]
        if any(isinstance(e, bus.Presence) for e in events):
            out += self._counts_frame()
        if any(isinstance(e, bus.GamesFinished) for e in events):
            out.append(frame("games", {}))
        return out


# Before "/api/rooms/{code}", which would take "events" for a code.
@router.get("/api/rooms/events")
async def room_events(h: HubDep, request: Request) -> Response:
    """The lobby's event stream (Server-Sent Events): the open public rooms of every node
    and their changes, and a hint when a public game finished."""
    feeds: Feeds = h.feeds  # type: ignore[attr-defined]
    quickplay: QuickPlay = h.quickplay  # type: ignore[attr-defined]
    return event_stream(request, h.bus.subscribe(bus.ROOMS), _LobbySource(feeds, quickplay))


@router.websocket("/api/queue")
async def queue(ws: WebSocket) -> None:
    """Quick play's queue: wait to be paired with people (see docs/protocol.md)."""
    await serve_queue(ws)


async def _room(h: Hub, code: str, request: Request) -> Room:
    room = h.room(code.upper())
    if room is None:
        await count_miss(request)
        raise ApiError(404, "no_such_room", f"there is no room {code!r}")
    return room


@router.get("/api/rooms/{code}", dependencies=[Depends(check_lookup)])
async def room_info(h: HubDep, code: str, request: Request) -> dict[str, Any]:
    """A room's seats, status, series and games."""
    info: dict[str, Any] = msgspec.to_builtins((await _room(h, code, request)).info())
    return info


@router.post("/api/rooms/{code}/join", dependencies=[Depends(check_lookup)])
async def join_room(
    h: WritableHubDep, code: str, body: JoinRoom, request: Request, bot: BotDep
) -> dict[str, Any]:
    """Take a free seat; returns its secret token (a bot account's own token, with
    ``Authorization: Bearer``). A bot account is refused (``403 bots_not_admitted``) by a
    room whose host did not allow bots."""
    if bot is not None:
        body = body.model_copy(update={"profile_secret": bot.token, "name": bot.name})
    room = await _room(h, code, request)
    if room.status in ("finished", "closed"):
        raise ApiError(409, "room_closed", "this room's series is over")
    if body.seat is not None:
        if not 0 <= body.seat < room.players or room.seats[body.seat].kind != "human":
            raise ApiError(400, "bad_seat", f"seat {body.seat} is not a seat for a person")
        seat = room.seats[body.seat]
        if seat.taken:
            raise ApiError(409, "seat_taken", f"seat {body.seat} is taken")
    else:
        free = [s for s in room.seats if not s.taken]
        if not free:
            raise ApiError(409, "room_full", "every seat of this room is taken")
        seat = free[0]
    token = seat_token(h, body.profile_secret, room)
    room_setup.check_admitted(h, room, token)
    seat.token_hash = hash_token(token)
    seat.name = body.name
    seat.left = False
    mark_seats(h, [seat])
    await h.storage.run(
        st.job_update_seat(
            room.code, seat.seat, token_hash=seat.token_hash, name=body.name, left=False
        )
    )
    room.broadcast_room()
    info = msgspec.to_builtins(room.info())
    return {"code": room.code, "seat": seat.seat, "token": token, "room": info}

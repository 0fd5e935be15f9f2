"""The ASGI application: REST endpoints, the WebSocket endpoint and the static browser client.

``create_app(settings)`` builds a FastAPI app; the database is opened (and migrated) and
unfinished games are rebuilt when the app starts (its lifespan). See docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from blink import __version__ as _pkg_version
from blink.cards import STANDARD_DECK, parse_card
from blink.games.classic.record import GameRecord, SeriesRecord, action_from_dict
from blink.games.classic.rules import RULESETS, Ruleset
from blink.server import errors, go_rooms, room_setup, session
from blink.server import storage as st
from blink.server.bots import bot_options, bots_available
from blink.server.errors import ApiError
from blink.server.hub import Hub
from blink.server.profiles import seat_token
from blink.server.protocol import PROTOCOL
from blink.server.replays import install as install_replays
from blink.server.room_setup import CreateRoom
from blink.server.rooms import Room, hash_token
from blink.server.settings import Settings
from blink.server.tournaments import attach as attach_extras
from blink.server.tournaments import install as install_extras

__all__ = ["create_app"]

log = logging.getLogger("blink.server")
VERSION = str(_pkg_version) if _pkg_version else "0.1.0"


class QuickGame(BaseModel):
    """Options of a quick game against a bot."""

    bot: str | None = Field(None, max_length=64)
    name: str = Field("Player", min_length=1, max_length=24)
    game: str = Field("classic", max_length=16)
    players: int = Field(2, ge=2, le=6)
    best_of: int = Field(1, ge=1, le=15)
    ruleset: str = Field("official", max_length=32)
    handicap: str = Field("", max_length=32)
    profile_secret: str | None = Field(None, max_length=128)


class JoinRoom(BaseModel):
    """Taking a seat."""

    name: str = Field("Player", min_length=1, max_length=24)
    seat: int | None = None
    profile_secret: str | None = Field(None, max_length=128)


class BlinkApp(FastAPI):
    """The FastAPI app, with the game's WebSocket (``/ws``) taken before FastAPI's stack.

    The live game is the hot path: its connections skip the router and middleware (which
    add nothing to a WebSocket) and keep uvicorn's own ``send``, which the direct sending
    path needs (:mod:`blink.server.direct`).
    """

    ws_handler: Callable[[WebSocket, Send], Awaitable[None]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        handler = self.ws_handler
        if handler is not None and scope["type"] == "websocket" and scope["path"] == "/ws":
            await handler(WebSocket(scope, receive, send), send)
            return
        await super().__call__(scope, receive, send)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The server application for ``settings``."""
    settings = settings or Settings()
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        storage = await asyncio.to_thread(
            st.Storage, settings.database_url, settings.commit_batch, settings.db_writer
        )
        storage.start(asyncio.get_running_loop())
        hub = Hub(settings, storage, VERSION)
        hub.restore()
        state["hub"] = hub
        await attach_extras(hub)
        tuning = _GcTuning(settings.gc_full_interval)
        tuning.start()
        hub.start_sweeper()
        try:
            yield
        finally:
            tuning.stop()
            hub.stop_sweeper()
            for room in hub.rooms.values():
                room._cancel_timer()
                if room.game is not None:
                    if room.game.timer is not None:
                        room.game.timer.cancel()
                    room._stop_bots(room.game)
            await asyncio.to_thread(storage.stop)

    app = BlinkApp(
        title="Blink server",
        version=VERSION,
        description="Rooms, seats and records of the Blink game server. The live game is "
        "played over the WebSocket at /ws: see docs/protocol.md.",
        lifespan=lifespan,
    )

    def hub() -> Hub:
        h: Hub = state["hub"]
        return h

    errors.install(app)

    # -- REST ----------------------------------------------------------------------------

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        """Server health."""
        h = hub()
        return {
            "status": "ok",
            "protocol": PROTOCOL,
            "version": VERSION,
            "database": h.storage.kind,
            "rooms": len(h.rooms),
            "games": h.live_games,
            "connections": h.connections,
        }

    @app.get("/api/options")
    async def options() -> dict[str, Any]:
        """What rooms can be made of."""
        levels, strategies = bot_options()
        return {
            "protocol": PROTOCOL,
            "players": [2, 3],
            "rulesets": list(RULESETS),
            "bot_levels": levels,
            "bot_strategies": strategies,
            "bots_available": bots_available(),
            "best_of": [1, 3, 5, 7, 9],
            "games": ["classic", go_rooms.GAME_KIND],
            "goblink_players": [2, 3, 4, 5, 6],
            "goblink_bots": go_rooms.gobot_names(),
        }

    @app.get("/api/cards")
    async def cards() -> dict[str, Any]:
        """Every card of the standard deck, with names and display colours."""
        return {"cards": [c.to_dict() for c in STANDARD_DECK]}

    @app.post("/api/rooms", status_code=201)
    async def create_room(body: CreateRoom) -> dict[str, Any]:
        """Create a room; the creator takes a seat and gets its secret token."""
        return await room_setup.create_room(hub(), body)

    @app.post("/api/quick", status_code=201)
    async def quick_game(body: QuickGame) -> dict[str, Any]:
        """A private two-seat room against a bot, ready to play."""
        if body.game == go_rooms.GAME_KIND:
            gobot = body.bot or "greedy"
            return await room_setup.create_go_room(
                hub(),
                CreateRoom(
                    game=body.game,
                    players=body.players,
                    seats=[None] + [gobot] * (body.players - 1),
                    best_of=body.best_of,
                    name=body.name,
                    take_seat=0,
                    public=False,
                    profile_secret=body.profile_secret,
                ),
            )
        spec = body.bot
        if spec is None:
            levels, _ = bot_options()
            if not levels:
                raise ApiError(503, "bots_unavailable", "bots are not available on this server")
            spec = levels[0]
        return await room_setup.create_room(
            hub(),
            CreateRoom(
                players=2,
                seats=[None, spec],
                best_of=body.best_of,
                handicap=body.handicap,
                ruleset=body.ruleset,
                name=body.name,
                take_seat=0,
                public=False,
                profile_secret=body.profile_secret,
            ),
        )

    @app.get("/api/rooms")
    async def list_rooms() -> dict[str, Any]:
        """Rooms you can join or watch, newest first."""
        rooms = [
            r for r in hub().rooms.values() if r.public and r.status not in ("finished", "closed")
        ]
        rooms.sort(key=lambda r: r.created_at, reverse=True)
        return {"rooms": [r.summary() for r in rooms[:200]]}

    def _room(code: str) -> Room:
        room = hub().room(code.upper())
        if room is None:
            raise ApiError(404, "no_such_room", f"there is no room {code!r}")
        return room

    @app.get("/api/rooms/{code}")
    async def room_info(code: str) -> dict[str, Any]:
        """A room's seats, status, series and games."""
        return _room(code).info()

    @app.post("/api/rooms/{code}/join")
    async def join_room(code: str, body: JoinRoom) -> dict[str, Any]:
        """Take a free seat; returns its secret token."""
        room = _room(code)
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
        token = seat_token(hub(), body.profile_secret, room)
        seat.token_hash = hash_token(token)
        seat.name = body.name
        seat.left = False
        await hub().storage.run(
            st.job_update_seat(
                room.code, seat.seat, token_hash=seat.token_hash, name=body.name, left=False
            )
        )
        room.broadcast_room()
        return {"code": room.code, "seat": seat.seat, "token": token, "room": room.info()}

    @app.get("/api/games")
    async def list_games(
        status: str = "finished", limit: int = 50, room: str | None = None
    ) -> dict[str, Any]:
        """Finished games, newest first: those of public rooms, or every game of ``room``."""
        if status != "finished":
            raise ApiError(400, "bad_options", "only status=finished can be listed")
        if not 1 <= limit <= 200:
            raise ApiError(400, "bad_options", "limit must be between 1 and 200")
        code = room.upper() if room is not None else None
        listed = await asyncio.to_thread(hub().storage.finished_games, limit, code)
        return {"games": listed}

    @app.get("/api/games/{game_id}/record")
    async def game_record(game_id: int) -> dict[str, Any]:
        """A finished game's record (the engine's JSON record format)."""
        lg = await asyncio.to_thread(hub().storage.load_game, game_id)
        if lg is None:
            raise ApiError(404, "no_such_game", f"there is no game {game_id}")
        if lg.ended_at is None:
            raise ApiError(409, "game_not_finished", "the game is not finished yet")
        if go_rooms.is_go_game(lg):
            return go_rooms.go_record(lg).to_dict()
        return _record(lg).to_dict()

    @app.get("/api/rooms/{code}/record")
    async def series_record(code: str, series: int | None = None) -> dict[str, Any]:
        """A series' record with its finished games."""
        h = hub()
        room = h.room(code.upper())
        exists = room is not None or await asyncio.to_thread(h.storage.room_exists, code.upper())
        if not exists:
            raise ApiError(404, "no_such_room", f"there is no room {code!r}")
        number = series if series is not None else (room.series_number if room else 1)
        best_of = room.best_of if room else 1
        loaded = await asyncio.to_thread(h.storage.series_games, code.upper(), number)
        if any(go_rooms.is_go_game(g) for g in loaded):
            return {
                "game": go_rooms.GAME_KIND,
                "best_of": best_of,
                "games": [go_rooms.go_record(g).to_dict() for g in loaded],
                "meta": {"room": code.upper(), "series": number},
            }
        rec = SeriesRecord(
            best_of,
            [_record(g) for g in loaded],
            {"room": code.upper(), "series": number},
        )
        return rec.to_dict()

    install_extras(app, hub)
    install_replays(app, game_record)

    # -- the browser client --------------------------------------------------------------

    web = settings.web_dir

    def _index() -> Any:
        if web is not None and (web / "index.html").is_file():
            return FileResponse(web / "index.html")
        return HTMLResponse(
            "<!doctype html><title>Blink</title><h1>Blink server</h1>"
            "<p>The browser client is not installed. The API is documented at "
            '<a href="/docs">/docs</a>.</p>'
        )

    @app.get("/play/{code}", include_in_schema=False)
    async def play_link(code: str) -> Any:
        if isinstance(hub().room(code.upper()), go_rooms.GoRoom):
            return RedirectResponse(f"/?go={code.upper()}")
        return _index()

    @app.get("/watch/{code}", include_in_schema=False)
    async def watch_link(code: str) -> Any:
        if isinstance(hub().room(code.upper()), go_rooms.GoRoom):
            return RedirectResponse(f"/?gowatch={code.upper()}")
        return _index()

    # -- WebSocket -------------------------------------------------------------------------

    async def ws_endpoint(ws: WebSocket, send: Send) -> None:
        if not session.origin_ok(ws, settings):
            await ws.close(code=1008)
            return
        await ws.accept()
        await session.serve(ws, hub(), settings, send)

    app.ws_handler = ws_endpoint

    if web is not None and web.is_dir():
        app.mount("/", StaticFiles(directory=web, html=True), name="web")
    else:

        @app.get("/", include_in_schema=False)
        async def root() -> Any:
            return _index()

    return app


class _GcTuning:
    """Keep Python's garbage collections short and off the hot path.

    Two kinds of pause made the whole p99 tail of the load benchmark:

    - A full (generation 2) collection walks every live object: with 1,000 live games (about
      300,000 objects) that is a pause of about a quarter of a second, with tens of games a
      few milliseconds. When started with an interval, what exists after start-up is frozen
      (never walked again) and the full collection runs every ``interval`` seconds from a loop
      timer instead of after every ten young collections (``blink serve``: every 10 minutes;
      only reference cycles wait for it, mostly those of closed connections).
    - Young collections are triggered by allocations minus deallocations, so while the
      server frees old objects as fast as it makes new ones (finished plays leaving the resume
      buffers, say) no collection comes for a long time and the young generation grows to tens
      of thousands of live objects: one collection then took 50 ms. A loop timer also collects
      the two young generations every ``YOUNG_TICK`` seconds, so each collection has little to
      walk (a median of 0.2 ms and at most about 2.5 ms with 1,000 live games, where
      collecting the middle generation only every eighth tick made pauses of 4-5 ms five
      times a second, enough to lift the benchmark's p99 from 7-9 ms to 15 ms). The
      automatic collections stay on as a backstop.

    Without an interval Python's collector is left as it is.
    """

    YOUNG_TICK = 0.025

    def __init__(self, interval: float | None) -> None:
        self.interval = interval
        self.saved = gc.get_threshold()
        self.timer: asyncio.TimerHandle | None = None
        self.young: asyncio.TimerHandle | None = None

    def start(self) -> None:
        if self.interval is None:
            return
        gc.collect()
        gc.freeze()
        gc.set_threshold(self.saved[0], self.saved[1], 1_000_000_000)
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(self.interval, self._full)
        self.young = loop.call_later(self.YOUNG_TICK, self._young)

    def _full(self) -> None:
        gc.collect()
        if self.interval is not None:
            self.timer = asyncio.get_running_loop().call_later(self.interval, self._full)

    def _young(self) -> None:
        gc.collect(1)
        self.young = asyncio.get_running_loop().call_later(self.YOUNG_TICK, self._young)

    def stop(self) -> None:
        if self.timer is None:
            return
        self.timer.cancel()
        self.timer = None
        if self.young is not None:
            self.young.cancel()
            self.young = None
        gc.set_threshold(*self.saved)
        gc.unfreeze()


def _record(lg: st.LoadedGame) -> GameRecord:
    return GameRecord(
        deck=[parse_card(c) for c in lg.deck],
        players=lg.players,
        ruleset=Ruleset.from_dict(lg.ruleset),
        sizes=tuple(lg.sizes) if lg.sizes else None,
        actions=[action_from_dict(a, i) for i, (_s, a, _seat, _cid) in enumerate(lg.actions)],
        names=list(lg.names),
        meta={
            "game": lg.id,
            "number": lg.number,
            "series": lg.series_number,
            "started": lg.started_at,
            "ended": lg.ended_at,
        },
        result=lg.result,
    )

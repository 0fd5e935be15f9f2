"""The ASGI application: REST endpoints, the WebSocket endpoint and the static browser client.

``create_app(settings)`` builds a FastAPI app; the database is opened (and migrated) and
unfinished games are rebuilt when the app starts (its lifespan). See docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketState

from blink import __version__ as _pkg_version
from blink.cards import STANDARD_DECK
from blink.games.classic.engine import Choose, IllegalAction, Play
from blink.games.classic.record import GameRecord, SeriesRecord, action_from_dict
from blink.games.classic.rules import RULESETS, DealError, Ruleset, get_ruleset, parse_handicap
from blink.match import Series, SeriesError
from blink.server import go_rooms
from blink.server import storage as st
from blink.server.bots import BotError, bot_options, bots_available, check_spec
from blink.server.direct import DirectSocket, Inbox
from blink.server.profiles import seat_token
from blink.server.protocol import (
    PROTOCOL,
    ChooseMsg,
    Hello,
    Leave,
    Ping,
    PlayMsg,
    ProtocolError,
    Rematch,
    Resync,
    decode,
    dumps,
)
from blink.server.replays import install as install_replays
from blink.server.rooms import (
    Conn,
    Hub,
    NoGame,
    Room,
    Seat,
    claim_seat,
    hash_token,
    store_new_room,
)
from blink.server.settings import Settings
from blink.server.tournaments import attach as attach_extras
from blink.server.tournaments import install as install_extras

__all__ = ["ApiError", "create_app"]

log = logging.getLogger("blink.server")
VERSION = str(_pkg_version) if _pkg_version else "0.1.0"


class ApiError(Exception):
    """A REST error: HTTP status, stable code and a sentence."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class CreateRoom(BaseModel):
    """Options of a new room."""

    players: int = Field(2, ge=2, le=6)
    game: str = Field("classic", max_length=16)
    seats: list[str | None] | None = None
    best_of: int = Field(1, ge=1, le=15)
    handicap: str = Field("", max_length=32)
    ruleset: str = Field("official", max_length=32)
    name: str = Field("Player", min_length=1, max_length=24)
    take_seat: int | None = 0
    public: bool = True
    profile_secret: str | None = Field(None, max_length=128)


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


def _origin_ok(ws: WebSocket, settings: Settings) -> bool:
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    if origin in settings.allowed_origins or "*" in settings.allowed_origins:
        return True
    host = ws.headers.get("host", "")
    return urlsplit(origin).netloc.lower() == host.lower()


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

    @app.exception_handler(ApiError)
    async def _api_error(_req: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(
            {"error": {"code": exc.code, "message": exc.message}}, status_code=exc.status
        )

    @app.exception_handler(RequestValidationError)
    async def _validation(_req: Request, exc: RequestValidationError) -> JSONResponse:
        errs = exc.errors()
        if errs:
            e = errs[0]
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            msg = f"{where}: {e.get('msg')}" if where else str(e.get("msg"))
        else:
            msg = "invalid request"
        return JSONResponse({"error": {"code": "bad_options", "message": msg}}, status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_req: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse(
            {"error": {"code": code, "message": str(exc.detail)}}, status_code=exc.status_code
        )

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

    async def _create(body: CreateRoom) -> dict[str, Any]:
        h = hub()
        if body.game == go_rooms.GAME_KIND:
            return await go_rooms.create_go_room(h, body)
        if body.game != "classic":
            raise ApiError(400, "bad_options", f"unknown game {body.game!r} (classic, goblink)")
        players = body.players
        if players > 3:
            raise ApiError(400, "bad_options", "classic Blink is for 2 or 3 players")
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

    @app.post("/api/rooms", status_code=201)
    async def create_room(body: CreateRoom) -> dict[str, Any]:
        """Create a room; the creator takes a seat and gets its secret token."""
        return await _create(body)

    @app.post("/api/quick", status_code=201)
    async def quick_game(body: QuickGame) -> dict[str, Any]:
        """A private two-seat room against a bot, ready to play."""
        if body.game == go_rooms.GAME_KIND:
            gobot = body.bot or "greedy"
            return await go_rooms.create_go_room(
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
        return await _create(
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
            )
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
        if not _origin_ok(ws, settings):
            await ws.close(code=1008)
            return
        await ws.accept()
        await _serve_ws(ws, hub(), settings, send)

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
    from blink.cards import parse_card

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


class _Session:
    """The per-connection state of the WebSocket loop."""

    def __init__(self, ws: WebSocket, hub: Hub, settings: Settings, send: Send) -> None:
        self.ws = ws
        self.hub = hub
        self.settings = settings
        self.conn = Conn(settings.send_queue_limit)
        self.conn.on_overflow = self._overflow
        self.direct = DirectSocket.find(send)
        self.closer: asyncio.Task[None] | None = None
        if self.direct is not None:
            self.conn.writer = self._write_direct
        self.tokens = settings.rate_burst
        self.last = settings.clock()
        self.errors = 0
        self.hello = False
        self.closing = False

    def _overflow(self) -> None:
        self.closing = True
        asyncio.get_running_loop().create_task(self._close_now(1008, "send queue overflow"))

    async def _close_now(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            if self.ws.client_state is WebSocketState.CONNECTED:
                await self.ws.close(code, reason)

    def _write_direct(self) -> None:
        """Write every frame queued this turn in one go (the direct path); a close item
        queued after them closes through ASGI once they are written."""
        assert self.direct is not None
        q = self.conn.queue
        frames: list[str] = []
        close: tuple[int, str] | None = None
        while q:
            item = q.popleft()
            if isinstance(item, tuple):
                close = item
                q.clear()
                break
            frames.append(item)
        if (
            frames
            and self.direct.is_open()
            and self.direct.write(frames) > self.settings.send_buffer_limit
        ):
            self.conn.closed = True
            self._overflow()
            return
        if close is not None and close[0] and self.closer is None:
            self.closer = asyncio.get_running_loop().create_task(self._close_now(*close))

    async def sender(self) -> None:
        conn = self.conn
        q = conn.queue
        ws = self.ws
        try:
            while True:
                item = q.popleft() if q else await conn.next()
                if isinstance(item, tuple):
                    code, reason = item
                    if code:
                        await ws.close(code, reason)
                    return
                await ws.send_text(item)
        except Exception:
            return

    def error(self, code: str, message: str, msg_id: str | None = None) -> None:
        self.errors += 1
        self.conn.send(dumps({"type": "error", "code": code, "message": message, "id": msg_id}))
        if self.errors > self.settings.max_errors:
            self.close(1008, "too many bad messages")

    def refuse(self, msg_id: str, code: str, message: str) -> str:
        frame = dumps({"type": "refused", "id": msg_id, "code": code, "message": message})
        room = self.conn.room
        if room is not None:
            room.send_in_order(self.conn, frame)
        else:
            self.conn.send(frame)
        return frame

    def close(self, code: int, reason: str) -> None:
        self.closing = True
        self.conn.close(code, reason)

    def rate_ok(self) -> bool:
        now = self.settings.clock()
        self.tokens = min(
            self.settings.rate_burst,
            self.tokens + (now - self.last) * self.settings.rate_per_second,
        )
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def receive(self, data: str | bytes) -> None:
        """One message from the client: size and rate checks, then :meth:`handle`."""
        if self.closing:
            return
        limit = self.settings.max_message_bytes
        size = len(data)
        if size > limit // 4 and isinstance(data, str):
            size = len(data.encode())
        if size > limit:
            self.error("too_large", f"messages are limited to {limit} bytes")
            self.close(1009, "message too big")
            return
        if not self.rate_ok():
            self.error("rate_limited", "too many messages")
            self.close(1008, "rate limit")
            return
        self.handle(data)

    def handle(self, text: str | bytes) -> None:
        room = self.conn.room
        if self.hello and room is not None and go_rooms.handle_go_message(self, room, text):
            return
        try:
            msg = decode(text)
        except ProtocolError as exc:
            self.error(exc.code, exc.message, exc.msg_id)
            return
        if isinstance(msg, Ping):
            self.conn.send(
                dumps(
                    {"type": "pong", "t": msg.t, "server_ms": round(self.settings.clock() * 1000)}
                )
            )
            return
        if isinstance(msg, Hello):
            self.on_hello(msg)
            return
        room = self.conn.room
        if not self.hello or room is None:
            self.error("hello_required", "send hello first")
            return
        if isinstance(msg, PlayMsg | ChooseMsg):
            self.on_action(room, msg)
        elif isinstance(msg, Resync):
            room._send_snapshot(self.conn)
            if room.game is None:
                self.conn.send(dumps({"type": "room", "room": room.info()}))
        elif isinstance(msg, Rematch):
            if self.conn.seat is None:
                self.error("not_a_player", "spectators cannot ask for a rematch", msg.id)
            elif not room.rematch_available():
                self.error(
                    "rematch_unavailable",
                    "a rematch is possible once the series is over and while every player stays",
                    msg.id,
                )
            else:
                room.vote_rematch(self.conn.seat)
        elif isinstance(msg, Leave):
            seat = self.conn.seat
            room.detach(self.conn)
            if seat is not None:
                room.leave(seat)
            self.conn.send(dumps({"type": "left"}))
            self.close(1000, "left")

    def on_hello(self, msg: Hello) -> None:
        if self.hello:
            self.error("already_hello", "this connection has already said hello")
            return
        if msg.protocol != PROTOCOL:
            self.error(
                "unsupported_protocol",
                f"this server speaks protocol {PROTOCOL}, not {msg.protocol}",
            )
            self.close(4000, "unsupported protocol")
            return
        room = self.hub.room(msg.room)
        if room is None:
            self.error("no_such_room", f"there is no room {msg.room!r}")
            self.close(4004, "no such room")
            return
        seat = None
        if msg.token is not None:
            seat = room.seat_for_token(msg.token)
            if seat is None:
                self.error("bad_token", "that token does not hold a seat in this room")
                self.close(4003, "bad token")
                return
        elif not msg.spectate:
            self.error("bad_field", "give a seat 'token', or 'spectate': true to watch")
            return
        self.hello = True
        room.attach(self.conn, seat, msg.game, msg.last_seq)

    def on_action(self, room: Room, msg: PlayMsg | ChooseMsg) -> None:
        seat_no = self.conn.seat
        if seat_no is None:
            self.refuse(msg.id, "not_a_player", "spectators cannot play")
            self.errors += 1
            return
        seat = room.seats[seat_no]
        answer = seat.answers.get(msg.id)
        if answer is not None:
            self.conn.send(answer)
            return
        if msg.id in seat.pending_ids:
            return
        action: Play | Choose = (
            Play(seat_no, msg.card, msg.pile)
            if isinstance(msg, PlayMsg)
            else Choose(seat_no, msg.card)
        )
        try:
            room.apply(action, seat_no, msg.id)
        except IllegalAction as exc:
            seat.remember(msg.id, self.refuse(msg.id, exc.code, exc.message))
        except NoGame:
            seat.remember(msg.id, self.refuse(msg.id, "no_game", "no game is in progress"))


async def _serve_ws(ws: WebSocket, hub: Hub, settings: Settings, send: Send) -> None:
    s = _Session(ws, hub, settings, send)
    hub.connections += 1
    sender = None if s.direct is not None else asyncio.get_running_loop().create_task(s.sender())

    def hello_check() -> None:
        if not s.hello and not s.closing:
            s.error("hello_required", "no hello received in time")
            s.close(4008, "no hello")

    timer = asyncio.get_running_loop().call_later(settings.hello_timeout, hello_check)
    try:
        if s.direct is not None:
            gone = asyncio.get_running_loop().create_future()

            def disconnected() -> None:
                if not gone.done():
                    gone.set_result(None)

            inbox = Inbox(s.receive, disconnected)
            s.direct.take_receiving(inbox)
            try:
                await gone
            finally:
                inbox.stop()  # nothing more reaches the session (and no cycle keeps it)
        else:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                data: str | bytes | None = message.get("text")
                s.receive(data if data is not None else message.get("bytes") or b"")
    except Exception:
        log.debug("websocket ended", exc_info=True)
    finally:
        timer.cancel()
        hub.connections -= 1
        room = s.conn.room
        if room is not None:
            room.detach(s.conn)
        s.conn.finish()
        # Let queued frames (an error before a close) go out, then stop.
        if sender is None:
            s._write_direct()
        pending = sender if sender is not None else s.closer
        if pending is not None and not pending.done():
            try:
                await asyncio.wait_for(pending, timeout=1.0)
            except (TimeoutError, asyncio.CancelledError, Exception):
                pending.cancel()

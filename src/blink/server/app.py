"""The ASGI application: the REST endpoints, the game's WebSocket and the browser client.

``create_app(settings)`` builds a FastAPI app from the endpoint modules of
:mod:`blink.server.routes` (one router per resource), the replay endpoints
(:mod:`blink.server.replays`) and the WebSocket endpoint (:mod:`blink.server.session`). The
database is opened (and migrated) and unfinished games are rebuilt when the app starts (its
lifespan), which puts the :class:`~blink.server.hub.Hub` in ``app.state.hub``. The app's
Prometheus metrics (:mod:`blink.server.metrics`) are in ``app.state.metrics`` and served at
``/metrics``. :func:`begin_shutdown` (``blink serve``: at SIGTERM) makes it refuse new rooms
while it stops, and :func:`hand_over` is a cluster node's graceful stop (its health check fails,
then its rooms are handed over to the other nodes). See docs/protocol.md and docs/deploy.md.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Literal

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import State
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from blink import __version__
from blink.server import archive, direct, errors, replays, session
from blink.server import storage as st
from blink.server.body_limit import BodyLimit
from blink.server.bot_accounts.service import mark_seats
from blink.server.bus import make_bus
from blink.server.creation_limits import CreationLimiter
from blink.server.daily import on_game_end as daily_results
from blink.server.feeds import attach as attach_feeds
from blink.server.gc_tuning import GcTuning
from blink.server.headers import SecurityHeaders
from blink.server.hub import Hub
from blink.server.lease import LocalLeases, PgLeases
from blink.server.message_limits import MessageLimiter
from blink.server.metrics import CONTENT_TYPE, AddressFilter, Metrics
from blink.server.protocol import MAX_ROOM
from blink.server.quickplay import attach as attach_quickplay
from blink.server.replays import install as install_replays
from blink.server.room.live_bots import stop_bots
from blink.server.routes import (
    accounts,
    apidocs,
    bots,
    challenges,
    daily,
    games,
    meta,
    players,
    profiles,
    rooms,
    tournaments,
    web,
)
from blink.server.settings import Settings
from blink.server.shared_connections import SharedConnections
from blink.server.shared_limits import SharedWindows
from blink.server.sse import Streams
from blink.server.tournaments.manager import attach as attach_extras
from blink.server.warmup import BotWarmup

__all__ = [
    "DRAINED",
    "VERSION",
    "BlinkApp",
    "begin_shutdown",
    "create_app",
    "hand_over",
    "ws_room",
]

log = logging.getLogger("blink.server")
VERSION: str = __version__
DRAINED: frozenset[str] = frozenset({"/api/rooms", "/api/quick", "/api/daily"})
"""The endpoints (``POST``) refused with ``503 shutting_down`` once the server is stopping."""


class BlinkApp(FastAPI):
    """The FastAPI app, with the game's WebSocket (``/ws/CODE``, and ``/ws`` for older
    clients) taken before FastAPI's stack.

    The live game is the hot path: its connections skip the router and middleware (which
    add nothing to a WebSocket) and keep uvicorn's own ``send``, which the direct sending
    path needs (:mod:`blink.server.direct`). The room code of the path is handed to the
    handler (``None`` for ``/ws``); any other path under ``/ws/`` goes to FastAPI (404).
    """

    ws_handler: Callable[[WebSocket, Send, str | None], Awaitable[None]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        handler = self.ws_handler
        if handler is not None and scope["type"] == "websocket":
            room = ws_room(scope["path"])
            if room is not False:
                await handler(WebSocket(scope, receive, send), send, room)
                return
        await super().__call__(scope, receive, send)


def ws_room(path: str) -> str | Literal[False] | None:
    """The room code of a game WebSocket's path: ``/ws/CODE`` (or ``/ws/CODE/``) gives
    ``CODE`` in capitals, ``/ws`` gives ``None`` (the room is named in ``hello`` only), any
    other path ``False`` (not the game's WebSocket)."""
    if not path.startswith("/ws"):
        return False
    if len(path) == 3:
        return None
    if path[3] != "/":
        return False
    code = path[4:].removesuffix("/")
    if not 0 < len(code) <= MAX_ROOM or "/" in code:
        return False
    return code.upper()


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Open the database, rebuild the rooms and start the hub's timers; undo it all at the end."""
    settings: Settings = app.state.settings
    problem = direct.uvicorn_problem()
    if problem is not None:
        log.warning("frames go through the ASGI send, not straight onto the socket: %s", problem)
    storage = await asyncio.to_thread(
        st.Storage, settings.database_url, settings.commit_batch, settings.db_writer
    )
    storage.start(asyncio.get_running_loop())
    bus = make_bus(settings.redis_url)
    await bus.start()
    shared = SharedWindows(settings.redis_url, settings.redis_wait) if settings.redis_url else None
    app.state.shared_windows = app.state.creation_limiter.shared = shared
    conns = SharedConnections(shared, bus.node) if shared is not None else None
    app.state.shared_connections = conns
    refresher = asyncio.get_running_loop().create_task(conns.run()) if conns else None
    leases = PgLeases(settings.database_url) if settings.cluster else LocalLeases()
    hub = Hub(settings, storage, VERSION, bus, leases)
    hub.seat_marker = partial(mark_seats, hub)
    hub.restore()
    app.state.hub = hub
    metrics: Metrics = app.state.metrics
    hub.metrics = metrics
    storage.on_commit = metrics.observe_commit
    metrics.watch_writer(storage.counts)
    metrics.watch_bus(bus)
    if shared is not None:
        metrics.watch_limits(shared)
    metrics.watch(lambda: len(hub.rooms), lambda: hub.live_games, lambda: hub.connections)
    await attach_extras(hub)
    hub.game_end_hooks.append(daily_results)
    hub.game_end_hooks.append(archive.on_game_end)
    await attach_feeds(hub)
    quickplay = attach_quickplay(hub, app.state.creation_limiter)
    metrics.watch_queue(lambda: len(quickplay.waiting))
    tuning = GcTuning(settings.gc_full_interval)
    tuning.start()
    hub.start_sweeper()
    warmup = BotWarmup()
    app.state.bots_warmed = warmup.start() if settings.warm_bots else None
    try:
        yield
    finally:
        warmup.stop()
        tuning.stop()
        quickplay.stop()
        hub.stop_sweeper()
        hub.tournaments.stop()  # type: ignore[attr-defined]
        for room in hub.rooms.values():
            room._cancel_timer()
            if room.game is not None:
                if room.game.timer is not None:
                    room.game.timer.cancel()
                stop_bots(room.game)
        await bus.stop()
        if refresher is not None:
            refresher.cancel()
            app.state.shared_connections = None
        if shared is not None:
            app.state.shared_windows = app.state.creation_limiter.shared = None
            await shared.close()
        await asyncio.to_thread(storage.stop)
        await asyncio.to_thread(leases.close)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The server application for ``settings``."""
    settings = settings or Settings()
    app = BlinkApp(
        title="Blink server",
        version=VERSION,
        description="Rooms, seats and records of the Blink game server. The live game is "
        "played over the WebSocket at /ws/CODE: see docs/protocol.md.",
        lifespan=lifespan,
        docs_url=None,  # served from the package, not a CDN: routes/apidocs.py
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.metrics = Metrics()
    app.state.refusing_rooms = False
    app.state.creation_limiter = CreationLimiter(settings.creation_rate, settings.miss_rate)
    app.state.message_limiter = MessageLimiter(settings.message_rate, settings.clock)
    app.state.streams = Streams(settings.max_connections_per_address)
    if settings.allowed_hosts:  # against DNS rebinding: only the server's own names
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts))
    app.add_middleware(Draining, state=app.state)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(
        BodyLimit, limit=settings.max_body_bytes, larger={"/api/replays": replays.MAX_BODY}
    )
    errors.install(app)
    for module in (
        meta,
        rooms,
        games,
        profiles,
        players,
        accounts,
        bots,
        challenges,
        tournaments,
        daily,
    ):
        app.include_router(module.router)
    install_replays(app, games.record_loader(app))
    apidocs.install(app)
    _install_metrics(app, AddressFilter(settings.metrics_allow), settings.cluster)
    web.install(app, settings.web_dir)  # last: its files are mounted at "/"
    app.ws_handler = partial(session.endpoint, app.state)
    return app


def begin_shutdown(app: FastAPI) -> None:
    """The server is stopping: a cluster node's ``/api/health`` answers ``503 draining`` from
    now on. A single server answers ``POST /api/rooms``, ``/api/quick`` and ``/api/daily``
    with ``503 shutting_down`` (the games in progress go on until their connections close); a
    cluster node still makes such rooms, since each is stored and handed off to the node its
    players are routed to (:meth:`blink.server.hub.Hub.hand_off`)."""
    hub: Hub | None = getattr(app.state, "hub", None)
    app.state.refusing_rooms = hub is None or not hub.leases.shared
    if hub is not None:
        hub.draining = True


async def hand_over(app: FastAPI, wait: float) -> None:
    """A cluster node's graceful stop, before the server closes anything (``blink serve
    --cluster``: at SIGTERM): :func:`begin_shutdown`, so the health check fails; ``wait``
    seconds, for the router's checks to mark the node down (the games go on meanwhile); then
    every room is handed over (:meth:`blink.server.hub.Hub.hand_over`: the last writes
    committed, the leases given up, the connections closed with 1012). Nothing more on a
    single node."""
    begin_shutdown(app)
    hub: Hub | None = getattr(app.state, "hub", None)
    if hub is None or not hub.leases.shared:
        return
    await asyncio.sleep(wait)
    start = time.perf_counter()
    rooms = await hub.hand_over()
    log.warning(
        "handed %d rooms over to the other nodes in %.0f ms",
        rooms,
        (time.perf_counter() - start) * 1000,
    )


class Draining:
    """ASGI middleware: ``503 shutting_down`` for the endpoints of :data:`DRAINED` once
    :func:`begin_shutdown` was called on a single server (one flag read per request)."""

    def __init__(self, app: ASGIApp, state: State) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            self.state.refusing_rooms
            and scope["type"] == "http"
            and scope["method"] == "POST"
            and scope["path"] in DRAINED
        ):
            response = JSONResponse(
                {
                    "error": {
                        "code": "shutting_down",
                        "message": "this server is shutting down: try again in a few seconds",
                    }
                },
                status_code=503,
                headers={"Retry-After": "5"},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _install_metrics(app: FastAPI, allowed: AddressFilter, node: bool = False) -> None:
    """``GET /metrics``: the app's metrics in the Prometheus format, for loopback and the
    ``metrics_allow`` networks; ``403 forbidden`` for any other client. A cluster ``node``
    also refuses any request that came through a proxy (it carries ``X-Forwarded-For``, which
    the router always adds): its metrics are read on its own address, never through the
    router, whatever path reached it."""

    @app.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        host = request.client.host if request.client is not None else None
        forwarded = node and "x-forwarded-for" in request.headers
        if forwarded or not allowed.allows(host):
            return JSONResponse(
                {
                    "error": {
                        "code": "forbidden",
                        "message": "a cluster node serves its metrics on its own address, "
                        "not through a proxy"
                        if forwarded
                        else "the metrics are served to this machine and the addresses "
                        "of --metrics-allow only",
                    }
                },
                status_code=403,
            )
        registry: Metrics = request.app.state.metrics
        return Response(registry.render(), media_type=CONTENT_TYPE)

"""Helpers for the server tests: a server in a thread, WebSocket clients, client bots."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any

import httpx
import uvicorn
import websockets
from websockets.asyncio.client import ClientConnection

from blink.cards import parse_card
from blink.server.app import create_app
from blink.server.direct import WS_IMPL
from blink.server.settings import Settings
from blink.server.transport import Guard

TIMEOUT = 30.0


def raise_failed(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Raise the exception of the first of ``tasks`` that ended with one."""
    for t in tasks:
        if t.done() and not t.cancelled() and (err := t.exception()) is not None:
            raise err


@contextlib.asynccontextmanager
async def supervised(tasks: dict[Any, asyncio.Task[Any]]) -> AsyncIterator[None]:
    """A block after which every task in ``tasks`` (as it is then) is cancelled and awaited,
    whatever it ended with."""
    try:
        yield
    finally:
        for t in tasks.values():
            t.cancel()
        for t in tasks.values():
            with contextlib.suppress(BaseException):
                await t


def fast_settings(db_url: str, **overrides: Any) -> Settings:
    """Settings with short delays for tests (no test depends on machine speed)."""
    base: dict[str, Any] = {
        "database_url": db_url,
        "countdown": 0.05,
        "stall_pause": 0.05,
        "choice_deadline": 30.0,
        "between_games": 0.05,
        "deal_seed": 1000,
        "web_dir": None,
        "hello_timeout": 30.0,
        # Client bots play as fast as they can: far above a person's rate.
        "message_rate": "4000 per 2 seconds",
        "bot_message_rate": "32000 per 2 seconds",
        # ... and far faster than a person reacts: their games are rated, as a person's would
        # be (tests/server/test_farming.py sets the floor), and ranked after one rated game.
        "reaction_floor_ms": 0,
        "provisional_games": 1,
        # Servers started by the tests load no compiled search at start (test_warm_bots.py).
        "warm_bots": False,
    }
    base.update(overrides)
    return Settings(**base)


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerThread:
    """uvicorn serving the real app in a background thread (``keep_alive``: seconds an idle
    HTTP connection is kept between requests, uvicorn's default)."""

    def __init__(
        self,
        settings: Settings,
        port: int | None = None,
        deflate: bool = False,
        keep_alive: int = 5,
    ) -> None:
        self.settings = settings
        self.port = port or free_port()
        self.app = create_app(settings)
        guard = Guard(settings.header_timeout, settings.max_sockets_per_address)
        config = uvicorn.Config(
            self.app,
            http=guard.protocol(),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            ws=WS_IMPL,
            ws_max_size=64 * 1024,
            ws_per_message_deflate=deflate,
            timeout_keep_alive=keep_alive,
            lifespan="on",
        )
        self.guard = guard
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def http(self) -> str:
        """Base HTTP URL."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        """WebSocket URL."""
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> None:
        """Start and wait until it accepts connections."""
        self.thread.start()
        deadline = time.monotonic() + TIMEOUT
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        """Stop and wait."""
        self.server.should_exit = True
        self.thread.join(timeout=TIMEOUT)

    def post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        """A POST request."""
        return httpx.post(self.http + path, json=body or {}, timeout=TIMEOUT)

    def get(self, path: str) -> httpx.Response:
        """A GET request."""
        return httpx.get(self.http + path, timeout=TIMEOUT)


def pg_create_db(admin_url: str, name: str) -> str:
    """Create database ``name`` on the server of ``admin_url``; return its SQLAlchemy URL."""
    import psycopg
    from sqlalchemy.engine import make_url

    u = make_url(admin_url)
    conninfo = u.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return u.set(database=name).render_as_string(hide_password=False)


def pg_drop_db(admin_url: str, name: str) -> None:
    """Drop a test database."""
    import psycopg
    from sqlalchemy.engine import make_url

    u = make_url(admin_url)
    conninfo = u.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Client:
    """A test WebSocket client: keeps every frame, tracks the game state it was sent."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.ws: ClientConnection | None = None
        self.frames: list[str] = []
        self.msgs: list[dict[str, Any]] = []
        self.cursor = 0
        self.changed = asyncio.Event()
        self.view: dict[str, Any] | None = None
        self.game: int | None = None
        self.seq = 0
        self.seat: int | None = None
        self.ids = 0
        self.reader: asyncio.Task[None] | None = None
        self.close_code: int | None = None
        self.stall: dict[str, Any] | None = None
        self.countdown_ms: int | None = None
        """The countdown of the last snapshot or ``countdown`` frame (``None``: not counting
        down; an update ends it, as a snapshot without one does)."""
        self.sent: dict[str, dict[str, Any]] = {}
        self.bot_index = 0

    async def connect(self, url: str, **hello: Any) -> Client:
        """Open the connection and send hello (unless ``hello`` is empty). A hello naming a
        room connects to that room's WebSocket (``/ws/CODE``) when ``url`` is the server's
        ``/ws``."""
        if url.endswith("/ws") and isinstance(hello.get("room"), str) and hello["room"]:
            url = f"{url}/{hello['room']}"
        self.ws = await websockets.connect(url, max_size=None, open_timeout=TIMEOUT)
        self.reader = asyncio.get_running_loop().create_task(self._read())
        if hello:
            await self.send({"type": "hello", "protocol": 1, **hello})
        return self

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for frame in self.ws:
                assert isinstance(frame, str)
                self.frames.append(frame)
                m = json.loads(frame)
                self._track(m)
                self.msgs.append(m)
                self.changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            if self.ws is not None and self.ws.close_code is not None:
                self.close_code = self.ws.close_code
            self.changed.set()

    def _track(self, m: dict[str, Any]) -> None:
        t = m.get("type")
        if t == "welcome":
            self.seat = m["seat"]
        elif t == "snapshot":
            self.game = m["game"]
            self.seq = m["seq"]
            self.view = m["view"]
            self.stall = m["stall"]
            self.countdown_ms = m["countdown_ms"]
        elif t == "countdown":
            self.countdown_ms = m["in_ms"]
        elif t == "update":
            self.countdown_ms = None
            if m["game"] == self.game:
                assert m["seq"] == self.seq + 1, f"{self.name}: gap {self.seq} -> {m['seq']}"
            self.game = m["game"]
            self.seq = m["seq"]
            self.view = m["view"]
            self.stall = m["stall"]

    async def send(self, msg: dict[str, Any] | str) -> None:
        """Send a message (a dict as JSON, a str as is)."""
        assert self.ws is not None
        await self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    def next_id(self) -> str:
        """A new client action id."""
        self.ids += 1
        return f"{self.name}-{self.ids}"

    async def play(
        self, card: str, pile: int, msg_id: str | None = None, version: int | None = None
    ) -> str:
        """Send a play (naming the pile's ``version`` it was chosen on, if given); return its
        id."""
        mid = msg_id or self.next_id()
        self.sent[mid] = {"type": "play", "id": mid, "card": card, "pile": pile}
        if version is not None:
            self.sent[mid]["version"] = version
        await self.send(self.sent[mid])
        return mid

    async def choose(self, card: str, msg_id: str | None = None) -> str:
        """Send a choice; return its id."""
        mid = msg_id or self.next_id()
        self.sent[mid] = {"type": "choose", "id": mid, "card": card}
        await self.send(self.sent[mid])
        return mid

    async def wait(self, pred: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next message (from the cursor) satisfying ``pred``; advances the cursor."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            while self.cursor < len(self.msgs):
                m = self.msgs[self.cursor]
                self.cursor += 1
                if pred(m):
                    return m
            if self.reader is not None and self.reader.done():
                raise ConnectionError(f"{self.name}: closed ({self.close_code}) while waiting")
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError(f"{self.name}: timed out; last: {self.msgs[-3:]}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def expect(self, kind: str, timeout: float = TIMEOUT, **fields: Any) -> dict[str, Any]:
        """The next message of type ``kind`` (with the given field values)."""
        return await self.wait(
            lambda m: m.get("type") == kind and all(m.get(k) == v for k, v in fields.items()),
            timeout,
        )

    async def closed(self, timeout: float = TIMEOUT) -> int | None:
        """Wait for the server to close; return the close code."""
        assert self.reader is not None
        await asyncio.wait_for(asyncio.shield(self.reader), timeout)
        assert self.ws is not None
        return self.ws.close_code

    async def close(self) -> None:
        """Close from our side."""
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.reader, TIMEOUT)

    def legal(self) -> list[tuple[str, int]]:
        """Legal plays in the last view."""
        v = self.view
        if v is None or v["phase"] != "playing" or v["seat"] is None:
            return []
        out = []
        for pile in v["reach"]:
            top = v["tops"][pile]
            if top is None:
                continue
            tc = parse_card(top)
            for c in v["hand"]:
                if parse_card(c).matches(tc):
                    out.append((c, pile))
        return out


async def bot_loop(c: Client, games: int = 1, choose: bool = True) -> list[dict[str, Any]]:
    """Play as a simple client bot until ``games`` games have ended; return the game_end msgs."""
    ends: list[dict[str, Any]] = []
    outstanding: str | None = None
    i = c.bot_index  # carry on after what an earlier bot_loop on this client handled
    while len(ends) < games:
        while i < len(c.msgs):
            m = c.msgs[i]
            i += 1
            if m["type"] == "game_end":
                ends.append(m)
            elif m["type"] in ("ack", "refused", "error") and m.get("id") == outstanding:
                outstanding = None  # answered: applied, refused, or not taken at all
        if len(ends) >= games:
            break
        if outstanding is None and c.view is not None:
            v = c.view
            legal = c.legal()
            if legal:
                card, pile = legal[(c.seq + (c.seat or 0)) % len(legal)]
                outstanding = await c.play(card, pile)
            elif choose and v["phase"] == "choosing" and v["my_choice"] is None and v["hand"]:
                outstanding = await c.choose(v["hand"][-1])
        if c.reader is not None and c.reader.done():
            raise ConnectionError(f"{c.name} closed during the game")
        c.changed.clear()
        if i < len(c.msgs):
            continue
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(c.changed.wait(), 1.0)
    c.bot_index = i
    return ends


async def play_series(clients: list[Client]) -> list[dict[str, Any]]:
    """Play as client bots until the room's series is over: a game can end in a tie (two
    identical bots racing), and then the series goes on with another game. Returns the
    first client's ``game_end`` of every game played, in order."""
    played: list[dict[str, Any]] = []
    while not played or played[-1]["next_in_ms"] is not None:
        ends = await asyncio.gather(*(bot_loop(c) for c in clients))
        played.append(ends[0][0])
    return played


async def seat_clients(
    server: ServerThread, players: int = 2, spectators: int = 0, **room: Any
) -> tuple[str, list[Client], list[str]]:
    """Create a room, seat ``players`` clients (connected), and ``spectators`` watchers."""
    r = server.post("/api/rooms", {"players": players, "name": "P0", **room})
    assert r.status_code == 201, r.text
    body = r.json()
    code = body["code"]
    tokens = [body["token"]]
    for i in range(1, players):
        j = server.post(f"/api/rooms/{code}/join", {"name": f"P{i}"})
        assert j.status_code == 200, j.text
        tokens.append(j.json()["token"])
    clients = []
    for i in range(spectators):
        clients.append(await Client(f"S{i}").connect(server.ws, room=code, spectate=True))
    seated = []
    for i, tok in enumerate(tokens):
        seated.append(await Client(f"P{i}").connect(server.ws, room=code, token=tok))
    return code, seated + clients, tokens

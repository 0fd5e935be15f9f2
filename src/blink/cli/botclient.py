"""The reference Bot API client behind ``blink bot play`` (docs/bot-api.md).

It speaks the public protocol only (REST with ``Authorization: Bearer``, then the game's
WebSocket, protocol 1) through the ``websockets`` library, and plays the default game with a
*policy* (a house bot's, or a Python file's ``plan(view)``). What the seat knows of the game
is the game's own: its commands module's ``bot_client()`` (classic Blink's
:mod:`blink.games.classic.cli.botclient`) offers ``house_policy(spec, seed)`` and the
:class:`Seat` that reads the frames and answers with the policy, found through the registry.
A drop is resumed with ``last_seq``; a refusal of its token ends the run with one sentence
(:class:`BotRunError`). In a bot tournament (:func:`tournament`) it follows the tournament's
state (``GET /api/tournaments/{id}`` and its event stream): it joins, checks in, and plays each
match room opened for it until it is out or the tournament is over.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import random
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, Final, Protocol
from urllib.parse import urlsplit

import httpx

from blink.model.registry import DEFAULT_GAME, front_end
from blink.tui.api_errors import server_sentence
from blink.tui.i18n import _

__all__ = [
    "FATAL_CLOSES",
    "TABLE_PLAYERS",
    "BotRunError",
    "Plan",
    "Seat",
    "arena",
    "game_client",
    "house_policy",
    "load_policy",
    "new_seat",
    "run",
    "tournament",
    "wait_in_arena",
]

PROTOCOL: Final = 1
RETRIES: Final = 6
"""Reconnections tried in a row after a drop before the run gives up."""
FATAL_CLOSES: Final = {4000, 4003, 4004, 4010, 4011, 4012, 4013, 1008, 1009}
"""Close codes after which trying again cannot help (docs/protocol.md, docs/bot-api.md)."""
TABLE_PLAYERS: Final = 2
"""The seats of every table this client opens or asks for itself (``--opponent``, ``--host``,
``--arena``, ``--challenge``; a challenge, sent or accepted, is always of two), so that a
saved policy is checked against it before any network call."""

Plan = Callable[[Any], Any]
"""A policy: ``plan(view)`` (the game's view) -> an action, or None (the game's bot client
says which answers it sends)."""


class BotRunError(Exception):
    """The run cannot go on: one sentence for the person who started it (``code``: the
    server's error code, when it said one)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class Seat(Protocol):
    """One bot seat in one room, as the game's bot client keeps it: the frames it has read,
    its view, what it sent."""

    games: int
    """Games to play."""
    send: Callable[[dict[str, Any]], None] | None

    @property
    def game(self) -> int | None:
        """The game being played (``None`` before the first)."""
        ...

    @property
    def seq(self) -> int:
        """The last update read of that game."""
        ...

    @property
    def ended(self) -> int:
        """Games played to their end."""
        ...

    def done(self) -> bool:
        """Whether the games asked for are over."""
        ...

    def frame(self, msg: dict[str, Any]) -> None:
        """Read one frame from the server (and answer through ``send``)."""
        ...


def game_client() -> ModuleType:
    """The default game's bot client (its commands module's ``bot_client()``), found through
    the registry; :class:`BotRunError` when the game has none."""
    commands = front_end().commands
    client = getattr(importlib.import_module(commands), "bot_client", None) if commands else None
    if client is None:
        raise BotRunError("the default game has no Bot API client")
    found: ModuleType = client()
    return found


def house_policy(spec: str, seed: int = 0) -> Callable[[int], Plan]:
    """A house bot's policy (``level:strategy``, or a strategy alone, which plays as fast as
    the server lets it) for a seat, from the default game's bot client; raises
    :class:`BotRunError` for an unknown name."""
    try:
        policy: Callable[[int], Plan] = game_client().house_policy(spec, seed)
    except ValueError as exc:
        raise BotRunError(str(exc)) from None
    return policy


def new_seat(policy: Callable[[int], Plan], games: int) -> Seat:
    """A seat of the default game playing ``games`` games with ``policy``."""
    seat: Seat = game_client().Player(policy, games)
    return seat


def load_policy(path: Path) -> Callable[[int], Plan]:
    """The ``plan(view)`` function of a Python file (or its ``make_bot(seat)`` returning an
    object with ``plan``); raises :class:`BotRunError` when the file has neither."""
    if not path.is_file():
        raise BotRunError(_("no such file: {path}").format(path=path))
    spec = importlib.util.spec_from_file_location(f"blink_user_bot_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise BotRunError(_("{path} is not a Python module").format(path=path))
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's code: any error is one sentence
        raise BotRunError(_("{path} failed to load: {exc}").format(path=path, exc=exc)) from None
    make = getattr(module, "make_bot", None)
    if callable(make):
        return lambda seat: make(seat).plan
    plan = getattr(module, "plan", None)
    if callable(plan):
        return lambda seat: plan
    raise BotRunError(_("{path} defines neither plan(view) nor make_bot(seat)").format(path=path))


def _ws_url(server: str, code: str) -> str:
    return _ws_base(server) + f"/ws/{code}"


def _ws_base(server: str) -> str:
    parts = urlsplit(server)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}"


def error_sentence(r: httpx.Response) -> str:
    """A refused request's sentence in the language spoken now, its code after it."""
    try:
        err = r.json()["error"]
        return _said(err, rest=True)
    except (ValueError, KeyError, TypeError, AttributeError):
        return _("the server answered {status}").format(status=r.status_code)


def _said(err: dict[str, Any], rest: bool = False) -> str:
    """A refusal of the server (its ``code`` and English ``message``) in the language spoken
    now, its code after it (:func:`blink.tui.api_errors.server_sentence`)."""
    code = str(err.get("code"))
    return f"{server_sentence(code, str(err.get('message') or ''), rest)} ({code})"


async def open_room(
    server: str, token: str, opponent: str | None, join: str | None, host: bool
) -> str:
    """The room to play in: a new room against a house bot (``opponent``), the room ``join``
    names (a seat taken), or a new room for another bot (``host``: its code is printed)."""
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=server, headers=headers, timeout=30) as http:
        try:
            if join is not None:
                r = await http.post(f"/api/rooms/{join}/join", json={})
            elif host:
                body: dict[str, Any] = {"players": TABLE_PLAYERS, "public": False}
                r = await http.post("/api/rooms", json=body)
            else:
                quick: dict[str, Any] = {"players": TABLE_PLAYERS}
                if opponent:
                    quick["bot"] = opponent
                r = await http.post("/api/quick", json=quick)
        except httpx.HTTPError as exc:
            raise BotRunError(
                _("cannot reach {server}: {exc}").format(server=server, exc=exc)
            ) from None
    if r.status_code >= 400:
        raise BotRunError(error_sentence(r))
    return str(r.json()["code"])


async def play_room(
    server: str,
    token: str,
    code: str,
    player: Seat,
    on_connect: Callable[[Any], None] | None = None,
) -> None:
    """Play ``player``'s games in room ``code``, reconnecting and resuming after a drop."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, WebSocketException

    failures = 0
    while not player.done():
        try:
            async with connect(
                _ws_url(server, code),
                additional_headers={"Authorization": f"Bearer {token}"},
                open_timeout=30,
            ) as ws:
                if on_connect is not None:
                    on_connect(ws)
                hello: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL, "room": code}
                if player.game is not None:
                    hello.update(game=player.game, last_seq=player.seq)
                outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
                player.send = outbox.put_nowait
                writer = asyncio.create_task(_write(ws, outbox))
                await ws.send(json.dumps(hello))
                said: str | None = None  # the last error's sentence, for a close after it
                try:
                    async for text in ws:
                        msg = json.loads(text)
                        said = _said(msg) if msg.get("type") == "error" else None
                        if said is not None and msg.get("code") in _FATAL_ERRORS:
                            raise BotRunError(said, msg.get("code"))
                        player.frame(msg)
                        failures = 0
                        if player.done():
                            return
                finally:
                    writer.cancel()
                    player.send = None
                if ws.close_code in FATAL_CLOSES:
                    raise BotRunError(
                        _("the server closed the connection: {reason}").format(
                            reason=said or ws.close_reason
                        )
                    )
        except (OSError, TimeoutError, WebSocketException, ConnectionClosed):
            pass
        failures += 1
        if failures > RETRIES:
            raise BotRunError(_lost(server))
        await asyncio.sleep(min(2.0, 0.1 * 2**failures))


def _lost(server: str) -> str:
    return _("lost the connection to {server} {n} times in a row").format(server=server, n=RETRIES)


_FATAL_ERRORS: Final = {
    "bad_bot_token",
    "bad_token",
    "no_such_room",
    "too_many_connections",
    "bots_not_admitted",
}


async def _write(ws: Any, outbox: asyncio.Queue[dict[str, Any]]) -> None:
    while True:
        msg = await outbox.get()
        with contextlib.suppress(Exception):
            await ws.send(json.dumps(msg))


async def run(
    server: str,
    token: str,
    games: int,
    policy: Callable[[int], Plan],
    opponent: str | None = None,
    join: str | None = None,
    host: bool = False,
    announce: Callable[[str], None] = print,
) -> int:
    """Open or join the room, play ``games`` games in it (a rematch after each series) and
    return how many were played."""
    code = await open_room(server, token, opponent, join, host)
    if host:
        announce(code)
    player = new_seat(policy, games)
    await play_room(server, token, code, player)
    return player.ended


_QUEUE_FATAL: Final = {"bad_bot_token", "no_such_profile", "already_queued", "bad_options"}
"""The queue's refusals after which waiting again cannot help."""


async def wait_in_arena(server: str, token: str, players: int = TABLE_PLAYERS) -> str:
    """Wait in the bot arena (the quick play queue, ``/api/queue``, with the bot's token) until
    paired with other bot accounts: the new room's code. A drop or a passing refusal (a room
    that could not be opened, a server stopping) waits again; :class:`BotRunError` after
    :data:`RETRIES` in a row, or at once for a refusal that waiting again cannot help."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, WebSocketException

    failures = 0
    while True:
        try:
            async with connect(
                _ws_base(server) + "/api/queue",
                additional_headers={"Authorization": f"Bearer {token}"},
                open_timeout=30,
            ) as ws:
                await ws.send(
                    json.dumps({"type": "join", "game": DEFAULT_GAME, "players": players})
                )
                async for text in ws:
                    msg = json.loads(text)
                    kind = msg.get("type")
                    if kind == "paired":
                        return str(msg["code"])
                    if kind == "error":
                        if msg.get("code") in _QUEUE_FATAL:
                            raise BotRunError(_said(msg, rest=True))
                        break
                    failures = 0
        except (OSError, TimeoutError, WebSocketException, ConnectionClosed):
            pass
        failures += 1
        if failures > RETRIES:
            raise BotRunError(_lost(server))
        await asyncio.sleep(min(2.0, 0.1 * 2**failures))


async def arena(
    server: str,
    token: str,
    games: int,
    policy: Callable[[int], Plan],
    announce: Callable[[str], None] = print,
) -> int:
    """Play ``games`` games in the bot arena: wait in its queue, play the room it pairs the bot
    in (one game), and queue again; return how many were played. Each room's code is
    ``announce``-d."""
    played = 0
    while played < games:
        code = await wait_in_arena(server, token)
        announce(code)
        player = new_seat(policy, 1)
        await play_room(server, token, code, player)
        played += player.ended
    return played


class MatchSeat:
    """A seat that plays its room's one series (a tournament's match, an accepted challenge):
    the game's seat, playing until the series is over or the room is closed; no rematch is
    asked for."""

    def __init__(self, inner: Seat) -> None:
        self.inner = inner
        self.over = False

    @property
    def game(self) -> int | None:
        """The game being played (the inner seat's)."""
        return self.inner.game

    @property
    def seq(self) -> int:
        """The last update read (the inner seat's)."""
        return self.inner.seq

    @property
    def ended(self) -> int:
        """Games played to their end."""
        return self.inner.ended

    @property
    def games(self) -> int:
        """Games asked of the inner seat."""
        return self.inner.games

    @games.setter
    def games(self, value: int) -> None:
        self.inner.games = value

    @property
    def send(self) -> Callable[[dict[str, Any]], None] | None:
        """Where answers go (the connection's outbox)."""
        return self.inner.send

    @send.setter
    def send(self, value: Callable[[dict[str, Any]], None] | None) -> None:
        self.inner.send = value

    def done(self) -> bool:
        """Whether the match's room is over for this seat."""
        return self.over

    def frame(self, msg: dict[str, Any]) -> None:
        """Read one frame: the room's end, a series over, else the game's seat reads it."""
        kind = msg.get("type")
        if kind == "room" and (msg.get("room") or {}).get("status") in ("finished", "closed"):
            self.over = True
        if kind == "game_end" and (msg.get("series") or {}).get("over"):
            self.over = True
            self.inner.games = self.inner.ended + 1  # the set is over: no rematch
        self.inner.frame(msg)


_ROOM_GONE: Final = {"no_such_room", "bad_token"}
"""A match room's refusals that end that room only (it was closed or replaced): the tournament
goes on."""


def tournament_step(state: dict[str, Any], me: str, done: set[str]) -> str | None:
    """What the bot does next in a tournament ``state`` (as ``GET /api/tournaments/{id}``
    gives it), as ``me``, having played the rooms ``done``: ``"over"`` (the tournament is
    over, or the bot is out), ``"check_in"``, a match room's code to play, or ``None``
    (wait for the next change)."""
    if state.get("status") == "finished":
        return "over"
    players = {p["name"]: p for p in state.get("players", [])}
    mine = players.get(me)
    if mine is None or mine.get("withdrawn"):
        return "over"  # left out of the draw (no check-in), or withdrawn
    if (state.get("check_in") or {}).get("open") and not mine.get("checked_in"):
        return "check_in"
    matches = (state.get("tournament") or {}).get("matches") or []
    rooms = state.get("rooms") or {}
    for m in matches:
        if me in m.get("players", []) and m.get("status") in ("ready", "playing"):
            code = (rooms.get(m["id"]) or {}).get("code")
            if code is not None and code not in done:
                return str(code)
    for m in matches:
        if (
            me in m.get("players", [])
            and m.get("kind") == "elimination"
            and m.get("status") == "decided"
            and m.get("winner") != me
        ):
            return "over"  # put out of the elimination
    return None


async def _http_retry(server: str, call: Callable[[], Any]) -> httpx.Response:
    """``await call()``, tried again after a failure to reach the server (``RETRIES`` times)."""
    failures = 0
    while True:
        try:
            r: httpx.Response = await call()
            if r.status_code < 500:
                return r
        except httpx.HTTPError:
            pass
        failures += 1
        if failures > RETRIES:
            raise BotRunError(_lost(server))
        await asyncio.sleep(min(2.0, 0.1 * 2**failures))


async def _tournament_state(http: httpx.AsyncClient, server: str, tid: str) -> dict[str, Any]:
    r = await _http_retry(server, lambda: http.get(f"/api/tournaments/{tid}"))
    if r.status_code >= 400:
        raise BotRunError(error_sentence(r), _code(r))
    out: dict[str, Any] = r.json()
    return out


def _code(r: httpx.Response) -> str | None:
    try:
        return str(r.json()["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return None


async def _next_version(http: httpx.AsyncClient, server: str, tid: str, version: int) -> None:
    """Wait for the tournament's next version after ``version`` on its event stream
    (``GET /api/tournaments/{id}/events``); a dropped stream is opened again."""
    failures = 0
    while True:
        try:
            async with http.stream(
                "GET",
                f"/api/tournaments/{tid}/events",
                headers={"Last-Event-ID": str(version)},
                timeout=httpx.Timeout(30, read=None),
            ) as r:
                if r.status_code >= 400:
                    await r.aread()
                    raise BotRunError(error_sentence(r), _code(r))
                async for line in r.aiter_lines():
                    failures = 0
                    if line.startswith("event:") and line[6:].strip() == "tournament":
                        return
        except httpx.HTTPError:
            pass
        failures += 1
        if failures > RETRIES:
            raise BotRunError(_lost(server))
        await asyncio.sleep(min(2.0, 0.1 * 2**failures))


async def _enter(http: httpx.AsyncClient, server: str, tid: str) -> dict[str, Any]:
    """The tournament's state once the bot is entered (``you.name`` set): joined now if it
    was not, while sign-up is open."""
    state = await _tournament_state(http, server, tid)
    of = state.get("game") or DEFAULT_GAME
    if of != DEFAULT_GAME:  # its rooms are another game's: this client plays the default one
        raise BotRunError(
            _("the tournament {tid} is of the game {game}, which this client does not play").format(
                tid=tid, game=of
            )
        )
    if (state.get("you") or {}).get("name") is not None:
        return state
    if state.get("status") != "signup":
        raise BotRunError(_("the tournament {tid} was drawn without this bot").format(tid=tid))
    r = await _http_retry(server, lambda: http.post(f"/api/tournaments/{tid}/join", json={}))
    if r.status_code >= 400 and _code(r) != "already_joined":
        raise BotRunError(error_sentence(r), _code(r))
    return await _tournament_state(http, server, tid)


async def tournament(
    server: str,
    token: str,
    tid: str,
    policy: Callable[[int], Plan],
    announce: Callable[[str], None] = print,
) -> int:
    """Play bot tournament ``tid``: join it (if not yet, while sign-up is open), check in when
    check-in is open, play each match room opened for the bot (its code ``announce``-d), and
    return how many games were played once the bot is out or the tournament is over."""
    headers = {"Authorization": f"Bearer {token}"}
    played = 0
    done: set[str] = set()
    async with httpx.AsyncClient(base_url=server, headers=headers, timeout=30) as http:
        state = await _enter(http, server, tid)
        me = str(state["you"]["name"])
        announce(_("entered tournament {tid} as {name}").format(tid=tid, name=me))
        while True:
            step = tournament_step(state, me, done)
            if step == "over":
                return played
            if step == "check_in":
                r = await _http_retry(
                    server, lambda: http.post(f"/api/tournaments/{tid}/check-in", json={})
                )
                if r.status_code >= 400 and _code(r) != "check-in-closed":
                    raise BotRunError(error_sentence(r), _code(r))
            elif step is not None:
                announce(step)
                seat = MatchSeat(new_seat(policy, 1_000_000))
                try:
                    await play_room(server, token, step, seat)
                except BotRunError as exc:
                    if exc.code not in _ROOM_GONE:
                        raise
                done.add(step)
                played += seat.ended
            else:
                await _next_version(http, server, tid, int(state.get("version", 0)))
            state = await _tournament_state(http, server, tid)


def seed() -> int:
    """A fresh seed for a house policy."""
    return random.SystemRandom().randrange(2**31)

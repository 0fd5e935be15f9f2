"""The reference Bot API client behind ``blink bot play`` (docs/bot-api.md).

It speaks the public protocol only (REST with ``Authorization: Bearer``, then the game's
WebSocket, protocol 1) through the ``websockets`` library, and plays the default game with a
*policy* (a house bot's, or a Python file's ``plan(view)``). What the seat knows of the game
is the game's own: its commands module's ``bot_client()`` (classic Blink's
:mod:`blink.games.classic.cli.botclient`) offers ``house_policy(spec, seed)`` and the
:class:`Seat` that reads the frames and answers with the policy, found through the registry.
A drop is resumed with ``last_seq``; a refusal of its token ends the run with one sentence
(:class:`BotRunError`).
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
from blink.tui.i18n import _

__all__ = [
    "FATAL_CLOSES",
    "BotRunError",
    "Plan",
    "Seat",
    "arena",
    "game_client",
    "house_policy",
    "load_policy",
    "new_seat",
    "run",
    "wait_in_arena",
]

PROTOCOL: Final = 1
RETRIES: Final = 6
"""Reconnections tried in a row after a drop before the run gives up."""
FATAL_CLOSES: Final = {4000, 4003, 4004, 4010, 4011, 4012, 4013, 1008, 1009}
"""Close codes after which trying again cannot help (docs/protocol.md, docs/bot-api.md)."""

Plan = Callable[[Any], Any]
"""A policy: ``plan(view)`` (the game's view) -> an action, or None (the game's bot client
says which answers it sends)."""


class BotRunError(Exception):
    """The run cannot go on: one sentence for the person who started it."""


class Seat(Protocol):
    """One bot seat in one room, as the game's bot client keeps it: the frames it has read,
    its view, what it sent."""

    game: int | None
    seq: int
    ended: int
    send: Callable[[dict[str, Any]], None] | None

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


def _error(r: httpx.Response) -> str:
    try:
        err = r.json()["error"]
        return f"{err['message']} ({err['code']})"
    except (ValueError, KeyError, TypeError):
        return _("the server answered {status}").format(status=r.status_code)


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
                r = await http.post("/api/rooms", json={"players": 2, "public": False})
            else:
                r = await http.post("/api/quick", json={"bot": opponent} if opponent else {})
        except httpx.HTTPError as exc:
            raise BotRunError(
                _("cannot reach {server}: {exc}").format(server=server, exc=exc)
            ) from None
    if r.status_code >= 400:
        raise BotRunError(_error(r))
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
                try:
                    async for text in ws:
                        msg = json.loads(text)
                        if msg.get("type") == "error" and msg.get("code") in _FATAL_ERRORS:
                            raise BotRunError(f"{msg.get('message')} ({msg.get('code')})")
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
                            reason=ws.close_reason
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


async def wait_in_arena(server: str, token: str, players: int = 2) -> str:
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
                            raise BotRunError(f"{msg.get('message')} ({msg.get('code')})")
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


def seed() -> int:
    """A fresh seed for a house policy."""
    return random.SystemRandom().randrange(2**31)

"""The reference Bot API client behind ``blink bot play`` (docs/bot-api.md).

It speaks the public protocol only (REST with ``Authorization: Bearer``, then the game's
WebSocket, protocol 1) through the ``websockets`` library, and plays classic Blink with a
*policy*: the view -> action interface of the house bots
(:class:`blink.games.classic.bots.base.Bot`): each time the seat's view changes it calls
``plan(view)`` with a :class:`~blink.games.classic.view.PlayerView` and sends what it answers
(an :class:`~blink.games.classic.bots.base.Intent`, waited for its ``delay``, or a ``Play`` or
``Choose`` at once; ``None``: nothing now). A drop is resumed with ``last_seq``; a refusal of
its token ends the run with one sentence (:class:`BotRunError`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import httpx

from blink.cards import Card, CardError, parse_card
from blink.games.classic.actions import Choose, Phase, Play
from blink.games.classic.bots import BotConfigError, BotSpec
from blink.games.classic.bots.base import Intent
from blink.games.classic.engine import ClassicEnd, Outcome
from blink.games.classic.rules import OFFICIAL, RulesetError, get_ruleset
from blink.games.classic.view import PlayerView
from blink.tui.i18n import _

__all__ = [
    "FATAL_CLOSES",
    "BotRunError",
    "Plan",
    "Player",
    "arena",
    "house_policy",
    "load_policy",
    "run",
    "wait_in_arena",
]

PROTOCOL: Final = 1
RETRIES: Final = 6
"""Reconnections tried in a row after a drop before the run gives up."""
FATAL_CLOSES: Final = {4000, 4003, 4004, 4010, 4011, 4012, 1008, 1009}
"""Close codes after which trying again cannot help (docs/protocol.md, docs/bot-api.md)."""

Plan = Callable[[PlayerView], Any]
"""A policy: ``plan(view)`` -> an Intent, a Play or Choose, or None."""


class BotRunError(Exception):
    """The run cannot go on: one sentence for the person who started it."""


def house_policy(spec: str, seed: int = 0) -> Callable[[int], Plan]:
    """A house bot's policy (``level:strategy``, or a strategy alone, which plays at the
    ``inhuman`` level: as fast as the server lets it) for a seat; raises
    :class:`BotRunError` for an unknown name."""
    text = spec if ":" in spec else f"inhuman:{spec}"
    try:
        parsed = BotSpec.parse(text)
    except BotConfigError as exc:
        raise BotRunError(str(exc)) from None
    return lambda seat: parsed.build(seat, seed).plan


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


def _card(text: Any) -> Card | None:
    if text is None:
        return None
    try:
        return parse_card(str(text))
    except CardError:
        return None


_PHASES: Final = {p.value: p for p in Phase}


@dataclass
class Player:
    """One bot seat in one room: the frames it has read, its view, what it sent."""

    policy: Callable[[int], Plan]
    games: int
    seat: int | None = None
    game: int | None = None
    seq: int = 0
    ended: int = 0
    piles: list[list[Card]] = field(default_factory=list)
    view: PlayerView | None = None
    wire: dict[str, Any] = field(default_factory=dict)
    ruleset: Any = OFFICIAL
    plan: Plan | None = None
    ids: int = 0
    pending: asyncio.TimerHandle | None = None
    send: Callable[[dict[str, Any]], None] | None = None

    def done(self) -> bool:
        """Whether the games asked for are over."""
        return self.ended >= self.games

    def frame(self, msg: dict[str, Any]) -> None:
        """Read one frame from the server."""
        kind = msg.get("type")
        if kind == "welcome":
            self.seat = msg.get("seat")
            if self.seat is not None:
                self.plan = self.policy(int(self.seat))
        elif kind == "snapshot":
            self._new_game(msg.get("game"))
            self.seq = int(msg.get("seq", 0))
            full = msg.get("view") or {}
            with contextlib.suppress(RulesetError):
                self.ruleset = get_ruleset(str(full.get("ruleset", "official")))
            self.piles = [
                [c for c in (_card(x) for x in pile) if c is not None]
                for pile in full.get("piles", [])
            ]
            self._view(full)
        elif kind == "update":
            if msg.get("game") != self.game:
                self._new_game(msg.get("game"))
            elif int(msg.get("seq", 0)) <= self.seq:
                return  # seen before the drop
            self.seq = int(msg.get("seq", 0))
            for e in msg.get("events", []):
                self._event(e)
            self._view(msg.get("view") or {})
        elif kind == "game_end":
            self.ended += 1 if not msg.get("again") else 0
            self._cancel()
            if not self.done() and (msg.get("series") or {}).get("winner") is not None:
                self._send({"type": "rematch", "id": self._id()})

    def _new_game(self, game: Any) -> None:
        self.game = None if game is None else int(game)
        self.seq = 0
        self.piles = []
        self.view = None

    def _event(self, e: dict[str, Any]) -> None:
        kind = e.get("type")
        if kind == "revealed":
            self.piles = [[c] if c is not None else [] for c in map(_card, e.get("tops", []))]
        elif kind in ("played", "flipped", "placed"):
            card, pile = _card(e.get("card")), int(e.get("pile", -1))
            if card is not None and 0 <= pile < len(self.piles):
                self.piles[pile].append(card)

    def _view(self, v: dict[str, Any]) -> None:
        if not v or v.get("seat") is None:
            return
        tops = tuple(_card(c) for c in v.get("tops", []))
        players = len(tops)
        while len(self.piles) < players:
            self.piles.append([])
        self.wire = v
        outcome = v.get("outcome")
        self.view = PlayerView(
            seat=int(v["seat"]),
            players=players,
            phase=_PHASES.get(str(v.get("phase")), Phase.DEALT),
            ruleset=self.ruleset,
            hand=tuple(c for c in map(_card, v.get("hand", [])) if c is not None),
            tops=tops,
            piles=tuple(tuple(p) for p in self.piles[:players]),
            hand_counts=tuple(int(n) for n in v.get("hand_counts", [])),
            draw_counts=tuple(int(n) for n in v.get("draw_counts", [])),
            set_aside=int(v.get("set_aside", 0)),
            chosen=tuple(bool(b) for b in v.get("chosen", [])),
            my_choice=_card(v.get("my_choice")),
            outcome=None
            if not isinstance(outcome, dict)
            else Outcome.of(outcome.get("winners", ()), str(outcome.get("reason", "")), ClassicEnd),
            plays=int(v.get("plays", 0)),
        )
        self.think()

    def think(self) -> None:
        """Ask the policy about the current view (a new answer replaces a waiting one)."""
        self._cancel()
        if (
            self.plan is None
            or self.view is None
            or self.view.phase
            not in (
                Phase.PLAYING,
                Phase.CHOOSING,
            )
        ):
            return
        answer = self.plan(self.view)
        delay = 0.0
        if isinstance(answer, Intent):
            delay = max(0.0, float(answer.delay))
            answer = answer.action
        if not isinstance(answer, Play | Choose):
            return
        message = self._message(answer)
        if delay <= 0:
            self._send(message)
        else:
            self.pending = asyncio.get_running_loop().call_later(delay, self._send, message)

    def _message(self, action: Play | Choose) -> dict[str, Any]:
        if isinstance(action, Choose):
            return {"type": "choose", "id": self._id(), "card": str(action.card)}
        versions = self.wire.get("versions") or []
        out = {"type": "play", "id": self._id(), "card": str(action.card), "pile": action.pile}
        if action.pile < len(versions):
            out["version"] = int(versions[action.pile])
        return out

    def _id(self) -> str:
        self.ids += 1
        return f"b{self.ids}"

    def _send(self, message: dict[str, Any]) -> None:
        self.pending = None
        if self.send is not None:
            self.send(message)

    def _cancel(self) -> None:
        if self.pending is not None:
            self.pending.cancel()
            self.pending = None


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
    player: Player,
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


_FATAL_ERRORS: Final = {"bad_bot_token", "bad_token", "no_such_room", "too_many_connections"}


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
    player = Player(policy, games)
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
                await ws.send(json.dumps({"type": "join", "game": "classic", "players": players}))
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
        player = Player(policy, 1)
        await play_room(server, token, code, player)
        played += player.ended
    return played


def seed() -> int:
    """A fresh seed for a house policy."""
    return random.SystemRandom().randrange(2**31)

"""Quick play against people: the queue's driver and its WebSocket (``/api/queue``).

A player connects, says ``join`` (:class:`~blink.server.protocol.QueueJoin`: the game, its
number of seats, a name and maybe a profile secret) and waits. :class:`QuickPlay` runs the
queue's core (:class:`blink.server.matchmaking.Matchmaker`, rated by the profile's OpenSkill
ordinal, a guest by the default rating's) on a loop timer every ``Settings.queue_tick``
seconds, with the times of ``Settings.clock``. When a group is paired, a private room is opened
for it as ``POST /api/rooms`` opens one (:func:`blink.server.room_setup.open_paired_room`) and
each member is told its room code and seat token (``paired``); the connection then closes and
the player takes its seat on ``/ws/CODE``. A player who has waited ``Settings.queue_bot_after``
seconds is offered a bot once (``bot_offer``: the client then asks ``POST /api/quick``, or goes
on waiting). Closing the connection, or ``leave``, leaves the queue.

A bot account waits in the same queue with its token (``Authorization: Bearer`` on the
handshake, or as ``profile_secret``): it waits in the bot arena's pool
(:data:`blink.server.matchmaking.POOLS`), is paired with other bot accounts only, under its
own name, and is never offered a house bot (docs/bot-api.md).

The numbers of players online (connected to a game or waiting) and waiting are published on
the lobby's topic as :class:`blink.server.bus.Presence` whenever they change (looked at on
each tick) and every :data:`REPUBLISH` seconds; each node adds up the others' (with Redis) for
its lobby streams (:meth:`QuickPlay.totals`). Each node has its own queue; behind the
cluster's HAProxy (:mod:`blink.cluster.haproxy`) every queue connection goes to one node, so
everyone waiting is paired there, and the room is handed off like any new room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect

from blink.model.registry import NoTable, UnknownGame, get_game, get_table
from blink.ratings import Rating
from blink.server import creation_limits
from blink.server.bot_accounts.service import BotAuth, bearer, profile_marks
from blink.server.bus import ROOMS, Presence
from blink.server.errors import ApiError
from blink.server.hub import Hub
from blink.server.matchmaking import Matchmaker, OfferBot, Paired, QueueError, Rules
from blink.server.profiles import lookup_secret
from blink.server.protocol import (
    BotOffer,
    ErrorFrame,
    ProtocolError,
    Queued,
    QueueJoin,
    QueueLeave,
    QueuePaired,
    QueueStatus,
    decode_queue,
    encode,
)
from blink.server.room_setup import open_paired_room
from blink.server.session import origin_ok
from blink.server.settings import Settings
from blink.server.shared_connections import admit, leave

__all__ = ["QuickPlay", "attach", "serve_queue"]

log = logging.getLogger("blink.server.quickplay")

Send = Callable[[msgspec.Struct], None]

REPUBLISH = 10.0
"""Seconds after which a node publishes its counts again though they did not change."""
MAX_NODES = 64
"""The most other nodes whose counts are added up (each within the bus's bounds)."""
SILENT_AFTER = 3 * REPUBLISH
"""Seconds after which the counts of a node not heard from are no longer counted."""


@dataclass
class _Waiting:
    """A connection waiting in the queue: how to reach it and whom to seat."""

    send: Send
    name: str
    secret: str | None
    secret_hash: str | None
    done: asyncio.Event


@dataclass(frozen=True)
class _Entry:
    """A ``join`` checked: the room's number of players, the player's rating and profile."""

    players: int
    rating: float
    secret_hash: str | None
    pool: str = "people"
    bot_name: str | None = None
    """A bot account's own name (it plays as itself, whatever ``join`` names)."""


class QuickPlay:
    """The queue of one server (``hub.quickplay``)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        s: Settings = hub.settings
        self.core = Matchmaker(
            Rules(
                base_gap=s.queue_gap,
                widen_per_second=s.queue_widen,
                max_gap=max(Rules.max_gap, s.queue_gap),
                bot_after=s.queue_bot_after,
            )
        )
        self.waiting: dict[str, _Waiting] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._own: tuple[int, int] | None = None
        self._published = float("-inf")
        self._totals: tuple[int, int] | None = None
        self.others: dict[str, tuple[Presence, float]] = {}
        """The other nodes' latest counts, and when each was heard (``Settings.clock``)."""
        self.seating: set[asyncio.Task[None]] = set()
        self.limiter: creation_limits.CreationLimiter | None = None
        """The server's creation windows: each ``join`` counts as a room asked for by its
        address (:data:`blink.server.creation_limits.ROOMS`); ``None``: not counted."""

    def presence(self) -> Presence:
        """This node's players online and waiting now."""
        waiting = len(self.waiting)
        return Presence(self.hub.bus.node, self.hub.connections + waiting, waiting)

    def totals(self) -> tuple[int, int]:
        """Players online and waiting on every node heard from lately (this one's own only
        without Redis)."""
        own = self.presence()
        online, waiting = own.online, own.waiting
        cutoff = self.hub.settings.clock() - SILENT_AFTER
        for node, (p, at) in list(self.others.items()):
            if at < cutoff:
                del self.others[node]  # a node not heard from: stopped
                continue
            online += p.online
            waiting += p.waiting
        return online, waiting

    def heard(self, event: object) -> None:
        """A bus listener: another node's counts."""
        if isinstance(event, Presence) and event.node != self.hub.bus.node:
            if event.node not in self.others and len(self.others) >= MAX_NODES:
                return  # more nodes than a deployment has: made-up names, not counted
            self.others[event.node] = (event, self.hub.settings.clock())
            self._totals = self.totals()

    def start(self) -> None:
        """Start the timer (at the app's start) and hear the other nodes' counts."""
        self.hub.bus.listen(ROOMS, self.heard)
        self._schedule()

    def stop(self) -> None:
        """Stop the timer and let every waiting connection go (at the app's end)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for w in self.waiting.values():
            w.done.set()

    def _schedule(self) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.hub.settings.queue_tick, self._tick)

    def _tick(self) -> None:
        try:
            now = self.hub.settings.clock()
            self._handle(self.core.tick(now))
            online, waiting = self.totals()
            for player, w in self.waiting.items():
                waiter = self.core.waiting.get(player)
                if waiter is None:
                    continue
                waited = max(0.0, now - waiter.since)
                w.send(QueueStatus(waited, self.core.rules.gap(waited), online, waiting))
            self._show()
        except Exception:
            log.exception("the quick play queue's tick failed")
        finally:
            self._schedule()

    def _show(self) -> None:
        """Publish this node's counts when they changed (and every :data:`REPUBLISH`
        seconds, for the nodes that start later); tell this node's lobby streams when the
        totals changed otherwise (a node went silent)."""
        p = self.presence()
        now = self.hub.settings.clock()
        if (p.online, p.waiting) != self._own or now - self._published >= REPUBLISH:
            self._own = (p.online, p.waiting)
            self._published = now
            self.hub.bus.publish(ROOMS, p)
        elif self.totals() != self._totals:
            self.hub.bus.deliver(ROOMS, p)
        self._totals = self.totals()

    def join(self, msg: QueueJoin, send: Send, address: str = "") -> tuple[str, asyncio.Event]:
        """Put a connection from ``address`` in the queue: its player id and the event set
        once it is done waiting. Raises :class:`QueueError` for a game or profile that cannot
        wait, and (``rate_limited``) when ``address`` has asked for as many rooms as its
        window allows: a join asks for a room, counted before it waits, paired or not. This
        counts in the node's own window; the WebSocket's driver uses :meth:`join_counted`."""
        entry = self.check(msg)
        wait = None if self.limiter is None else self.limiter.hit(address, creation_limits.ROOMS)
        if wait is not None:
            raise QueueError("rate_limited", creation_limits.too_many_rooms(wait))
        return self.enter(msg, entry, send)

    async def join_counted(
        self, msg: QueueJoin, send: Send, address: str = ""
    ) -> tuple[str, asyncio.Event]:
        """As :meth:`join`, the room counted in the cluster's window when the node shares one
        (:meth:`blink.server.creation_limits.CreationLimiter.count`: a Redis round trip)."""
        entry = self.check(msg)
        limiter = self.limiter
        wait = None if limiter is None else await limiter.count(address, creation_limits.ROOMS)
        if wait is not None:
            raise QueueError("rate_limited", creation_limits.too_many_rooms(wait))
        return self.enter(msg, entry, send)

    def check(self, msg: QueueJoin) -> _Entry:
        """What a ``join`` asks for, checked (:class:`QueueError` when it cannot wait)."""
        try:
            definition = get_game(msg.game)
            get_table(msg.game)
        except (UnknownGame, NoTable):
            raise QueueError("bad_options", f"there are no rooms of a game {msg.game!r}") from None
        try:
            players = definition.info.check_players(msg.players)
        except ValueError as exc:
            raise QueueError("bad_options", str(exc)) from None
        rating = Rating().ordinal
        secret_hash = None
        if msg.profile_secret:
            found = lookup_secret(self.hub, msg.profile_secret)
            if found is None:
                raise QueueError("no_such_profile", "no profile has this secret")
            secret_hash = found["secret_hash"]
            self._not_queued(secret_hash)
            rating = float(found["rating"]["ordinal"])
            if profile_marks(self.hub, found["id"])["bot"]:
                return _Entry(players, rating, secret_hash, "bots", found["name"])
        return _Entry(players, rating, secret_hash)

    def _not_queued(self, secret_hash: str | None) -> None:
        if secret_hash is not None and any(
            w.secret_hash == secret_hash for w in self.waiting.values()
        ):
            raise QueueError("already_queued", "this profile is waiting in the queue already")

    def enter(self, msg: QueueJoin, entry: _Entry, send: Send) -> tuple[str, asyncio.Event]:
        """Put a checked ``join`` (:meth:`check`) in the queue."""
        self._not_queued(entry.secret_hash)  # again: the same profile may have joined meanwhile
        player = secrets.token_hex(8)
        done = asyncio.Event()
        name = entry.bot_name or msg.name
        self.waiting[player] = _Waiting(send, name, msg.profile_secret, entry.secret_hash, done)
        bot_after = self.core.rules.bot_after if entry.pool == "people" else None
        send(Queued(msg.game, entry.players, entry.rating, bot_after, entry.pool))
        clock = self.hub.settings.clock()
        joined = self.core.join(player, entry.rating, msg.game, entry.players, clock, entry.pool)
        self._handle(joined)
        self._show()
        return player, done

    def leave(self, player: str) -> None:
        """A connection stops waiting (nothing when it was paired or gone already)."""
        self.core.leave(player)
        w = self.waiting.pop(player, None)
        if w is not None:
            w.done.set()
            self._show()

    def _handle(self, events: list[Paired | OfferBot]) -> None:
        for e in events:
            if isinstance(e, OfferBot):
                w = self.waiting.get(e.player)
                if w is not None:
                    w.send(BotOffer(e.waited))
                continue
            group = [(p, self.waiting.pop(p)) for p in e.members]
            task = asyncio.get_running_loop().create_task(self._seat(e, group))
            self.seating.add(task)
            task.add_done_callback(self.seating.discard)

    async def _seat(self, e: Paired, group: list[tuple[str, _Waiting]]) -> None:
        """Open the room of a paired group and tell each member its seat."""
        people = [(w.name, w.secret) for _, w in group]
        try:
            code, tokens = await open_paired_room(self.hub, e.game, e.players, people)
        except ApiError as exc:
            self._failed(group, exc.code, exc.message)
            return
        except Exception:
            log.exception("a room for a quick play group could not be opened")
            self._failed(group, "room_failed", "the room could not be opened: try again")
            return
        finally:
            self._show()
        names = [w.name for _, w in group]
        for seat, (_, w) in enumerate(group):
            opponents = names[:seat] + names[seat + 1 :]
            w.send(QueuePaired(code, seat, tokens[seat], e.game, e.players, opponents))
            w.done.set()

    @staticmethod
    def _failed(group: list[tuple[str, _Waiting]], code: str, message: str) -> None:
        for _, w in group:
            w.send(ErrorFrame(code, message))
            w.done.set()


async def serve_queue(ws: WebSocket) -> None:
    """The ``/api/queue`` WebSocket: one player's wait (see the module's documentation).

    A handshake's ``Authorization: Bearer`` token that is no live bot token is refused
    (``bad_bot_token``, 4011). A foreign origin, or an address past
    ``Settings.max_connections_per_address`` (counted with its game connections), is refused
    (1008). The first message must be ``join`` (in
    ``Settings.hello_timeout`` seconds); a refused one is answered with ``error`` and the
    connection is closed (4400). Once paired or refused, the server closes it (1000).
    """
    settings: Settings = ws.app.state.settings
    if not origin_ok(ws, settings):
        await ws.close(code=1008)
        return
    hub: Hub = ws.app.state.hub
    address = ws.client.host if ws.client is not None else ""
    cap = settings.max_connections_per_address
    if hub.by_address[address] >= cap:
        await ws.close(code=1008, reason="too many connections from this address")
        return
    admitted, member = await admit(ws.app.state, address, cap)  # the cluster's, with Redis
    if not admitted:
        await ws.close(code=1008, reason="too many connections from this address")
        return
    hub.by_address[address] += 1
    try:
        await _serve(ws, hub, settings)
    finally:
        hub.by_address[address] -= 1
        if not hub.by_address[address]:
            del hub.by_address[address]
        await leave(ws.app.state, member)


async def _serve(ws: WebSocket, hub: Hub, settings: Settings) -> None:
    """One accepted wait, from ``join`` to its end."""
    qp: QuickPlay = hub.quickplay  # type: ignore[attr-defined]
    await ws.accept()
    try:
        bot = bearer(hub, ws.headers.get("authorization"))
    except ApiError as exc:
        with contextlib.suppress(Exception):
            await ws.send_text(encode(ErrorFrame(exc.code, exc.message)))
            await ws.close(code=4011)
        return
    outbox: asyncio.Queue[msgspec.Struct | None] = asyncio.Queue()
    sender = asyncio.get_running_loop().create_task(_send_all(ws, outbox))
    player: str | None = None
    try:
        try:
            first = await asyncio.wait_for(ws.receive_text(), settings.hello_timeout)
            msg = decode_queue(first)
            if not isinstance(msg, QueueJoin):
                raise QueueError("join_required", "say join first")
            msg = _as_bot(msg, bot)
            if hub.draining:
                raise QueueError("shutting_down", "the server is stopping: try again soon")
            failure = hub.write_failure()
            if failure is not None:
                raise QueueError(
                    "storage_unavailable", f"the server cannot save anything now ({failure})"
                )
            address = ws.client.host if ws.client is not None else ""
            player, done = await qp.join_counted(msg, outbox.put_nowait, address)
        except (ProtocolError, QueueError) as exc:
            outbox.put_nowait(ErrorFrame(exc.code, exc.message))
            outbox.put_nowait(None)
            await sender
            with contextlib.suppress(RuntimeError):
                await ws.close(code=4400)
            return
        except TimeoutError:
            outbox.put_nowait(ErrorFrame("join_required", "no join received in time"))
            outbox.put_nowait(None)
            await sender
            with contextlib.suppress(RuntimeError):
                await ws.close(code=4008)
            return
        await _wait(ws, qp, player, done)
        outbox.put_nowait(None)
        await sender
        with contextlib.suppress(RuntimeError):
            await ws.close(code=1000)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        if player is not None:
            qp.leave(player)
        if not sender.done():
            sender.cancel()


def _as_bot(msg: QueueJoin, bot: BotAuth | None) -> QueueJoin:
    """A ``join`` on a connection whose handshake gave a bot token: waits as that bot (the
    token is its profile's secret), whatever ``profile_secret`` it names."""
    if bot is None:
        return msg
    return msgspec.structs.replace(msg, profile_secret=bot.token)


async def _wait(ws: WebSocket, qp: QuickPlay, player: str, done: asyncio.Event) -> None:
    """Read the waiting connection until it leaves, goes or is done waiting."""
    reader = asyncio.get_running_loop().create_task(_read_until_leave(ws))
    finished = asyncio.get_running_loop().create_task(done.wait())
    try:
        await asyncio.wait({reader, finished}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        reader.cancel()
        finished.cancel()
    if not done.is_set():
        qp.leave(player)


async def _read_until_leave(ws: WebSocket) -> None:
    """Return at ``leave`` or when the client goes (other messages are ignored)."""
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        data = message.get("text") or message.get("bytes") or b""
        with contextlib.suppress(ProtocolError):
            if isinstance(decode_queue(data), QueueLeave):
                return


async def _send_all(ws: WebSocket, outbox: asyncio.Queue[msgspec.Struct | None]) -> None:
    """Write the frames queued for a waiting connection, until ``None``."""
    while True:
        frame = await outbox.get()
        if frame is None:
            return
        try:
            await ws.send_text(encode(frame))
        except Exception:  # the client went: the reader sees it
            return


def attach(hub: Hub, limiter: creation_limits.CreationLimiter | None = None) -> QuickPlay:
    """At start: the server's queue (``hub.quickplay``), its timer running, its joins counted
    by ``limiter``."""
    qp = QuickPlay(hub)
    qp.limiter = limiter
    hub.quickplay = qp  # type: ignore[attr-defined]
    qp.start()
    return qp

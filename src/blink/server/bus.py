"""The bus: small typed events on topics, published by the server and pushed to the browsers'
event streams (:mod:`blink.server.sse`), in one process or, through Redis, across the nodes of
one deployment.

An event is a msgspec Struct (:data:`Event`): a tournament changed (:class:`TournamentChanged`)
or one of its match rooms finished a game (:class:`MatchFinished`),
the players online and waiting in quick play's queue (:class:`Presence`), a room wanted by
the node the router sends its clients to (:class:`RoomWanted`, between nodes only),
a room of the lobby changed (:class:`RoomChanged`, and the nodes' announcements of their open
rooms, :class:`RoomsAnnounced` and :class:`RoomsAsked`), a public game finished
(:class:`GamesFinished`), the leaderboard changed (:class:`LeaderboardChanged`), and
:class:`Resync`: events may have been missed, fetch the current state again.

Two buses behind one interface (:class:`Bus`):

- :class:`LocalBus` (the default): delivery in this process only.
- :class:`RedisBus` (``blink serve --redis-url``): every event is delivered in this process at
  once and queued for Redis pub/sub (channel ``blink:<topic>``); a task publishes the queue and
  another reads the other nodes' events. Publishing never waits: a play that publishes does not
  wait for Redis. While Redis cannot be reached the node goes on serving its own events, logs
  the loss once, and reconnects with redis-py's ``Retry`` and ``ExponentialBackoff``; once
  back it tells its own subscribers and the other nodes to resync (events were lost meanwhile).

A consumer is a :class:`Subscription` (a bounded queue: one that falls behind gets a single
:class:`Resync` instead of unbounded memory) or a listener called at delivery (the lobby's
directory of rooms, :mod:`blink.server.feeds`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Annotated, Any

import msgspec

from blink.server.protocol import RoomSummary
from blink.server.redis_close import within
from blink.server.redis_url import shown_redis_url, without_password

__all__ = [
    "LEADERBOARD",
    "LEASES",
    "MAX_MESSAGE",
    "MAX_ONLINE",
    "MAX_ROOMS",
    "MAX_SPECTATORS",
    "ROOMS",
    "TOPICS",
    "TOURNAMENTS",
    "Bus",
    "Event",
    "GamesFinished",
    "LeaderboardChanged",
    "LocalBus",
    "MatchFinished",
    "Presence",
    "RedisBus",
    "Resync",
    "RoomChanged",
    "RoomWanted",
    "RoomsAnnounced",
    "RoomsAsked",
    "Subscription",
    "TournamentChanged",
    "kind",
    "make_bus",
    "unsound",
]

log = logging.getLogger("blink.server.bus")

TOURNAMENTS = "tournaments"
"""The topic of :class:`TournamentChanged` and :class:`MatchFinished`."""
ROOMS = "rooms"
"""The lobby's topic: :class:`RoomChanged`, :class:`RoomsAnnounced`, :class:`RoomsAsked`,
:class:`GamesFinished`."""
LEADERBOARD = "leaderboard"
"""The topic of :class:`LeaderboardChanged`."""
LEASES = "leases"
"""The nodes' own topic, never streamed to a browser: :class:`RoomWanted`."""
TOPICS = (TOURNAMENTS, ROOMS, LEADERBOARD, LEASES)
"""Every topic."""


MAX_ID = 128
"""The longest id of a tournament or a match on the bus."""
MAX_ONLINE = 1_000_000
"""The most players one node may say it has online (far more than one process holds)."""
MAX_ROOMS = 10_000
"""The most rooms one node may announce at once."""
MAX_SPECTATORS = 100_000
"""The most spectators a room's summary may count."""
MAX_MESSAGE = 8 * 1024 * 1024
"""The largest message read from Redis (bytes); a larger one is dropped unread."""

_Code = Annotated[str, msgspec.Meta(pattern=r"^[A-Z0-9]{1,16}$")]
"""A room's code as the nodes write it (capitals and digits)."""
_Node = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")]
"""A node's name on the bus."""
_Id = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID)]
_Count = Annotated[int, msgspec.Meta(ge=0, le=MAX_ONLINE)]
_Time = Annotated[float, msgspec.Meta(ge=0, le=1e11)]
"""Seconds since 1970 (before the year 5138)."""


class TournamentChanged(msgspec.Struct, frozen=True, tag="tournament"):
    """Tournament ``id`` was stored at ``version``."""

    id: _Id
    version: Annotated[int, msgspec.Meta(ge=0, le=2**62)]


class MatchFinished(msgspec.Struct, frozen=True, tag="match"):
    """A game of match ``match`` of tournament ``id`` ended in room ``room`` and is stored:
    the node organising the tournament enters it (reading the stored games, never this event
    alone)."""

    id: _Id
    match: _Id
    room: _Code


class RoomChanged(msgspec.Struct, frozen=True, tag="room"):
    """A public room of node ``node`` opened or changed (its seats, status, spectators);
    ``room`` is ``None`` once it is no longer open (finished, closed, out of memory)."""

    code: _Code
    node: _Node
    created_at: _Time
    room: RoomSummary | None


class RoomsAnnounced(msgspec.Struct, frozen=True, tag="rooms"):
    """Every open public room of node ``node`` (at its start, after a reconnection to Redis,
    and in answer to :class:`RoomsAsked`)."""

    node: _Node
    rooms: Annotated[list[RoomChanged], msgspec.Meta(max_length=MAX_ROOMS)]


class RoomsAsked(msgspec.Struct, frozen=True, tag="ask"):
    """Node ``node`` asks the others to announce their rooms (it has just started, or lost
    Redis for a while)."""

    node: _Node


class RoomWanted(msgspec.Struct, frozen=True, tag="wanted"):
    """Node ``node`` was asked for room ``code`` by a client the router pinned to it (the
    room is in its WebSocket's URL), and another node holds the room's lease: the holder hands
    the room over (:meth:`blink.server.hub.Hub.move`), so that the room goes back to the node
    the router sends it to."""

    code: _Code
    node: _Node


class GamesFinished(msgspec.Struct, frozen=True, tag="games"):
    """A game of a public room finished: the lobby's list of finished games changed."""


class LeaderboardChanged(msgspec.Struct, frozen=True, tag="leaderboard"):
    """Ratings were stored, or a profile was made."""


class Presence(msgspec.Struct, frozen=True, tag="presence"):
    """How many players node ``node`` has online (connected to a game, or waiting in quick
    play's queue) and how many wait in its queue: published when they change and every few
    seconds (:mod:`blink.server.quickplay`), and added up by every node for its lobby."""

    node: _Node
    online: _Count
    waiting: _Count


class Resync(msgspec.Struct, frozen=True, tag="resync"):
    """Events may have been lost (a subscriber fell behind, or a node lost Redis): fetch the
    current state again."""


Event = (
    TournamentChanged
    | MatchFinished
    | RoomChanged
    | RoomsAnnounced
    | RoomsAsked
    | GamesFinished
    | LeaderboardChanged
    | Presence
    | RoomWanted
    | Resync
)
"""Every kind of event (a tagged union: each names its kind in the ``type`` field)."""

RESYNC = Resync()


class Envelope(msgspec.Struct, frozen=True):
    """An event as it travels through Redis: the node that published it, and the event."""

    node: _Node
    event: Event


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Envelope)

DEFAULT_LIMIT = 256
"""Events a subscription holds before it is replaced by one :class:`Resync`."""


class Subscription:
    """The events of one topic for one consumer, in order, at most ``limit`` of them waiting:
    past that, what waits is dropped for a single :class:`Resync`. Use it as a context
    manager (``with bus.subscribe(topic) as sub``) so it is closed."""

    def __init__(self, fanout: _Fanout, limit: int) -> None:
        self._fanout = fanout
        self.limit = max(1, limit)
        self._items: deque[Event] = deque()
        self._ready = asyncio.Event()
        self.resyncs = 0
        """How many times this subscriber fell behind."""

    def put(self, event: Event) -> None:
        """Deliver ``event`` (never waits)."""
        if len(self._items) >= self.limit:
            self._items.clear()
            self._items.append(RESYNC)
            self.resyncs += 1
        else:
            self._items.append(event)
        self._ready.set()

    def pending(self) -> int:
        """Events waiting."""
        return len(self._items)

    def get_nowait(self) -> Event | None:
        """The next event if one waits, else ``None``."""
        return self._items.popleft() if self._items else None

    async def get(self) -> Event:
        """The next event (waits for one)."""
        while not self._items:
            self._ready.clear()
            await self._ready.wait()
        return self._items.popleft()

    def close(self) -> None:
        """Stop receiving events."""
        self._fanout.subs.discard(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class _Fanout:
    """The consumers of one topic."""

    def __init__(self) -> None:
        self.subs: set[Subscription] = set()
        self.listeners: list[Callable[[Event], None]] = []

    def deliver(self, event: Event) -> None:
        for listener in self.listeners:
            try:
                listener(event)
            except Exception:
                log.exception("a bus listener failed")
        for sub in list(self.subs):
            sub.put(event)


class Bus:
    """Publish and subscribe to the events of :data:`TOPICS` (:class:`LocalBus` in one
    process, :class:`RedisBus` across nodes)."""

    shared = False
    """Whether other nodes hear this bus (Redis)."""

    def __init__(self, node: str | None = None) -> None:
        self.node = node or secrets.token_hex(4)
        """This node's name on the bus (random unless given)."""
        self._topics: dict[str, _Fanout] = {t: _Fanout() for t in TOPICS}
        self.sent: dict[str, int] = {}
        """Messages handed to the other nodes (Redis) so far, by their event's :func:`kind`."""
        self.heard: dict[str, int] = {}
        """Messages of the other nodes read from Redis and delivered here, by kind."""
        self.ignored = 0
        """Messages read from Redis and not delivered: this node's own (Redis sends every
        subscriber what it publishes) and those that could not be believed."""

    def _fanout(self, topic: str) -> _Fanout:
        try:
            return self._topics[topic]
        except KeyError:
            raise ValueError(f"unknown topic {topic!r}: one of {', '.join(TOPICS)}") from None

    def publish(self, topic: str, event: Event) -> None:
        """Deliver ``event`` to the subscribers of ``topic`` here and on the other nodes
        (never waits)."""
        self.deliver(topic, event)

    def deliver(self, topic: str, event: Event) -> None:
        """Deliver ``event`` to this node's consumers of ``topic`` only."""
        self._fanout(topic).deliver(event)

    def subscribe(self, topic: str, limit: int = DEFAULT_LIMIT) -> Subscription:
        """A new :class:`Subscription` to ``topic``."""
        fanout = self._fanout(topic)
        sub = Subscription(fanout, limit)
        fanout.subs.add(sub)
        return sub

    def listen(self, topic: str, listener: Callable[[Event], None]) -> None:
        """Call ``listener(event)`` at each delivery on ``topic`` (on the loop; it must not
        block)."""
        self._fanout(topic).listeners.append(listener)

    def subscribers(self, topic: str) -> int:
        """Open subscriptions to ``topic`` on this node."""
        return len(self._fanout(topic).subs)

    def resync_all(self) -> None:
        """Tell every consumer of every topic on this node to resync."""
        for fanout in self._topics.values():
            fanout.deliver(RESYNC)

    async def start(self) -> None:
        """Start (the Redis bus connects in the background)."""

    async def stop(self) -> None:
        """Stop."""


class LocalBus(Bus):
    """The bus of one process: events are delivered here only."""


class RedisBus(Bus):
    """The bus of a deployment of several nodes, through Redis pub/sub (redis-py's asyncio
    client). Local consumers get every event at once, whatever Redis does."""

    shared = True

    def __init__(
        self,
        url: str,
        node: str | None = None,
        prefix: str = "blink",
        queue_limit: int = 4096,
        backoff_cap: float = 2.0,
        backoff_base: float = 0.05,
        ping_after: float = 5.0,
    ) -> None:
        super().__init__(node)
        self.url = url
        self.ping_after = ping_after
        """Seconds without a message after which the reader pings Redis: a link whose other end
        is gone without closing it (a host that died, a network cut) is found within about
        this long, where a read that waits for ever would never end."""
        self.prefix = prefix
        self._outbox: deque[tuple[str, bytes, str]] = deque()
        """(channel, message, the event's kind) waiting for Redis."""
        self._queue_limit = queue_limit
        self._overflowed = False
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._client: Any = None
        self._backoff = (backoff_cap, backoff_base)
        self.connected = False
        """Whether the reader is subscribed to Redis now."""
        self._down = False
        self._ever = False
        self._on_connect: list[Callable[[], None]] = []
        self.published = 0
        """Events handed to Redis so far."""

    def channel(self, topic: str) -> str:
        """The Redis channel of ``topic``."""
        return f"{self.prefix}:{topic}"

    def on_connect(self, hook: Callable[[], None]) -> None:
        """Call ``hook()`` each time the bus is subscribed to Redis (first and again)."""
        self._on_connect.append(hook)

    def publish(self, topic: str, event: Event) -> None:
        """Deliver here at once, and queue for the other nodes (the oldest queued events are
        dropped past ``queue_limit``, and the others told to resync)."""
        self.deliver(topic, event)
        if len(self._outbox) >= self._queue_limit:
            self._outbox.popleft()
            self._overflowed = True
        self._outbox.append(
            (self.channel(topic), _encoder.encode(Envelope(self.node, event)), kind(event))
        )
        self._wake.set()

    def _retry(self) -> Any:
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialBackoff

        cap, base = self._backoff
        # A bounded count: ExponentialBackoff computes base * 2**failures, and each outage
        # starts the count again (the callers loop).
        return Retry(ExponentialBackoff(cap=cap, base=base), retries=100)

    async def start(self) -> None:
        """Make the client and start the publisher and reader tasks (they connect, and
        reconnect, by themselves)."""
        import redis.asyncio as redis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        self._client = redis.Redis.from_url(
            self.url,
            socket_connect_timeout=2.0,
            health_check_interval=15,
            retry=Retry(NoBackoff(), 0),  # reconnections are the bus's own (with backoff)
        )
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._publisher()), loop.create_task(self._reader())]

    async def stop(self) -> None:
        """Stop the tasks and close the client, each close bounded by
        :func:`blink.server.redis_close.within` whatever Redis does."""
        for t in self._tasks:
            t.cancel()
        tasks, self._tasks = self._tasks, []
        client, self._client = self._client, None
        if tasks:
            await within(asyncio.gather(*tasks, return_exceptions=True), "the bus's tasks")
        if client is not None:
            await within(client.aclose(), "the bus's client")

    # -- the connection's health

    async def _publish_failed(self, error: BaseException) -> None:
        # While the reader is subscribed, Redis is there: this was a connection of the pool
        # that Redis dropped meanwhile, and the retry takes a new one.
        if self.connected:
            log.debug("publishing to Redis failed (%s): retrying", error)
            return
        await self._lost(error)

    async def _lost(self, error: BaseException) -> None:
        self.connected = False
        if not self._down:
            self._down = True
            log.warning(
                "lost Redis at %s (%s): this node serves its own events and reconnects",
                shown_redis_url(self.url),
                without_password(str(error), self.url) or type(error).__name__,
            )

    def _back(self) -> None:
        self.connected = True
        if self._down:
            self._down = False
            log.warning(
                "Redis at %s is back: events flow between the nodes again",
                shown_redis_url(self.url),
            )
        if self._ever:
            # Whatever came or went meanwhile was not heard: resync here and on the other
            # nodes (the first connection has nothing to catch up: what this node published
            # before it waits in the queue).
            self.resync_all()
            for topic in TOPICS:
                self._outbox.appendleft(
                    (self.channel(topic), _encoder.encode(Envelope(self.node, RESYNC)), "resync")
                )
            self._wake.set()
        self._ever = True
        for hook in self._on_connect:
            try:
                hook()
            except Exception:
                log.exception("a bus connection hook failed")

    # -- the tasks

    async def _publisher(self) -> None:
        from redis.exceptions import ConnectionError, TimeoutError

        while True:
            while not self._outbox:
                self._wake.clear()
                await self._wake.wait()
            if self._overflowed:
                self._overflowed = False
                for topic in TOPICS:
                    self._outbox.appendleft(
                        (
                            self.channel(topic),
                            _encoder.encode(Envelope(self.node, RESYNC)),
                            "resync",
                        )
                    )
            channel, data, what = self._outbox[0]
            try:
                await self._retry().call_with_retry(
                    lambda c=channel, d=data: self._client.publish(c, d), self._publish_failed
                )
            except (ConnectionError, TimeoutError, OSError):
                continue  # a hundred failures in a row: go on retrying, with a new count
            if self._outbox and self._outbox[0][1] is data:
                self._outbox.popleft()
            self.published += 1
            self.sent[what] = self.sent.get(what, 0) + 1

    async def _reader(self) -> None:
        from redis.exceptions import ConnectionError, TimeoutError

        channels = [self.channel(t) for t in TOPICS]
        while True:
            # Every message counts as a sign of life (subscribe confirmations and pongs too):
            # `None` then means only that the wait timed out.
            pubsub = self._client.pubsub()
            try:
                await self._retry().call_with_retry(
                    lambda p=pubsub: p.subscribe(*channels), self._lost
                )
                self._back()
                pinged = False
                loop = asyncio.get_running_loop()
                while True:
                    asked = loop.time()
                    msg = await pubsub.get_message(timeout=self.ping_after)
                    if msg is None and loop.time() - asked < self.ping_after / 2:
                        continue  # not a wait that timed out: read again
                    if msg is None:
                        if pinged:  # nothing, not even the answer to the ping
                            raise ConnectionError("Redis did not answer a ping")
                        await pubsub.ping()
                        pinged = True
                        continue
                    pinged = False
                    if msg.get("type") == "message":
                        self._received(msg)
            except (ConnectionError, TimeoutError, OSError) as exc:
                await self._lost(exc)
            finally:
                await _let_go(pubsub)

    def _received(self, msg: dict[str, Any]) -> None:
        """One message from Redis: delivered here if it is a sound event of another node on
        a topic it belongs to; anything else is dropped (logged at debug level)."""
        try:
            channel = msg["channel"]
            channel = channel.decode() if isinstance(channel, bytes) else str(channel)
            topic = channel.removeprefix(self.prefix + ":")
            event = self.check(topic, msg["data"])
        except Exception:  # whatever came, the reader goes on
            log.debug("dropped a message from Redis that could not be read", exc_info=True)
            event = None
        if event is None:
            self.ignored += 1
            return
        what = kind(event)
        self.heard[what] = self.heard.get(what, 0) + 1
        self.deliver(topic, event)

    def check(self, topic: str, data: object) -> Event | None:
        """The event of a message ``data`` heard on ``topic``, or ``None`` (dropped, logged at
        debug level) when it is not for this node's consumers: this node's own, or not sound
        (:func:`unsound`). Whoever can publish to Redis can send anything: every field is
        checked before a consumer sees it."""
        if not isinstance(data, bytes | str) or len(data) > MAX_MESSAGE:
            log.debug("dropped a message on %s: not text, or too long", topic)
            return None
        try:
            env = _decoder.decode(data)
        except msgspec.DecodeError as exc:
            log.debug("dropped a message on %s that is not a blink event: %s", topic, exc)
            return None
        if env.node == self.node or topic not in self._topics:
            return None
        why = unsound(topic, env)
        if why is not None:
            log.debug("dropped a %s event from %s: %s", type(env.event).__name__, env.node, why)
            return None
        return env.event


def kind(event: Event) -> str:
    """The kind of ``event``: its tag on the wire (``room``, ``presence``, ``wanted``...)."""
    return str(event.__struct_config__.tag)


_TOPIC_OF: dict[type[Any], str] = {
    TournamentChanged: TOURNAMENTS,
    MatchFinished: TOURNAMENTS,
    RoomChanged: ROOMS,
    RoomsAnnounced: ROOMS,
    RoomsAsked: ROOMS,
    GamesFinished: ROOMS,
    Presence: ROOMS,
    LeaderboardChanged: LEADERBOARD,
    RoomWanted: LEASES,
}
"""The topic each kind of event travels on (:class:`Resync` on any)."""
_STATUSES = frozenset({"waiting", "countdown", "playing", "between", "finished", "closed"})
_MAX_TEXT = 64
"""The longest name, game, ruleset or bot of a room's summary."""


def unsound(topic: str, env: Envelope) -> str | None:
    """Why an event heard from Redis cannot be believed (one phrase), or ``None``: on the
    topic of its kind, naming the node that sent it, and a room's summary that a room could
    have (its code, seats, counts and names within bounds)."""
    event = env.event
    if not isinstance(event, Resync) and _TOPIC_OF.get(type(event)) != topic:
        return f"not an event of topic {topic}"
    node = getattr(event, "node", env.node)
    if node != env.node:
        return f"it names node {node}, not its sender"
    if isinstance(event, Presence) and event.waiting > event.online:
        return "more players waiting than online"
    rooms = event.rooms if isinstance(event, RoomsAnnounced) else [event]
    for r in rooms:
        if isinstance(r, RoomChanged):
            if r.node != env.node:
                return f"room {r.code} of node {r.node}, not its sender"
            why = _unsound_room(r.code, r.room)
            if why is not None:
                return why
    return None


def _unsound_room(code: str, room: RoomSummary | None) -> str | None:
    """Why a room's summary from another node cannot be believed, or ``None``."""
    if room is None:
        return None
    seats = [s.seat for s in room.seats]
    texts = [room.game, room.ruleset or "", *(s.name or "" for s in room.seats)]
    texts += [s.bot or "" for s in room.seats]
    if room.code != code:
        return f"a summary of room {room.code} for room {code}"
    if not 2 <= room.players <= 16 or seats != list(range(room.players)):
        return f"room {code}'s seats are not its {room.players} players'"
    if len(set(room.open_seats)) != len(room.open_seats) or not set(room.open_seats) <= set(seats):
        return f"room {code}'s open seats are not among its seats"
    if not 0 <= room.spectators <= MAX_SPECTATORS or not 1 <= room.best_of <= 99:
        return f"room {code}'s counts are out of bounds"
    if room.status not in _STATUSES or any(len(t) > _MAX_TEXT for t in texts):
        return f"room {code}'s status or names are out of bounds"
    return None


async def _let_go(pubsub: Any) -> None:
    """Close the reader's ``pubsub``: its socket at once (without waiting for the other end,
    which may be gone), then redis-py's own close, bounded by
    :func:`blink.server.redis_close.within`."""
    connection = getattr(pubsub, "connection", None)
    if connection is not None:
        with contextlib.suppress(Exception):
            await connection.disconnect(nowait=True)
    await within(pubsub.aclose(), "the bus's subscription")


def make_bus(redis_url: str | None) -> Bus:
    """The bus for ``redis_url`` (:class:`RedisBus`), or the in-process one (``None``)."""
    return LocalBus() if not redis_url else RedisBus(redis_url)

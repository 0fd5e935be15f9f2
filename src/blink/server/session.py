"""The game's WebSocket (``/ws/CODE``; ``/ws`` for older clients): one :class:`Session` per
connection.

A session checks each client message (size, rate, then the typed protocol of
:mod:`blink.server.protocol`, with the action messages of the room's game once the connection
has said hello) and hands it to the connection's room: ``hello`` attaches the connection to a
room, actions go to :meth:`blink.server.room.room.Room.act`. Frames leave through the connection's
queue (:class:`blink.server.conn.Conn`), written straight onto the socket when uvicorn allows
it (:mod:`blink.server.direct`). See docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import deque
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import State
from starlette.types import Send
from starlette.websockets import WebSocket, WebSocketState

from blink.server import lag
from blink.server.bot_accounts.quotas import BotConnections
from blink.server.bot_accounts.service import BotAuth, bearer, live_seat
from blink.server.conn import Conn
from blink.server.creation_limits import CreationLimiter
from blink.server.direct import (
    WS_IMPL,
    DirectSocket,
    Inbox,
    uvicorn_problem,
    uvicorn_version,
    why_not_direct,
)
from blink.server.errors import ApiError
from blink.server.forwarded import pinned_room
from blink.server.hub import Hub
from blink.server.lease import RoomElsewhere
from blink.server.message_limits import MessageLimiter
from blink.server.protocol import (
    PROTOCOL,
    Chat,
    ErrorFrame,
    Hello,
    Leave,
    Left,
    Pause,
    Ping,
    ProtocolError,
    Refused,
    Rematch,
    Resync,
    decode,
    encode,
)
from blink.server.room import admission
from blink.server.room.admission import admits_bots
from blink.server.room.practice import set_paused
from blink.server.room.room import Room
from blink.server.room.seats import Refusal, Seat
from blink.server.settings import Settings
from blink.server.shared_connections import admit, leave

__all__ = ["BotConnections", "Session", "endpoint", "origin_ok", "serve"]

log = logging.getLogger("blink.server")


def host_name(netloc: str) -> str:
    """The host name of a ``Host`` header or an Origin's netloc, without the port."""
    return (urlsplit(f"//{netloc}").hostname or "").lower()


def origin_ok(ws: WebSocket, settings: Settings) -> bool:
    """Whether the handshake may open a game connection: its ``Host`` is one the server
    answers to (any, when none is configured), and its ``Origin`` is absent, allowed, or one
    of those hosts (the handshake's own host, when none is configured)."""
    host = ws.headers.get("host", "")
    allowed = settings.allowed_hosts
    if allowed and host_name(host) not in allowed:
        return False
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    if origin in settings.allowed_origins or "*" in settings.allowed_origins:
        return True
    if allowed:
        return host_name(urlsplit(origin).netloc) in allowed
    return urlsplit(origin).netloc.lower() == host.lower()


def _with_people(room: Room) -> bool:
    """Whether a person (not a house bot, not a bot account) has a seat in ``room``."""
    return any(s.kind == "human" and s.bot_account is None for s in room.seats)


class Session:
    """The per-connection state of the WebSocket loop."""

    def __init__(
        self,
        ws: WebSocket,
        hub: Hub,
        settings: Settings,
        send: Send,
        limiter: CreationLimiter | None = None,
        messages: MessageLimiter | None = None,
        url_room: str | None = None,
        bot: BotAuth | None = None,
        bots: BotConnections | None = None,
    ) -> None:
        self.bot = bot
        """The bot account whose token the handshake gave (``Authorization: Bearer``)."""
        self.bots = bots
        self.counted: str | None = bot.profile_id if bot is not None else None
        """The bot account this connection is counted for (:class:`BotConnections`)."""
        self.bot_member: str | None = None
        """This connection in the cluster's count of the bot's seat's connections
        (:meth:`BotConnections.take_shared`), taken at its ``hello``."""
        self.waiting: list[str | bytes] | None = None
        """The messages that came while the cluster counted the connection of the bot whose
        seat the ``hello`` took, or while the bot's node caught up with its count of the
        bot's messages (``None``: neither)."""
        self.admitting: asyncio.Task[None] | None = None
        """That count, the ``hello`` waiting on it."""
        self.resuming: asyncio.Task[None] | None = None
        """The wait for the bot's node to reserve what it let through on credit, the
        messages after it held (:meth:`_wait_for`)."""
        self.held: deque[tuple[float, Room, Any]] = deque()
        """A bot account's actions held for its minimum reaction time: when each is due."""
        self.held_ids: set[str] = set()
        self.hold_timer: asyncio.TimerHandle | None = None
        self.url_room = url_room
        """The room code of the connection's path (``/ws/CODE``), in capitals; ``None`` on
        ``/ws``, where ``hello`` alone names the room."""
        self.limiter = limiter
        """Counts this address's lookups of room codes that do not exist (``None``: none)."""
        self.lookups_wait: float | None = None
        """Seconds until this address may look rooms up again (``None``: it may), asked of
        :attr:`limiter` by the driver (:func:`serve`) before the connection's first message:
        a connection says hello once."""
        self.counting: asyncio.Task[None] | None = None
        """The count of a missed room code in the cluster's window, the close waiting on it."""
        self.ws = ws
        self.hub = hub
        self.settings = settings
        self.conn = Conn(settings.send_queue_limit)
        self.conn.on_overflow = self._overflow
        self.direct = DirectSocket.find(send)
        self.closer: asyncio.Task[None] | None = None
        if self.direct is not None:
            self.conn.writer = self._write_direct
        self.messages = messages or MessageLimiter(settings.message_rate, settings.clock)
        """The moving windows of client messages (the app's, shared by its connections)."""
        self.key = self.messages.open()
        self.errors = 0
        self.hello = False
        self.closing = False
        self.metrics = hub.metrics
        self.received = 0.0
        """When the message being handled came (``perf_counter``; measured with metrics)."""

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
        """Send the queued frames through ASGI until a close item (the path without direct
        writes)."""
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
        """Send an ``error`` frame; too many bad messages close the connection (1008)."""
        self.errors += 1
        self.conn.send(encode(ErrorFrame(code=code, message=message, id=msg_id)))
        if self.errors > self.settings.max_errors:
            self.close(1008, "too many bad messages")

    def refuse(self, msg_id: str, code: str, message: str) -> None:
        """Send a ``refused`` frame for action ``msg_id`` of a connection without a seat (a
        spectator's): nothing is kept, as no seat's ids are involved (a seat's refusals are
        the room's: :meth:`blink.server.room.room.Room.answer_refusal`)."""
        self.conn.send(encode(Refused(id=msg_id, code=code, message=message)))

    def close(self, code: int, reason: str) -> None:
        """Close the connection after the frames already queued."""
        self.closing = True
        self.conn.close(code, reason)

    def rate_ok(self) -> bool:
        """Count one message in the connection's moving window (``Settings.message_rate``);
        ``False`` when the window is full."""
        return self.messages.hit(self.key)

    def receive(self, data: str | bytes) -> None:
        """One message from the client: size and rate checks, then :meth:`handle`."""
        if self.closing or self.conn.moving:
            return
        if self.metrics is not None:
            self.received = time.perf_counter()
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
        if self.waiting is not None:
            self.waiting.append(data)
            return
        self._count(data)

    def _count(self, data: str | bytes) -> None:
        """Count one message in its bot's window (a bot account's connection), then
        :meth:`handle` it; held, with the messages after it, while the bot's node waits for
        the cluster's count to catch up (:meth:`BotConnections.owing`)."""
        bots, profile = self.bots, self.counted
        if profile is not None and bots is not None:
            owed = bots.owing(profile)
            if owed is not None:
                self._wait_for(owed, data)
                return
            if not bots.hit(profile):
                message = "this bot's connections together sent too many messages"
                self.error("bot_rate_limited", message)
                self.close(1008, "bot rate limit")
                return
        self.handle(data)

    def _wait_for(self, owed: asyncio.Task[None], data: str | bytes) -> None:
        """Hold ``data`` and the messages after it until ``owed`` (a reservation, bounded by
        the Redis calls' wait) is done, then count and handle them in order."""
        self.waiting = [data]

        async def resume() -> None:
            with contextlib.suppress(Exception):  # its failure is the node's to count
                await asyncio.shield(owed)
            held, self.waiting = self.waiting or [], None
            self._replay(held)

        self.resuming = asyncio.get_running_loop().create_task(resume())

    def _replay(self, held: list[str | bytes]) -> None:
        """Count and handle the messages ``held`` while the connection waited, in order; those
        left when a new wait begins join it."""
        for i, data in enumerate(held):
            if self.closing:
                return
            if self.waiting is not None:
                self.waiting.extend(held[i:])
                return
            self._count(data)

    def handle(self, text: str | bytes) -> None:
        """Decode one message (with the room's action messages once attached) and act on it."""
        room = self.conn.room
        try:
            msg = decode(text, room.table if self.hello and room is not None else None)
        except ProtocolError as exc:
            if exc.action and exc.msg_id is not None and room is not None:
                self._refuse_malformed(room, exc.msg_id, exc.code, exc.message)
            else:
                self.error(exc.code, exc.message, exc.msg_id)
            return
        if isinstance(msg, Ping):
            meters = None if room is None or not self.hello else [s.lag for s in room.seats]
            answer = lag.pong(
                msg, self.settings.clock(), secrets.randbits(31), meters, self.conn.seat
            )
            last = self.conn.last_frame
            self.conn.send(encode(answer))
            self.conn.last_frame = last  # a pong makes no play possible
            return
        if isinstance(msg, Hello):
            self.on_hello(msg)
            return
        if not self.hello or room is None:
            self.error("hello_required", "send hello first")
            return
        if isinstance(msg, Resync):
            room.resync(self.conn)
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
        elif isinstance(msg, Chat):
            self.on_chat(room, msg)
        elif isinstance(msg, Pause):
            self.on_pause(room, msg)
        elif isinstance(msg, Leave):
            seat = self.conn.seat
            room.detach(self.conn)
            if seat is not None:
                room.leave(seat)
            self.conn.send(encode(Left()))
            self.close(1000, "left")
        else:
            self.on_action(room, msg)

    def on_chat(self, room: Room, msg: Chat) -> None:
        """A quick chat phrase: a player's goes to the room; a spectator only reads them."""
        if self.conn.seat is None:
            self.error("not_a_player", "spectators cannot chat")
            return
        refused = room.say(self.conn.seat, msg.phrase)
        if refused is None:
            return
        code, message = refused
        if code == "chat_too_fast":  # a hasty click, not a bad message: not counted
            self.conn.send(encode(ErrorFrame(code=code, message=message)))
        else:
            self.error(code, message)

    def _missed(self) -> None:
        """The hello named a room that does not exist: count it for the address, then close
        (once the cluster's window, a Redis round trip, has counted it)."""
        limiter = self.limiter
        address = self.ws.client.host if self.ws.client is not None else ""
        if limiter is None or limiter.shared is None:
            if limiter is not None:
                limiter.missed(address)
            self.close(4004, "no such room")
            return
        self.closing = True  # nothing more is read meanwhile

        async def count_then_close() -> None:
            await limiter.count_miss(address)
            self.conn.close(4004, "no such room")

        self.counting = asyncio.get_running_loop().create_task(count_then_close())

    def on_pause(self, room: Room, msg: Pause) -> None:
        """A practice game's player pauses or resumes it (:mod:`blink.server.room.practice`)."""
        if self.conn.seat is None:
            self.error("not_a_player", "spectators cannot pause the game", msg.id)
            return
        refused = set_paused(room, self.conn.seat, msg.paused)
        if refused is None:
            return
        code, message = refused
        if code == "no_game":  # the game ended as the button was pressed: not a bad message
            self.conn.send(encode(ErrorFrame(code=code, message=message, id=msg.id)))
        else:
            self.error(code, message, msg.id)

    def on_hello(self, msg: Hello) -> None:
        """``hello``: check the protocol, the room and the token, then join the room."""
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
        if self.lookups_wait is not None:
            self.error("rate_limited", "too many unknown room codes from your address")
            self.close(1008, "rate limit")
            return
        code = msg.room
        if self.url_room is not None:
            if code.upper() != self.url_room:
                self.error(
                    "wrong_room",
                    f"this connection is for room {self.url_room!r}, not {msg.room!r}",
                )
                self.close(4010, "wrong room")
                return
            code = self.url_room
        try:
            room = self.hub.room(code)
        except RoomElsewhere as exc:
            if self.url_room is not None and pinned_room(self.ws.scope) == code:
                # The router pinned the room here (it said so, and it is trusted): bring it
                # here. Any other request (a node reached some other way, a path the router
                # did not hash) moves nothing.
                self.hub.wanted(code)
            self.error("room_elsewhere", str(exc))
            self.close(1013, "try again")
            return
        if room is None:
            self.error("no_such_room", f"there is no room {msg.room!r}")
            self._missed()
            return
        seat = None
        token = msg.token
        if token is None and not msg.spectate and self.bot is not None:
            token = self.bot.token  # a bot account's own seat
        if token is not None:
            seat = room.seat_for_token(token)
            if seat is None:
                self.error("bad_token", "that token does not hold a seat in this room")
                self.close(4003, "bad token")
                return
            if seat.left:
                self.error("seat_left", "you left this seat: it cannot be taken back")
                self.close(4003, "seat left")
                return
            if seat.bot_account is not None and not self._bot_seat_ok(room, seat, msg):
                return
        elif not msg.spectate:
            self.error("bad_field", "give a seat 'token', or 'spectate': true to watch")
            return
        elif len(room.spectators) >= self.settings.max_spectators:
            self.error(
                "too_many_spectators",
                f"room {room.code} has its {self.settings.max_spectators} spectators already",
            )
            self.close(4009, "too many spectators")
            return
        self.hello = True
        self.conn.room = room
        room.attach(self.conn, seat, msg.game, msg.last_seq)

    def _bot_seat_ok(self, room: Room, seat: Seat, hello: Hello) -> bool:
        """A bot account's seat: taken only with its live token (not one since rotated or
        revoked), in a room that admits bots, within the bot's connections; its frames are
        stamped for its minimum reaction time. ``False``: refused and closed, or (with a
        Redis) the ``hello`` waits for the cluster's count of the bot's connections
        (:meth:`_admit_bot`)."""
        account = seat.bot_account
        assert account is not None
        if not admits_bots(room.options):
            self.error("bots_not_admitted", admission.MESSAGE)
            self.close(4013, "bots not admitted")
            return False
        if not live_seat(self.hub, seat):
            self.error(
                "bad_bot_token",
                "this seat's bot token was revoked or rotated: the seat cannot be taken",
            )
            self.close(4011, "bot token refused")
            return False
        if self.counted is None and self.bots is not None:
            if not self.bots.take(account.profile):
                self.error("too_many_connections", "this bot has all its connections open")
                self.close(4012, "too many bot connections")
                return False
            self.counted = account.profile
            if self.bots.connections is not None:
                self._admit_bot(self.bots, account.profile, hello)
                return False
        self.conn.stamp = self.settings.clock
        return True

    def _admit_bot(self, bots: BotConnections, profile: str, hello: Hello) -> None:
        """Count this connection in the cluster's count of ``profile``'s connections (a
        Redis round trip, bounded), then take up ``hello`` again and the messages that came
        meanwhile; refused (4012) when the bot has all its connections open in the cluster."""
        self.waiting = []

        async def admit() -> None:
            ok, self.bot_member = await bots.take_shared(profile)
            held, self.waiting = self.waiting or [], None
            if not ok:
                message = f"this bot has its {bots.limit} connections open already"
                self.error("too_many_connections", message)
                self.close(4012, "too many bot connections")
                return
            if self.closing:
                return
            self.on_hello(hello)
            self._replay(held)

        self.admitting = asyncio.get_running_loop().create_task(admit())

    def _refuse_malformed(self, room: Room, msg_id: str, code: str, message: str) -> None:
        """A malformed action message (or another game's), with an id: refused like an
        illegal action (one answer per id, the same when repeated)."""
        self.errors += 1
        seat = self.conn.seat
        if seat is None:
            self.refuse(msg_id, code, message)
        elif not room.seats[seat].answer_again(self.conn, msg_id):
            room.answer_refusal(seat, msg_id, Refusal(code, message), (self.conn,))

    def on_action(self, room: Room, msg: Any) -> None:
        """An action message of the room's game: answered again for a repeated id, else
        applied (or refused)."""
        msg_id: str = msg.id
        seat_no = self.conn.seat
        if seat_no is None:
            self.refuse(msg_id, "not_a_player", "spectators cannot play")
            self.errors += 1
            return
        if room.seats[seat_no].answer_again(self.conn, msg_id):
            return
        if self._hold(room, room.seats[seat_no], msg):
            return
        self._act(room, seat_no, msg)

    def _hold(self, room: Room, seat: Seat, msg: Any) -> bool:
        """Hold a bot account's action in a game with people until its minimum reaction
        time (``Settings.bot_reaction``) after the latest frame this connection was sent
        when it came; actions held keep their order. ``True``: held (or held already)."""
        floor = self.settings.bot_reaction
        if seat.bot_account is None or floor <= 0 or not _with_people(room):
            return False
        if msg.id in self.held_ids:
            return True
        due = self.conn.last_frame + floor
        if self.held:
            due = max(due, self.held[-1][0])
        elif due <= self.settings.clock():
            return False
        self.held.append((due, room, msg))
        self.held_ids.add(msg.id)
        if self.hold_timer is None:
            self._arm_hold()
        return True

    def _arm_hold(self) -> None:
        wait = max(0.0, self.held[0][0] - self.settings.clock())
        self.hold_timer = asyncio.get_running_loop().call_later(wait, self._release)

    def _release(self) -> None:
        """Apply the held actions now due (dropped if the connection has left the seat)."""
        self.hold_timer = None
        now = self.settings.clock()
        while self.held and self.held[0][0] <= now:
            _due, room, msg = self.held.popleft()
            self.held_ids.discard(msg.id)
            seat_no = self.conn.seat
            if self.closing or self.conn.room is not room or seat_no is None:
                continue
            if room.seats[seat_no].seen(msg.id):
                continue
            self._act(room, seat_no, msg)
        if self.held:
            self._arm_hold()

    def _act(self, room: Room, seat_no: int, msg: Any) -> None:
        """Apply an action message (the room answers a refusal on this connection)."""
        metrics = self.metrics
        received = None if metrics is None else self.received
        refused = room.act(seat_no, msg, msg.id, received, self.conn)
        if refused is None and metrics is not None:
            metrics.applied(room.game_name)


async def serve(
    ws: WebSocket,
    hub: Hub,
    settings: Settings,
    send: Send,
    limiter: CreationLimiter | None = None,
    messages: MessageLimiter | None = None,
    url_room: str | None = None,
    bot: BotAuth | None = None,
    bots: BotConnections | None = None,
) -> None:
    """Run one accepted WebSocket connection until it ends (``url_room``: the room code of
    its path, ``None`` on ``/ws``; ``bot``: the bot account of its handshake's token, counted
    in ``bots``)."""
    s = Session(ws, hub, settings, send, limiter, messages, url_room, bot, bots)
    if limiter is not None:
        address = ws.client.host if ws.client is not None else ""
        s.lookups_wait = await limiter.check_lookups(address)
    hub.connections += 1
    sender = None if s.direct is not None else asyncio.get_running_loop().create_task(s.sender())

    def hello_check() -> None:
        if not s.hello and not s.closing and s.waiting is None:
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
        if s.counting is not None:
            with contextlib.suppress(Exception):
                await s.counting  # bounded: each Redis call waits at most its WAIT
        if s.admitting is not None:
            s.closing = True  # gone: the hello waiting on the count attaches nothing
            with contextlib.suppress(Exception):
                await s.admitting  # bounded too
        if s.resuming is not None:
            s.closing = True  # gone: the messages held for the bot's count go nowhere
            s.resuming.cancel()
        if s.hold_timer is not None:
            s.hold_timer.cancel()
        if s.counted is not None and bots is not None:
            bots.give_back(s.counted)
            await bots.give_back_shared(s.bot_member)
        s.messages.close(s.key)
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


async def endpoint(state: State, ws: WebSocket, send: Send, url_room: str | None = None) -> None:
    """The ``/ws/CODE`` (``url_room``) and ``/ws`` endpoint of the app whose ``state`` holds
    ``settings`` and (once started) ``hub``: refuse a foreign origin (1008), else accept and
    :func:`serve`. The first connection also logs which way frames leave
    (``state.send_path``)."""
    settings: Settings = state.settings
    if not origin_ok(ws, settings):
        await ws.close(code=1008)
        return
    hub: Hub = state.hub
    address = ws.client.host if ws.client is not None else ""
    cap = settings.max_connections_per_address
    if hub.by_address[address] >= cap:
        await ws.close(code=1008, reason="too many connections from this address")
        return
    admitted, member = await admit(state, address, cap)  # the cluster's count, with Redis
    if not admitted:
        await ws.close(code=1008, reason="too many connections from this address")
        return
    hub.by_address[address] += 1
    try:
        await ws.accept()
        if getattr(state, "send_path", None) is None:
            state.send_path = _log_send_path(send)
        bots: BotConnections | None = getattr(state, "bot_connections", None)
        if bots is None:
            bots = state.bot_connections = BotConnections(
                settings.max_connections_per_bot, settings.bot_message_rate, settings.clock
            )
        # The cluster's counts while the node has a Redis (blink.server.bot_accounts.quotas).
        bots.windows = getattr(state, "shared_windows", None)
        bots.connections = getattr(state, "shared_connections", None)
        ok, bot, bot_member = await _bot_of(ws, hub, bots)
        if not ok:
            return
        try:
            await serve(
                ws,
                hub,
                settings,
                send,
                getattr(state, "creation_limiter", None),
                getattr(state, "message_limiter", None),
                url_room,
                bot,
                bots,
            )
        finally:
            await bots.give_back_shared(bot_member)
    finally:
        hub.by_address[address] -= 1
        if not hub.by_address[address]:
            del hub.by_address[address]
        await leave(state, member)


async def _bot_of(
    ws: WebSocket, hub: Hub, bots: BotConnections
) -> tuple[bool, BotAuth | None, str | None]:
    """Whether the connection may go on, the bot account of the handshake's
    ``Authorization: Bearer`` token (``None``: no such header), counted in ``bots``, and its
    member in the cluster's count (``None``: not counted there). Refused (closed 4011) for a
    token that is not live, and (closed 4012) when the bot has all its connections open, on
    this node or in the cluster."""
    try:
        bot = bearer(hub, ws.headers.get("authorization"))
    except ApiError as exc:
        await _refuse(ws, exc.code, exc.message, 4011, "bot token refused")
        return False, None, None
    if bot is None:
        return True, None, None
    message = f"this bot has its {bots.limit} connections open already"
    if not bots.take(bot.profile_id):
        await _refuse(ws, "too_many_connections", message, 4012, "too many bot connections")
        return False, None, None
    admitted, member = await bots.take_shared(bot.profile_id)
    if not admitted:
        bots.give_back(bot.profile_id)
        await _refuse(ws, "too_many_connections", message, 4012, "too many bot connections")
        return False, None, None
    return True, bot, member


async def _refuse(ws: WebSocket, code: str, message: str, close: int, reason: str) -> None:
    with contextlib.suppress(Exception):
        await ws.send_text(encode(ErrorFrame(code=code, message=message)))
        await ws.close(close, reason)


def _log_send_path(send: Send) -> str:
    """Say which way the first connection's frames leave (once per app, in ``send_path``):
    ``"direct"`` (straight onto uvicorn's transport) or ``"asgi"`` (the fallback, and why)."""
    why = why_not_direct(send)
    if why is None:
        log.info(
            "frames are written straight onto the socket (uvicorn %s, --ws %s)",
            uvicorn_version(),
            WS_IMPL,
        )
        return "direct"
    if why != uvicorn_problem():  # an unsupported uvicorn was named when the app started
        log.warning("frames go through the ASGI send, not straight onto the socket: %s", why)
    return "asgi"

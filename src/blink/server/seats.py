"""What a room is made of: its connections, its seats, and the state of its live game.

:class:`Conn` is one WebSocket client with its own send queue; :class:`Seat` a seat with its
token hash, its connections and the answers kept for repeated action ids; :class:`GameState`
a live game with its sequence numbers, resume ring, frames waiting for their commit
(:class:`Pending`) and the referee's clock. The logic that drives them is the room's
(:mod:`blink.server.rooms`).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from blink.games.classic.engine import ClassicGame
from blink.server.bots import LiveBotLike
from blink.server.table_clock import TableClock

if TYPE_CHECKING:
    from blink.server.rooms import Room

__all__ = ["ANSWERS_KEPT", "Conn", "GameState", "NoGame", "Pending", "Seat", "hash_token"]



ANSWERS_KEPT = 256
"""Answers kept per seat for repeated action ids (a reconnecting client resends the few it had
in flight); at 1,000 games a window of 1,024 grew to about 300 MB."""


def hash_token(token: str) -> str:
    """The stored form of a seat token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


class NoGame(Exception):
    """An action arrived while no game is in progress."""


class Conn:
    """One WebSocket client: its identity in a room and its own send queue.

    ``send`` never blocks: frames go to a per-client queue, so a slow client never stalls a
    broadcast (it is closed when its queue overflows). The queue is drained either by a
    ``writer`` callback, run once per turn of the event loop after frames were queued (the
    direct path: everything queued meanwhile leaves in one write, see
    :mod:`blink.server.direct`), or by the connection's sender task awaiting :meth:`next`. The
    queue is a plain deque with one waiter future: cheaper than an ``asyncio.Queue``.
    """

    def __init__(self, limit: int) -> None:
        self.queue: deque[str | tuple[int, str]] = deque()
        self.limit = limit
        self.room: Room | None = None
        self.seat: int | None = None
        self.spectator = False
        self.closed = False
        self.awaiting_snapshot = False
        self.on_overflow: Callable[[], None] | None = None
        self.writer: Callable[[], None] | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._write_due = False

    def _put(self, item: str | tuple[int, str]) -> None:
        self.queue.append(item)
        if self.writer is not None:
            if not self._write_due:
                self._write_due = True
                asyncio.get_running_loop().call_soon(self._write)
            return
        w = self._waiter
        if w is not None:
            self._waiter = None
            if not w.done():
                w.set_result(None)

    def send(self, frame: str) -> None:
        """Queue one frame."""
        if self.closed:
            return
        if len(self.queue) >= self.limit:
            self.closed = True
            if self.on_overflow is not None:
                self.on_overflow()
            return
        self._put(frame)

    def close(self, code: int, reason: str = "") -> None:
        """Close after the frames already queued."""
        if not self.closed:
            self._put((code, reason))
            self.closed = True

    def finish(self) -> None:
        """Stop the sender after the frames already queued (the connection is gone)."""
        self.closed = True
        self._put((0, ""))

    def _write(self) -> None:
        self._write_due = False
        if self.writer is not None:
            self.writer()

    async def next(self) -> str | tuple[int, str]:
        """The next queued item (a frame, or ``(code, reason)`` to close), waiting for one."""
        while not self.queue:
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        return self.queue.popleft()


@dataclass
class Seat:
    """A seat of a room."""

    seat: int
    kind: str  # "human" or "bot"
    bot: str | None = None
    name: str | None = None
    token_hash: str | None = None
    left: bool = False
    conns: set[Conn] = field(default_factory=set)
    connected_once: bool = False
    answers: OrderedDict[str, str] = field(default_factory=OrderedDict)
    pending_ids: set[str] = field(default_factory=set)
    rematch: bool = False

    @property
    def taken(self) -> bool:
        """A bot seat, or a human seat someone holds a token for."""
        return self.kind == "bot" or self.token_hash is not None

    def remember(self, msg_id: str, frame: str) -> None:
        """Keep the answer to a client action id (repeated ids get it again)."""
        self.answers[msg_id] = frame
        if len(self.answers) > ANSWERS_KEPT:
            self.answers.popitem(last=False)

    def info(self) -> dict[str, Any]:
        """The seat as a JSON object (no token)."""
        return {
            "seat": self.seat,
            "kind": self.kind,
            "bot": self.bot,
            "name": self.name if self.kind == "human" else (self.name or f"Bot ({self.bot})"),
            "taken": self.taken,
            "connected": self.kind == "bot" or bool(self.conns),
            "left": self.left,
        }


@dataclass
class Pending:
    """An applied action waiting for its commit before its frames are sent."""

    seq: int
    frames: dict[int | None, str]
    ack_seat: int | None
    ack_id: str | None
    ack: str | None
    ended: bool
    after: list[tuple[Conn, str]] = field(default_factory=list)
    """Frames for single connections that must not overtake this action's frames (a refusal
    judged against a state that includes this action)."""


@dataclass
class GameState:
    """A live game of a room."""

    id: int
    number: int
    series_number: int
    game: ClassicGame
    started_wall: float
    table: TableClock
    """What the table does by itself next (the referee), and the one timer armed for it."""
    seq: int = 0
    reveal_at: float | None = None
    last_t: int = 0
    persisted: int = 0
    ring: deque[tuple[int, dict[int | None, str]]] = field(default_factory=deque)
    pending: deque[Pending] = field(default_factory=deque)
    plays_by_seat: list[int] = field(default_factory=list)
    bots: list[LiveBotLike] = field(default_factory=list)
    ended_sent: bool = False
    end_msg: dict[str, Any] | None = None
    """The ``game_end`` message once sent (re-sent with ``again: true`` on resume/resync)."""
    next_at: float | None = None
    """When the next game of the series starts (settings clock), once this game has ended."""

    @property
    def timer(self) -> asyncio.TimerHandle | None:
        """The timer armed at the referee's deadline (``None``: none armed)."""
        return self.table.handle



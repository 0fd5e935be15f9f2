"""A WebSocket client's outbox: the connection as the room sees it, with its own send queue.

The room only calls :meth:`Conn.send` (a :class:`blink.server.room.seats.Peer`); the session
(:mod:`blink.server.session`) drains the queue onto the socket.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from blink.server.room.room import Room

__all__ = ["Conn"]


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
        self._room: Room | None = None
        self.seat: int | None = None
        self.spectator = False
        self.closed = False
        self.awaiting_snapshot = False
        self.moving = False
        """The room is being handed to another node: the client's messages are ignored until
        the connection closes (:meth:`blink.server.hub.Hub.hand_over`)."""
        self.on_overflow: Callable[[], None] | None = None
        self.writer: Callable[[], None] | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._write_due = False
        self.stamp: Callable[[], float] | None = None
        """The clock that stamps each frame queued (a bot account's connection: its minimum
        reaction time counts from the latest frame, see :mod:`blink.server.session`)."""
        self.last_frame = 0.0
        """When the latest frame was queued (on ``stamp``'s clock; 0 with no ``stamp``)."""

    @property
    def room(self) -> Room | None:
        """The room this connection is in: the one its session attached it to
        (:meth:`blink.server.room.room.Room.attach`), while that room holds it (``None`` once
        the room detached it, or was dropped from memory, :meth:`blink.server.hub.Hub.drop`)."""
        room = self._room
        return room if room is not None and self in room.conns else None

    @room.setter
    def room(self, room: Room | None) -> None:
        self._room = room

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
        if self.stamp is not None:
            self.last_frame = self.stamp()
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

"""What the server publishes on its bus (:mod:`blink.server.bus`) for the browsers' event
streams, and the lobby's directory of the open public rooms of every node.

- A public room that opens, changes (seats, status, spectators: the room's own hooks, which
  come at most once a second for spectators) or stops being listed (finished, closed, out of
  memory, or all its players gone: :func:`blink.server.room.info.listed`) is published as
  :class:`~blink.server.bus.RoomChanged`, once per loop turn however many times it changed
  (the room never waits for it).
- A game of a public room that finished is :class:`~blink.server.bus.GamesFinished`, and a game
  that may have changed ratings :class:`~blink.server.bus.LeaderboardChanged`, both once what
  the game end stored is committed (so a node that reads the database then sees it).
- With Redis, each node announces its open public rooms when it connects, when another node
  asks (a node that starts asks), and at every sweep; a node not heard from for three sweeps
  has its rooms taken off the lobby (it stopped).

:class:`Feeds` is attached to the hub at start (``hub.feeds``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import msgspec

from blink.server.bus import (
    LEADERBOARD,
    ROOMS,
    Event,
    GamesFinished,
    LeaderboardChanged,
    RedisBus,
    RoomChanged,
    RoomsAnnounced,
    RoomsAsked,
)
from blink.server.hub import Hub
from blink.server.profiles import leaderboard, profiles_among
from blink.server.room.info import listed
from blink.server.room.room import GameState, Room

__all__ = ["LISTED", "MAX_REMOTE", "Feeds", "attach"]

log = logging.getLogger("blink.server.feeds")

LISTED = 200
"""The most rooms the lobby lists (as ``GET /api/rooms``)."""

MAX_REMOTE = 50_000
"""The most rooms of other nodes kept for the lobby (what the bus brings is bounded)."""
SILENT_SWEEPS = 3
"""Sweeps after which a node that said nothing has its rooms taken off the lobby."""


class Feeds:
    """The server's publications, and the lobby's view of every node's open public rooms."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.bus = hub.bus
        self.node = hub.bus.node
        self._dirty: set[str] = set()
        self._flush_at: asyncio.Handle | None = None
        self._announced: set[str] = set()
        """Codes of this node's rooms published as open."""
        self.remote: dict[str, RoomChanged] = {}
        """The other nodes' open public rooms, by code."""
        self._heard: dict[str, float] = {}
        """When each other node was last heard (settings clock)."""
        self.leaderboard_generation = 0
        """Changes of the leaderboard heard so far (the cache's key)."""
        self._boards: dict[tuple[int, int, str], tuple[int, asyncio.Future[dict[str, Any]]]] = {}

    def install(self) -> None:
        """Hook the hub (rooms, game ends, sweeps) and the bus."""
        self.hub.rooms.watchers.append(self.room_moved)
        self.hub.room_hooks.append(self.room_changed)
        self.hub.game_end_hooks.append(self.game_ended)
        self.hub.sweep_hooks.append(self.sweep)
        self.bus.listen(ROOMS, self._heard_rooms)
        self.bus.listen(LEADERBOARD, self._heard_leaderboard)
        if isinstance(self.bus, RedisBus):
            self.bus.on_connect(self._connected)

    # -- this node's rooms

    def room_moved(self, code: str) -> None:
        """Room ``code`` entered or left this node's memory."""
        self._mark(code)

    def room_changed(self, room: Room) -> None:
        """Room ``room``'s seats, status or spectators changed."""
        if room.public or room.code in self._announced:
            self._mark(room.code)

    def _mark(self, code: str) -> None:
        self._dirty.add(code)
        if self._flush_at is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop (a synchronous restore): published at the next turn
                return
            self._flush_at = loop.call_soon(self.flush)

    def flush(self) -> None:
        """Publish the rooms marked since the last flush."""
        self._flush_at = None
        dirty, self._dirty = self._dirty, set()
        for code in sorted(dirty):
            room = dict.get(self.hub.rooms, code)
            if room is not None and listed(room):
                self._announced.add(code)
                self.bus.publish(ROOMS, self._event(room))
            elif code in self._announced:
                self._announced.discard(code)
                self.bus.publish(ROOMS, RoomChanged(code, self.node, 0.0, None))

    def _event(self, room: Room) -> RoomChanged:
        return RoomChanged(room.code, self.node, room.created_at, room.summary())

    def local_rooms(self) -> list[Room]:
        """This node's open public rooms in memory."""
        return [r for r in self.hub.rooms.values() if listed(r)]

    def listing(self) -> list[dict[str, Any]]:
        """Every node's open public rooms, newest first (at most :data:`LISTED`), as
        ``GET /api/rooms`` lists them."""
        rows: list[tuple[float, Any]] = [(r.created_at, r.summary()) for r in self.local_rooms()]
        local = {s.code for _, s in rows}
        rows += [(e.created_at, e.room) for c, e in self.remote.items() if c not in local]
        rows.sort(key=lambda x: x[0], reverse=True)
        return [msgspec.to_builtins(s) for _, s in rows[:LISTED]]

    def room_json(self, event: RoomChanged) -> dict[str, Any]:
        """What the lobby's stream sends of one room's change."""
        room = None if event.room is None else msgspec.to_builtins(event.room)
        return {"code": event.code, "room": room}

    # -- game ends

    def game_ended(self, room: Room, g: GameState) -> None:
        """A game ended: once what its end stored is committed, tell the lobby (a public
        room's) and the leaderboard (a game that may be rated)."""
        public = room.public
        rated = self._maybe_rated(room)
        if not public and not rated:
            return

        def committed(_result: object) -> None:
            if public:
                self.bus.publish(ROOMS, GamesFinished())
            if rated:
                self.bus.publish(LEADERBOARD, LeaderboardChanged())

        self.hub.storage.submit(lambda _conn: None, committed)

    def _maybe_rated(self, room: Room) -> bool:
        people = [s.token_hash for s in room.seats if s.kind == "human"]
        return bool(profiles_among(self.hub, people))

    def profile_made(self) -> None:
        """A profile was stored (it shows on the leaderboard)."""
        self.bus.publish(LEADERBOARD, LeaderboardChanged())

    # -- the leaderboard

    def _heard_leaderboard(self, event: Event) -> None:
        self.leaderboard_generation += 1

    async def board(self, limit: int, min_games: int, ladder: str = "people") -> dict[str, Any]:
        """One ladder of the leaderboard (``GET /api/leaderboard``), read once per change for
        every stream that shows the same one."""
        key = (limit, min_games, ladder)
        generation = self.leaderboard_generation
        cached = self._boards.get(key)
        if cached is None or cached[0] != generation or cached[1].cancelled():
            if len(self._boards) > 64:
                self._boards.clear()
            read = asyncio.ensure_future(
                asyncio.to_thread(leaderboard, self.hub, limit, min_games, ladder)
            )
            cached = (generation, read)
            self._boards[key] = cached
        # Shielded: a stream that goes away does not cancel the others' read.
        return await asyncio.shield(cached[1])

    # -- the other nodes

    def _heard_rooms(self, event: Event) -> None:
        if isinstance(event, RoomChanged) and event.node != self.node:
            self._heard[event.node] = self.hub.settings.clock()
            if event.room is None:
                self.remote.pop(event.code, None)
            elif event.code in self.remote or len(self.remote) < MAX_REMOTE:
                self.remote[event.code] = event
        elif isinstance(event, RoomsAnnounced) and event.node != self.node:
            self._heard[event.node] = self.hub.settings.clock()
            for code in [c for c, e in self.remote.items() if e.node == event.node]:
                del self.remote[code]
            for e in event.rooms:
                if e.room is not None and len(self.remote) < MAX_REMOTE:
                    self.remote[e.code] = e
        elif isinstance(event, RoomsAsked) and event.node != self.node:
            self.announce()

    def announce(self) -> None:
        """Publish this node's open public rooms (with Redis)."""
        if self.bus.shared:
            rooms = [self._event(r) for r in self.local_rooms()]
            self._announced = {e.code for e in rooms}
            self.bus.publish(ROOMS, RoomsAnnounced(self.node, rooms))

    def _connected(self) -> None:
        self.announce()
        self.bus.publish(ROOMS, RoomsAsked(self.node))

    def sweep(self) -> None:
        """Take off the lobby the rooms listed only while new (no player came in time); with
        Redis also announce this node's rooms, and forget the rooms of nodes silent for
        :data:`SILENT_SWEEPS` sweeps (told to the lobby's streams here)."""
        for code in list(self._announced):
            room = dict.get(self.hub.rooms, code)
            if room is None or not listed(room):
                self._mark(code)
        if not self.bus.shared:
            return
        self.announce()
        limit = SILENT_SWEEPS * self.hub.settings.sweep_interval
        now = self.hub.settings.clock()
        for node, at in list(self._heard.items()):
            if now - at <= limit:
                continue
            del self._heard[node]
            for code in [c for c, e in self.remote.items() if e.node == node]:
                del self.remote[code]
                self.bus.deliver(ROOMS, RoomChanged(code, node, 0.0, None))
            log.info("node %s is silent: its rooms left the lobby", node)


async def attach(hub: Hub) -> Feeds:
    """At start: publish the server's changes (``hub.feeds``), and ask the other nodes for
    their rooms."""
    feeds = Feeds(hub)
    feeds.install()
    hub.feeds = feeds  # type: ignore[attr-defined]
    for room in feeds.local_rooms():
        feeds.room_moved(room.code)
    return feeds

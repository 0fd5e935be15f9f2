"""The hub: every room of a server (the room table), rooms rebuilt from the database, and the
drivers of the rooms' outputs (storage jobs, timers on the event loop).

At start :meth:`Hub.restore` rebuilds every room that is not closed, with its unfinished game
(through its game's record codec: :mod:`blink.server.stored`); a room dropped from memory
while idle (:meth:`Hub.evict_idle`) is rebuilt the same way when it is next asked for
(:class:`RoomTable`).

A node of a cluster (``blink serve --cluster``: several nodes on one PostgreSQL database) holds
the lease of every room it has in memory (:mod:`blink.server.lease`). It restores nothing at
start: a room is rebuilt, the same way, by the first node asked for it that gets its lease
(:meth:`Hub.room`); a node that cannot get it raises :class:`~blink.server.lease.RoomElsewhere`.
A room made through the REST API is stored and handed off (:meth:`Hub.hand_off`), so the node
the router sends the room's traffic to loads it on first use.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any

from blink.server import storage as st
from blink.server.bus import LEASES, Bus, Event, LocalBus, RoomWanted
from blink.server.conn import Conn
from blink.server.db_probe import DbProbe
from blink.server.ids import GameIds
from blink.server.jobs import job_of
from blink.server.lease import Leases, LocalLeases, RoomElsewhere
from blink.server.links import record_url
from blink.server.metrics import Metrics
from blink.server.protocol import GameMeta
from blink.server.room.clock import Cancellable
from blink.server.room.live_bots import stop_bots
from blink.server.room.room import GameState, Room, Seat
from blink.server.room_writes import RoomWrite
from blink.server.settings import Settings
from blink.server.stored import rebuild

__all__ = [
    "CODE_ALPHABET",
    "CODE_ATTEMPTS",
    "MOVE_BACK_AFTER",
    "RESERVED_CODES",
    "WANT_EVERY",
    "Hub",
    "RoomTable",
    "random_code",
]

log = logging.getLogger("blink.server")

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

MOVE_BACK_AFTER = 2.0
"""Seconds a cluster node keeps a room it has just taken before it hands it over to a node
that wants it (:meth:`Hub.wanted`): the bound on how fast a room can move back and forth."""
WANT_EVERY = 1.0
"""Seconds between two asks of one node for one room held elsewhere (:meth:`Hub.wanted`)."""

RESERVED_CODES = frozenset({"EVENTS"})
"""Codes never given to a room: words of the routes under ``/api/rooms/`` that a code could
spell (``/api/rooms/events`` is the lobby's stream, not a room's page)."""

CODE_ATTEMPTS = 8
"""Codes drawn for one new room before giving up (31**6 codes: a refusal is rare, eight in
a row means something else is wrong)."""


def random_code() -> str:
    """Six letters and digits from :data:`CODE_ALPHABET`, drawn by :mod:`secrets`."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))


class RoomTable(dict[str, "Room"]):
    """``Hub.rooms``: the rooms in memory, by code. ``get`` also brings back a room that was
    dropped from memory (:meth:`Hub.evict_idle`) from the database, so every lookup by code
    (the endpoints, ``hello``, tournaments) finds it; ``in``, ``[]`` and iteration see only the
    rooms in memory."""

    def __init__(self, load: Callable[[str], Room | None]) -> None:
        super().__init__()
        self._load = load
        self.watchers: list[Callable[[str], None]] = []
        """Called with a room's code when it enters or leaves memory (the lobby's feed)."""

    def __setitem__(self, key: str, room: Room) -> None:
        super().__setitem__(key, room)
        self._changed(key)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._changed(key)

    def pop(self, key: str, *default: Any) -> Any:
        """Remove room ``key`` from memory (``dict.pop``)."""
        had = key in self
        room = super().pop(key, *default)
        if had:
            self._changed(key)
        return room

    def _changed(self, key: str) -> None:
        for watch in self.watchers:
            try:
                watch(key)
            except Exception:
                log.exception("a room table watcher failed")

    def get(self, key: str, default: Room | None = None) -> Room | None:  # type: ignore[override]
        """The room ``key``, from memory or the database; ``default`` when there is none."""
        room = dict.get(self, key)
        if room is None and isinstance(key, str):
            room = self._load(key)
        return default if room is None else room


class Hub:
    """Every room of the server, the storage and the settings."""

    def __init__(
        self,
        settings: Settings,
        storage: st.Storage,
        version: str,
        bus: Bus | None = None,
        leases: Leases | None = None,
    ) -> None:
        self.settings = settings
        self.bus: Bus = bus or LocalBus()
        """Where the server's changes are published (:mod:`blink.server.bus`)."""
        self.storage = storage
        self.version = version
        self.leases: Leases = leases or LocalLeases()
        """The leases of the rooms this node serves (a single node holds every one)."""
        self.rooms: RoomTable = RoomTable(self._load_room)
        self.game_ids = GameIds(storage)
        """Game ids, in blocks taken from the database (unique across servers)."""
        self.code_source: Callable[[], str] = random_code
        """Draws a room code (tests give their own to force collisions)."""
        self.connections = 0
        self.by_address: Counter[str] = Counter()
        """Open WebSocket connections by client address (capped per address)."""
        self.game_end_hooks: list[Callable[[Room, GameState], None]] = []
        """Called (on the loop) after each game ends: ratings, tournaments."""
        self.room_hooks: list[Callable[[Room], None]] = []
        """Called (on the loop) after a room's seats, status or spectators changed."""
        self.sweep_hooks: list[Callable[[], object]] = []
        """Called (on the loop) after each sweep of idle rooms: idle tournaments."""
        self.seat_marker: Callable[[list[Seat]], None] | None = None
        """Marks the seats a bot account holds in a room restored from the database
        (:func:`blink.server.bot_accounts.service.mark_seats`, set when the app starts)."""
        self.profile_names: set[str] | None = None
        """The name keys of the server's profiles once read (see blink.server.profiles)."""
        self.profile_hashes: set[str] | None = None
        """The secret hashes of the server's profiles once read (see blink.server.profiles)."""
        self.not_profiles: set[str] = set()
        """Seat token hashes found not to be any profile's (see blink.server.profiles)."""
        storage.on_health = self._health_changed
        storage.on_fenced = self.fenced
        self.db_probe = DbProbe(storage, settings.health_db_timeout)
        """Whether the database answers now (``/api/health``)."""
        self._sweeper: asyncio.TimerHandle | None = None
        self.sweeps = 0
        """Sweeps done so far."""
        self._missing: OrderedDict[str, None] = OrderedDict()
        """Codes recently asked for that are in neither memory nor the database."""
        self.metrics: Metrics | None = None
        """The app's metrics (``None``: not measured)."""
        self.draining = False
        """The server is stopping (``blink serve``: SIGTERM): a cluster node's health check
        fails, so the router sends no more traffic to it."""
        self.leaving = False
        """A cluster node is handing its rooms over (:meth:`hand_over`): it loads no room."""
        self._moving: set[str] = set()
        """Rooms being handed over (:meth:`move`): not loaded again until their leases go."""
        self._taken: dict[str, float] = {}
        """When this node took each room it holds (``settings.clock``)."""
        self._wanted: OrderedDict[str, float] = OrderedDict()
        """When this node last asked for each room held elsewhere (:meth:`wanted`)."""
        self._moves: set[asyncio.Task[bool]] = set()
        self.bus.listen(LEASES, self._heard)

    def store(
        self,
        job: RoomWrite | Callable[[Any], Any],
        done: Callable[[Any], None] | None = None,
        room: str | None = None,
        received: float | None = None,
    ) -> None:
        """Queue a storage job (committed with the others queued meanwhile); the job of a
        player's action (``received``: when its message came, ``perf_counter`` seconds) also
        measures its ack latency. A write of room
        ``room`` on a cluster node is fenced by the room's lease as this node holds it now
        (:class:`~blink.server.jobs.Fenced`): it is committed only while no other node has
        taken the lease since. A room's record becomes its SQL here
        (:func:`~blink.server.jobs.job_of`)."""
        job = job_of(job)
        if room is not None:
            epoch = self.leases.fence(room)
            if epoch is not None:
                job = st.Fenced(job, room, epoch)
        if received is not None and done is not None and self.metrics is not None:
            done = _timed(done, received, self.metrics.observe_ack)
        self.storage.submit(job, done)

    def later(self, delay: float, fire: Callable[[], None]) -> Cancellable:
        """Call ``fire`` on the event loop in ``delay`` seconds."""
        return asyncio.get_running_loop().call_later(max(0.0, delay), fire)

    def write_failure(self) -> str | None:
        """Why the database cannot be written now (``None``: it can)."""
        return self.storage.failure

    def _health_changed(self, failure: str | None) -> None:
        """The database went down (every room's game waits) or came back (they resume)."""
        for room in list(self.rooms.values()):
            try:
                if failure is not None:
                    room.pause(failure)
                else:
                    room.resume()
            except Exception:
                log.exception("room %s could not be paused or resumed", room.code)

    def take_game_id(self) -> int:
        """A new game id (ids are given by the server, so actions can be queued at once),
        from this server's block: no other server sharing the database has it."""
        return self.game_ids.take()

    def new_code(self) -> str | None:
        """A room code to try: drawn by :attr:`code_source`, not one of the rooms in memory
        nor one of :data:`RESERVED_CODES`; ``None`` when every draw was one of those.

        Only a candidate: the database decides. The room's row is inserted with it (its
        primary key refuses a code that any room of any server ever had: see
        :func:`blink.server.room_setup.store_new_room`), and a refused code is drawn again.
        """
        for _ in range(CODE_ATTEMPTS):
            code = self.code_source()
            if code not in self.rooms and code not in RESERVED_CODES:
                return code
        return None

    def code_claimed(self, code: str) -> None:
        """``code``'s room row is committed: forget that the code was once missing."""
        self._missing.pop(code, None)

    def insert_room_now(self, room: Room) -> bool:
        """Give a new room a code and commit its row at once, then register it; ``False``
        when every code drawn was taken. Waits on the database (a round trip per code): for
        the few rooms opened inside a synchronous step (a tournament's match rooms); requests
        use :func:`blink.server.room_setup.store_new_room`, which does not block the loop.
        A cluster node takes the room's lease (a new code's, which no node holds): it serves
        the room it made."""
        for _ in range(CODE_ATTEMPTS):
            code = self.new_code()
            if code is None:
                continue
            room.code = code
            with self.storage.engine.begin() as conn:
                inserted = job_of(room.new_room_write())(conn)
            if inserted and self.leases.acquire(room.code):
                self.code_claimed(room.code)
                self.rooms[room.code] = room
                self._taken[room.code] = self.settings.clock()
                return True
        return False

    @property
    def live_games(self) -> int:
        """Games in progress."""
        return sum(1 for r in self.rooms.values() if r.game is not None and not r.game.game.over)

    def restore(self) -> None:
        """Rebuild every room and unfinished game from the database (at start). A cluster
        node restores none: each room is rebuilt by the node first asked for it."""
        self.game_ids.start()
        if self.leases.shared:
            return
        for lr in self.storage.load_rooms():
            self._restore_room(lr)

    def room(self, code: str) -> Room | None:
        """The room ``code``: in memory, or brought back from the database when it was dropped
        from memory (:meth:`evict_idle`), or, on a cluster node, when this node gets its lease;
        ``None`` when there is no such room (or it is closed). A synchronous primary-key read
        on a miss. Raises :class:`~blink.server.lease.RoomElsewhere` when another node holds
        the room's lease. Otherwise the same as ``hub.rooms.get(code)``."""
        room = dict.get(self.rooms, code)
        if room is not None:
            return room
        return self._load_room(code, strict=True)

    def _load_room(self, code: str, strict: bool = False) -> Room | None:
        """Bring room ``code`` into memory from the database, if this node gets its lease
        (else ``None``, or :class:`RoomElsewhere` when ``strict``)."""
        if not code or code in self._missing:
            return None
        if self.leaving or code in self._moving or not self.leases.acquire(code):
            if strict:
                raise RoomElsewhere(code)
            return None
        try:
            lr = self.storage.load_room(code)
        except Exception:
            log.exception("could not load room %s", code)
            self.leases.release(code)
            return None
        if lr is None:
            self.leases.release(code)
            if not self.leases.shared:  # on a cluster another node may make it any time
                self._missing[code] = None
                if len(self._missing) > 4096:
                    self._missing.popitem(last=False)
            return None
        room = self._restore_room(lr)
        if room is None:
            self.leases.release(code)
        elif self.leases.shared:
            self._taken[code] = self.settings.clock()
            room.maybe_start()  # a room handed off before its first game (all bots: now)
        return room

    def hand_off(self, room: Room) -> bool:
        """After a new room is stored: on a cluster node, drop it from memory and give up its
        lease, so whichever node the router sends its traffic to loads it on first use (the
        room has no connection and no game yet). ``False`` (a single node): it stays."""
        if not self.leases.shared:
            return False
        room._cancel_timer()
        self.rooms.pop(room.code, None)
        self._taken.pop(room.code, None)
        self.leases.release(room.code)
        return True

    def check_leases(self) -> list[str]:
        """On a cluster node whose lease connection was lost (so another node may take its
        rooms now), drop every room from memory and close its connections with 1013 (the
        clients try again, and find the room where it is served now). Returns the codes."""
        if self.leases.alive():
            return []
        dropped = list(self.rooms)
        for code in dropped:
            self.drop(code, 1013, "the room moved: try again")
        if dropped:
            log.warning("lost the leases of %d rooms: dropped them from memory", len(dropped))
        return dropped

    def fenced(self, code: str, epoch: int) -> None:
        """Writes of room ``code`` made under lease epoch ``epoch`` were refused: another node
        took the room's lease since. If this node still serves the room under that epoch (it
        has not noticed losing the lease), it drops the room from memory and closes its
        connections with 1013: the clients try again and find the room where it is served
        now."""
        if dict.get(self.rooms, code) is None or self.leases.fence(code) != epoch:
            return
        log.warning("room %s: its lease was taken by another node: dropped from memory", code)
        self.drop(code, 1013, "the room moved: try again")

    def drop(self, code: str, close: int, reason: str) -> None:
        """Drop room ``code`` from memory (its timers, bots and connections) and give up its
        lease; its connections are closed with ``close``."""
        room = dict.get(self.rooms, code)
        if room is None:
            return
        _halt(room)
        for conn in list(room.conns):
            room.detach(conn)
            closer = getattr(conn, "close", None)  # a Conn (a test's peer may have none)
            if callable(closer):
                closer(close, reason)
        del self.rooms[code]
        self._taken.pop(code, None)
        self.leases.release(code)

    async def hand_over(self, flush_timeout: float = 30.0) -> int:
        """A cluster node stops gracefully: hand every room over to the other nodes. Returns
        the number of rooms handed over.

        In order: no room is loaded any more (a client asking is told ``room_elsewhere``);
        every room stops (its timers, its bots, its clients' messages ignored: the
        connections stay open) and leaves memory; everything queued for the database is
        committed (the acks of the last plays go out); the rooms' leases are given up, so the
        next node asked for a room takes it at once; and only then are the connections closed
        with 1012 (service restart), so the clients reconnect (through the router, to a live
        node) when the room can already be rebuilt there from its log. When the database
        cannot be written in ``flush_timeout`` seconds the leases are kept (they go with the
        process, once the writer has given up): another node must not rebuild a room whose
        last writes are still waiting."""
        self.leaving = True
        self.stop_sweeper()
        codes = list(self.rooms)
        await self._move(codes, "the server restarts: reconnect", flush_timeout)
        return len(codes)

    async def move(self, code: str, flush_timeout: float = 30.0) -> bool:
        """Hand room ``code`` over to whichever node asks for it next, as :meth:`hand_over`
        does for every room, while this node goes on serving the others: the room stops,
        what was queued for it is committed, its lease is given up, and its connections are
        closed with 1012, so its clients reconnect through the router to the node it sends
        the room to now. ``False`` when the room is not here (or already leaving)."""
        if code in self._moving or dict.get(self.rooms, code) is None:
            return False
        log.info("handing room %s over to the node the router sends it to", code)
        await self._move([code], "the room moved to another node: reconnect", flush_timeout)
        return True

    async def _move(self, codes: list[str], reason: str, flush_timeout: float) -> None:
        """Stop rooms ``codes`` and drop them from memory, commit what is queued, give up
        their leases, then close their connections with 1012 (``reason``). When the commit
        fails the leases are kept and the rooms stay out of memory here (their last writes
        wait: no node may rebuild them, this one included)."""
        conns: list[Conn] = []
        moving = [c for c in codes if c not in self._moving]
        self._moving.update(moving)
        for code in moving:
            room = dict.get(self.rooms, code)
            if room is None:
                continue
            _halt(room)
            for conn in room.conns:
                if isinstance(conn, Conn):
                    conn.moving = True
                    conns.append(conn)
            del self.rooms[code]
            self._taken.pop(code, None)
        try:
            await asyncio.wait_for(self.storage.run(_nothing), flush_timeout)
        except Exception:
            log.warning("the last writes were not committed: the leases stay until the end")
        else:
            await asyncio.to_thread(_release_all, self.leases, moving)
            self._moving.difference_update(moving)
        for conn in conns:
            conn.close(1012, reason)

    # -- a room goes back to the node the router sends it to -----------------------------

    def wanted(self, code: str) -> None:
        """A client the router pinned to this node (its WebSocket's URL names the room) asked
        for room ``code``, whose lease another node holds: ask that node, through the bus, to
        hand the room over (:meth:`move`), at most once every :data:`WANT_EVERY` seconds per
        room. After a node comes back, its rooms that moved while it was away return to it
        this way, instead of refusing its clients until their players all leave."""
        if not self.leases.shared or self.leaving:
            return
        now = self.settings.clock()
        last = self._wanted.get(code)
        if last is not None and now - last < WANT_EVERY:
            return
        self._wanted[code] = now
        if len(self._wanted) > 4096:
            self._wanted.popitem(last=False)
        self.bus.publish(LEASES, RoomWanted(code, self.bus.node))

    def _heard(self, event: Event) -> None:
        self.heard_wanted(event)

    def heard_wanted(self, event: Event) -> bool:
        """Another node wants a room held here (:class:`RoomWanted`, heard on the bus): hand it
        over (``True``: the move has begun), unless this node took it less than
        :data:`MOVE_BACK_AFTER` seconds ago (no room bounces between two nodes faster than
        that, whatever the router does)."""
        if not isinstance(event, RoomWanted) or event.node == self.bus.node:
            return False
        code = event.code
        if self.leaving or not self.leases.shared or dict.get(self.rooms, code) is None:
            return False
        taken = self._taken.get(code)
        if taken is not None and self.settings.clock() - taken < MOVE_BACK_AFTER:
            return False
        task = asyncio.get_running_loop().create_task(self.move(code))
        self._moves.add(task)
        task.add_done_callback(self._moves.discard)
        return True

    def _restore_room(self, lr: st.LoadedRoom) -> Room | None:
        """Rebuild one room (and its unfinished game) from its stored rows."""
        seat_list = [Seat(s.seat, s.kind, s.bot, s.name, s.token_hash, s.left) for s in lr.seats]
        if self.seat_marker is not None:
            self.seat_marker(seat_list)
        try:
            room = Room(
                self,
                lr.code,
                lr.game,
                lr.players,
                lr.best_of,
                dict(lr.options),
                lr.public,
                seat_list,
                lr.created_at,
            )
        except Exception:
            log.exception("could not restore room %s", lr.code)
            return None
        room.series_number = lr.series_number
        room.status = lr.status
        unfinished = None
        for lg in lr.games:
            if lg.ended_at is None:
                unfinished = lg
                continue
            winners = (lg.result or {}).get("winners") or []
            with contextlib.suppress(Exception):
                room.series.record(winners)
            room.games.append(
                GameMeta(
                    id=lg.id,
                    number=lg.number,
                    series=lg.series_number,
                    status="finished",
                    result={"winners": winners, "reason": (lg.result or {}).get("reason")},
                    record_url=record_url(lg.id, room.code, room.public),
                )
            )
        self.rooms[room.code] = room
        try:
            if unfinished is not None:
                state, steps = rebuild(unfinished)
                room.restore_game(
                    unfinished.id,
                    unfinished.number,
                    unfinished.series_number,
                    unfinished.started_at,
                    state,
                    list(steps),
                    unfinished.bot_seeds,
                    paused=unfinished.paused,
                )
            elif room.series.over:
                room.status = "finished"
            elif room.games or room.status in ("countdown", "playing", "between"):
                room.status = "between"
                room.timer = self.later(self.settings.between_games, room._next_game)
            else:
                room.status = "waiting"
        except Exception:
            log.exception("could not restore room %s", room.code)
        return room

    # -- dropping idle rooms from memory -------------------------------------------------

    def evict_idle(self) -> list[str]:
        """Drop from memory every room that nobody is connected to and that is either over
        (series over, or closed) for ``settings.evict_after`` seconds, or abandoned (waiting
        for players, no game ever started) for ``settings.abandon_after`` seconds. Their rows
        stay in the database: :meth:`room` (``hub.rooms.get``) brings one back on demand, and
        records are read from the database. A cluster node also lets go of any other room
        nobody is connected to, with nothing waiting to be stored, after
        ``settings.release_after`` seconds (its game, if any, goes on where the room is next
        asked for: the router may send it to another node now). Returns the codes dropped."""
        now = self.settings.clock()
        dropped: list[str] = []
        shared = self.leases.shared
        for code, room in list(self.rooms.items()):
            g = room.game
            over = room.status in ("finished", "closed")
            abandoned = room.status == "waiting" and g is None and not room.games
            quiet = not room.conns and (g is None or not g.pending)
            idle = quiet and (shared or ((over or abandoned) and (g is None or g.game.over)))
            if not idle:
                room.idle_since = None
                continue
            if room.idle_since is None:
                room.idle_since = now
            if over:
                limit = self.settings.evict_after
            elif abandoned:
                limit = self.settings.abandon_after
            else:
                limit = self.settings.release_after
            if shared:
                limit = min(limit, self.settings.release_after)
            if now - room.idle_since >= limit:
                self.drop(code, 1012, "the room left this node")
                dropped.append(code)
        if dropped:
            log.info("dropped %d idle rooms from memory", len(dropped))
        return dropped

    def start_sweeper(self) -> None:
        """Run :meth:`evict_idle` every ``settings.sweep_interval`` seconds (on the loop)."""
        self.stop_sweeper()
        loop = asyncio.get_running_loop()

        def sweep() -> None:
            for step in (self.check_leases, self.evict_idle, *self.sweep_hooks):
                try:
                    step()
                except Exception:
                    log.exception("sweep failed")
            self.sweeps += 1
            self._sweeper = loop.call_later(self.settings.sweep_interval, sweep)

        self._sweeper = loop.call_later(self.settings.sweep_interval, sweep)

    def stop_sweeper(self) -> None:
        """Stop the sweeps."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None


def _nothing(_conn: Any) -> None:
    """A job that writes nothing: committed after every job queued before it."""


def _release_all(leases: Leases, codes: list[str]) -> None:
    """Give up the leases of rooms ``codes`` (off the loop: a round trip each)."""
    for code in codes:
        leases.release(code)


def _halt(room: Room) -> None:
    """Stop ``room``'s timers and its game's clock and bots (it is leaving this node)."""
    room._cancel_timer()
    g = room.game
    if g is not None:
        if g.timer is not None:
            g.timer.cancel()
        stop_bots(g)


def _timed(
    done: Callable[[Any], None], received: float, observe: Callable[[float], None]
) -> Callable[[Any], None]:
    """``done``, then ``observe`` the seconds since ``received`` (``perf_counter``)."""

    def timed(result: Any) -> None:
        done(result)
        observe(time.perf_counter() - received)

    return timed

"""The hub: every room of a server (the room table), rooms rebuilt from the database, and the
drivers of the rooms' outputs (storage jobs, timers on the event loop).

At start :meth:`Hub.restore` rebuilds every room that is not closed, with its unfinished game
(through its game's record codec: :mod:`blink.server.stored`); a room dropped from memory
while idle (:meth:`Hub.evict_idle`) is rebuilt the same way when it is next asked for
(:class:`RoomTable`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any

from blink.model.registry import DEFAULT_GAME
from blink.server import storage as st
from blink.server.ids import GameIds
from blink.server.links import record_url
from blink.server.protocol import GameMeta
from blink.server.rooms import GameState, Room, Seat
from blink.server.settings import Settings
from blink.server.stored import rebuild
from blink.server.table_clock import Cancellable

__all__ = ["CODE_ALPHABET", "CODE_ATTEMPTS", "Hub", "RoomTable", "random_code", "room_options"]

log = logging.getLogger("blink.server")

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

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

    def get(self, key: str, default: Room | None = None) -> Room | None:  # type: ignore[override]
        """The room ``key``, from memory or the database; ``default`` when there is none."""
        room = dict.get(self, key)
        if room is None and isinstance(key, str):
            room = self._load(key)
        return default if room is None else room


class Hub:
    """Every room of the server, the storage and the settings."""

    def __init__(self, settings: Settings, storage: st.Storage, version: str) -> None:
        self.settings = settings
        self.storage = storage
        self.version = version
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
        self.sweep_hooks: list[Callable[[], object]] = []
        """Called (on the loop) after each sweep of idle rooms: idle tournaments."""
        self.profile_names: set[str] | None = None
        """The name keys of the server's profiles once read (see blink.server.profiles)."""
        self.profile_hashes: set[str] | None = None
        """The secret hashes of the server's profiles once read (see blink.server.profiles)."""
        storage.on_health = self._health_changed
        self._sweeper: asyncio.TimerHandle | None = None
        self.sweeps = 0
        """Sweeps done so far."""
        self._missing: OrderedDict[str, None] = OrderedDict()
        """Codes recently asked for that are in neither memory nor the database."""

    def store(self, job: Callable[[Any], Any], done: Callable[[Any], None] | None = None) -> None:
        """Queue a storage job (committed with the others queued meanwhile)."""
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

    def new_code(self) -> str:
        """A room code to try: drawn by :attr:`code_source`, not one of the rooms in memory.

        Only a candidate: the database decides. The room's row is inserted with it (its
        primary key refuses a code that any room of any server ever had: see
        :func:`blink.server.room_setup.store_new_room`), and a refused code is drawn again.
        """
        for _ in range(CODE_ATTEMPTS):
            code = self.code_source()
            if code not in self.rooms:
                return code
        return code  # the insert refuses it, and the caller gives up

    def code_claimed(self, code: str) -> None:
        """``code``'s room row is committed: forget that the code was once missing."""
        self._missing.pop(code, None)

    def insert_room_now(self, room: Room) -> bool:
        """Give a new room a code and commit its row at once, then register it; ``False``
        when every code drawn was taken. Waits on the database (a round trip per code): for
        the few rooms opened inside a synchronous step (a tournament's match rooms); requests
        use :func:`blink.server.room_setup.store_new_room`, which does not block the loop."""
        for _ in range(CODE_ATTEMPTS):
            room.code = self.new_code()
            with self.storage.engine.begin() as conn:
                inserted = room.insert_job()(conn)
            if inserted:
                self.code_claimed(room.code)
                self.rooms[room.code] = room
                return True
        return False

    @property
    def live_games(self) -> int:
        """Games in progress."""
        return sum(1 for r in self.rooms.values() if r.game is not None and not r.game.game.over)

    def restore(self) -> None:
        """Rebuild every room and unfinished game from the database (at start)."""
        self.game_ids.start()
        for lr in self.storage.load_rooms():
            self._restore_room(lr)

    def room(self, code: str) -> Room | None:
        """The room ``code``: in memory, or brought back from the database when it was dropped
        from memory (:meth:`evict_idle`); ``None`` when there is no such room (or it is closed).
        A synchronous primary-key read on a miss. Same as ``hub.rooms.get(code)``."""
        return self.rooms.get(code)

    def _load_room(self, code: str) -> Room | None:
        if not code or code in self._missing:
            return None
        try:
            lr = self.storage.load_room(code)
        except Exception:
            log.exception("could not load room %s", code)
            return None
        if lr is None:
            self._missing[code] = None
            if len(self._missing) > 4096:
                self._missing.popitem(last=False)
            return None
        return self._restore_room(lr)

    def _restore_room(self, lr: st.LoadedRoom) -> Room | None:
        """Rebuild one room (and its unfinished game) from its stored rows."""
        seat_list = [Seat(s.seat, s.kind, s.bot, s.name, s.token_hash, s.left) for s in lr.seats]
        try:
            room = Room(
                self,
                lr.code,
                lr.game,
                lr.players,
                lr.best_of,
                room_options(lr),
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
        records are read from the database. Returns the codes dropped."""
        now = self.settings.clock()
        dropped: list[str] = []
        for code, room in list(self.rooms.items()):
            g = room.game
            over = room.status in ("finished", "closed")
            abandoned = room.status == "waiting" and g is None and not room.games
            idle = (
                (over or abandoned)
                and not room.conns
                and (g is None or (g.game.over and not g.pending))
            )
            if not idle:
                room.idle_since = None
                continue
            if room.idle_since is None:
                room.idle_since = now
            limit = self.settings.evict_after if over else self.settings.abandon_after
            if now - room.idle_since >= limit:
                room._cancel_timer()
                if g is not None and g.timer is not None:
                    g.timer.cancel()
                del self.rooms[code]
                dropped.append(code)
        if dropped:
            log.info("dropped %d idle rooms from memory", len(dropped))
        return dropped

    def start_sweeper(self) -> None:
        """Run :meth:`evict_idle` every ``settings.sweep_interval`` seconds (on the loop)."""
        self.stop_sweeper()
        loop = asyncio.get_running_loop()

        def sweep() -> None:
            for step in (self.evict_idle, *self.sweep_hooks):
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


def room_options(lr: st.LoadedRoom) -> dict[str, Any]:
    """A stored room's options; a room stored before rooms kept them has the default game's
    ruleset and sizes columns."""
    if lr.options is not None:
        return dict(lr.options)
    if lr.game != DEFAULT_GAME:
        return {}
    return {"ruleset": lr.ruleset, "sizes": lr.sizes}

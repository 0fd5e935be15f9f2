"""The tournaments of one server in memory and in the database (:class:`Store`): reading
them back, listing them, dropping idle ones from memory, and the store of a change, over the
version read and fenced on a cluster (:mod:`~blink.server.tournaments.fences`), published once
committed.

A tournament nobody has asked about or changed for ``Settings.tournament_idle_after`` seconds,
and none of whose match rooms is in memory, is dropped from memory (:meth:`Store.evict_idle`,
on the hub's sweeps); every lookup (:meth:`Store.get`, a match room's game end) reads it back
from its row, so no answer changes. At start only unfinished tournaments are read.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, select, update

from blink.model.registry import DEFAULT_GAME
from blink.server.bus import TOURNAMENTS, TournamentChanged
from blink.server.hub import Hub
from blink.server.lease import TOURNAMENT_NAMESPACE
from blink.server.tournaments.entry import Entry, summary
from blink.server.tournaments.fences import TournamentFenced, fenced_job, room_fences
from blink.server.tournaments.records import entry_of, row_of, tournaments

__all__ = ["Store"]

log = logging.getLogger("blink.server.tournaments")


class Store:
    """Every tournament of one server, kept in memory and stored after each change: the
    storage layer of :class:`~blink.server.tournaments.manager.Manager`."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.items: dict[str, Entry] = {}
        self.by_room: dict[str, str] = {}

    def load(self) -> None:
        """Load every unfinished tournament (at start; the others are read when asked for)."""
        with self.hub.storage.engine.connect() as conn:
            rows = conn.execute(select(tournaments).where(tournaments.c.status != "finished"))
            loaded = [entry_of(r) for r in rows.all()]
        for e in loaded:
            if e is not None:
                self.add(e)

    def add(self, e: Entry) -> Entry:
        """Keep ``e`` in memory (a new tournament, or one read back from its row)."""
        self.items[e.id] = e
        for codes in e.rooms.values():
            for c in codes:
                self.by_room[c] = e.id
        e.touched = self.hub.settings.clock()
        return e

    def read(self, tid: str) -> Entry | None:
        """Tournament ``tid`` as stored (a plain read: call it off the event loop)."""
        with self.hub.storage.engine.connect() as conn:
            r = conn.execute(select(tournaments).where(tournaments.c.id == tid)).first()
        return None if r is None else entry_of(r)

    async def get(self, tid: str) -> Entry | None:
        """Tournament ``tid``: in memory, or read back from the database (``None``: there is
        no such tournament). Counts as activity."""
        e = self.items.get(tid)
        if e is None:
            stored = await asyncio.to_thread(self.read, tid)
            e = self.items.get(tid)  # another request may have read it back meanwhile
            if e is None and stored is not None:
                e = self.add(stored)
        if e is not None:
            e.touched = self.hub.settings.clock()
        return e

    def newest(self, limit: int) -> list[Any]:
        """The rows of the ``limit`` newest stored tournaments (a plain read: call it off the
        event loop), for :meth:`listing`."""
        q = select(tournaments).order_by(tournaments.c.created_at.desc()).limit(limit)
        with self.hub.storage.engine.connect() as conn:
            return list(conn.execute(q).all())

    def listing(self, rows: list[Any], limit: int) -> list[dict[str, Any]]:
        """The ``limit`` newest tournaments (``GET /api/tournaments``): those in memory as they
        are, the others as their stored ``rows`` say (:meth:`newest`)."""
        got: dict[str, tuple[float, dict[str, Any]]] = {}
        for r in rows:
            if r.id not in self.items:
                try:
                    data = json.loads(r.state)
                    players = len(data["tournament"]["players"])
                    of = str(data["tournament"].get("game") or DEFAULT_GAME)
                except (ValueError, KeyError, TypeError, AttributeError):
                    continue
                who = str(data.get("entrants") or "people")
                shown = summary(r.id, r.name, of, r.kind, r.status, players, who)
                got[r.id] = (r.created_at, shown)
        for e in self.items.values():
            count = len(e.t.entrants)
            shown = summary(e.id, e.t.name, e.t.game, e.kind, e.status, count, e.entrants)
            got[e.id] = (e.created_at, shown)
        ordered = sorted(got.values(), key=lambda x: x[0], reverse=True)
        return [s for _, s in ordered[:limit]]

    def evict_idle(self) -> list[str]:
        """Drop from memory every tournament idle for ``settings.tournament_idle_after``
        seconds (neither asked for nor changed) none of whose match rooms is in memory and
        that waits for no draw at the close of check-in; its
        row stays and :meth:`get` reads it back. Nothing is dropped while the database cannot
        be written (its row may be behind). Returns the ids dropped."""
        limit = self.hub.settings.tournament_idle_after
        if limit is None or self.hub.write_failure() is not None:
            return []
        now = self.hub.settings.clock()
        dropped = []
        for tid, e in list(self.items.items()):
            codes = [c for cs in e.rooms.values() for c in cs]
            if now - e.touched < limit or any(c in self.hub.rooms for c in codes):
                continue
            if e.draw_at_close:  # the sweeps make its draw when check-in closes
                continue
            del self.items[tid]
            for c in codes:
                self.by_room.pop(c, None)
            dropped.append(tid)
        if dropped:
            log.info("dropped %d idle tournaments from memory", len(dropped))
        return dropped

    def of_room(self, code: str, search: bool) -> Entry | None:
        """The tournament whose match room ``code`` is: in memory, or (``search``) read back
        from the database (a match room can outlive its tournament's stay in memory)."""
        tid = self.by_room.get(code)
        if tid is not None and tid in self.items:
            return self.items[tid]
        if not search:
            return None
        pattern = f'%"{code}"%'
        with self.hub.storage.engine.connect() as conn:
            rows = conn.execute(select(tournaments).where(tournaments.c.state.like(pattern)))
            found = [e for e in map(entry_of, rows.all()) if e is not None]
        for e in found:
            if any(code in cs for cs in e.rooms.values()):
                return self.items.get(e.id) or self.add(e)
        return None

    def save(
        self, e: Entry, insert_row: bool = False, organiser: bool = False
    ) -> Callable[[Connection], bool | TournamentFenced]:
        """Bump the version and return the job that stores the tournament. On a cluster the
        row is updated only if it is still at the version ``e`` was read at (the job's result
        is ``False`` when another node stored a newer one meanwhile), and only while this
        node still holds the leases of the match rooms it has in memory, at the epochs it
        holds them now (:mod:`blink.server.tournaments.fences`; else the result is
        :class:`~blink.server.tournaments.fences.TournamentFenced`); a store made as the
        tournament's ``organiser`` also only while this node still holds the tournament's
        lease at the epoch it holds now. Call it in the same step as the
        :meth:`~blink.server.tournaments.matches.MatchRooms.sync` whose rooms it stores."""
        expected = e.version
        e.version += 1
        e.updated_at = time.time()
        e.touched = self.hub.settings.clock()
        row = row_of(e)
        checked = self.hub.leases.shared
        codes = [c for cs in e.rooms.values() for c in cs]
        fences = room_fences(self.hub, codes) if checked else set()
        lease = self.hub.leases.fence(e.id, TOURNAMENT_NAMESPACE) if organiser else None

        def job(conn: Connection) -> bool:
            if insert_row:
                conn.execute(tournaments.insert().values(**row))
                return True
            q = update(tournaments).where(tournaments.c.id == row["id"])
            if checked:
                q = q.where(tournaments.c.version == expected)
            return bool(conn.execute(q.values(**row)).rowcount) or not checked

        return fenced_job(e.id, fences, job, lease)

    def forget(self, tid: str) -> None:
        """Drop tournament ``tid`` from memory (it is read back from its row when asked for)."""
        e = self.items.pop(tid, None)
        if e is not None:
            for codes in e.rooms.values():
                for c in codes:
                    self.by_room.pop(c, None)

    def published(self, e: Entry) -> Callable[[object], None]:
        """The ``done`` of a storage job of :meth:`save`: once committed, the change is
        published (:class:`~blink.server.bus.TournamentChanged`, on every node)."""
        change = TournamentChanged(e.id, e.version)

        def done(_result: object) -> None:
            self.hub.bus.publish(TOURNAMENTS, change)

        return done

    def store(self, e: Entry) -> None:
        """Save ``e`` (:meth:`save`) and publish the change once it is committed."""
        self.hub.storage.submit(self.save(e), self.published(e))

    async def fresh(self, tid: str, version: int | None) -> Entry | None:
        """Tournament ``tid`` at ``version`` at least (``None``: as stored, events may have
        been missed): when the one in memory is older (another node changed it), the stored
        one replaces it."""
        e = await self.get(tid)
        if e is None or (version is not None and e.version >= version):
            return e
        stored = await asyncio.to_thread(self.read, tid)
        current = self.items.get(tid)
        if stored is not None and (current is None or stored.version > current.version):
            return self.add(stored)
        return current

    async def running(self) -> list[str]:
        """The ids of the stored online tournaments that are running."""

        def read() -> list[str]:
            q = select(tournaments.c.id).where(
                tournaments.c.status == "running", tournaments.c.kind == "online"
            )
            with self.hub.storage.engine.connect() as conn:
                return [r.id for r in conn.execute(q)]

        return await asyncio.to_thread(read)

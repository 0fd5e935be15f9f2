"""Tournaments on the server: online (rooms opened for each pairing) and real cards (results
entered by the organiser), stored in the database, with a live state, an export, and the
printable bracket (HTML and PNG from :mod:`blink.tournament.bracket`).

The rules are :class:`blink.tournament.Tournament` (pure); :class:`Manager` keeps one per
tournament in memory (:class:`~blink.server.tournaments.store.Store`), stores its JSON after
every change (table ``tournaments``, migration 0002: :mod:`~blink.server.tournaments.records`),
and, for an online tournament that has started, opens a private room for each ready match
(:class:`~blink.server.tournaments.matches.MatchRooms`). Results come back from the rooms'
finished games (:meth:`Manager.sync`, run by a game-end hook and at start), each game entered
once.

On a cluster (:attr:`Leases.shared <blink.server.lease.Leases.shared>`), the node holding a
tournament's lease organises it (:meth:`Manager.organise`): match rooms are handed off to
whichever node the router picks, a game end anywhere is announced once stored
(:class:`~blink.server.bus.MatchFinished`), and the organiser enters the stored games of the
rooms (:meth:`Manager.stored_rooms`), opens the next rooms and stores the tournament over the
version it read. Another node takes the lease on an event or a periodic check when the
organiser is gone. See docs/cluster.md, "Tournaments".

The endpoints are :mod:`blink.server.routes.tournaments`. See docs/protocol.md,
"Tournaments and profiles".
"""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy import Connection

from blink.server.bus import TOURNAMENTS, Event, MatchFinished, TournamentChanged
from blink.server.hub import Hub
from blink.server.lease import TOURNAMENT_NAMESPACE
from blink.server.profiles import on_game_end
from blink.server.room.room import GameState, Room
from blink.server.tournaments.absences import draw_at_close, no_shows
from blink.server.tournaments.entry import Entry
from blink.server.tournaments.fences import TournamentFenced, refused
from blink.server.tournaments.matches import MatchRooms

__all__ = ["Manager", "attach"]

log = logging.getLogger("blink.server.tournaments")


class Manager(MatchRooms):
    """Every tournament of one server, kept in memory and stored after each change
    (:class:`~blink.server.tournaments.store.Store`), their match rooms
    (:class:`~blink.server.tournaments.matches.MatchRooms`), and their organising: a match
    room's game end, and on a cluster the tournaments whose lease this node holds."""

    def __init__(self, hub: Hub) -> None:
        super().__init__(hub)
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.stopped = False
        """Set when the server stops (no more periodic checks)."""

    def on_game_end(self, room: Room, _g: GameState) -> None:
        """A game ended: if it belongs to a tournament, bring the tournament up to date (on a
        cluster: :meth:`_match_game_ended`).

        A room whose game is not its tournament's (:attr:`Tournament.game
        <blink.tournament.Tournament.game>`) is no match room of it, and is ignored."""
        e = self.of_room(room.code, search=bool(room.options.get("fixed_seats")))
        if e is None or room.game_name != e.t.game:
            return
        if self.hub.leases.shared:
            self._match_game_ended(e, room)
        elif self.sync(e):
            self.store(e)

    # -- organising on a cluster

    def organises(self, tid: str) -> bool:
        """Whether this node organises tournament ``tid``: it holds the tournament's lease, or
        takes it now (a single node organises every one)."""
        try:
            return self.hub.leases.acquire(tid, TOURNAMENT_NAMESPACE)
        except Exception:
            log.warning("could not ask for the lease of tournament %s", tid, exc_info=True)
            return False

    def _match_game_ended(self, e: Entry, room: Room) -> None:
        """On a cluster, a game of match room ``room`` ended here: the room is closed if the
        game decided its match (seen on the stored tournament with this room's games entered,
        a copy that is not kept), and once the game's result is committed the organiser is
        told (:class:`~blink.server.bus.MatchFinished`, which this node hears too)."""
        try:
            copy = self.read(e.id)
        except Exception:
            log.exception("could not read tournament %s", e.id)
            copy = None
        # The stored one knows the room even when this node's copy is older than the room.
        known = copy or e
        mid = next((m for m, cs in known.rooms.items() if room.code in cs), None)
        if mid is None:
            return
        if copy is not None:
            self.sync(copy, open_rooms=False)
        event = MatchFinished(e.id, mid, room.code)

        def told(_result: object) -> None:
            self.hub.bus.publish(TOURNAMENTS, event)

        # Jobs commit in order: this one's done comes after the game's result is committed.
        self.hub.storage.submit(_nothing, told)

    def heard(self, event: Event) -> None:
        """A tournament event (of any node, this one's too): the organiser of a tournament
        whose match room finished a game, or that another node changed, brings it up to date
        (:meth:`organise`); a node whose organiser died takes its place on the next event."""
        if isinstance(event, MatchFinished):
            self.soon(event.id)
        elif isinstance(event, TournamentChanged):
            current = self.items.get(event.id)
            if current is None or current.version < event.version:
                self.soon(event.id)

    def soon(self, tid: str) -> None:
        """Run :meth:`organise` for ``tid`` in a task of its own."""
        task = asyncio.get_running_loop().create_task(self.organise(tid))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def organise(self, tid: str) -> None:
        """If this node organises tournament ``tid`` (or takes its lease now): read it back
        as stored, enter the stored results of its match rooms and the no-show forfeits due
        in the rooms it serves, open the rooms of the matches that are ready, store it and
        publish the change. A store refused because another
        node stored a newer version meanwhile starts over from that one, and so does one
        refused by the leases of match rooms (which leave memory first)."""
        async with self._locks.setdefault(tid, asyncio.Lock()):
            if self.stopped:
                return
            try:
                await self._organise(tid)
            except Exception:
                log.exception("could not organise tournament %s", tid)

    async def _organise(self, tid: str) -> None:
        if not self.organises(tid):
            if tid in self.items:  # what this node answers about it follows the stored one
                await self.fresh(tid, None)
            return
        for _ in range(10):
            e = await asyncio.to_thread(self.read, tid)
            if e is None:
                return
            current = self.items.get(tid)
            if current is not None and current.version > e.version:
                # A change of ours is being stored (its own event is skipped): look again.
                self.hub.later(0.05, lambda: self.soon(tid))
                return
            self.add(e)
            if e.status == "finished":
                self.hub.leases.release(tid, TOURNAMENT_NAMESPACE)
                return
            if not e.started or e.kind != "online":
                return
            stored = await asyncio.to_thread(self.stored_rooms, e)
            forfeited = no_shows(self.match_room, e, self.hub.settings.wall_clock())
            if not self.sync(e, stored) and not forfeited:
                return
            try:
                stored_now = await self.hub.storage.run(self.save(e, organiser=True))
            except Exception:
                self.forget(tid)  # not stored: what it holds is ahead of the row
                raise
            if isinstance(stored_now, TournamentFenced):
                refused(self.hub, stored_now)  # its stale rooms leave memory: read again
                self.forget(tid)
                if stored_now.lease is not None:
                    return  # another node organises it now
                continue
            if stored_now:
                self.published(e)(None)
                return
            self.forget(tid)  # what it holds is not what is stored: read it again
        log.warning("tournament %s kept changing: left for its next event", tid)

    def check_soon(self) -> None:
        """Every ``settings.tournament_check_interval`` seconds: :meth:`organise` every
        running tournament (the backstop of the events: an organiser that died, events lost
        while Redis was away)."""

        async def check() -> None:
            if self.stopped:
                return
            try:
                for tid in await self.running():
                    await self.organise(tid)
            except Exception:
                log.exception("the check of running tournaments failed")
            finally:
                if not self.stopped:
                    self.hub.later(self.hub.settings.tournament_check_interval, self.check_soon)

        task = asyncio.get_running_loop().create_task(check())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def check_no_shows(self) -> list[str]:
        """On a sweep: the draws at the close of check-in, and the no-show forfeits, of every
        tournament in memory this node organises; each one changed is synced (its rooms closed
        and opened) and stored. Returns their ids."""
        if self.stopped or self.hub.write_failure() is not None:
            return []
        if self.hub.leases.shared:
            # On a cluster the organiser's periodic check enters them (:meth:`organise`), over
            # the stored tournament and with the store checked against its version; the draw at
            # the close of check-in is the organiser's there.
            return []
        now = self.hub.settings.wall_clock()
        done = []
        for tid, e in list(self.items.items()):
            if e.draw_at_close and self.organises(tid) and draw_at_close(e, now):
                self.store(e)
                done.append(tid)
                continue
            if e.no_show_after is None or not e.started or e.status == "finished":
                continue
            if not self.organises(tid) or not no_shows(self.match_room, e, now):
                continue
            self.sync(e)
            self.store(e)
            done.append(tid)
        return done

    def stop(self) -> None:
        """The server stops: no more organising (the leases go with the node's)."""
        self.stopped = True
        for task in list(self._tasks):
            task.cancel()


def _nothing(_conn: Connection) -> None:
    """A job that writes nothing (its ``done`` runs once the jobs before it are committed)."""


async def attach(hub: Hub) -> None:
    """At start: load tournaments, hook game ends (ratings, tournament results), catch up."""
    mgr = Manager(hub)
    await asyncio.to_thread(mgr.load)
    hub.tournaments = mgr  # type: ignore[attr-defined]
    hub.game_end_hooks.append(on_game_end)
    hub.game_end_hooks.append(mgr.on_game_end)
    hub.sweep_hooks.append(mgr.evict_idle)
    hub.sweep_hooks.append(mgr.check_no_shows)
    if hub.leases.shared:
        # A cluster node organises the tournaments whose leases it holds or takes: on their
        # events, and by a periodic check (which starts now).
        hub.bus.listen(TOURNAMENTS, mgr.heard)
        mgr.check_soon()
        return
    for e in mgr.items.values():
        if mgr.sync(e):
            mgr.store(e)

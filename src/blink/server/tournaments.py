"""Tournaments on the server: online (rooms opened for each pairing) and real cards (results
entered by the organiser), stored in the database, with a live state, an export, and the
printable bracket (HTML and PNG from :mod:`blink.bracket`).

The rules are :class:`blink.tournament.Tournament` (pure); this module keeps one per
tournament in memory (:class:`Manager`), stores its JSON after every change (table
``tournaments``, migration 0002), and, for an online tournament that has started, opens a
private room for each ready match (best of 3; the final round's three games in a best of 5
that is closed as soon as the tournament has its three decided games; a three-player
play-off as one game). Each seat's token is the player's profile secret, so players connect
to their match with the secret they already hold. Results come back from the rooms' finished
games (:meth:`Manager.sync`, run by a game-end hook and at start), each game entered once
(its reference is ``ROOM/game-id``).

A tournament nobody has asked about or changed for ``Settings.tournament_idle_after`` seconds,
and none of whose match rooms is in memory, is dropped from memory (:meth:`Manager.evict_idle`,
on the hub's sweeps); every lookup (:meth:`Manager.get`, a match room's game end) reads it
back from its row, so no answer changes. At start only unfinished tournaments are read.

The endpoints are :mod:`blink.server.routes.tournaments`. See docs/protocol.md,
"Tournaments and profiles".
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Column, Connection, Float, Integer, String, Table, Text, select, update

from blink.games.classic.rules import get_ruleset
from blink.model.registry import DEFAULT_GAME
from blink.server.bus import TOURNAMENTS, TournamentChanged
from blink.server.hub import Hub
from blink.server.profiles import meta, on_game_end, profiles_by_id
from blink.server.rooms import GameState, Room, Seat
from blink.tournament import MatchKind, Tournament, TournamentError

__all__ = ["KINDS", "Entry", "Manager", "attach", "tournament_dict", "tournaments"]

log = logging.getLogger("blink.server.tournaments")

tournaments = Table(
    "tournaments",
    meta,
    Column("id", String(16), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("organiser_hash", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("version", Integer, nullable=False),
    Column("state", Text, nullable=False),
)

KINDS = ("online", "cards")


def _best_of(kind: MatchKind) -> int:
    if kind is MatchKind.PLAYOFF:
        return 1
    if kind is MatchKind.FINAL_SET:
        return 5
    return 3


def tournament_dict(t: Tournament) -> dict[str, Any]:
    """The tournament's JSON document (as ``blink tournament`` reads it), also before it has
    two players (:meth:`Tournament.to_dict` has no plan for it yet)."""
    return t.to_dict()


@dataclass
class Entry:
    """A tournament as the server keeps it."""

    id: str
    kind: str
    organiser_hash: str
    created_at: float
    t: Tournament
    profiles: dict[str, str] = field(default_factory=dict)
    """Player name -> profile id (online)."""
    rooms: dict[str, list[str]] = field(default_factory=dict)
    """Match id -> room codes opened for it, oldest first."""
    started: bool = False
    version: int = 0
    updated_at: float = 0.0
    touched: float = 0.0
    """When it was last asked for or changed (``Settings.clock``)."""

    @property
    def status(self) -> str:
        """``signup``, ``drawn``, ``running`` or ``finished``."""
        if self.t.drawn and len(self.t.entrants) >= 2 and self.t.finished:
            return "finished"
        if self.started:
            return "running"
        return "drawn" if self.t.drawn else "signup"

    def state_json(self) -> str:
        """What is stored."""
        return json.dumps(
            {
                "tournament": tournament_dict(self.t),
                "profiles": self.profiles,
                "rooms": self.rooms,
                "started": self.started,
            }
        )

    def view(self) -> dict[str, Any]:
        """The public state (``GET /api/tournaments/{id}``)."""
        td = tournament_dict(self.t)
        rooms: dict[str, Any] = {}
        for mid, codes in self.rooms.items():
            code = codes[-1]
            rooms[mid] = {
                "code": code,
                "codes": codes,
                "play_url": f"/play/{code}",
                "watch_url": f"/watch/{code}",
            }
        return {
            "id": self.id,
            "name": self.t.name,
            "kind": self.kind,
            "status": self.status,
            "version": self.version,
            "updated_at": self.updated_at,
            "players": [
                {
                    "name": e.name,
                    "rank": e.rank,
                    "rating": e.rating,
                    "profile": self.profiles.get(e.name),
                }
                for e in self.t.entrants
            ],
            "rooms": rooms,
            "tournament": td,
            "bracket_html": f"/api/tournaments/{self.id}/bracket.html",
            "bracket_png": f"/api/tournaments/{self.id}/bracket.png",
            "export_url": f"/api/tournaments/{self.id}/export",
        }


def _entry(r: Any) -> Entry | None:
    """The tournament of a stored row (``None``, logged, when it cannot be read)."""
    try:
        data = json.loads(r.state)
        t = Tournament.from_dict(data["tournament"])
    except Exception:
        log.exception("could not load tournament %s", r.id)
        return None
    return Entry(
        r.id,
        r.kind,
        r.organiser_hash,
        r.created_at,
        t,
        dict(data.get("profiles") or {}),
        {k: list(v) for k, v in (data.get("rooms") or {}).items()},
        bool(data.get("started")),
        r.version,
        r.updated_at,
    )


def _summary(tid: str, name: str, kind: str, status: str, players: int) -> dict[str, Any]:
    """A tournament as ``GET /api/tournaments`` lists it."""
    url = f"/tournament.html?id={tid}"
    return {"id": tid, "name": name, "kind": kind, "status": status, "players": players, "url": url}


def _row(e: Entry) -> dict[str, Any]:
    return {
        "id": e.id,
        "name": e.t.name[:64],
        "kind": e.kind,
        "status": e.status,
        "organiser_hash": e.organiser_hash,
        "created_at": e.created_at,
        "updated_at": e.updated_at,
        "version": e.version,
        "state": e.state_json(),
    }


class Manager:
    """Every tournament of one server, kept in memory and stored after each change."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.items: dict[str, Entry] = {}
        self.by_room: dict[str, str] = {}

    # -- storage

    def load(self) -> None:
        """Load every unfinished tournament (at start; the others are read when asked for)."""
        with self.hub.storage.engine.connect() as conn:
            rows = conn.execute(select(tournaments).where(tournaments.c.status != "finished"))
            loaded = [_entry(r) for r in rows.all()]
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
        return None if r is None else _entry(r)

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
                    players = len(json.loads(r.state)["tournament"]["players"])
                except (ValueError, KeyError, TypeError):
                    continue
                got[r.id] = (r.created_at, _summary(r.id, r.name, r.kind, r.status, players))
        for e in self.items.values():
            summary = _summary(e.id, e.t.name, e.kind, e.status, len(e.t.entrants))
            got[e.id] = (e.created_at, summary)
        ordered = sorted(got.values(), key=lambda x: x[0], reverse=True)
        return [s for _, s in ordered[:limit]]

    def evict_idle(self) -> list[str]:
        """Drop from memory every tournament idle for ``settings.tournament_idle_after``
        seconds (neither asked for nor changed) none of whose match rooms is in memory; its
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
            found = [e for e in map(_entry, rows.all()) if e is not None]
        for e in found:
            if any(code in cs for cs in e.rooms.values()):
                return self.items.get(e.id) or self.add(e)
        return None

    def save(self, e: Entry, insert_row: bool = False) -> Callable[[Connection], None]:
        """Bump the version and return the job that stores the tournament."""
        e.version += 1
        e.updated_at = time.time()
        e.touched = self.hub.settings.clock()
        row = _row(e)

        def job(conn: Connection) -> None:
            if insert_row:
                conn.execute(tournaments.insert().values(**row))
            else:
                conn.execute(update(tournaments).where(tournaments.c.id == row["id"]).values(**row))

        return job

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

    # -- rooms

    def sync(self, e: Entry) -> bool:
        """Enter the results of finished games of the match rooms; open rooms for ready
        matches; close rooms whose match is decided. True if anything changed."""
        changed = False
        t = e.t
        if not t.drawn:
            return False
        refs = {g.ref for m in t.matches() for g in m.games if g.ref}
        for mid, codes in e.rooms.items():
            for code in codes:
                room = self.hub.rooms.get(code)
                if room is None:
                    continue
                for meta_ in room.games:
                    res = meta_.result
                    if meta_.status != "finished" or not res:
                        continue
                    ref = f"{code}/{meta_.id}"
                    if ref in refs:
                        continue
                    m = t.match(mid)
                    if m.decided or not m.known:
                        continue
                    # Seat i of a match room is the match's player i (open_room), held by that
                    # player's profile for the whole match: results go by seat, never by a
                    # name shown at the table.
                    players = [p for p in m.players if p is not None]
                    names = [players[w] for w in res["winners"] if 0 <= w < len(players)]
                    try:
                        t.record_game(mid, names, ref)
                    except TournamentError:
                        log.exception("result of %s not entered in %s", ref, e.id)
                        continue
                    refs.add(ref)
                    changed = True
                if (
                    t.match(mid).decided
                    and room.status in ("between", "waiting", "countdown")
                    and (room.game is None or room.game.game.over)
                ):
                    room._cancel_timer()
                    room.set_status("finished")
        if e.started and e.kind == "online":
            for m in t.ready_matches():
                codes = e.rooms.get(m.id, [])
                last = self.hub.rooms.get(codes[-1]) if codes else None
                if last is not None and last.status not in ("finished", "closed"):
                    continue
                opened = self.open_room(e, m.id)
                if opened is not None:
                    e.rooms.setdefault(m.id, []).append(opened)
                    self.by_room[opened] = e.id
                    changed = True
        return changed

    def open_room(self, e: Entry, match_id: str) -> str | None:
        """Open a private room for a match, seats held by the players' profiles."""
        m = e.t.match(match_id)
        names = [p for p in m.players if p is not None]
        ids = [e.profiles.get(n) for n in names]
        if any(i is None for i in ids):
            return None
        rows = profiles_by_id(self.hub, [i for i in ids if i is not None])
        seat_list = []
        for i, (n, pid) in enumerate(zip(names, ids, strict=True)):
            row = rows.get(pid) if pid is not None else None
            if row is None:
                return None
            seat_list.append(Seat(i, "human", name=n, token_hash=row.secret_hash))
        sizes = None
        if m.handicap is not None:
            hc = dict(m.handicap)
            sizes = [hc[n] for n in names]
        h = self.hub
        best_of = _best_of(m.kind)
        # The seats belong to their profiles for the whole match (leave does not free them).
        options = {"ruleset": get_ruleset("official").name, "sizes": sizes, "fixed_seats": True}
        room = Room(
            h, "", DEFAULT_GAME, len(names), best_of, options, False, seat_list, time.time()
        )
        # The room's row is committed before its code goes into the tournament: the database
        # refuses a code another server's room has (and a new one is drawn).
        try:
            if not h.insert_room_now(room):
                log.error("no free room code for match %s of %s", match_id, e.id)
                return None
        except Exception:
            log.exception("could not store the room of match %s of %s", match_id, e.id)
            return None
        return room.code

    def on_game_end(self, room: Room, _g: GameState) -> None:
        """A game ended: if it belongs to a tournament, bring the tournament up to date.

        Rooms of other games are ignored: tournaments are of the default game."""
        if room.game_name != DEFAULT_GAME:
            return
        e = self.of_room(room.code, search=bool(room.options.get("fixed_seats")))
        if e is not None and self.sync(e):
            self.store(e)


async def attach(hub: Hub) -> None:
    """At start: load tournaments, hook game ends (ratings, tournament results), catch up."""
    mgr = Manager(hub)
    await asyncio.to_thread(mgr.load)
    hub.tournaments = mgr  # type: ignore[attr-defined]
    hub.game_end_hooks.append(on_game_end)
    hub.game_end_hooks.append(mgr.on_game_end)
    hub.sweep_hooks.append(mgr.evict_idle)
    for e in mgr.items.values():
        if mgr.sync(e):
            mgr.store(e)

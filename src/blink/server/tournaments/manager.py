"""Tournaments on the server: online (rooms opened for each pairing) and real cards (results
entered by the organiser), stored in the database, with a live state, an export, and the
printable bracket (HTML and PNG from :mod:`blink.bracket`).

The rules are :class:`blink.tournament.Tournament` (pure); this module keeps one per
tournament in memory (:class:`Manager`), stores its JSON after every change (table
``tournaments``, migration 0002), and, for an online tournament that has started, opens a
private room for each ready match, playing the match's set as the tournament has it
(:attr:`Match.best_of <blink.tournament.Match.best_of>`: two out of three; a final-round set's
three decided games, every one played, the room option ``play_all``; a three-player play-off
as one game), so the room's series ends with the game that decides the match. Each seat's
token is the player's profile secret, so players connect to their match with the secret they
already hold. Results come back from the rooms' finished
games (:meth:`Manager.sync`, run by a game-end hook and at start), each game entered once
(its reference is ``ROOM/game-id``).

A tournament nobody has asked about or changed for ``Settings.tournament_idle_after`` seconds,
and none of whose match rooms is in memory, is dropped from memory (:meth:`Manager.evict_idle`,
on the hub's sweeps); every lookup (:meth:`Manager.get`, a match room's game end) reads it
back from its row, so no answer changes. At start only unfinished tournaments are read.

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
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Column, Connection, Float, Integer, String, Table, Text, select, update

from blink.model.registry import game
from blink.server.bus import TOURNAMENTS, Event, MatchFinished, TournamentChanged
from blink.server.hub import Hub
from blink.server.lease import TOURNAMENT_NAMESPACE
from blink.server.profiles import meta, on_game_end, profiles_by_id
from blink.server.room.room import PLAY_ALL, GameState, Room, Seat
from blink.server.schema import games, rooms
from blink.server.tournaments.absences import check_no_shows, no_shows
from blink.server.tournaments.fences import TournamentFenced, fenced_job, refused, room_fences
from blink.tournament import Tournament, TournamentError
from blink.tournament.state import GAME as TOURNAMENT_GAME

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
    no_show_after: float | None = None
    """Seconds a match room waits for its players before those not there forfeit
    (``None``: no deadline)."""
    opened: dict[str, float] = field(default_factory=dict)
    """Room code -> when it was opened (``Settings.wall_clock``), for the no-show deadline."""
    claims: dict[str, str] = field(default_factory=dict)
    """Player name -> the claim token of a player entered by name without a profile."""
    check_in_closes: float | None = None
    """When check-in closes (``Settings.wall_clock``; ``None``: when the organiser draws)."""
    draw_at_close: bool = False
    """Make the draw when check-in closes (on the sweeps), over the players who checked in."""
    entrants: str = "people"
    """Who may enter: ``people``, or ``bots`` (bot accounts only, docs/bot-api.md)."""

    def drop_left(self) -> None:
        """Forget the profiles and claims of players no longer in the field (after a draw
        over those who checked in)."""
        present = {x.name for x in self.t.entrants}
        for name in [n for n in self.profiles if n not in present]:
            del self.profiles[name]
        for name in [n for n in self.claims if n not in present]:
            del self.claims[name]

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
                "no_show_after": self.no_show_after,
                "opened": self.opened,
                "claims": self.claims,
                "check_in_closes": self.check_in_closes,
                "draw_at_close": self.draw_at_close,
                "entrants": self.entrants,
            }
        )

    def view(self) -> dict[str, Any]:
        """The public state (``GET /api/tournaments/{id}``)."""
        td = tournament_dict(self.t)
        rooms: dict[str, Any] = {}
        for mid, codes in self.rooms.items():
            code = codes[-1]
            opened = self.opened.get(code)
            rooms[mid] = {
                "code": code,
                "codes": codes,
                "play_url": f"/play/{code}",
                "watch_url": f"/watch/{code}",
                "opened_at": opened,
                "no_show_at": None
                if opened is None or self.no_show_after is None
                else opened + self.no_show_after,
            }
        return {
            "id": self.id,
            "name": self.t.name,
            "kind": self.kind,
            "entrants": self.entrants,
            "status": self.status,
            "version": self.version,
            "updated_at": self.updated_at,
            "players": [
                {
                    "name": e.name,
                    "rank": e.rank,
                    "rating": e.rating,
                    "profile": self.profiles.get(e.name),
                    "claimable": e.name in self.claims,
                    "bot": self.entrants == "bots",
                    "withdrawn": e.name in self.t.withdrawn,
                    "checked_in": None
                    if self.t.checked_in is None
                    else e.name in self.t.checked_in,
                }
                for e in self.t.entrants
            ],
            "no_show_after": self.no_show_after,
            "check_in": {
                "open": self.t.check_in_open,
                "players": self.t.checked_in,
                "closes_at": self.check_in_closes,
                "draw_at_close": self.draw_at_close,
            },
            "changes": [c.to_dict() for c in self.t.changes],
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
        no_show_after=data.get("no_show_after"),
        opened={str(k): float(v) for k, v in (data.get("opened") or {}).items()},
        claims={str(k): str(v) for k, v in (data.get("claims") or {}).items()},
        check_in_closes=data.get("check_in_closes"),
        draw_at_close=bool(data.get("draw_at_close")),
        entrants=str(data.get("entrants") or "people"),
    )


@dataclass(frozen=True)
class StoredRooms:
    """What the database says of a tournament's match rooms (on a cluster, of those served by
    other nodes): :meth:`Manager.stored_rooms`."""

    games: dict[str, list[tuple[int, list[int]]]]
    """Room code -> its finished games (game id, winning seats), in order."""
    status: dict[str, str]
    """Room code -> its stored status."""


def _summary(tid: str, name: str, kind: str, status: str, players: int, who: str) -> dict[str, Any]:
    """A tournament as ``GET /api/tournaments`` lists it (``who``: its entrants)."""
    url = f"/tournament.html?id={tid}"
    out = {"id": tid, "name": name, "kind": kind, "status": status, "players": players}
    return {**out, "entrants": who, "url": url}


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
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.stopped = False
        """Set when the server stops (no more periodic checks)."""

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
                    data = json.loads(r.state)
                    players = len(data["tournament"]["players"])
                except (ValueError, KeyError, TypeError):
                    continue
                who = str(data.get("entrants") or "people")
                got[r.id] = (r.created_at, _summary(r.id, r.name, r.kind, r.status, players, who))
        for e in self.items.values():
            summary = _summary(e.id, e.t.name, e.kind, e.status, len(e.t.entrants), e.entrants)
            got[e.id] = (e.created_at, summary)
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
            found = [e for e in map(_entry, rows.all()) if e is not None]
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
        lease at the epoch it holds now. Call it in the same step as the :meth:`sync` whose
        rooms it stores."""
        expected = e.version
        e.version += 1
        e.updated_at = time.time()
        e.touched = self.hub.settings.clock()
        row = _row(e)
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

    # -- rooms

    def _room(self, code: str) -> Room | None:
        """Match room ``code`` if this node may look at it: on a cluster only one in memory
        (reading one back would take its lease from the node the router sends it to)."""
        if self.hub.leases.shared:
            return dict.get(self.hub.rooms, code)
        return self.hub.rooms.get(code)

    def sync(self, e: Entry, stored: StoredRooms | None = None, open_rooms: bool = True) -> bool:
        """Enter the results of finished games of the match rooms (those in memory, and on a
        cluster those of ``stored``, read from the database); close rooms whose match is
        decided; open rooms for ready matches (unless not ``open_rooms``). True if anything
        changed."""
        if not e.t.drawn:
            return False
        changed = False
        refs = {g.ref for m in e.t.matches() for g in m.games if g.ref}
        for mid, codes in e.rooms.items():
            for code in codes:
                room = self._room(code)
                if room is not None:
                    finished = [
                        (g.id, list(g.result["winners"]))
                        for g in room.games
                        if g.status == "finished" and g.result
                    ]
                elif stored is not None:
                    finished = stored.games.get(code, [])
                else:
                    continue
                changed |= self._enter(e, mid, code, finished, refs)
                if room is not None:
                    self._close_if_decided(e, mid, room)
        if open_rooms and e.started and e.kind == "online":
            changed |= self._open_ready(e, stored)
        return changed

    def _enter(
        self, e: Entry, mid: str, code: str, finished: list[tuple[int, list[int]]], refs: set[str]
    ) -> bool:
        """Enter the games ``finished`` in room ``code`` (id, winning seats) not entered yet."""
        changed = False
        for gid, winners in finished:
            ref = f"{code}/{gid}"
            m = e.t.match(mid)
            if ref in refs or m.decided or not m.known:
                continue
            # Seat i of a match room is the match's player i (open_room), held by that
            # player's profile for the whole match: results go by seat, never by a name
            # shown at the table.
            players = [p for p in m.players if p is not None]
            names = [players[w] for w in winners if 0 <= w < len(players)]
            try:
                e.t.record_game(mid, names, ref)
            except TournamentError:
                log.exception("result of %s not entered in %s", ref, e.id)
                continue
            refs.add(ref)
            changed = True
        return changed

    def _close_if_decided(self, e: Entry, mid: str, room: Room) -> None:
        if (
            e.t.match(mid).decided
            and room.status in ("between", "waiting", "countdown")
            and (room.game is None or room.game.game.over)
        ):
            room._cancel_timer()
            room.set_status("finished")

    def _open_ready(self, e: Entry, stored: StoredRooms | None) -> bool:
        """Open a room for each ready match whose last room is over (or that has none)."""
        changed = False
        for m in e.t.ready_matches():
            codes = e.rooms.get(m.id, [])
            if codes:
                last = self._room(codes[-1])
                if last is not None:
                    status: str | None = last.status
                elif self.hub.leases.shared:
                    # Served elsewhere (or by nobody now): as stored, unknown without a read.
                    status = None if stored is None else stored.status.get(codes[-1])
                else:
                    status = "finished"
                if status not in ("finished", "closed"):
                    continue
            opened = self.open_room(e, m.id)
            if opened is not None:
                e.opened[opened] = self.hub.settings.wall_clock()
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
        if h.seat_marker is not None:  # a bot account's seat says so (docs/bot-api.md)
            h.seat_marker(seat_list)
        best_of = m.best_of
        # The seats belong to their profiles for the whole match (leave does not free them).
        # The game's own room options as a room asking for none gets them (classic's official
        # ruleset), with the match's handicap.
        options: dict[str, Any] = {
            **game(TOURNAMENT_GAME).table.room_options({}, len(names)),
            "fixed_seats": True,
            "tournament": e.id,
        }
        if sizes is not None:
            options["sizes"] = sizes
        if m.plays_all:
            options[PLAY_ALL] = True
        room = Room(
            h, "", TOURNAMENT_GAME, len(names), best_of, options, False, seat_list, time.time()
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
        h.hand_off(room)  # a cluster node: the node the router sends its players to serves it
        return room.code

    def on_game_end(self, room: Room, _g: GameState) -> None:
        """A game ended: if it belongs to a tournament, bring the tournament up to date (on a
        cluster: :meth:`_match_game_ended`).

        Rooms of other games are ignored: tournaments are of one game (``TOURNAMENT_GAME``)."""
        if room.game_name != TOURNAMENT_GAME:
            return
        e = self.of_room(room.code, search=bool(room.options.get("fixed_seats")))
        if e is None:
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

    def stored_rooms(self, e: Entry) -> StoredRooms:
        """The stored games and statuses of ``e``'s match rooms (a plain read: call it off the
        event loop)."""
        codes = sorted({c for cs in e.rooms.values() for c in cs})
        out = StoredRooms({}, {})
        if not codes:
            return out
        q = (
            select(games.c.id, games.c.room_code, games.c.result)
            .where(games.c.room_code.in_(codes), games.c.ended_at.is_not(None))
            .order_by(games.c.id)
        )
        with self.hub.storage.engine.connect() as conn:
            for r in conn.execute(q):
                result = json.loads(r.result) if r.result else None
                if result:
                    winners = [int(w) for w in result.get("winners") or []]
                    out.games.setdefault(r.room_code, []).append((r.id, winners))
            statuses = select(rooms.c.code, rooms.c.status).where(rooms.c.code.in_(codes))
            for st in conn.execute(statuses):
                out.status[st.code] = st.status
        return out

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
            forfeited = no_shows(self, e, self.hub.settings.wall_clock())
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

    async def running(self) -> list[str]:
        """The ids of the stored online tournaments that are running."""

        def read() -> list[str]:
            q = select(tournaments.c.id).where(
                tournaments.c.status == "running", tournaments.c.kind == "online"
            )
            with self.hub.storage.engine.connect() as conn:
                return [r.id for r in conn.execute(q)]

        return await asyncio.to_thread(read)

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
    hub.sweep_hooks.append(lambda: check_no_shows(mgr))
    if hub.leases.shared:
        # A cluster node organises the tournaments whose leases it holds or takes: on their
        # events, and by a periodic check (which starts now).
        hub.bus.listen(TOURNAMENTS, mgr.heard)
        mgr.check_soon()
        return
    for e in mgr.items.values():
        if mgr.sync(e):
            mgr.store(e)

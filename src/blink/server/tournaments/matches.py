"""The match rooms of online tournaments (:class:`MatchRooms`): the results of their
finished games entered in the tournament, each game once (its reference is ``ROOM/game-id``),
a room closed once its match is decided, and a private room opened for each ready match,
playing the match's set as the tournament has it (:attr:`Match.best_of
<blink.tournament.Match.best_of>`: two out of three; a final-round set's three decided games,
every one played, the room option ``play_all``; a three-player play-off as one game), so the
room's series ends with the game that decides the match. Each seat's token is the player's
profile secret, so players connect to their match with the secret they already hold.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from blink.model.registry import game
from blink.server.profiles import profiles_by_id
from blink.server.room.room import PLAY_ALL, Room, Seat
from blink.server.schema import games, rooms
from blink.server.tournaments.entry import Entry
from blink.server.tournaments.store import Store
from blink.tournament import TournamentError

__all__ = ["MatchRooms", "StoredRooms"]

log = logging.getLogger("blink.server.tournaments")


@dataclass(frozen=True)
class StoredRooms:
    """What the database says of a tournament's match rooms (on a cluster, of those served by
    other nodes): :meth:`MatchRooms.stored_rooms`."""

    games: dict[str, list[tuple[int, list[int]]]]
    """Room code -> its finished games (game id, winning seats), in order."""
    status: dict[str, str]
    """Room code -> its stored status."""


class MatchRooms(Store):
    """The match rooms of the tournaments of :class:`~blink.server.tournaments.store.Store`:
    results in, rooms closed and opened (the layer of
    :class:`~blink.server.tournaments.manager.Manager` above its storage)."""

    def match_room(self, code: str) -> Room | None:
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
                room = self.match_room(code)
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
                last = self.match_room(codes[-1])
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
        # The tournament's game's own room options as a room asking for none gets them
        # (classic's official ruleset), with the match's handicap.
        try:
            defaults = game(e.t.game).table.room_options({}, len(names))
        except ValueError:  # the game is gone, or has no table: no room (logged)
            log.exception("no room of %s for match %s of %s", e.t.game, match_id, e.id)
            return None
        options: dict[str, Any] = {
            **defaults,
            "fixed_seats": True,
            "tournament": e.id,
        }
        if sizes is not None:
            options["sizes"] = sizes
        if m.plays_all:
            options[PLAY_ALL] = True
        room = Room(h, "", e.t.game, len(names), best_of, options, False, seat_list, time.time())
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

"""What the server reads back from its database: the rooms to rebuild, a game with its log,
a room's or a series' games, the finished games' list. Plain reads on their own connections
(any thread; call them off the event loop), the counterpart of the one writer of
:class:`blink.server.storage.Storage`, which inherits them."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine, func, select

from blink.model.registry import DEFAULT_GAME
from blink.server.links import record_url
from blink.server.loaded import LoadedGame, LoadedRoom, LoadedSeat, game_from_row
from blink.server.schema import actions, games, rooms, seats

__all__ = ["Reads"]


class Reads:
    """The reads of the database of :attr:`engine`."""

    engine: Engine

    def load_rooms(self) -> list[LoadedRoom]:
        """Every room that is not closed, with its seats and its current series' games."""
        return self._load_rooms(None)

    def load_room(self, code: str) -> LoadedRoom | None:
        """One room that is not closed, with its seats and its current series' games."""
        got = self._load_rooms(code)
        return got[0] if got else None

    def _load_rooms(self, code: str | None) -> list[LoadedRoom]:
        out: list[LoadedRoom] = []
        q = select(rooms).where(rooms.c.status != "closed")
        if code is not None:
            q = q.where(rooms.c.code == code)
        with self.engine.connect() as conn:
            for r in conn.execute(q):
                seat_rows = conn.execute(
                    select(seats).where(seats.c.room_code == r.code).order_by(seats.c.seat)
                )
                room_seats = [
                    LoadedSeat(s.seat, s.kind, s.bot, s.name, s.token_hash, bool(s.left))
                    for s in seat_rows
                ]
                game_rows = conn.execute(
                    select(games)
                    .where(games.c.room_code == r.code, games.c.series_number == r.series_number)
                    .order_by(games.c.number)
                )
                room_games = [game_from_row(g) for g in game_rows]
                for g in room_games:
                    if g.ended_at is None:
                        g.actions = [
                            (a.seq, json.loads(a.action), a.seat, a.client_id)
                            for a in conn.execute(
                                select(actions)
                                .where(actions.c.game_id == g.id)
                                .order_by(actions.c.seq)
                            )
                        ]
                out.append(
                    LoadedRoom(
                        code=r.code,
                        created_at=r.created_at,
                        players=r.players,
                        best_of=r.best_of,
                        public=bool(r.public),
                        status=r.status,
                        series_number=r.series_number,
                        seats=room_seats,
                        games=room_games,
                        game=r.game,
                        options=json.loads(r.options),
                    )
                )
        return out

    def load_game(self, game_id: int) -> LoadedGame | None:
        """A game with its full action log, or ``None``."""
        with self.engine.connect() as conn:
            q = select(games, rooms.c.public, rooms.c.options.label("room_options"))
            q = q.outerjoin(rooms, rooms.c.code == games.c.room_code)
            r = conn.execute(q.where(games.c.id == game_id)).first()
            if r is None:
                return None
            g = game_from_row(r)
            g.room_code, g.public = r.room_code, bool(r.public)
            held = select(seats.c.seat, seats.c.kind, seats.c.bot)
            rows = conn.execute(held.where(seats.c.room_code == r.room_code))
            bots = {s.seat: s.bot if s.kind == "bot" else None for s in rows}
            g.bots = [bots.get(i) for i in range(g.players)]
            g.room_options = json.loads(r.room_options) if r.room_options else {}
            g.actions = [
                (a.seq, json.loads(a.action), a.seat, a.client_id)
                for a in conn.execute(
                    select(actions).where(actions.c.game_id == game_id).order_by(actions.c.seq)
                )
            ]
        return g

    def game_ids(self) -> list[int]:
        """The id of every stored game, in order."""
        with self.engine.connect() as conn:
            return [int(r[0]) for r in conn.execute(select(games.c.id).order_by(games.c.id))]

    def series_games(self, room_code: str, series_number: int) -> list[LoadedGame]:
        """The finished games of one series of a room, with their logs."""
        with self.engine.connect() as conn:
            ids = [
                r.id
                for r in conn.execute(
                    select(games.c.id)
                    .where(
                        games.c.room_code == room_code,
                        games.c.series_number == series_number,
                        games.c.ended_at.is_not(None),
                    )
                    .order_by(games.c.number)
                )
            ]
        out = []
        for i in ids:
            g = self.load_game(i)
            if g is not None:
                out.append(g)
        return out

    def room_exists(self, code: str) -> bool:
        """True when a room with this code was ever created."""
        with self.engine.connect() as conn:
            return (
                conn.execute(select(rooms.c.code).where(rooms.c.code == code)).first() is not None
            )

    def room_games(self, code: str) -> list[LoadedGame]:
        """Every game of a room (all series), without logs."""
        with self.engine.connect() as conn:
            return [
                game_from_row(r)
                for r in conn.execute(
                    select(games)
                    .where(games.c.room_code == code)
                    .order_by(games.c.series_number, games.c.number)
                )
            ]

    def finished_games(self, limit: int, room: str | None = None) -> list[dict[str, Any]]:
        """Finished games, newest first: of public rooms, or every game of ``room`` if given.

        Each is a dict with ``id``, ``room``, ``number``, ``series``, ``kind`` (the game's
        registered name, ``"classic"`` or another), ``players`` (``name``, ``bot`` per seat),
        ``result``, ``plays``, ``started``, ``ended`` and ``record_url``. A plain read (call it
        off the event loop).
        """
        q = (
            select(games, rooms.c.public)
            .join(rooms, rooms.c.code == games.c.room_code)
            .where(games.c.ended_at.is_not(None))
        )
        q = q.where(games.c.room_code == room) if room is not None else q.where(rooms.c.public)
        q = q.order_by(games.c.ended_at.desc(), games.c.id.desc()).limit(limit)
        out: list[dict[str, Any]] = []
        with self.engine.connect() as conn:
            rows = list(conn.execute(q))
            codes = sorted({r.room_code for r in rows})
            bots: dict[tuple[str, int], str | None] = {}
            if codes:
                for s in conn.execute(
                    select(seats.c.room_code, seats.c.seat, seats.c.kind, seats.c.bot).where(
                        seats.c.room_code.in_(codes)
                    )
                ):
                    bots[(s.room_code, s.seat)] = s.bot if s.kind == "bot" else None
            counts: dict[int, int] = {}
            ids = [r.id for r in rows]
            if ids:
                # Actions are stored as compact JSON: count the plays in the database.
                for a in conn.execute(
                    select(actions.c.game_id, func.count())
                    .where(
                        actions.c.game_id.in_(ids),
                        actions.c.action.like('%"type":"play"%'),
                    )
                    .group_by(actions.c.game_id)
                ):
                    counts[int(a[0])] = int(a[1])
        for r in rows:
            deal = json.loads(r.deal_options)
            names = json.loads(r.names)
            result = json.loads(r.result) if r.result else None
            out.append(
                {
                    "id": r.id,
                    "room": r.room_code,
                    "number": r.number,
                    "series": r.series_number,
                    "kind": str(deal.get("game") or DEFAULT_GAME),
                    "players": [
                        {
                            "name": names[i] if i < len(names) else None,
                            "bot": bots.get((r.room_code, i)),
                        }
                        for i in range(r.players)
                    ],
                    "result": result,
                    "winners": list((result or {}).get("winners") or []),
                    "plays": counts.get(r.id, 0),
                    "started": r.started_at,
                    "ended": r.ended_at,
                    "record_url": record_url(r.id, r.room_code, r.public),
                }
            )
        return out

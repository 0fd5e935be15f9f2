"""Fair play on the server: which seats of a finished game played faster than a person
(:func:`fast_seats`, from the game's record by :func:`blink.fair_play.judge`), and the
operator's list of the profiles flagged for it (the table ``fair_play_flags``, migration
``0012_fair_ratings``; ``blink db flagged`` lists them, and each flag is logged as a warning
on ``blink.server.fairness``).

A game with such a seat is not rated (:mod:`blink.server.profiles`); the rules and their
figures are :mod:`blink.fair_play` (docs/security.md, "Ratings").
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    func,
    select,
)

from blink.fair_play import SeatReactions, judge
from blink.server.jobs import insert_new
from blink.server.room.seats import GameState

__all__ = ["fair_play_flags", "fast_seats", "flag", "flagged"]

log = logging.getLogger("blink.server.fairness")

meta = MetaData()

fair_play_flags = Table(
    "fair_play_flags",
    meta,
    Column("profile_id", String(16), primary_key=True),
    Column("game_id", Integer, primary_key=True, autoincrement=False),
    Column("room_code", String(8), nullable=False),
    Column("at", Float, nullable=False),
    Column("timed", Integer, nullable=False),
    Column("fast", Integer, nullable=False),
    Column("median_ms", Integer, nullable=True),
)
"""One row a flagged profile and game: the seat's timed actions, how many were under the
floor, and their median."""


def fast_seats(
    definition: Any, g: GameState, names: list[str], floor_ms: int
) -> list[SeatReactions]:
    """The seats of the finished game ``g`` (of the game ``definition``) whose actions came
    faster than a person's (none when ``floor_ms`` is 0, or the game has no record codec)."""
    if floor_ms <= 0:
        return []
    try:
        record = definition.record_codec.record(g.game, names, {})
    except Exception:  # a game without a record cannot be judged (nor replayed)
        return []
    return judge(record, floor_ms)


def flag(
    conn: Connection, profile: Any, game_id: int, room_code: str, at: float, seat: SeatReactions
) -> None:
    """Store (once) and log that ``profile`` (a profile row) played game ``game_id`` faster
    than a person."""
    insert_new(
        conn,
        fair_play_flags,
        {
            "profile_id": profile.id,
            "game_id": game_id,
            "room_code": room_code,
            "at": at,
            "timed": seat.timed,
            "fast": seat.fast,
            "median_ms": seat.median_ms,
        },
        ("profile_id", "game_id"),
    )
    log.warning(
        "profile %s (%r) flagged: game %d in room %s, %d of %d actions under the reaction "
        "floor (median %s ms); the game is not rated",
        profile.id,
        profile.name,
        game_id,
        room_code,
        seat.fast,
        seat.timed,
        seat.median_ms,
    )


def flagged(conn: Connection, profiles: Table) -> list[Any]:
    """Every flagged profile, most flags first: its id, name, flags, the latest game
    flagged and when, and the lowest median reaction seen (``profiles``: the profiles table)."""
    f = fair_play_flags
    return list(
        conn.execute(
            select(
                f.c.profile_id,
                profiles.c.name,
                func.count().label("flags"),
                func.max(f.c.game_id).label("last_game"),
                func.max(f.c.at).label("last_at"),
                func.min(f.c.median_ms).label("median_ms"),
            )
            .select_from(f.outerjoin(profiles, profiles.c.id == f.c.profile_id))
            .group_by(f.c.profile_id, profiles.c.name)
            .order_by(func.count().desc(), func.max(f.c.at).desc(), f.c.profile_id)
        ).all()
    )

"""The daily challenge: one deal and one bot a day for everyone, its board and the streaks
(the endpoints are :mod:`blink.server.routes.daily`; see docs/rules.md, "The daily challenge").

A day is a UTC date of ``settings.wall_clock``. Its deal's seed is drawn at random
(:mod:`secrets`) the first time the day is asked for and stored in ``daily_days``, whose
primary key is the date: servers sharing one database that draw at once insert if absent and
then read back what went in, so they agree. Nothing derives the seed from the date, so the
deal cannot be worked out before the day; the seed is shown only once the day is over. The
day's bot is one of ``settings.daily_bots`` (each checked through the game's table), picked by
the seed, and stored beside it.

A daily room is a private one-game room of classic Blink against the day's bot whose options
carry the deal's seed (``deal_seed``, which :meth:`blink.server.room.room.Room.start_game` deals
from and the room's stored options keep across a restart) and the day (``daily``). A profile
has one ranked attempt a day: its entry in ``daily_entries`` (primary key: date and profile)
is inserted before its room is made, so a second attempt is refused, and filled in when the
room's first game ends (:func:`on_game_end`). A ranked attempt needs an account (the routes
check it). Today's deal cannot be rehearsed: an unranked game of today (a guest's, or a
profile's without an account) is dealt from another seed, the day's practice seed
(:func:`practice_seed`, the same for every practice game of the day and drawn from the secret
seed, so it tells nothing of it), so the ranked deal is never seen before the ranked attempt.
A past day's deal, known by then, is played again as is, unranked.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Float,
    Integer,
    String,
    Table,
    delete,
    select,
    update,
)

from blink.fair_play import SeatReactions
from blink.model.registry import DEFAULT_GAME, get_table
from blink.server.fairness import fast_seats, flag
from blink.server.hub import Hub
from blink.server.jobs import insert_new
from blink.server.links import record_url
from blink.server.profiles import meta, profiles
from blink.server.room.info import DEAL_SEED
from blink.server.room.room import GameState, Room

__all__ = [
    "DAILY_GAME",
    "GRACE",
    "Day",
    "best_run",
    "board",
    "daily_days",
    "daily_entries",
    "day_of",
    "forget_attempt",
    "known_day",
    "on_game_end",
    "parse_date",
    "practice_seed",
    "previous",
    "revealed",
    "streak",
    "take_attempt",
    "today",
    "today_of",
]

log = logging.getLogger("blink.server.daily")

DAILY_GAME: Final = DEFAULT_GAME
"""The game of the daily challenge: the registry's default game (classic Blink)."""

GRACE: Final = 600.0
"""Seconds after a day's end (midnight UTC) in which a game of the day that began on it may
still end and count; the day's seed and records are shown only after them."""

OPTION_DAY: Final = "daily"
"""The room option that names a daily room's day (``"2026-12-02"``)."""
OPTION_SEED: Final = DEAL_SEED
"""The room option of a fixed deal's seed (every game of the room is dealt from it)."""
OPTION_PROFILE: Final = "daily_profile"
"""The room option of a ranked daily room: the profile whose attempt it is."""

daily_days = Table(
    "daily_days",
    meta,
    Column("date", String(10), primary_key=True),
    Column("seed", BigInteger, nullable=False),
    Column("bot", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
)

daily_entries = Table(
    "daily_entries",
    meta,
    Column("date", String(10), primary_key=True),
    Column("profile_id", String(16), primary_key=True),
    Column("name", String(32), nullable=False),
    Column("started_at", Float, nullable=False),
    Column("room_code", String(8), nullable=True),
    Column("game_id", Integer, nullable=True),
    Column("won", Boolean, nullable=True),
    Column("duration_ms", Integer, nullable=True),
    Column("plays", Integer, nullable=True),
)


@dataclass(frozen=True)
class Day:
    """One day of the challenge: its date, its deal's seed and its bot's spec."""

    date: str
    seed: int
    bot: str


def practice_seed(day: Day) -> int:
    """The seed of ``day``'s practice deal (an unranked game of the day while it runs):
    another deal than the ranked one, the same for everyone, derived from the day's secret
    seed by SHA-256 (so it tells nothing of the ranked deal, nor is known before the day)."""
    digest = hashlib.sha256(f"blink-daily-practice:{day.seed}".encode()).digest()
    seed = int.from_bytes(digest[:8], "big") >> 1  # 63 bits, as a day's seed
    return seed if seed != day.seed else seed ^ 1


def today_of(wall: float) -> str:
    """The UTC date of a wall-clock time, as ``YYYY-MM-DD``."""
    return dt.datetime.fromtimestamp(wall, dt.UTC).date().isoformat()


def today(hub: Hub) -> str:
    """Today's date on the server's wall clock."""
    return today_of(hub.settings.wall_clock())


def parse_date(text: str) -> str | None:
    """``text`` as a date ``YYYY-MM-DD`` (normalised), or ``None`` when it is not one."""
    try:
        return dt.date.fromisoformat(text).isoformat() if len(text) == 10 else None
    except ValueError:
        return None


def previous(date: str) -> str:
    """The day before ``date``."""
    return (dt.date.fromisoformat(date) - dt.timedelta(days=1)).isoformat()


def day_end(date: str) -> float:
    """The wall-clock time at which ``date`` ends (the next midnight, UTC)."""
    start = dt.datetime.combine(dt.date.fromisoformat(date), dt.time(), dt.UTC)
    return (start + dt.timedelta(days=1)).timestamp()


def revealed(date: str, wall: float) -> bool:
    """Whether ``date``'s seed and records may be shown at ``wall``: its end and the
    :data:`GRACE` after it have passed."""
    return wall >= day_end(date) + GRACE


def _pick_bot(hub: Hub, seed: int) -> str:
    """The bot of a day with this seed: one of ``settings.daily_bots``, by the seed, as the
    game's table normalises it."""
    choices = hub.settings.daily_bots
    if not choices:
        raise ValueError("settings.daily_bots is empty")
    return get_table(DAILY_GAME).check_bot(choices[seed % len(choices)])


def _days(hub: Hub) -> dict[str, Day]:
    cache: dict[str, Day] | None = getattr(hub, "daily_days", None)
    if cache is None:
        cache = {}
        hub.daily_days = cache  # type: ignore[attr-defined]
    return cache


def _draw_job(row: dict[str, Any]) -> Callable[[Connection], Any]:
    def job(conn: Connection) -> Any:
        insert_new(conn, daily_days, row, "date")
        return conn.execute(select(daily_days).where(daily_days.c.date == row["date"])).one()

    return job


async def day_of(hub: Hub, date: str) -> Day:
    """Today's :class:`Day` (``date`` must be today): read, or drawn and stored the first
    time it is asked for (another server's draw wins a race: both read the stored row).
    Raises :class:`~blink.model.table.BadMessage` when the day's bot cannot be had."""
    known = _days(hub).get(date)
    if known is not None:
        return known
    seed = secrets.randbits(63)
    row = {"date": date, "seed": seed, "bot": _pick_bot(hub, seed)}
    stored = await hub.storage.run(_draw_job({**row, "created_at": hub.settings.wall_clock()}))
    day = Day(stored.date, int(stored.seed), stored.bot)
    _days(hub)[date] = day
    return day


def known_day(hub: Hub, date: str) -> Day | None:
    """A day that was drawn (``None``: nobody asked for it on its day)."""
    known = _days(hub).get(date)
    if known is not None:
        return known
    with hub.storage.engine.connect() as conn:
        row = conn.execute(select(daily_days).where(daily_days.c.date == date)).first()
    if row is None:
        return None
    day = Day(row.date, int(row.seed), row.bot)
    _days(hub)[date] = day
    return day


async def take_attempt(hub: Hub, date: str, profile_id: str, name: str) -> bool:
    """Spend the profile's ranked attempt of ``date``: ``False`` when it was spent already."""
    row = {
        "date": date,
        "profile_id": profile_id,
        "name": name,
        "started_at": hub.settings.wall_clock(),
    }

    def job(conn: Connection) -> bool:
        return insert_new(conn, daily_entries, row, ("date", "profile_id"))

    return await hub.storage.run(job)


async def forget_attempt(hub: Hub, date: str, profile_id: str) -> None:
    """Give an attempt back (its room could not be made)."""

    def job(conn: Connection) -> None:
        conn.execute(
            delete(daily_entries).where(
                daily_entries.c.date == date, daily_entries.c.profile_id == profile_id
            )
        )

    await hub.storage.run(job)


def on_game_end(room: Room, g: GameState) -> None:
    """Store a ranked daily room's result (a :class:`Hub` game-end hook): the first game of
    its first series only (later games of the room are practice), and only when it began on
    its day and ended before the :data:`GRACE` after it (after that, the deal is known); an
    attempt played faster than a person (``Settings.reaction_floor_ms``) is kept off the board
    and its profile flagged, as a rated game would be."""
    pid = room.options.get(OPTION_PROFILE)
    day = room.options.get(OPTION_DAY)
    outcome = g.game.outcome
    if not isinstance(pid, str) or not isinstance(day, str) or outcome is None:
        return
    if g.number != 1 or g.series_number != 1 or g.end_msg is None:
        return
    if today_of(g.started_wall) != day or revealed(day, room.settings.wall_clock()):
        return  # the attempt is spent, and not on the board
    seat = next((s.seat for s in room.seats if s.kind == "human"), 0)
    names = [s.name or "" for s in room.seats]
    floor = room.settings.reaction_floor_ms
    fast = [f for f in fast_seats(room.definition, g, names, floor) if f.seat == seat]
    if fast:
        # Faster than a person: the attempt is spent, off the board, and the profile flagged.
        at = room.settings.wall_clock()
        room.hub.store(_flag_job(pid, g.id, room.code, at, fast[0]), room=room.code)
        return
    figures = g.end_msg.figures
    values = {
        "room_code": room.code,
        "game_id": g.id,
        "won": seat in outcome.winners and len(outcome.winners) == 1,
        "duration_ms": int(figures.get("duration_ms", g.last_t)),
        "plays": int(figures.get("plays_by_seat", [0] * room.players)[seat]),
    }

    def job(conn: Connection) -> None:
        conn.execute(
            update(daily_entries)
            .where(
                daily_entries.c.date == day,
                daily_entries.c.profile_id == pid,
                daily_entries.c.won.is_(None),
            )
            .values(**values)
        )

    room.hub.store(job, room=room.code)


def _flag_job(
    pid: str, game_id: int, code: str, at: float, seat: SeatReactions
) -> Callable[[Connection], None]:
    """Flag the profile ``pid`` for its daily game ``game_id`` played faster than a person."""

    def job(conn: Connection) -> None:
        row = conn.execute(select(profiles).where(profiles.c.id == pid)).first()
        if row is not None:
            flag(conn, row, game_id, code, at, seat)

    return job


def board(hub: Hub, date: str, over: bool) -> list[dict[str, Any]]:
    """The day's finished ranked games: wins first, then shorter times (then who started
    first). A record link only once the day is over (a record shows the deal)."""
    with hub.storage.engine.connect() as conn:
        rows = conn.execute(
            select(daily_entries)
            .where(daily_entries.c.date == date, daily_entries.c.won.is_not(None))
            .order_by(
                daily_entries.c.won.desc(),
                daily_entries.c.duration_ms,
                daily_entries.c.started_at,
                daily_entries.c.profile_id,
            )
        ).all()
    return [
        {
            "rank": i + 1,
            "profile": r.profile_id,
            "name": r.name,
            "won": bool(r.won),
            "duration_ms": r.duration_ms,
            "plays": r.plays,
            "record_url": (
                record_url(r.game_id, r.room_code, False)
                if over and r.game_id is not None and r.room_code
                else None
            ),
        }
        for i, r in enumerate(rows)
    ]


def best_run(days: list[str]) -> int:
    """The longest run of consecutive dates in ``days`` (sorted, distinct)."""
    best = run = 0
    last: dt.date | None = None
    for text in days:
        d = dt.date.fromisoformat(text)
        run = run + 1 if last is not None and d - last == dt.timedelta(days=1) else 1
        best = max(best, run)
        last = d
    return best


def streak(hub: Hub, profile_id: str, date: str) -> dict[str, int]:
    """A profile's streak of days won: ``current`` (the run ending today, or yesterday while
    today is not won yet) and ``best``."""
    with hub.storage.engine.connect() as conn:
        won = [
            r[0]
            for r in conn.execute(
                select(daily_entries.c.date)
                .where(
                    daily_entries.c.profile_id == profile_id,
                    daily_entries.c.won.is_(True),
                    daily_entries.c.date <= date,
                )
                .order_by(daily_entries.c.date)
            )
        ]
    wins = set(won)
    current = 0
    d = date if date in wins else previous(date)
    while d in wins:
        current += 1
        d = previous(d)
    return {"current": current, "best": best_run(won)}

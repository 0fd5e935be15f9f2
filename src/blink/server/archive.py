"""A player's archive: every finished game a profile sat in, newest first, with its players,
its result, the profile's rating change when it was rated and where to replay it (the
endpoint ``GET /api/profiles/{name}/games`` is :mod:`blink.server.routes.players`).

Which games a profile played is kept in ``player_games`` (migration ``0011_players``): one
row a profile a finished game, written by a game-end hook (:func:`on_game_end`) as a storage
job of the room (fenced like its other writes). A seat's token is the profile's secret when
the game is played, but a secret changes (logging out everywhere else draws a new one), so
the seats alone cannot say later whose a game was. The rating change of a rated game is read
from ``profile_games``, which the rating job writes (:mod:`blink.server.profiles`).

A private room's game is listed without its room's code, record or replay: as
:func:`blink.server.links.may_read` says, only someone who names its room may read it.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Float,
    Index,
    Integer,
    Select,
    String,
    Table,
    and_,
    case,
    exists,
    func,
    or_,
    select,
)

from blink.model.registry import UnknownGame, get_game
from blink.ratings import Rating
from blink.server.errors import ApiError
from blink.server.hub import Hub
from blink.server.jobs import insert_new
from blink.server.links import record_url
from blink.server.names import name_key, plain_key
from blink.server.profiles import (
    bot_profiles,
    meta,
    profile_games,
    profiles,
    profiles_among,
    public_profile,
)
from blink.server.room.room import GameState, Room
from blink.server.schema import games, rooms, seats
from blink.server.tournaments.records import tournaments

__all__ = [
    "MAX_LIMIT",
    "Filters",
    "archive_page",
    "find_profile",
    "game_profiles",
    "on_game_end",
    "parse_filters",
    "player_figures",
    "player_games",
    "profile_by_name",
    "rating_of",
    "replay_url",
    "room_profiles",
    "versus",
]

player_games = Table(
    "player_games",
    meta,
    Column("profile_id", String(16), primary_key=True),
    Column("game_id", Integer, primary_key=True, autoincrement=False),
    Column("seat", Integer, nullable=False),
    Column("room_code", String(8), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("players", Integer, nullable=False),
    Column("at", Float, nullable=False),
    Column("won", Boolean, nullable=False),
    Column("tie", Boolean, nullable=False),
    Index("ix_player_games_profile_at", "profile_id", "at"),
)
"""Each finished game of each profile: its seat, room, game kind, number of players, when it
ended, and whether the profile won it (``tie``: a win shared with another seat)."""

MAX_LIMIT: Final = 100
"""The most games one page of an archive holds."""


def profile_by_name(conn: Connection, name: str) -> Any | None:
    """The profile called ``name`` (compared as names are: by :func:`name_key`), or ``None``.
    Two profiles that came to share a key by migration 0010 (the later one's key is the key,
    ``#`` and its id) are told apart by the name as written. A name no profile can have (empty,
    too long, or with a NUL, which PostgreSQL's text cannot hold) is nobody's."""
    if not name or len(name) > 64 or "\x00" in name:
        return None
    key = name_key(name)
    rows = conn.execute(
        select(profiles).where(
            or_(
                profiles.c.name_key == key,
                profiles.c.name_key.startswith(key + "#", autoescape=True),
            )
        )
    ).all()
    plain = plain_key(name)
    for row in rows:
        if plain_key(row.name) == plain:
            return row
    return next((row for row in rows if row.name_key == key), None)


def find_profile(conn: Connection, name: str) -> Any:
    """:func:`profile_by_name`, or :class:`ApiError` ``404 no_such_player``."""
    row = profile_by_name(conn, name)
    if row is None:
        raise ApiError(404, "no_such_player", f"there is no player called {name!r}")
    return row


def replay_url(game_id: int, room_code: str, public: bool) -> str:
    """Where the browser replays a finished game (its replay viewer, given the record)."""
    return "/#replay=" + quote(record_url(game_id, room_code, public), safe="")


def rating_of(mu: float, sigma: float) -> dict[str, float]:
    """A rating as answered: mu, sigma and the ordinal shown on leaderboards."""
    return {"mu": mu, "sigma": sigma, "ordinal": Rating(mu, sigma).ordinal}


# -- writing -------------------------------------------------------------------------------


def _archive_job(
    room_code: str,
    game_id: int,
    kind: str,
    hashes: list[str | None],
    winners: tuple[int, ...],
    at: float,
) -> Callable[[Connection], int]:
    """The storage job that files a finished game under each profile seated in it; its result
    is the number of rows written."""

    def job(conn: Connection) -> int:
        wanted = [h for h in hashes if h is not None]
        found = {
            r.secret_hash: r.id
            for r in conn.execute(
                select(profiles.c.id, profiles.c.secret_hash).where(
                    profiles.c.secret_hash.in_(wanted)
                )
            )
        }
        written = 0
        for seat, h in enumerate(hashes):
            pid = found.get(h) if h is not None else None
            if pid is None:
                continue
            row = {
                "profile_id": pid,
                "game_id": game_id,
                "seat": seat,
                "room_code": room_code,
                "kind": kind,
                "players": len(hashes),
                "at": at,
                "won": seat in winners,
                "tie": seat in winners and len(winners) > 1,
            }
            written += insert_new(conn, player_games, row, ("profile_id", "game_id"))
        return written

    return job


def on_game_end(room: Room, g: GameState) -> None:
    """File a finished game under its players' profiles (a :class:`Hub` game-end hook)."""
    outcome = g.game.outcome
    hub = room.hub
    if outcome is None or not isinstance(hub, Hub):
        return
    hashes = [s.token_hash if s.kind == "human" else None for s in room.seats]
    if not profiles_among(hub, hashes):
        return
    at = hub.settings.wall_clock()
    job = _archive_job(room.code, g.id, room.game_name, hashes, tuple(outcome.winners), at)
    hub.store(job, None, room=room.code)


# -- reading -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Filters:
    """What an archive's page is asked for (each ``None``: any)."""

    game: str | None = None
    rated: bool | None = None
    opponent: str | None = None
    since: float | None = None
    until: float | None = None
    limit: int = 20
    cursor: tuple[float, int] | None = None


def _bad(message: str) -> ApiError:
    return ApiError(400, "bad_filter", message)


def _day(text: str, what: str) -> float:
    """The UTC midnight starting the date ``text`` (``YYYY-MM-DD``), in seconds."""
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise _bad(f"{what} must be a date written YYYY-MM-DD, not {text!r}") from None
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()


def _cursor(text: str) -> tuple[float, int]:
    at, _, gid = text.partition("_")
    try:
        return float(at), int(gid)
    except ValueError:
        raise _bad("cursor must be a page's next cursor, as given") from None


def _flag(text: str) -> bool:
    low = text.lower()
    if low in ("true", "1", "yes"):
        return True
    if low in ("false", "0", "no"):
        return False
    raise _bad(f"rated must be true or false, not {text!r}")


def parse_filters(
    game: str | None = None,
    rated: str | None = None,
    opponent: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: int = 20,
    cursor: str | None = None,
) -> Filters:
    """The filters of a request, checked: :class:`ApiError` ``400 bad_filter`` (or
    ``unknown_game``) names what is wrong. ``until`` takes its whole day."""
    if not 1 <= limit <= MAX_LIMIT:
        raise _bad(f"limit must be between 1 and {MAX_LIMIT}")
    if game is not None:
        try:
            get_game(game)
        except UnknownGame as exc:
            raise ApiError(400, "unknown_game", str(exc)) from None
    start = _day(since, "since") if since else None
    end = _day(until, "until") + 86_400 if until else None
    if start is not None and end is not None and start >= end:
        raise _bad("since must not be after until")
    return Filters(
        game=game,
        rated=_flag(rated) if rated is not None else None,
        opponent=opponent or None,
        since=start,
        until=end,
        limit=limit,
        cursor=_cursor(cursor) if cursor else None,
    )


def _query(pid: str, f: Filters, opponent: str | None) -> Select[Any]:
    """The archive's rows for profile ``pid`` under ``f`` (the opponent by id), newest first."""
    pg = player_games
    rated = profile_games
    q = (
        select(
            pg,
            rooms.c.public,
            games.c.names,
            games.c.result,
            games.c.started_at,
            games.c.number,
            rated.c.mu_before,
            rated.c.sigma_before,
            rated.c.mu_after,
            rated.c.sigma_after,
        )
        .join(games, games.c.id == pg.c.game_id)
        .outerjoin(rooms, rooms.c.code == pg.c.room_code)
        .outerjoin(
            rated, and_(rated.c.profile_id == pg.c.profile_id, rated.c.game_id == pg.c.game_id)
        )
        .where(pg.c.profile_id == pid)
    )
    if f.game is not None:
        q = q.where(pg.c.kind == f.game)
    if f.rated is not None:
        q = q.where(rated.c.game_id.is_not(None) if f.rated else rated.c.game_id.is_(None))
    if opponent is not None:
        other = pg.alias("other")
        q = q.where(exists().where(other.c.game_id == pg.c.game_id, other.c.profile_id == opponent))
    if f.since is not None:
        q = q.where(pg.c.at >= f.since)
    if f.until is not None:
        q = q.where(pg.c.at < f.until)
    if f.cursor is not None:
        at, gid = f.cursor
        q = q.where(or_(pg.c.at < at, and_(pg.c.at == at, pg.c.game_id < gid)))
    return q.order_by(pg.c.at.desc(), pg.c.game_id.desc()).limit(f.limit + 1)


Seated = dict[tuple[int, int], tuple[str, bool]]
"""The profiles seated in stored games, by (game, seat): each one's name now and whether it is
a bot account's."""


def _profile_names(conn: Connection, game_ids: list[int]) -> Seated:
    """The current name of each profile seated in these games, by (game, seat), and whether
    the profile is a bot account's."""
    if not game_ids:
        return {}
    rows = conn.execute(
        select(
            player_games.c.game_id, player_games.c.seat, profiles.c.name, bot_profiles.c.profile_id
        )
        .join(profiles, profiles.c.id == player_games.c.profile_id)
        .outerjoin(bot_profiles, bot_profiles.c.profile_id == player_games.c.profile_id)
        .where(player_games.c.game_id.in_(game_ids))
    )
    return {(r.game_id, r.seat): (r.name, r.profile_id is not None) for r in rows}


def bot_seats(conn: Connection, game_ids: list[int]) -> set[tuple[int, int]]:
    """The (game, seat) of these stored games that a bot account held."""
    return {k for k, (_, bot) in _profile_names(conn, game_ids).items() if bot}


def game_profiles(conn: Connection, game_id: int) -> dict[str, Any]:
    """Whose profile sat in each seat of a stored game (``GET /api/games/{id}/profiles``): the
    profile's name now, ``None`` for a bot or a guest. :class:`ApiError` ``404 no_such_game``."""
    row = conn.execute(select(games.c.players).where(games.c.id == game_id)).first()
    if row is None:
        raise ApiError(404, "no_such_game", f"there is no game {game_id}")
    names = _profile_names(conn, [game_id])
    seated = [names.get((game_id, s)) for s in range(row.players)]
    return {
        "game": game_id,
        "profiles": [None if n is None else n[0] for n in seated],
        "bot_accounts": [n is not None and n[1] for n in seated],
    }


def room_profiles(conn: Connection, code: str, hashes: list[str | None] | None) -> dict[str, Any]:
    """Whose profile holds each seat of a room (``GET /api/rooms/{code}/profiles``): the name
    of the profile whose secret is the seat's token, ``None`` for a bot, a guest or an open
    seat. ``hashes`` are the seats' token hashes when the room is served here (else they are
    read from the stored seats). :class:`ApiError` ``404 no_such_room``."""
    if hashes is None:
        rows = conn.execute(
            select(seats.c.kind, seats.c.token_hash)
            .where(seats.c.room_code == code)
            .order_by(seats.c.seat)
        ).all()
        if not rows:
            raise ApiError(404, "no_such_room", f"there is no room {code}")
        hashes = [r.token_hash if r.kind == "human" else None for r in rows]
    known = [h for h in hashes if h]
    names = dict(
        conn.execute(
            select(profiles.c.secret_hash, profiles.c.name).where(profiles.c.secret_hash.in_(known))
        ).all()
        if known
        else []
    )
    return {"room": code, "profiles": [names.get(h) if h else None for h in hashes]}


def _entry(r: Any, names: Seated) -> dict[str, Any]:
    """One game of an archive, as answered."""
    public = bool(r.public)
    seated = json.loads(r.names)
    result = json.loads(r.result) if r.result else None
    change = None
    if r.mu_before is not None:
        before = rating_of(r.mu_before, r.sigma_before)
        after = rating_of(r.mu_after, r.sigma_after)
        change = {"before": before, "after": after, "delta": after["ordinal"] - before["ordinal"]}
    return {
        "id": r.game_id,
        "kind": r.kind,
        "room": r.room_code if public else None,
        "number": r.number,
        "started": r.started_at,
        "ended": r.at,
        "seat": r.seat,
        "players": [
            {
                "name": seated[i] if i < len(seated) else None,
                "profile": names.get((r.game_id, i), (None, False))[0],
                "bot_account": names.get((r.game_id, i), (None, False))[1],
            }
            for i in range(r.players)
        ],
        "winners": list((result or {}).get("winners") or []),
        "outcome": "tie" if r.tie else "win" if r.won else "loss",
        "rated": change is not None,
        "rating": change,
        "record_url": record_url(r.game_id, r.room_code, public) if public else None,
        "replay_url": replay_url(r.game_id, r.room_code, public) if public else None,
    }


def archive_page(conn: Connection, name: str, f: Filters) -> dict[str, Any]:
    """One page of the archive of the player called ``name`` (``GET
    /api/profiles/{name}/games``): ``player``, ``games`` (newest first) and ``next`` (the
    cursor of the next page, ``None`` on the last). :class:`ApiError` ``404 no_such_player``
    for an unknown player or opponent."""
    row = find_profile(conn, name)
    opponent = find_profile(conn, f.opponent).id if f.opponent is not None else None
    rows = conn.execute(_query(row.id, f, opponent)).all()
    more = len(rows) > f.limit
    rows = rows[: f.limit]
    names = _profile_names(conn, [r.game_id for r in rows])
    last = rows[-1] if rows else None
    return {
        "player": {"id": row.id, "name": row.name},
        "games": [_entry(r, names) for r in rows],
        "next": f"{last.at!r}_{last.game_id}" if more and last is not None else None,
    }


# -- a player's figures ----------------------------------------------------------------------

HISTORY_POINTS: Final = 500
"""The most rated games a player's rating history gives (the latest)."""


def _counts(conn: Connection, pid: str) -> list[dict[str, Any]]:
    """Games played and won by game kind and number of players."""
    pg = player_games
    won = func.sum(case((and_(pg.c.won, ~pg.c.tie), 1), else_=0))
    tied = func.sum(case((pg.c.tie, 1), else_=0))
    rows = conn.execute(
        select(pg.c.kind, pg.c.players, func.count(), won, tied)
        .where(pg.c.profile_id == pid)
        .group_by(pg.c.kind, pg.c.players)
        .order_by(pg.c.kind, pg.c.players)
    ).all()
    return [
        {"kind": k, "players": n, "played": int(c), "won": int(w or 0), "tied": int(t or 0)}
        for k, n, c, w, t in rows
    ]


def _history(conn: Connection, pid: str) -> list[dict[str, Any]]:
    """The player's rating after each rated game, oldest first (the latest
    :data:`HISTORY_POINTS`), starting from the rating before the first of them."""
    pg = profile_games
    rows = conn.execute(
        select(
            pg.c.game_id,
            pg.c.at,
            pg.c.mu_before,
            pg.c.sigma_before,
            pg.c.mu_after,
            pg.c.sigma_after,
        )
        .where(pg.c.profile_id == pid)
        .order_by(pg.c.at.desc(), pg.c.game_id.desc())
        .limit(HISTORY_POINTS)
    ).all()[::-1]
    points = [
        {"game": r.game_id, "at": r.at, "ordinal": Rating(r.mu_after, r.sigma_after).ordinal}
        for r in rows
    ]
    if rows:
        first = rows[0]
        start = Rating(first.mu_before, first.sigma_before).ordinal
        points.insert(0, {"game": None, "at": first.at, "ordinal": start})
    return points


def _tournaments(conn: Connection, pid: str) -> list[dict[str, Any]]:
    """The tournaments the player entered with their profile (newest first, at most 50)."""
    t = tournaments
    rows = conn.execute(
        select(t.c.id, t.c.name, t.c.kind, t.c.status, t.c.created_at, t.c.state)
        .where(t.c.state.contains(f'"{pid}"', autoescape=True))
        .order_by(t.c.created_at.desc())
        .limit(50)
    ).all()
    out = []
    for r in rows:
        try:
            entered = pid in (json.loads(r.state).get("profiles") or {}).values()
        except (ValueError, AttributeError):
            entered = False
        if entered:
            out.append(
                {"id": r.id, "name": r.name, "kind": r.kind, "status": r.status, "at": r.created_at}
            )
    return out


def player_figures(conn: Connection, name: str) -> dict[str, Any]:
    """What a player's page shows besides the games (``GET /api/profiles/{name}/figures``):
    the profile (rating, games, wins), its rating history, its games by kind and number of
    players, and the tournaments it entered. :class:`ApiError` ``404 no_such_player``."""
    row = find_profile(conn, name)
    return {
        **public_profile(row),
        "rating_history": _history(conn, row.id),
        "by_kind": _counts(conn, row.id),
        "tournaments": _tournaments(conn, row.id),
    }


def versus(conn: Connection, name: str, other: str) -> dict[str, Any]:
    """Two players' head-to-head (``GET /api/profiles/{name}/versus/{other}``): the games both
    sat in, counted from ``name``'s side (won, lost, tied), and the latest ten.
    :class:`ApiError` ``404 no_such_player`` for either, ``400 bad_filter`` for oneself."""
    a, b = find_profile(conn, name), find_profile(conn, other)
    if a.id == b.id:
        raise _bad("a player's head-to-head needs another player")
    mine, theirs = player_games.alias("mine"), player_games.alias("theirs")
    rows = conn.execute(
        select(mine.c.won, mine.c.tie)
        .join(theirs, theirs.c.game_id == mine.c.game_id)
        .where(mine.c.profile_id == a.id, theirs.c.profile_id == b.id)
    ).all()
    recent = archive_page(conn, a.name, Filters(opponent=b.name, limit=10))["games"]
    return {
        "player": {"id": a.id, "name": a.name},
        "opponent": {"id": b.id, "name": b.name},
        "games": len(rows),
        "won": sum(1 for r in rows if r.won and not r.tie),
        "tied": sum(1 for r in rows if r.tie),
        "lost": sum(1 for r in rows if not r.won),
        "recent": recent,
    }

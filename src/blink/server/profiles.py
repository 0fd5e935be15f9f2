"""Player profiles and ratings on the server (the endpoints ``/api/profiles`` and
``/api/leaderboard`` are :mod:`blink.server.routes.profiles`).

A profile is a name and a secret (no password). The secret is returned once, when the profile
is created, and stored only as its SHA-256 (the same hash as a seat token). A player attaches
the profile to a seat by giving ``profile_secret`` when creating, quick-starting or joining a
room: the seat's token *is* then the profile secret, so the seat row itself says whose seat it
is, across restarts, with no extra table.

When a game ends (:func:`on_game_end`, a hook of :class:`blink.server.hub.Hub`), it is rated
with :func:`blink.ratings.rate_game` if every seat is a profile or a bot (bots keep their fixed
rating, :func:`blink.ratings.game_bot_rating`) and at least one seat is a
profile, the number of seats within the game's range (its
:class:`~blink.model.base.GameInfo`). Go Blink games are rated the same way: each winner beat
each loser, and several winners share first place. A game with an
anonymous person in it is not rated, nor is a game past the caps against farming
(:mod:`blink.fair_play`): one budget a day of rated games against the house bots, all bots
together (:data:`BOT_GAMES_RATED`), three rated games a day between the same two profiles
(:data:`PAIR_GAMES_RATED`), and a game where a seat played faster than a person can react
(:mod:`blink.server.fairness`, which flags the profile). What a win over a provisional opponent,
or over the same opponent again that day, gains is scaled down
(:func:`blink.fair_play.capped`). The update runs as one database job on the writer, so
ratings of concurrent games never overwrite each other.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

import msgspec
from sqlalchemy import (
    Column,
    Connection,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    column,
    func,
    insert,
    select,
    table,
    update,
)

from blink.fair_play import (
    BOT_GAMES_A_DAY,
    PAIR_GAMES_A_DAY,
    PROVISIONAL_GAMES,
    SeatReactions,
    capped,
    opponent_weight,
    repeat_weight,
)
from blink.model.registry import get_game
from blink.ratings import BOT_RATINGS, Rating, RatingError, game_bot_rating, rate_game
from blink.server.errors import ProfileError
from blink.server.fairness import fast_seats, flag
from blink.server.hub import Hub
from blink.server.jobs import insert_new
from blink.server.names import NameError_, check_name, name_key, plain_key
from blink.server.protocol import RatingChange, Ratings, RatingValue, encode
from blink.server.room.practice import is_practice
from blink.server.room.room import GameState, Room, hash_token
from blink.server.schema import rooms

__all__ = [
    "BOT_GAMES_RATED",
    "FORM_GAMES",
    "PAIR_GAMES_RATED",
    "RANKED_AFTER",
    "ProfileError",
    "add_profile",
    "leaderboard",
    "lookup_secret",
    "on_game_end",
    "profile_games",
    "profile_hashes",
    "profile_with_history",
    "profiles",
    "profiles_among",
    "profiles_by_id",
    "public_profile",
    "seat_token",
]

log = logging.getLogger("blink.server.profiles")

meta = MetaData()

profiles = Table(
    "profiles",
    meta,
    Column("id", String(16), primary_key=True),
    Column("name", String(32), nullable=False),
    Column("secret_hash", String(64), nullable=False, unique=True),
    Column("created_at", Float, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    # The name's key (names.name_key): the unique index makes the database refuse a name that
    # another profile has, whichever server gave it out (migration 0006).
    Column("name_key", String(128), nullable=True, unique=True),
)

profile_games = Table(
    "profile_games",
    meta,
    Column("profile_id", String(16), primary_key=True),
    Column("game_id", Integer, primary_key=True, autoincrement=False),
    Column("room_code", String(8), nullable=False),
    Column("at", Float, nullable=False),
    Column("place", Integer, nullable=False),
    Column("players", Integer, nullable=False),
    Column("opponents", Text, nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("mu_after", Float, nullable=False),
    Column("sigma_after", Float, nullable=False),
)


def public_profile(row: Any) -> dict[str, Any]:
    """A profile row as answered: id, name, rating, games, wins, creation time."""
    r = Rating(row.mu, row.sigma)
    return {
        "id": row.id,
        "name": row.name,
        "rating": {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal},
        "games": row.games,
        "wins": row.wins,
        "created_at": row.created_at,
    }


def lookup_secret(hub: Hub, secret: str) -> dict[str, Any] | None:
    """The profile whose secret this is (public fields plus ``secret_hash``), or ``None``."""
    h = hash_token(secret)
    with hub.storage.engine.connect() as conn:
        row = conn.execute(select(profiles).where(profiles.c.secret_hash == h)).first()
    if row is None:
        return None
    return {**public_profile(row), "secret_hash": row.secret_hash}


def profiles_by_id(hub: Hub, ids: list[str]) -> dict[str, Any]:
    """Profile rows by id (for the tournament code)."""
    with hub.storage.engine.connect() as conn:
        rows = conn.execute(select(profiles).where(profiles.c.id.in_(ids))).all()
    return {r.id: r for r in rows}


def seat_token(hub: Hub, secret: str | None, room: Room | None = None) -> str:
    """The token for a seat being taken: a fresh random token, or the profile secret when one
    is given (so the seat carries the profile). Raises :class:`ProfileError` for an unknown
    secret or a profile already seated in ``room``.

    Either way the hash is remembered as a profile's or not (:func:`profiles_among`), so that
    rating the seat's games asks the database nothing: a token drawn here is random and never
    becomes a profile's.
    """
    if secret is None or secret == "":
        token = secrets.token_urlsafe(24)
        _remember_not_profile(hub, hash_token(token))
        return token
    found = lookup_secret(hub, secret)
    if found is None:
        raise ProfileError(400, "no_such_profile", "no profile has this secret")
    if room is not None and room.seat_for_token(secret) is not None:
        raise ProfileError(409, "profile_seated", "this profile already has a seat in this room")
    profile_hashes(hub).add(found["secret_hash"])
    return secret


def _remember_not_profile(hub: Hub, token_hash: str) -> None:
    not_profiles = hub.not_profiles
    if len(not_profiles) >= NOT_PROFILES_KEPT:
        not_profiles.clear()
    not_profiles.add(token_hash)


def _bot_rating(name: str, game: str) -> Rating:
    """The fixed rating of a bot seat of a ``game``."""
    return game_bot_rating(name, game)


BOT_GAMES_RATED: Final = BOT_GAMES_A_DAY
"""Rated games of one profile against the house bots in any 24 hours, whatever the bot's
level, strategy or speed: more are played but not rated, so that beating one bot after
another cannot farm a rating."""

BOT_OPPONENT: Final = '%"bot:%'
"""How a bot shows in a rated game's ``opponents`` (a JSON list of names: a bot is
``bot:SPEC``), for ``LIKE``."""


def _farmed(conn: Connection, row: Any, at: float) -> bool:
    """True when ``row``'s profile has had its rated games against the house bots today."""
    count = conn.execute(
        select(func.count())
        .select_from(profile_games)
        .where(
            profile_games.c.profile_id == row.id,
            profile_games.c.opponents.like(BOT_OPPONENT),
            profile_games.c.at > at - 86_400,
        )
    ).scalar_one()
    return bool(int(count) >= BOT_GAMES_RATED)


PAIR_GAMES_RATED: Final = PAIR_GAMES_A_DAY
"""Rated games between the same two profiles in any 24 hours: more are played and recorded but
not rated, and each one after the first gains less (:func:`blink.fair_play.repeat_weight`), so
that a second profile of the same person losing on purpose cannot lift the first (nothing else
tells two profiles of one person apart)."""


def _pair_games(conn: Connection, first: str, second: str, at: float) -> int:
    """The rated games profiles ``first`` and ``second`` played together in the last 24 hours."""
    a, b = profile_games.alias("a"), profile_games.alias("b")
    count = conn.execute(
        select(func.count())
        .select_from(a.join(b, a.c.game_id == b.c.game_id))
        .where(a.c.profile_id == first, b.c.profile_id == second, a.c.at > at - 86_400)
    ).scalar_one()
    return int(count)


def _weights(conn: Connection, who: list[Any], at: float, provisional: int) -> list[float] | None:
    """The share of its gain each seat keeps (:func:`blink.fair_play.capped`): the least, over
    the other profiles in the game, of that opponent's weight (provisional: its games) times
    the pair's repeat weight today. ``None`` when a pair has had its rated games today."""
    earlier: dict[tuple[str, str], int] = {}
    weights = [1.0] * len(who)
    for i, x in enumerate(who):
        for y in who:
            if x is None or y is None or x.id == y.id:
                continue
            key = (min(x.id, y.id), max(x.id, y.id))
            if key not in earlier:
                earlier[key] = _pair_games(conn, key[0], key[1], at)
                if earlier[key] >= PAIR_GAMES_RATED:
                    return None
            w = opponent_weight(y.games, provisional) * repeat_weight(earlier[key])
            weights[i] = min(weights[i], w)
    return weights


def _rate_job(
    room_code: str,
    game_id: int,
    hashes: list[str | None],
    bots: list[str | None],
    winners: tuple[int, ...],
    at: float,
    game: str = "classic",
    fast: Sequence[SeatReactions] = (),
    provisional: int = PROVISIONAL_GAMES,
) -> Callable[[Connection], list[RatingChange] | None]:
    """The storage job that rates a finished game; its result is each rated seat's change
    (``None``: the game is not rated). ``fast``: the seats that played faster than a person
    (the game is not rated and their profiles are flagged); ``provisional``: the rated games
    after which a profile is established (what beating it gains is scaled until then)."""

    def job(conn: Connection) -> list[RatingChange] | None:
        wanted = [h for h in hashes if h is not None]
        rows = {
            r.secret_hash: r
            for r in conn.execute(select(profiles).where(profiles.c.secret_hash.in_(wanted)))
        }
        ratings: list[Rating] = []
        fixed: list[bool] = []
        who: list[Any] = []
        for h, b in zip(hashes, bots, strict=True):
            if b is not None:
                try:
                    ratings.append(_bot_rating(b, game))
                except RatingError:
                    return None
                fixed.append(True)
                who.append(None)
            elif h is not None and h in rows:
                row = rows[h]
                ratings.append(Rating(row.mu, row.sigma))
                fixed.append(False)
                who.append(row)
            else:
                return None  # an anonymous person: the game is not rated
        info = get_game(game).info
        if all(w is None for w in who) or not info.min_players <= len(ratings) <= info.max_players:
            return None
        if len({w.id for w in who if w is not None}) != sum(1 for w in who if w is not None):
            return None
        names = [w.name if w is not None else f"bot:{b}" for w, b in zip(who, bots, strict=True)]
        flagged = [f for f in fast if 0 <= f.seat < len(who) and who[f.seat] is not None]
        for f in flagged:
            flag(conn, who[f.seat], game_id, room_code, at, f)
        if fast:
            return None
        if any(b is not None for b in bots) and any(
            row is not None and _farmed(conn, row, at) for row in who
        ):
            return None
        weights = _weights(conn, who, at, provisional)
        if weights is None:
            return None
        rated = rate_game(ratings, list(winners), fixed, info)
        new = [capped(ratings[i], r, weights[i]) for i, r in enumerate(rated)]
        changes: list[RatingChange] = []
        for i, row in enumerate(who):
            if row is None:
                continue
            won = i in winners
            place = 1 if won else 1 + len(winners)
            conn.execute(
                update(profiles)
                .where(profiles.c.id == row.id)
                .values(
                    mu=new[i].mu,
                    sigma=new[i].sigma,
                    games=profiles.c.games + 1,
                    wins=profiles.c.wins + (1 if won and len(winners) == 1 else 0),
                )
            )
            conn.execute(
                insert(profile_games).values(
                    profile_id=row.id,
                    game_id=game_id,
                    room_code=room_code,
                    at=at,
                    place=place,
                    players=len(ratings),
                    opponents=json.dumps([n for j, n in enumerate(names) if j != i]),
                    mu_before=ratings[i].mu,
                    sigma_before=ratings[i].sigma,
                    mu_after=new[i].mu,
                    sigma_after=new[i].sigma,
                )
            )
            changes.append(_change(i, row.id, ratings[i], new[i]))
        return changes

    return job


def _value(r: Rating) -> RatingValue:
    return RatingValue(mu=r.mu, sigma=r.sigma, ordinal=r.ordinal)


def _change(seat: int, pid: str, before: Rating, after: Rating) -> RatingChange:
    """A seat's rating change, as the game's end tells it."""
    delta = after.ordinal - before.ordinal
    return RatingChange(seat, pid, _value(before), _value(after), delta)


def _tell_ratings(room: Room, g: GameState) -> Callable[[object], None]:
    """The ``done`` of a game's rating job: once the ratings are stored, every connection of
    the room is told (a :class:`~blink.server.protocol.Ratings` frame), and the game's end,
    when it is sent again, carries them."""

    def done(result: object) -> None:
        if not isinstance(result, list) or not result:
            return  # not rated, or the job failed (logged by the storage)
        if g.end_msg is not None:
            g.end_msg = msgspec.structs.replace(g.end_msg, ratings=result)
        frame = encode(Ratings(game=g.id, ratings=result))
        for c in room.conns:
            c.send(frame)

    return done


def profile_hashes(hub: Hub) -> set[str]:
    """The secret hashes of every profile on this server, read once and kept up to date by
    ``POST /api/profiles``: a game between anonymous players is not rated, and finding that out
    must not cost a database query per finished game."""
    known = hub.profile_hashes
    if known is None:
        with hub.storage.engine.connect() as conn:
            known = {r[0] for r in conn.execute(select(profiles.c.secret_hash))}
        hub.profile_hashes = known
    return known


NOT_PROFILES_KEPT: Final = 100_000
"""Seat token hashes known not to be a profile's, kept at most (then forgotten, and asked again)."""


def profiles_among(hub: Hub, hashes: Iterable[str | None]) -> set[str]:
    """Which of the seat token hashes ``hashes`` are profiles' secret hashes.

    :func:`profile_hashes` holds the profiles this server had when it first read them and
    those made here since; a hash it lacks may be a profile another server (a cluster's node,
    sharing the database) made later, so it is asked of the database once. A hash found not
    to be a profile's is remembered: a seat token is random, it never becomes a profile's.
    """
    known = profile_hashes(hub)
    not_profiles = hub.not_profiles
    missing = {h for h in hashes if h is not None and h not in known and h not in not_profiles}
    if missing:
        with hub.storage.engine.connect() as conn:
            rows = conn.execute(
                select(profiles.c.secret_hash).where(profiles.c.secret_hash.in_(missing))
            )
            found = {r[0] for r in rows}
        known |= found
        for h in missing - found:
            _remember_not_profile(hub, h)
    return {h for h in hashes if h is not None and h in known}


def _bot_meets_people(room: Room) -> bool:
    """Whether a bot account and a person (a seat held by no bot account) sat in ``room``: such
    a game is not rated, for the bot nor for the people, so a person's rating only ever moves
    with people and house bots, and a bot account's on the bot ladder only with bots."""
    people = [s for s in room.seats if s.kind == "human"]
    return any(s.bot_account is not None for s in people) and any(
        s.bot_account is None for s in people
    )


def on_game_end(room: Room, g: GameState) -> None:
    """Rate a finished game (a :class:`Hub` game-end hook)."""
    outcome = g.game.outcome
    if outcome is None:
        return
    sizes = room.options.get("sizes")  # a game's draw-pile sizes, when it has them
    if sizes is not None and len(set(sizes)) > 1:
        return  # a handicapped game is not rated: the rating model has no handicap in it
    if is_practice(room.options):
        return  # a practice game (with its pause) is never rated
    if room.options.get("unrated") is True:
        return  # an accepted challenge that asked not to be rated (routes/challenges.py)
    if _bot_meets_people(room):
        return  # a bot account's game with people is rated for nobody (docs/bot-api.md)
    hashes = [s.token_hash if s.kind == "human" else None for s in room.seats]
    bots = [s.bot if s.kind == "bot" else None for s in room.seats]
    hub = room.hub
    if not isinstance(hub, Hub):  # a room outside a server (a test's host) is not rated
        return
    if not profiles_among(hub, hashes):
        return
    names = [s.name or "" for s in room.seats]
    fast = [
        f
        for f in fast_seats(room.definition, g, names, hub.settings.reaction_floor_ms)
        if room.seats[f.seat].kind == "human" and room.seats[f.seat].bot_account is None
    ]  # a bot account is no person: its speed is judged only where people are (not rated)
    room.hub.store(
        _rate_job(
            room.code,
            g.id,
            hashes,
            bots,
            tuple(outcome.winners),
            time.time(),
            room.game_name,
            fast,
            hub.settings.provisional_games,
        ),
        _tell_ratings(room, g),
        room=room.code,
    )


async def add_profile(hub: Hub, name: str) -> dict[str, Any]:
    """Create a profile named ``name`` (``POST /api/profiles``): its id, name and secret (the
    secret is answered this once). Raises :class:`ProfileError` for a name that cannot be
    used (:func:`blink.server.names.check_name`) or that another profile has (``name_taken``,
    or ``name_lookalike`` for one that only looks like it: names are compared by
    :func:`blink.server.names.name_key`)."""
    try:
        name = check_name(name)
    except NameError_ as exc:
        raise ProfileError(400, exc.code, exc.message) from None
    key = name_key(name)
    taken = profile_names(hub)
    if key in taken:
        raise _name_refused(hub, name, key)
    taken.add(key)  # at once, on the loop: a second request for the name now waits for none
    secret = secrets.token_urlsafe(24)
    secret_hash = hash_token(secret)
    pid = secrets.token_hex(6)
    start = Rating()
    row = {
        "id": pid,
        "name": name,
        "secret_hash": secret_hash,
        "created_at": time.time(),
        "mu": start.mu,
        "sigma": start.sigma,
        "games": 0,
        "wins": 0,
        "name_key": key,
    }

    def job(conn: Connection) -> bool:
        return insert_new(conn, profiles, row, "name_key")

    try:
        inserted = await hub.storage.run(job)
    except BaseException:
        taken.discard(key)
        raise
    if not inserted:  # another server gave the name out meanwhile (taken stays: it is)
        raise _name_refused(hub, name, key)
    profile_hashes(hub).add(secret_hash)
    return {"id": pid, "name": name, "secret": secret}


def _name_refused(hub: Hub, name: str, key: str) -> ProfileError:
    """Why ``name`` (whose key is ``key``) is refused: another profile has it, written alike
    (``name_taken``), or one that looks like it (``name_lookalike``, naming it)."""
    with hub.storage.engine.connect() as conn:
        holder = conn.execute(select(profiles.c.name).where(profiles.c.name_key == key)).first()
    if holder is not None and plain_key(holder[0]) != plain_key(name):
        return ProfileError(
            409,
            "name_lookalike",
            f"{name!r} looks too much like {holder[0]!r}, another player's name",
        )
    return ProfileError(409, "name_taken", f"a profile is already called {name!r} (or alike)")


def profile_names(hub: Hub) -> set[str]:
    """The name keys of every profile of this server, read once and kept up to date."""
    known = hub.profile_names
    if known is None:
        with hub.storage.engine.connect() as conn:
            known = {name_key(r[0]) for r in conn.execute(select(profiles.c.name))}
        hub.profile_names = known
    return known


def profile_with_history(hub: Hub, pid: str) -> dict[str, Any]:
    """A profile's rating and its latest 50 rated games (``GET /api/profiles/{pid}``).

    Raises :class:`ProfileError` (``404 no_such_profile``) for an unknown id."""
    with hub.storage.engine.connect() as conn:
        row = conn.execute(select(profiles).where(profiles.c.id == pid)).first()
        if row is None:
            raise ProfileError(404, "no_such_profile", f"there is no profile {pid!r}")
        hist = conn.execute(
            select(profile_games, rooms.c.public)
            .outerjoin(rooms, rooms.c.code == profile_games.c.room_code)
            .where(profile_games.c.profile_id == pid)
            .order_by(profile_games.c.game_id.desc())
            .limit(50)
        ).all()
    out = public_profile(row)
    out["history"] = [
        {
            "game": h.game_id,
            "room": h.room_code if h.public else None,  # a private room's code stays private
            "at": h.at,
            "place": h.place,
            "players": h.players,
            "opponents": json.loads(h.opponents),
            "before": {"mu": h.mu_before, "sigma": h.sigma_before},
            "after": {"mu": h.mu_after, "sigma": h.sigma_after},
            # A private room's record needs its code, which is not given here.
            "record_url": f"/api/games/{h.game_id}/record" if h.public else None,
        }
        for h in hist
    ]
    return out


RANKED_AFTER: Final = PROVISIONAL_GAMES
"""Rated games a profile needs to be ranked on the leaderboard (by default; a server's
``Settings.provisional_games``). Before, it is provisional: its rating says little yet (and a
fresh one's, ordinal 0, is above every player who has lost a few games), so it is listed apart,
unranked."""


LADDERS: Final = ("people", "bots")
"""The leaderboard's ladders: the people's (every profile but the bot accounts') and the bot
accounts' own (``GET /api/leaderboard?ladder=``)."""

bot_profiles = table("bots", column("profile_id"), column("account_id"))
"""The bot accounts' profile ids and owning accounts (the table is
:mod:`blink.server.bot_accounts.store`'s, named here without importing it: that module builds on
this one)."""
_account_profiles = table("accounts", column("id"), column("profile_id"))
"""The accounts' profiles (:mod:`blink.server.accounts.store`'s table, named the same way)."""


def _bot_owners(conn: Connection, ids: list[str]) -> dict[str, str]:
    """The name of the account that owns each of these bot accounts' profiles (a bot whose
    account was deleted has none)."""
    if not ids:
        return {}
    owner = profiles.alias("owner")
    rows = conn.execute(
        select(bot_profiles.c.profile_id, owner.c.name)
        .select_from(
            bot_profiles.join(
                _account_profiles, _account_profiles.c.id == bot_profiles.c.account_id
            ).join(owner, owner.c.id == _account_profiles.c.profile_id)
        )
        .where(bot_profiles.c.profile_id.in_(ids))
    )
    return {r[0]: r[1] for r in rows}


def _on_ladder(ladder: str) -> Any:
    """The condition that keeps a ``ladder``'s profiles: the bot accounts' or everyone else's."""
    ids = select(bot_profiles.c.profile_id)
    return profiles.c.id.in_(ids) if ladder == "bots" else profiles.c.id.not_in(ids)


def leaderboard(hub: Hub, limit: int, min_games: int, ladder: str = "people") -> dict[str, Any]:
    """One ladder's profiles (:data:`LADDERS`: ``people``, the default, leaves the bot accounts
    out; ``bots`` lists only them) with ``Settings.provisional_games`` rated games or more
    (:data:`RANKED_AFTER` by default) by conservative rating (``mu - 3 sigma``), best first,
    ranked; the provisional ones (fewer games, with at least ``min_games``) apart, unranked
    (``rank: null``, ``provisional: true``), newest first; each with its recent form
    (:func:`_recent_form`), ``bot_account`` and, on the bots' ladder, the name of the account
    that owns the bot (``owner``; ``null`` elsewhere, or once that account is deleted); the
    ladder, the threshold
    (``provisional_games``); and the house bots' fixed ratings (``GET /api/leaderboard``).
    ``limit`` (kept between 1 and 1,000) applies to each list."""
    limit = max(1, min(limit, 1000))
    ranked_after = max(1, hub.settings.provisional_games)
    ordinal = (profiles.c.mu - 3 * profiles.c.sigma).desc()
    kept = _on_ladder(ladder)
    with hub.storage.engine.connect() as conn:
        rows = conn.execute(
            select(profiles)
            .where(profiles.c.games >= max(min_games, ranked_after), kept)
            .order_by(ordinal, profiles.c.id)
            .limit(limit)
        ).all()
        fresh: list[Any] = []
        if min_games < ranked_after:
            fresh = list(
                conn.execute(
                    select(profiles)
                    .where(profiles.c.games < ranked_after, profiles.c.games >= min_games, kept)
                    .order_by(profiles.c.created_at.desc(), profiles.c.id)
                    .limit(limit)
                )
            )
        form = _recent_form(conn, [row.id for row in [*rows, *fresh]])
        bot = ladder == "bots"
        owners = _bot_owners(conn, [row.id for row in [*rows, *fresh]]) if bot else {}
    return {
        "ladder": ladder,
        "players": [
            {
                "rank": i + 1,
                **public_profile(row),
                "provisional": False,
                "bot_account": bot,
                "owner": owners.get(row.id),
                "form": form.get(row.id, []),
            }
            for i, row in enumerate(rows)
        ],
        "provisional": [
            {
                "rank": None,
                **public_profile(row),
                "provisional": True,
                "bot_account": bot,
                "owner": owners.get(row.id),
                "form": form.get(row.id, []),
            }
            for row in fresh
        ],
        "provisional_games": ranked_after,
        "bots": {level: rating.to_dict() for level, rating in BOT_RATINGS.items()},
    }


FORM_GAMES: Final = 5
"""Rated games in a leaderboard line's recent form."""


def _recent_form(conn: Connection, ids: list[str]) -> dict[str, list[str]]:
    """Each profile's latest :data:`FORM_GAMES` rated games, newest first: ``"win"`` for a
    first place (shared or not), ``"loss"`` otherwise. One query for the whole page."""
    if not ids:
        return {}
    newest = (
        func.row_number()
        .over(partition_by=profile_games.c.profile_id, order_by=profile_games.c.game_id.desc())
        .label("n")
    )
    ranked = (
        select(profile_games.c.profile_id, profile_games.c.place, newest)
        .where(profile_games.c.profile_id.in_(ids))
        .subquery()
    )
    rows = conn.execute(
        select(ranked.c.profile_id, ranked.c.place)
        .where(ranked.c.n <= FORM_GAMES)
        .order_by(ranked.c.profile_id, ranked.c.n)
    ).all()
    out: dict[str, list[str]] = {}
    for r in rows:
        out.setdefault(r.profile_id, []).append("win" if r.place == 1 else "loss")
    return out

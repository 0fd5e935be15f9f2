"""A player's archive and pages' data: ``GET /api/profiles/{name}/games`` (one page of the
finished games of the player called ``name``, newest first, with filters), the figures and
head-to-head of a player's page, and whose profiles sit in a room or sat in a stored game (the
table and the replay viewer link those names to the players' pages).

The archive itself is :mod:`blink.server.archive`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query

from blink.server import archive
from blink.server.bot_accounts.service import profile_marks
from blink.server.hub import Hub
from blink.server.routes.deps import HubDep

__all__ = ["router"]

router = APIRouter()


def _read(h: Hub, read: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    with h.storage.engine.connect() as conn:
        return read(conn, *args)


def _page(h: Hub, name: str, f: archive.Filters) -> dict[str, Any]:
    with h.storage.engine.connect() as conn:
        return archive.archive_page(conn, name, f)


@router.get("/api/profiles/{name}/games")
async def player_games(
    h: HubDep,
    name: str,
    game: Annotated[str | None, Query(description="only games of this kind (classic, ...)")] = None,
    rated: Annotated[
        str | None, Query(description="true: rated games only; false: unrated")
    ] = None,
    opponent: Annotated[str | None, Query(description="only games against this player")] = None,
    since: Annotated[
        str | None, Query(description="ended on or after this date (YYYY-MM-DD, UTC)")
    ] = None,
    until: Annotated[
        str | None, Query(description="ended on or before this date (YYYY-MM-DD, UTC)")
    ] = None,
    limit: Annotated[int, Query(description=f"games a page, 1 to {archive.MAX_LIMIT}")] = 20,
    cursor: Annotated[str | None, Query(description="the previous page's next")] = None,
) -> dict[str, Any]:
    """One page of a player's finished games, newest first: each with its players, result,
    the player's rating change when it was rated, and its record and replay (a private room's
    game without them). ``next`` is the following page's cursor (``null`` on the last).
    ``400 bad_filter`` or ``unknown_game`` for a filter that cannot be used, ``404
    no_such_player`` for an unknown player or opponent."""
    f = archive.parse_filters(game, rated, opponent, since, until, limit, cursor)
    return await asyncio.to_thread(_page, h, name, f)


@router.get("/api/profiles/{name}/figures")
async def player_figures(h: HubDep, name: str) -> dict[str, Any]:
    """What a player's page shows besides the games: the profile's rating, games and wins,
    its rating history (``rating_history``: the ordinal after each rated game, oldest first,
    from the rating before the first), its games played, won and tied by game kind and number
    of players (``by_kind``) and the tournaments it entered; ``provisional`` while it has
    fewer rated games than ``Settings.provisional_games``, ``bot`` and ``owner`` for a bot
    account's. ``404 no_such_player``."""
    return await asyncio.to_thread(_figures, h, name)


def _figures(h: Hub, name: str) -> dict[str, Any]:
    out = _read(h, archive.player_figures, name)
    out["provisional"] = int(out["games"]) < max(1, h.settings.provisional_games)
    out.update(profile_marks(h, str(out["id"])))
    return out


@router.get("/api/profiles/{name}/versus/{other}")
async def versus(h: HubDep, name: str, other: str) -> dict[str, Any]:
    """Two players' head-to-head: the games both sat in, won, lost and tied by ``name``, and
    the latest ten (as the archive gives them). ``404 no_such_player`` for either, ``400
    bad_filter`` for a player against themself."""
    return await asyncio.to_thread(_read, h, archive.versus, name, other)


@router.get("/api/rooms/{code}/profiles")
async def room_profiles(h: HubDep, code: str) -> dict[str, Any]:
    """Whose profile holds each seat of a room: ``profiles``, one per seat, the profile's name
    or ``null`` (a bot, a guest, an open seat). ``404 no_such_room``."""
    code = code.upper()
    room = h.room(code)
    hashes = (
        None if room is None else [s.token_hash if s.kind == "human" else None for s in room.seats]
    )
    return await asyncio.to_thread(_read, h, archive.room_profiles, code, hashes)


@router.get("/api/games/{game_id}/profiles")
async def game_profiles(h: HubDep, game_id: int) -> dict[str, Any]:
    """Whose profile sat in each seat of a stored game: ``profiles``, one per seat, the
    profile's name now or ``null`` (a bot or a guest). ``404 no_such_game``."""
    return await asyncio.to_thread(_read, h, archive.game_profiles, game_id)

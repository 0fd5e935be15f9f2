"""Finished games and their records: ``/api/games``, ``/api/games/{id}/record`` and
``/api/rooms/{code}/record`` (a series).

A record is the engine's JSON record format (:class:`~blink.games.classic.record.GameRecord`,
:class:`~blink.games.classic.record.SeriesRecord`, or another game's, from its definition's
``record_codec``), rebuilt from the stored deal and action log.
The replay endpoints (:mod:`blink.server.replays`) read records through :func:`record_loader`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, FastAPI, Request

from blink.model.records import SeriesRecord
from blink.server import archive, daily
from blink.server.errors import ApiError
from blink.server.hub import Hub
from blink.server.links import may_read
from blink.server.loaded import LoadedGame
from blink.server.replays import RecordLoader
from blink.server.routes.deps import HubDep, check_lookup, count_miss
from blink.server.stored import Unreadable, record_of

__all__ = ["load_record", "record_loader", "router"]

router = APIRouter()


async def load_record(h: Hub, game_id: int, room: str | None = None) -> dict[str, Any]:
    """A finished game's record document; :class:`ApiError` ``404 no_such_game`` (also for a
    private room's game when ``room`` does not name its room), ``409 game_not_finished`` or
    ``409 game_unreadable`` (its stored log does not replay)."""
    lg = await asyncio.to_thread(h.storage.load_game, game_id)
    if lg is None or not may_read(lg.room_code, lg.public, room):
        raise ApiError(404, "no_such_game", f"there is no game {game_id}")
    if lg.ended_at is None:
        raise ApiError(409, "game_not_finished", "the game is not finished yet")
    _check_day_over(h, lg)
    record: dict[str, Any] = _record(lg).to_dict()
    return record


def _record(lg: LoadedGame) -> Any:
    """The stored game's record; ``409 game_unreadable`` when its log does not replay (a
    corrupted database: ``blink db check`` lists such games)."""
    try:
        return record_of(lg)
    except Unreadable as exc:
        raise ApiError(409, "game_unreadable", str(exc)) from None


def _check_day_over(h: Hub, lg: LoadedGame) -> None:
    """A daily challenge game's record shows the day's deal: it is served once the day is
    over (``403 daily_running`` before)."""
    day = lg.room_options.get(daily.OPTION_DAY)
    if isinstance(day, str) and not daily.revealed(day, h.settings.wall_clock()):
        raise ApiError(
            403, "daily_running", f"the records of {day}'s daily challenge are served after the day"
        )


def record_loader(app: FastAPI) -> RecordLoader:
    """:func:`load_record` on the hub of ``app`` once it runs (for the replay endpoints)."""

    async def load(request: Request, game_id: int, room: str | None) -> dict[str, Any]:
        return await _guarded(app.state.hub, request, game_id, room)

    return load


@router.get("/api/games")
async def list_games(
    h: HubDep, status: str = "finished", limit: int = 50, room: str | None = None
) -> dict[str, Any]:
    """Finished games, newest first: those of public rooms, or every game of ``room``."""
    if status != "finished":
        raise ApiError(400, "bad_options", "only status=finished can be listed")
    if not 1 <= limit <= 200:
        raise ApiError(400, "bad_options", "limit must be between 1 and 200")
    code = room.upper() if room is not None else None
    listed = await asyncio.to_thread(_finished, h, limit, code)
    return {"games": listed}


def _finished(h: Hub, limit: int, code: str | None) -> list[dict[str, Any]]:
    """The finished games listed, each player marked ``bot_account`` when a bot account's."""
    listed = h.storage.finished_games(limit, code)
    with h.storage.engine.connect() as conn:
        bots = archive.bot_seats(conn, [int(g["id"]) for g in listed])
    for g in listed:
        for i, p in enumerate(g["players"]):
            p["bot_account"] = (g["id"], i) in bots
    return listed


async def _guarded(h: Hub, request: Request, game_id: int, room: str | None) -> dict[str, Any]:
    """:func:`load_record` for a request: counting through ids is guessing, so each 404 counts
    as an unknown room code of the address (past its limit, ``429 rate_limited``)."""
    await check_lookup(request)
    try:
        return await load_record(h, game_id, room)
    except ApiError as exc:
        if exc.status == 404:
            await count_miss(request)
        raise


@router.get("/api/games/{game_id}/record")
async def game_record(
    h: HubDep, game_id: int, request: Request, room: str | None = None
) -> dict[str, Any]:
    """A finished game's record (the engine's JSON record format); a private room's game only
    with its room's code (``?room=CODE``, as its ``record_url`` has it)."""
    return await _guarded(h, request, game_id, room)


@router.get("/api/rooms/{code}/record")
async def series_record(h: HubDep, code: str, series: int | None = None) -> dict[str, Any]:
    """A series' record with its finished games."""
    room = h.room(code.upper())
    exists = room is not None or await asyncio.to_thread(h.storage.room_exists, code.upper())
    if not exists:
        raise ApiError(404, "no_such_room", f"there is no room {code!r}")
    number = series if series is not None else (room.series_number if room else 1)
    best_of = room.best_of if room else 1
    loaded = await asyncio.to_thread(h.storage.series_games, code.upper(), number)
    for lg in loaded:
        _check_day_over(h, lg)
    meta: dict[str, Any] = {"room": code.upper(), "series": number}
    if loaded and any(loaded[0].bots):  # one room's seats: the same bots in every game
        meta["bots"] = list(loaded[0].bots)
    play_all = room.series.play_all if room else False
    rec = SeriesRecord(best_of, [_record(g) for g in loaded], meta, play_all)
    series_doc: dict[str, Any] = rec.to_dict()
    return series_doc

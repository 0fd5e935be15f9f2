"""Replays for the browser: records verified and laid out step by step by the Python engines.

- ``POST /api/replays`` with a record document as the body (anything ``blink replay FILE``
  accepts: a classic ``blink-record``, a ``blink-series`` or a Go Blink record) answers the
  replay document of :func:`blink.model.replays.replay_document`. Errors: ``400 bad_json`` (the
  body is not JSON), ``413 too_large`` (over :data:`MAX_BODY` bytes, refused by the app's
  :class:`~blink.server.body_limit.BodyLimit` before it is read), ``422`` with the record's
  reason as the code and ``index`` (the failing action, or ``null``) when it does not verify.
- ``GET /api/games/{id}/replay``: the same for a finished game stored on the server, in one
  request. The stored record is the one ``GET /api/games/{id}/record`` serves (its errors too:
  ``404 no_such_game``, ``409 game_not_finished``).
- ``GET /api/games/{id}/study``: that game studied (:func:`blink.model.study.study_document`:
  each play's reaction time, the plays each player missed, both hands over time, a summary
  per seat), with the same rules and errors, and ``422 no_study`` for a game without a study.

See docs/protocol.md, `POST /api/replays`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, Final

import msgspec
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response

from blink.model.records import RecordError
from blink.model.replays import replay_document
from blink.model.study import study_document

__all__ = ["MAX_BODY", "MAX_GAMES", "WORKERS", "RecordLoader", "install", "router"]

MAX_BODY: Final = 2 * 1024 * 1024
"""The largest record accepted by ``POST /api/replays``, in bytes (a full game is ~10 KB)."""

MAX_GAMES: Final = 25
"""The most games of a series replayed in one request (a best-of-N has at most 2N - 1)."""

WORKERS: Final = 2
"""Replays built at once (each off the event loop, ``app.state.replay_slots``): more wait
their turn, so that a flood of large records never holds the loop or every worker thread."""

router = APIRouter()


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message, **extra}}, status_code=status)


def _invalid(exc: RecordError) -> JSONResponse:
    extra: dict[str, Any] = {"index": exc.index}
    if exc.game is not None:
        extra["game"] = exc.game
    return _error(422, exc.reason, str(exc), **extra)


async def _replay(request: Request, data: object) -> JSONResponse:
    games = data.get("games") if isinstance(data, dict) else None
    if isinstance(games, list) and len(games) > MAX_GAMES:
        return _error(
            413, "too_many_games", f"a series may hold at most {MAX_GAMES} games to replay"
        )
    try:
        async with _slots(request):
            doc = await asyncio.to_thread(replay_document, data)
    except RecordError as exc:
        return _invalid(exc)
    return JSONResponse(doc)


def _slots(request: Request) -> asyncio.Semaphore:
    state = request.app.state
    slots: asyncio.Semaphore | None = getattr(state, "replay_slots", None)
    if slots is None:  # made on the loop that serves the app
        slots = state.replay_slots = asyncio.Semaphore(WORKERS)
    return slots


@router.post("/api/replays", tags=["replays"])
async def post_replay(request: Request) -> JSONResponse:
    """Verify a record (the request body) with the engine and answer its replay frames."""
    body = await request.body()  # at most MAX_BODY: the app's BodyLimit refused longer ones
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return _error(400, "bad_json", f"the body is not JSON: {exc}")
    except RecursionError:
        return _error(400, "bad_json", "the body is not a record: it is nested too deeply")
    return await _replay(request, data)


@router.get("/api/games/{game_id}/replay", tags=["replays"])
async def game_replay(game_id: int, request: Request, room: str | None = None) -> JSONResponse:
    """A finished game stored on the server, replayed (the frames of its record); a private
    room's game only with its room's code (``?room=CODE``), as its record."""
    load: RecordLoader = request.app.state.replay_record
    # The app's own record loader: its errors (404, 409) reach the app's error handlers.
    return await _replay(request, await load(request, game_id, room))


@router.get("/api/games/{game_id}/study", tags=["replays"])
async def game_study(game_id: int, request: Request, room: str | None = None) -> Response:
    """A finished game stored on the server, studied: each play's reaction time, the plays
    each player missed, both hands over time and a summary per seat (docs/replay.md); a
    private room's game only with its room's code (``?room=CODE``), as its record."""
    load: RecordLoader = request.app.state.replay_record
    data = await load(request, game_id, room)
    try:
        async with _slots(request):
            doc = await asyncio.to_thread(study_document, data)
    except RecordError as exc:
        return _invalid(exc)
    return Response(msgspec.json.encode(doc), media_type="application/json")


RecordLoader = Callable[[Request, int, str | None], Awaitable[Any]]
"""What ``GET /api/games/{id}/record?room=`` answers to a request: a stored finished game's
record document (the game's id, the room named or ``None``)."""


def install(app: FastAPI, record: RecordLoader) -> None:
    """Add the replay endpoints to ``app`` (before any catch-all static mount); ``record``
    loads a stored game's record (and raises the app's errors for unknown or live games)."""
    app.state.replay_record = record
    app.include_router(router)

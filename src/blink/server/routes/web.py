"""The browser client: its files at ``/`` and the room links ``/play/{code}`` and
``/watch/{code}`` (a Go Blink room's links go to the Go Blink page).

Without the client's folder (``settings.web_dir``), ``/`` answers a short page that points at
the API documentation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from blink.server.routes.deps import HubDep, SettingsDep

__all__ = ["PAGES", "install", "router"]

router = APIRouter()

PAGES: dict[str, tuple[str, str]] = {"goblink": ("/?go=", "/?gowatch=")}
"""The browser client's own page of a game, for its players and its spectators (a room code
follows); a game not listed is played on the client's main page."""


def _index(web: Path | None) -> Any:
    if web is not None and (web / "index.html").is_file():
        return FileResponse(web / "index.html")
    return HTMLResponse(
        "<!doctype html><title>Blink</title><h1>Blink server</h1>"
        "<p>The browser client is not installed. The API is documented at "
        '<a href="/docs">/docs</a>.</p>'
    )


@router.get("/play/{code}", include_in_schema=False)
async def play_link(h: HubDep, settings: SettingsDep, code: str) -> Any:
    """A room's link for its players: the client's page (Go Blink's for a Go Blink room)."""
    room = h.room(code.upper())
    page = PAGES.get(room.game_name) if room is not None else None
    if page is not None:
        return RedirectResponse(page[0] + code.upper())
    return _index(settings.web_dir)


@router.get("/watch/{code}", include_in_schema=False)
async def watch_link(h: HubDep, settings: SettingsDep, code: str) -> Any:
    """A room's link for spectators: the client's page (Go Blink's for a Go Blink room)."""
    room = h.room(code.upper())
    page = PAGES.get(room.game_name) if room is not None else None
    if page is not None:
        return RedirectResponse(page[1] + code.upper())
    return _index(settings.web_dir)


async def root(settings: SettingsDep) -> Any:
    """``/`` when the client's folder is missing: the client's page if it appeared since, else
    a page pointing at the API documentation."""
    return _index(settings.web_dir)


def install(app: FastAPI, web: Path | None) -> None:
    """Add the client's routes to ``app``, then its files at ``/`` from ``web`` (after every
    other route: the mount takes every path)."""
    app.include_router(router)
    if web is not None and web.is_dir():
        app.mount("/", StaticFiles(directory=web, html=True), name="web")
    else:
        app.add_api_route("/", root, methods=["GET"], include_in_schema=False)

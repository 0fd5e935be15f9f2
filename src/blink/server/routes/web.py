"""The browser client: its files at ``/``, each game's own browser module at
``/games/{name}/`` (:attr:`blink.model.registry.FrontEnd.web`), and the room links
``/play/{code}`` and ``/watch/{code}`` (a room of a game with its own page goes to that page,
:attr:`blink.model.registry.FrontEnd.pages`).

Without the client's folder (``settings.web_dir``), ``/`` answers a short page that points at
the API documentation.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from blink.model.registry import UnknownGame, front_end, game_names
from blink.server.routes.deps import HubDep, SettingsDep

__all__ = ["game_web_dir", "install", "page_of", "router", "web_module_url"]

router = APIRouter()

WEB_MODULE = "main.js"
"""The file of a game's browser module that the client imports (docs/architecture.md)."""


def page_of(game: str) -> tuple[str, str] | None:
    """The browser client's own page of ``game``, for its players and its spectators (a room
    code follows); ``None``: the game is played on the client's main page."""
    try:
        return front_end(game).pages
    except UnknownGame:
        return None


def game_web_dir(game: str) -> Path | None:
    """The folder of ``game``'s own browser files (``web/`` in its package), if it has one."""
    package = front_end(game).web
    spec = None if package is None else importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "web"
    return folder if (folder / WEB_MODULE).is_file() else None


def web_module_url(game: str) -> str | None:
    """Where the client imports ``game``'s browser module from (``None``: it has none)."""
    return None if game_web_dir(game) is None else f"/games/{game}/{WEB_MODULE}"


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
    """A room's link for its players: the client's page (the game's own, if it has one)."""
    room = h.room(code.upper())
    page = page_of(room.game_name) if room is not None else None
    if page is not None:
        return RedirectResponse(page[0] + code.upper())
    return _index(settings.web_dir)


@router.get("/watch/{code}", include_in_schema=False)
async def watch_link(h: HubDep, settings: SettingsDep, code: str) -> Any:
    """A room's link for spectators: the client's page (the game's own, if it has one)."""
    room = h.room(code.upper())
    page = page_of(room.game_name) if room is not None else None
    if page is not None:
        return RedirectResponse(page[1] + code.upper())
    return _index(settings.web_dir)


@router.get("/favicon.ico", include_in_schema=False)
async def favicon() -> RedirectResponse:
    """Where browsers look for a site's icon by default: the client's SVG icon."""
    return RedirectResponse("/favicon.svg", status_code=301)


async def root(settings: SettingsDep) -> Any:
    """``/`` when the client's folder is missing: the client's page if it appeared since, else
    a page pointing at the API documentation."""
    return _index(settings.web_dir)


def install(app: FastAPI, web: Path | None) -> None:
    """Add the client's routes to ``app``, each game's browser files at ``/games/{name}/``,
    then the client's files at ``/`` from ``web`` (after every other route: the mount takes
    every path)."""
    app.include_router(router)
    for name in game_names():
        folder = game_web_dir(name)
        if folder is not None:
            app.mount(f"/games/{name}", StaticFiles(directory=folder), name=f"game-{name}")
    if web is not None and web.is_dir():
        app.mount("/", StaticFiles(directory=web, html=True), name="web")
    else:
        app.add_api_route("/", root, methods=["GET"], include_in_schema=False)

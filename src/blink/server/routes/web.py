"""The browser client: its files at ``/``, each game's own browser module at
``/games/{name}/`` (:attr:`blink.model.registry.FrontEnd.web`), and the room links
``/play/{code}`` and ``/watch/{code}`` (a room of a game with its own page goes to that page,
:attr:`blink.model.registry.FrontEnd.pages`), and a player's page ``/@/{name}``
(``web/player.html``, which a profile's id leads to too; the not-found page in the visitor's
language, with status 404, when no profile has that name).

The pages are served with the top bar they share put in (:mod:`blink.server.routes.pages`).

Without the client's folder (``settings.web_dir``), ``/`` answers a short page that points at
the API documentation.

The installable app: ``/sw.js`` is the client's service worker (``web/sw.js``) with its app
shell (every file of the client but its other pages) and the shell's version key (the
package's version and a hash of the shell's contents) filled in, so a new release or any
changed file replaces the cached shell (:func:`service_worker`).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy import select

from blink import __version__
from blink.model.registry import UnknownGame, front_end, game_names
from blink.server.archive import profile_by_name
from blink.server.errors import ApiError, not_found_page, page_language
from blink.server.hub import Hub
from blink.server.profiles import profiles
from blink.server.routes.deps import HubDep, SettingsDep
from blink.server.routes.pages import ClientFiles, serve_page

__all__ = [
    "SHELL_SUFFIXES",
    "game_web_dir",
    "install",
    "page_of",
    "player_page",
    "router",
    "service_worker",
    "shell",
    "web_module_url",
]

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


def _index(web: Path | None, req: Request) -> Any:
    if web is not None and (web / "index.html").is_file():
        return serve_page(web, "index.html", req.headers)
    return HTMLResponse(
        "<!doctype html><title>Blink</title><h1>Blink server</h1>"
        "<p>The browser client is not installed. The API is documented at "
        '<a href="/docs">/docs</a>.</p>'
    )


@router.get("/play/{code}", include_in_schema=False)
async def play_link(h: HubDep, settings: SettingsDep, req: Request, code: str) -> Any:
    """A room's link for its players: the client's page (the game's own, if it has one)."""
    room = h.room(code.upper())
    page = page_of(room.game_name) if room is not None else None
    if page is not None:
        return RedirectResponse(page[0] + code.upper())
    return _index(settings.web_dir, req)


@router.get("/watch/{code}", include_in_schema=False)
async def watch_link(h: HubDep, settings: SettingsDep, req: Request, code: str) -> Any:
    """A room's link for spectators: the client's page (the game's own, if it has one)."""
    room = h.room(code.upper())
    page = page_of(room.game_name) if room is not None else None
    if page is not None:
        return RedirectResponse(page[1] + code.upper())
    return _index(settings.web_dir, req)


def _player(h: Hub, name: str) -> tuple[str, bool] | None:
    """The name of the player ``name`` leads to, and whether it was the profile's id (a
    tournament knows its players' profiles by id); ``None``: nobody."""
    with h.storage.engine.connect() as conn:
        row = profile_by_name(conn, name)
        if row is not None:
            return row.name, False
        if 0 < len(name) <= 16 and "\x00" not in name:
            found = conn.execute(select(profiles.c.name).where(profiles.c.id == name)).first()
            if found is not None:
                return str(found.name), True
    return None


@router.get("/@/{name}", include_in_schema=False)
async def player_page(h: HubDep, settings: SettingsDep, req: Request, name: str) -> Any:
    """A player's page: ``web/player.html``, which reads the player's figures, archive and
    head-to-head from the API; a profile's id is sent on to its name's page. An unknown or
    malformed name gets the not-found page, naming the player asked for in the visitor's
    language (Accept-Language), with status 404."""
    found = await asyncio.to_thread(_player, h, name)
    if found is None:
        page = not_found_page(page_language(req), player=name)
        return HTMLResponse(page, status_code=404)
    if found[1]:
        query = f"?{req.url.query}" if req.url.query else ""
        return RedirectResponse(f"/@/{quote(found[0], safe='')}{query}", status_code=302)
    web = settings.web_dir
    if web is None or not (web / "player.html").is_file():
        raise ApiError(404, "no_client", "the browser client is not installed on this server")
    return serve_page(web, "player.html", req.headers, {"Cache-Control": "no-cache"})


@router.get("/favicon.ico", include_in_schema=False)
async def favicon() -> RedirectResponse:
    """Where browsers look for a site's icon by default: the client's SVG icon."""
    return RedirectResponse("/favicon.svg", status_code=301)


SHELL_SUFFIXES: Final = (".js", ".css", ".svg", ".png", ".webmanifest")
"""The kinds of the client's files the service worker keeps (with the offline page)."""


@functools.cache
def shell(web: Path) -> tuple[list[str], str]:
    """The app shell of the client in ``web``: the paths the service worker caches, and
    their version key (the package's version and a hash of the files' contents)."""
    files = sorted(
        f
        for f in web.rglob("*")
        if f.is_file() and f.name != "sw.js" and f.suffix in SHELL_SUFFIXES
    )
    files.append(web / "offline.html")
    digest = hashlib.sha256()
    paths = []
    for f in files:
        path = "/" + f.relative_to(web).as_posix()
        paths.append(path)
        digest.update(path.encode() + b"\0" + f.read_bytes())
    return paths, f"{__version__}-{digest.hexdigest()[:12]}"


@router.get("/sw.js", include_in_schema=False)
async def service_worker(settings: SettingsDep) -> Response:
    """The client's service worker, with its shell and version key, for the whole site."""
    web = settings.web_dir
    if web is None or not (web / "sw.js").is_file():
        raise ApiError(404, "no_client", "the browser client is not installed on this server")
    paths, version = shell(web)
    body = (web / "sw.js").read_text("utf-8")
    body = body.replace('"__VERSION__"', json.dumps(version))
    body = body.replace("__SHELL__", json.dumps(paths))
    return Response(
        body,
        media_type="text/javascript; charset=utf-8",
        headers={"Service-Worker-Allowed": "/", "Cache-Control": "no-cache"},
    )


async def root(settings: SettingsDep, req: Request) -> Any:
    """``/`` when the client's folder is missing: the client's page if it appeared since, else
    a page pointing at the API documentation."""
    return _index(settings.web_dir, req)


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
        app.mount("/", ClientFiles(web), name="web")
    else:
        app.add_api_route("/", root, methods=["GET"], include_in_schema=False)

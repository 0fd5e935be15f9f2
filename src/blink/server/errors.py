"""REST errors and the handlers that answer them.

Every refused request is answered as ``{"error": {"code": ..., "message": ...}}`` with its HTTP
status (docs/protocol.md): :class:`ApiError` and :class:`ProfileError` raised by the endpoints,
a room served by another node of a cluster (``503 room_elsewhere``,
:class:`~blink.server.lease.RoomElsewhere`), request validation (``400 bad_options``) and
Starlette's own (``404 not_found``,
``405 method_not_allowed``). A browser asking for a page that does not exist (it accepts
``text/html``, outside ``/api/``) gets a page that says so instead, in its language (and a
player's page, ``/@/NAME``, of nobody, the same page naming the player asked for).
:func:`install` adds the handlers to an app.
"""

from __future__ import annotations

import html
from typing import Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from blink.server.lease import RoomElsewhere

__all__ = ["ApiError", "ProfileError", "install", "not_found_page", "page_language"]


class ApiError(Exception):
    """A REST error: HTTP status, stable code and a sentence."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


class ProfileError(Exception):
    """A refused profile request: HTTP status, stable code and a sentence."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


async def _api_error(_req: Request, exc: ApiError) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": exc.code, "message": exc.message}},
        status_code=exc.status,
        headers=exc.headers,
    )


async def _validation(_req: Request, exc: RequestValidationError) -> JSONResponse:
    errs = exc.errors()
    if errs:
        e = errs[0]
        where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
        msg = f"{where}: {e.get('msg')}" if where else str(e.get("msg"))
    else:
        msg = "invalid request"
    return JSONResponse({"error": {"code": "bad_options", "message": msg}}, status_code=400)


_PAGE_WORDS: Final = {
    "en": (
        "Page not found",
        "There is no page at this address. Check the link, or start from the lobby.",
        "Go to the lobby",
    ),
    "es": (
        "Página no encontrada",
        "No hay ninguna página en esta dirección. Revisa el enlace o empieza desde la sala.",
        "Ir a la sala",
    ),
}


_NO_PLAYER: Final = {
    "en": "There is no player called “{name}”. Check the name, or start from the lobby.",
    "es": "No hay ningún jugador llamado «{name}». Revisa el nombre o empieza desde la sala.",
}


def wants_html(req: Request) -> bool:
    """Whether ``req`` is a browser's, outside the API: it accepts HTML and is not for /api/."""
    return not req.url.path.startswith("/api/") and "text/html" in req.headers.get("accept", "")


def page_language(req: Request) -> str:
    """The first of the request's Accept-Language that the pages speak (English otherwise)."""
    for part in req.headers.get("accept-language", "").split(","):
        lang = part.split(";")[0].strip().lower()[:2]
        if lang in _PAGE_WORDS:
            return lang
    return "en"


def not_found_page(lang: str, player: str | None = None) -> str:
    """The page a browser gets for an address that leads nowhere, in ``lang`` (for the page
    of a ``player`` nobody is called, a sentence that names them)."""
    words = _PAGE_WORDS[lang]
    if player is not None:
        words = (words[0], _NO_PLAYER[lang].format(name=player), words[2])
    title, sentence, back = (html.escape(w) for w in words)
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="dark">'
        f"<title>{title} · Blink</title>"
        '<link rel="icon" href="/favicon.svg" type="image/svg+xml">'
        '<link rel="stylesheet" href="/style.css"></head><body>'
        '<header class="topbar"><a class="brand" href="/" aria-label="Blink">'
        '<span aria-hidden="true">BL<span class="brand-i">I</span>NK</span></a></header>'
        f'<main id="view"><section class="panel lost-page"><h1>{title}</h1><p>{sentence}</p>'
        f'<p><a class="btn primary" href="/">{back}</a></p></section></main></body></html>'
    )


async def _http(req: Request, exc: StarletteHTTPException) -> Response:
    if exc.status_code == 404 and wants_html(req):
        return HTMLResponse(not_found_page(page_language(req)), status_code=404)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return JSONResponse(
        {"error": {"code": code, "message": str(exc.detail)}}, status_code=exc.status_code
    )


async def _room_elsewhere(_req: Request, exc: RoomElsewhere) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": "room_elsewhere", "message": str(exc)}},
        status_code=503,
        headers={"Retry-After": "1"},
    )


async def _profile_error(_req: Request, exc: ProfileError) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": exc.code, "message": exc.message}}, status_code=exc.status
    )


def install(app: FastAPI) -> None:
    """Answer every error of ``app`` in the server's error format."""
    app.exception_handler(ApiError)(_api_error)
    app.exception_handler(RequestValidationError)(_validation)
    app.exception_handler(StarletteHTTPException)(_http)
    app.exception_handler(ProfileError)(_profile_error)
    app.exception_handler(RoomElsewhere)(_room_elsewhere)

"""The client's pages as served: the parts every page shares are written once, in
``web/partials/``, and put into each page when the server starts.

The top bar is ``web/partials/topbar.html``. A page says where it goes with one line,
``<!-- topbar status=ID -->`` (``ID``: the id of the page's status line, which its script
writes to), and the client's router page (``index.html``) adds ``router``: its brand link
gets ``id="home-link"`` and its "How to play" menu link ``data-link``, which ``app.js``'s
router follows without leaving the page. In the partial, ``$status``, ``$home`` and
``$rules_link`` stand for them (:class:`string.Template`).

:func:`pages` renders every page of a folder once (and keeps them); :class:`ClientFiles`, the
client's static files at ``/``, and :func:`serve_page`, for the routes that answer a page
themselves (``/play/CODE``, ``/@/NAME``), serve the rendered page with an ETag of its
contents and the ``Last-Modified`` of its newest source, answering ``304 Not Modified`` to a
browser that has it. The partials themselves are not served.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from dataclasses import dataclass
from datetime import datetime
from email.utils import formatdate, parsedate_to_datetime
from pathlib import Path, PurePosixPath
from string import Template
from typing import Final

from fastapi.responses import Response
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Scope

__all__ = [
    "PARTIALS",
    "TOPBAR",
    "ClientFiles",
    "Page",
    "PageError",
    "page_response",
    "pages",
    "render",
    "serve_page",
]

PARTIALS: Final = "partials"
"""The folder of ``web/`` that holds the parts the pages share (never served itself)."""

TOPBAR: Final = "topbar.html"
"""The top bar's partial, in :data:`PARTIALS`."""

_MARKER: Final = re.compile(r"<!-- topbar ([^>]*?) ?-->")
_ID: Final = re.compile(r"[A-Za-z][\w-]*")


class PageError(ValueError):
    """A page of the client that cannot be put together: its top bar's line is malformed,
    or the partial is missing. The server does not start with it."""


@dataclass(frozen=True, slots=True)
class Page:
    """A page as served: its bytes, their ETag and when its newest source changed."""

    body: bytes
    etag: str
    last_modified: str


def _topbar(line: str, partial: Template, page: str) -> str:
    """The top bar for the page's marker's parameters ``line`` (``status=ID [router]``)."""
    status, router = None, False
    for word in line.split():
        key, _, value = word.partition("=")
        if key == "status" and _ID.fullmatch(value):
            status = value
        elif word == "router":
            router = True
        else:
            raise PageError(f"{page}: the top bar's line has {word!r}, not status=ID or router")
    if status is None:
        raise PageError(f"{page}: the top bar's line names no status=ID")
    try:
        return partial.substitute(
            status=status,
            home=' id="home-link"' if router else "",
            rules_link=" data-link" if router else "",
        )
    except (KeyError, ValueError) as e:
        raise PageError(f"{PARTIALS}/{TOPBAR}: a $ that names no parameter ({e})") from e


def render(html: str, partial: str, page: str = "page") -> str:
    """``html`` with its top-bar line replaced by ``partial`` (the top bar's template) filled
    in with the line's parameters; a page without the line is returned as it is."""
    template = Template(partial.removesuffix("\n"))
    found = _MARKER.findall(html)
    if len(found) > 1:
        raise PageError(f"{page}: the top bar's line comes {len(found)} times")
    return _MARKER.sub(lambda m: _topbar(m.group(1), template, page), html)


def pages(web: Path) -> dict[str, Page]:
    """Every HTML page of the client in ``web`` (by its file name) that has a top-bar line,
    rendered: read once per folder, when the server starts."""
    return _pages(web.resolve())


@functools.cache
def _pages(web: Path) -> dict[str, Page]:
    rendered: dict[str, Page] = {}
    partial_path = web / PARTIALS / TOPBAR
    for path in sorted(web.glob("*.html")):
        html = path.read_text("utf-8")
        if not _MARKER.search(html):
            continue
        if not partial_path.is_file():
            raise PageError(f"{path.name}: the top bar's partial {PARTIALS}/{TOPBAR} is missing")
        body = render(html, partial_path.read_text("utf-8"), path.name).encode()
        mtime = max(path.stat().st_mtime, partial_path.stat().st_mtime)
        rendered[path.name] = Page(
            body,
            f'"{hashlib.sha256(body).hexdigest()[:32]}"',
            formatdate(mtime, usegmt=True),
        )
    return rendered


def _not_modified(page: Page, request: Headers) -> bool:
    """Whether the browser that sent ``request`` has ``page`` already (its ``If-None-Match``
    names the page's ETag, or else its ``If-Modified-Since`` is no older than the page)."""
    if if_none_match := request.get("if-none-match"):
        tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
        return "*" in tags or page.etag in tags
    since = _http_date(request.get("if-modified-since"))
    return since is not None and since >= parsedate_to_datetime(page.last_modified)


def _http_date(value: str | None) -> datetime | None:
    """The time an HTTP date names; ``None`` for none or a malformed one."""
    if not value:
        return None
    try:
        return parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None


def page_response(page: Page, request: Headers, headers: dict[str, str] | None = None) -> Response:
    """The rendered ``page``, or ``304 Not Modified`` when the browser has it."""
    served = {**(headers or {}), "ETag": page.etag, "Last-Modified": page.last_modified}
    if _not_modified(page, request):
        return NotModifiedResponse(Headers(served))
    return Response(page.body, media_type="text/html", headers=served)


def serve_page(
    web: Path, name: str, request: Headers, headers: dict[str, str] | None = None
) -> Response:
    """The page ``name`` of the client in ``web``: rendered (:func:`page_response`), or the
    file as it is when it has no top-bar line."""
    page = pages(web).get(name)
    if page is None:
        return FileResponse(web / name, headers=headers)
    return page_response(page, request, headers)


class ClientFiles(StaticFiles):
    """The client's files at ``/``: a page with a top-bar line is served rendered
    (:func:`pages`), every other file as it is; the partials are not served."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory=directory, html=True)
        self.web = directory.resolve()
        pages(directory)  # rendered now: a broken page stops the server from starting

    async def get_response(self, path: str, scope: Scope) -> Response:
        """A file of the client, as :class:`StaticFiles` finds it; not a partial."""
        if PurePosixPath(path).parts[:1] == (PARTIALS,):
            raise HTTPException(status_code=404)
        return await super().get_response(path, scope)

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        """The rendered page for a page of the client's folder, else the file itself."""
        found = Path(full_path)
        page = pages(self.web).get(found.name) if found.parent == self.web else None
        if page is None or status_code != 200:
            return super().file_response(full_path, stat_result, scope, status_code)
        return page_response(page, Headers(scope=scope))

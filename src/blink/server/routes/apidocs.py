"""The API documentation pages, ``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), served whole
from the server: their scripts and style come from the ``fastapi-offline`` package (pinned
Swagger UI 5 and ReDoc 2 bundles with their licences), at ``/docs-assets/``, not from a CDN,
so they work on a server without internet.

Each page is FastAPI's own (:func:`fastapi.openapi.docs.get_swagger_ui_html`,
:func:`~fastapi.openapi.docs.get_redoc_html`) pointed at those files, and is sent with its own
Content-Security-Policy: the server's (:data:`blink.server.headers.CSP`) with the hash of the
one inline script Swagger UI's page starts itself with, and ``worker-src blob:`` for ReDoc's
search worker (:class:`blink.server.headers.SecurityHeaders` keeps a page's own policy).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.resources
import re
from typing import Final

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from blink.server.headers import CSP

__all__ = ["ASSETS", "docs_policy", "install"]

ASSETS: Final = "/docs-assets"
"""Where the viewers' files are served."""
_INLINE = re.compile(r"<script>(.*?)</script>", re.S)


def docs_policy(html: str) -> str:
    """The Content-Security-Policy of a documentation page: the server's, with the hashes of
    the page's inline scripts and workers made from ``blob:`` URLs (ReDoc's search)."""
    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
        for s in _INLINE.findall(html)
    ]
    script = " ".join(["script-src 'self'", *hashes])
    return CSP.replace("script-src 'self'", script).replace(
        "worker-src 'self'", "worker-src 'self' blob:"
    )


def _page(html: HTMLResponse) -> tuple[str, dict[str, str]]:
    """The page's HTML and its headers (its own policy)."""
    body = bytes(html.body).decode()
    return body, {"content-security-policy": docs_policy(body)}


def install(app: FastAPI) -> None:
    """Serve the viewers' files and the two pages (the app is made with ``docs_url`` and
    ``redoc_url`` None, so FastAPI's CDN pages are not there)."""
    folder = importlib.resources.files("fastapi_offline") / "static"
    app.mount(ASSETS, StaticFiles(directory=str(folder)), name="docs-assets")
    openapi = app.openapi_url or "/openapi.json"
    swagger = _page(
        get_swagger_ui_html(
            openapi_url=openapi,
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon.png",
            # no badge fetched from validator.swagger.io
            swagger_ui_parameters={"validatorUrl": None},
        )
    )
    redoc = _page(
        get_redoc_html(
            openapi_url=openapi,
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{ASSETS}/favicon.png",
            with_google_fonts=False,
        )
    )

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return HTMLResponse(swagger[0], headers=swagger[1])

    @app.get("/redoc", include_in_schema=False)
    async def redoc_page() -> HTMLResponse:
        return HTMLResponse(redoc[0], headers=redoc[1])

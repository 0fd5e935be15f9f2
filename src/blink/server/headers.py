"""Security headers on every HTTP response: a Content-Security-Policy that lets the pages run
only the server's own scripts and talk only to the server, no framing, no content sniffing,
no referrer.

A response that brings its own policy keeps it: the API documentation pages (``/docs``,
``/redoc``, :mod:`blink.server.routes.apidocs`) allow their one inline script by its hash and
ReDoc's search worker. The game's WebSocket never comes here (the app
takes it first, see :class:`blink.server.app.BlinkApp`).
"""

from __future__ import annotations

from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CSP", "SecurityHeaders"]

CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; media-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; "
    "worker-src 'self'; manifest-src 'self'"
)
"""The pages' policy (inline style attributes are allowed: the client sets a few; the
service worker and the web manifest come from the server itself)."""

_COMMON: Final = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]
_CSP_NAME: Final = b"content-security-policy"


class SecurityHeaders:
    """Pure ASGI middleware adding the headers to each HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                extra = list(_COMMON)
                if not any(name.lower() == _CSP_NAME for name, _ in headers):
                    extra.append((_CSP_NAME, CSP.encode()))
                message["headers"] = [*headers, *extra]
            await send(message)

        await self.app(scope, receive, with_headers)

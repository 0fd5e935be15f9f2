"""What a server believes of a reverse proxy's headers, and from whom.

``blink serve --proxy-headers`` takes the client's address from ``X-Forwarded-For`` when the
connection's peer is one of ``--forwarded-allow-ips`` (uvicorn's ``ProxyHeadersMiddleware``,
which rewrites the scope's ``client``). A cluster's router (HAProxy, :mod:`blink.cluster.haproxy`)
also names, in ``X-Blink-Room``, the room it pinned a request to: the room of its path, by
which it chose the node. A node asks another for a room (:meth:`blink.server.hub.Hub.wanted`)
only for a request pinned so, since only then is it the node the router sends the room to.

An address alone names the router badly when other programs share its machine (``blink
cluster run``: everything on loopback): with ``--proxy-secret`` the router also proves itself
by a secret it sets on every request (``X-Blink-Proxy``, which overwrites any a client sent),
compared in constant time. A request without it, or with another, is served as a direct
client's: its ``X-Forwarded-For`` and ``X-Blink-Room`` are ignored, the socket's peer is its
address.

:class:`Forwarded` wraps the app, outside uvicorn's middleware, while the scope's ``client``
is still the socket's peer: for a request of the trusted proxy it puts the pinned room in the
scope (:data:`PINNED`) and hands the request to ``proxied`` (the app behind uvicorn's
middleware); any other goes to the app itself, so a client that reaches a node directly can
neither pin a room nor claim an address. The secret's header is removed from every request
before the app sees it (nothing downstream can log it).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["HEADER", "PINNED", "SECRET_HEADER", "Forwarded", "pinned_room"]

HEADER = b"x-blink-room"
"""The router's header naming the room a request was pinned to."""
SECRET_HEADER = b"x-blink-proxy"
"""The router's header carrying the secret it shares with the nodes (``--proxy-secret``)."""
PINNED = "blink.pinned_room"
"""The scope's key of the pinned room (set only for a trusted proxy's requests)."""


class Forwarded:
    """Pure ASGI middleware: decide whether a request comes from the trusted proxy, note the
    room it pinned the request to, and hand the request on: to ``proxied`` (uvicorn's
    ``ProxyHeadersMiddleware`` around the app) if so, to ``app`` otherwise.

    ``trusted(host)`` says whether a socket's peer may be the proxy (``None``: no one is);
    ``secret`` (``None``: none asked) is what the proxy's requests must carry in
    :data:`SECRET_HEADER` besides.
    """

    def __init__(
        self,
        app: ASGIApp,
        trusted: Callable[[str], bool] | None,
        proxied: ASGIApp | None = None,
        secret: str | None = None,
    ) -> None:
        self.app = app
        self.trusted = trusted
        self.proxied = proxied if proxied is not None else app
        self.secret = secret.encode("latin-1") if secret else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope.pop(PINNED, None)
            if self._from_proxy(scope):
                for name, value in scope.get("headers", ()):
                    if name == HEADER:
                        scope[PINNED] = value.decode("latin-1").strip().upper()
                        break
                await self.proxied(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _from_proxy(self, scope: Scope) -> bool:
        """Whether the request comes from the trusted proxy (its peer's address, and its
        secret when one is asked); the secret's header is taken out of the scope either way."""
        headers = scope.get("headers") or []
        shown = None
        if any(name == SECRET_HEADER for name, _ in headers):
            shown = next(value for name, value in headers if name == SECRET_HEADER)
            scope["headers"] = [(n, v) for n, v in headers if n != SECRET_HEADER]
        client = scope.get("client")
        if self.trusted is None or not client or not self.trusted(client[0]):
            return False
        if self.secret is None:
            return True
        return shown is not None and hmac.compare_digest(shown, self.secret)


def pinned_room(scope: Scope) -> str | None:
    """The room the router pinned this request to (``None``: none, or not said by a trusted
    proxy)."""
    room = scope.get(PINNED)
    return room if isinstance(room, str) and room else None

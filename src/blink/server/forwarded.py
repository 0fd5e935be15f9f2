"""What a server believes of a reverse proxy's headers, and from whom.

``blink serve --proxy-headers`` takes the client's address from ``X-Forwarded-For`` when the
connection's peer is one of ``--forwarded-allow-ips`` (uvicorn's ``ProxyHeadersMiddleware``,
which rewrites the scope's ``client``). A cluster's router (HAProxy, :mod:`blink.cluster.haproxy`)
also names, in ``X-Blink-Room``, the room it pinned a request to: the room of its path, by
which it chose the node. A node asks another for a room (:meth:`blink.server.hub.Hub.wanted`)
only for a request pinned so, since only then is it the node the router sends the room to.

:class:`Forwarded` wraps the app, outside uvicorn's middleware, while the scope's ``client``
is still the socket's peer: from a trusted proxy it puts the pinned room in the scope
(:data:`PINNED`); from anyone else the header is ignored, so a client that reaches a node
directly cannot pin anything.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["HEADER", "PINNED", "Forwarded", "pinned_room"]

HEADER = b"x-blink-room"
"""The router's header naming the room a request was pinned to."""
PINNED = "blink.pinned_room"
"""The scope's key of the pinned room (set only for a trusted proxy's requests)."""


class Forwarded:
    """Pure ASGI middleware: note the room a trusted proxy pinned the request to, then hand
    the request on (to uvicorn's ``ProxyHeadersMiddleware`` when given as ``app``).

    ``trusted(host)`` says whether a socket's peer is a trusted proxy; ``None`` trusts no one.
    """

    def __init__(self, app: ASGIApp, trusted: Callable[[str], bool] | None) -> None:
        self.app = app
        self.trusted = trusted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope.pop(PINNED, None)
            client = scope.get("client")
            if self.trusted is not None and client and self.trusted(client[0]):
                for name, value in scope.get("headers", ()):
                    if name == HEADER:
                        scope[PINNED] = value.decode("latin-1").strip().upper()
                        break
        await self.app(scope, receive, send)


def pinned_room(scope: Scope) -> str | None:
    """The room the router pinned this request to (``None``: none, or not said by a trusted
    proxy)."""
    room = scope.get(PINNED)
    return room if isinstance(room, str) and room else None

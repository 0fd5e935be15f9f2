"""The real-time Blink server: rooms, seats, the WebSocket protocol, durable game logs.

Start it with ``blink serve`` or build the ASGI app with :func:`create_app`.
"""

from __future__ import annotations

from blink.server.protocol import PROTOCOL
from blink.server.settings import Settings

__all__ = ["PROTOCOL", "Settings", "create_app"]


def create_app(settings: Settings | None = None) -> object:
    """The ASGI application (imported lazily: FastAPI is only loaded when serving)."""
    # Imported here, not at the top: importing blink.server (its settings, its protocol) must
    # not load FastAPI, uvicorn and SQLAlchemy.
    from blink.server.app import create_app as _create

    return _create(settings)

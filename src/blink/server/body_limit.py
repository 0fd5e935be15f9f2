"""A cap on request bodies, applied before anything reads them.

A body longer than the cap is refused with ``413 too_large`` as soon as that is known: from
its declared length, else while it streams in (nothing past the cap is read). Each path may
have its own cap (``POST /api/replays`` takes whole records).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodyLimit"]


class BodyLimit:
    """Pure ASGI middleware refusing HTTP bodies over ``limit`` bytes (``larger`` per path)."""

    def __init__(self, app: ASGIApp, limit: int, larger: Mapping[str, int] | None = None):
        self.app = app
        self.limit = limit
        self.larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(str(scope.get("path", "")), self.limit)
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > limit:
                await _refuse(send, limit)
                return
        received = 0
        refused = False

        async def capped() -> Message:
            # Past the cap: answer 413 now, and tell the app the client is gone (it stops
            # reading; whatever it answers is dropped).
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    await _refuse(send, limit)
                    return {"type": "http.disconnect"}
            return message

        async def watched(message: Message) -> None:
            if not refused:
                await send(message)

        await self.app(scope, capped, watched)


async def _refuse(send: Send, limit: int) -> None:
    body = json.dumps(
        {"error": {"code": "too_large", "message": f"a request body may be at most {limit} bytes"}}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(body)),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})

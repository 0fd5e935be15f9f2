"""Closing redis-py's objects without letting them hold a stopping server.

redis-py shields its closes from cancellation (a cancelled close finishes first), and a close
waits for the socket's other end, which may be gone (a Redis that hung, a network cut): such a
close can last for ever. A stopping node gives each close :data:`STOP_WAIT` seconds, then
goes on and leaves it running.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

__all__ = ["STOP_WAIT", "within"]

log = logging.getLogger(__name__)

STOP_WAIT = 2.0
"""Seconds a stopping node waits for one of redis-py's closes."""


async def within(call: Awaitable[object], what: str, wait: float = STOP_WAIT) -> None:
    """Await a closing ``call`` for at most ``wait`` seconds, then leave it running (a task
    that ignores its cancellation must not hold a stopping server); ``what`` names it in the
    warning."""
    task = asyncio.ensure_future(call)
    await asyncio.wait({task}, timeout=wait)
    if not task.done():
        log.warning("Redis did not let %s close within %g s: stopping anyway", what, wait)
        task.add_done_callback(_quietly)
    else:
        _quietly(task)


def _quietly(task: asyncio.Future[object]) -> None:
    """Retrieve ``task``'s outcome, so that asyncio reports nothing at exit."""
    if not task.cancelled():
        task.exception()

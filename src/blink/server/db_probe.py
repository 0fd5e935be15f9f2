"""Whether the database answers now: ``/api/health``'s look at PostgreSQL.

A node's writes tell it when the database refuses them
(:attr:`blink.server.storage.Storage.failure`), but a database that stops answering (a frozen
server, a network that drops everything) refuses nothing: a commit just waits. So the health
check asks the database itself: ``SELECT 1``, in a worker thread (the event loop never waits
on the database), answered within ``Settings.health_db_timeout`` seconds or the node is
unhealthy. At most one probe is under way at a time: a probe that has not answered yet is not
started again, and every health check meanwhile reads how long it has been waiting.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from blink.server.storage import Storage

__all__ = ["DbProbe"]


class DbProbe:
    """``SELECT 1`` on ``storage``'s engine, bounded by ``timeout`` seconds (PostgreSQL only: a
    SQLite file is this process's own, and its failures are the writes')."""

    def __init__(self, storage: Storage, timeout: float) -> None:
        self.storage = storage
        self.timeout = timeout
        self._probe: asyncio.Future[None] | None = None
        self._since = 0.0
        """When the probe under way was started (the loop's clock)."""

    def _select_one(self) -> None:
        with self.storage.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    async def failure(self) -> str | None:
        """Why the database does not answer (``None``: it answered ``SELECT 1`` in time)."""
        if self.storage.kind != "postgresql":
            return None
        loop = asyncio.get_running_loop()
        if self._probe is None:
            self._probe = loop.run_in_executor(None, self._select_one)
            self._since = loop.time()
        probe = self._probe
        left = self._since + self.timeout - loop.time()
        if not probe.done() and left > 0:
            await asyncio.wait([probe], timeout=left)
        if not probe.done():
            return f"the database did not answer within {self.timeout:g} s"
        if self._probe is probe:
            self._probe = None  # the next check asks again
        exc = probe.exception()
        if exc is None:
            return None
        first = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        return f"the database cannot be reached: {first[0] if first else type(exc).__name__}"

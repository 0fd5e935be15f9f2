"""The SQLite write-ahead log kept short under constant writes: checkpoints from a background
thread (:class:`Checkpoints`), so that no commit on the event loop ever copies the log.

The log only starts over when a write begins after a checkpoint that copied all of it, and a
passive checkpoint never catches up with a writer that keeps committing (the log grew by 16 MB
a second, without end, at 1,000 games, and every commit got slower). So once the log is over
``restart_bytes``, at most every ``restart_every`` seconds, the last frames are copied with
the writer held back, and the next commit starts the log over. (No ``journal_size_limit``:
cutting the file back happens in that commit, on the loop, and took 170-270 ms for a few
hundred MB.)

Measured with ``benchmarks/bench_storage.py``: on this project's test machine the event loop's
longest pauses under constant writes (7-350 ms) came from the disk itself, and none was over
5 ms with the database on a RAM disk. (A variant that ran more passive checkpoints before
holding the writer back showed the same spread, and was left out.)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["WAL_RESTART_BYTES", "Checkpoints"]

log = logging.getLogger("blink.server")

WAL_RESTART_BYTES = 64 * 1024 * 1024
"""A write-ahead log larger than this is made to start over."""


class Checkpoints:
    """Checkpoints of one SQLite database every ``every`` seconds, from a thread.

    ``connect`` opens a SQLAlchemy connection to the database; ``usable`` says whether a
    checkpoint may run now (not once the server refuses the file, nor while the path names
    another file: a new connection would open, or create, that one); ``writer_lock`` is held by
    the writer for each commit.
    """

    def __init__(
        self,
        connect: Callable[[], Any],
        usable: Callable[[], bool],
        writer_lock: threading.Lock,
    ) -> None:
        self.connect = connect
        self.usable = usable
        self.writer_lock = writer_lock
        self.every = 1.0
        """Seconds between checkpoints."""
        self.restart_bytes = WAL_RESTART_BYTES
        """A log larger than this is made to start over."""
        self.restart_every = 5.0
        """Seconds at least between two restarts."""
        self.stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread."""
        self.stopping.clear()
        self._thread = threading.Thread(target=self._run, name="blink-db-checkpoint", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread, then copy the whole log and cut it back (``TRUNCATE``)."""
        if self._thread is None:
            return
        self.stopping.set()
        self._thread.join(timeout=30)
        self._thread = None
        self.checkpoint("TRUNCATE")

    def _run(self) -> None:
        last_restart = time.monotonic()
        while not self.stopping.wait(self.every):
            size, _left = self.checkpoint("PASSIVE")
            now = time.monotonic()
            if size > self.restart_bytes and now - last_restart >= self.restart_every:
                last_restart = now
                with self.writer_lock:
                    self.checkpoint("PASSIVE")

    def checkpoint(self, mode: str) -> tuple[int, int]:
        """Run one checkpoint; return the bytes of log it saw and the bytes of those it could
        not copy (0 and 0 if it failed, or may not run now)."""
        if not self.usable():
            return 0, 0
        try:
            with self.connect() as conn:
                row = conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})").first()
                page_size = conn.exec_driver_sql("PRAGMA page_size").scalar() or 4096
        except Exception:
            log.warning("SQLite checkpoint failed", exc_info=True)
            return 0, 0
        if row is None or row[1] is None or row[1] <= 0:
            return 0, 0
        frame = int(page_size) + 24  # a frame: a page and a 24-byte header
        copied = max(0, int(row[2] or 0))
        return int(row[1]) * frame, max(0, int(row[1]) - copied) * frame

"""Watching a SQLite database file under a running server, and putting it back if it goes.

SQLite keeps writing to a file that was deleted (or replaced) under it: the writes succeed, go
into the old inode, and are gone at the next start. So the writer checks, after each commit,
that the path still names the file it opened (:meth:`DatabaseFile.moved`). A deleted file is
put back from the open connection with SQLite's online backup (:meth:`DatabaseFile.restore`):
everything committed, acknowledged actions included, is in it. A file replaced by another one
is the operator's: it is never overwritten, and the database stays unwritable until a restart.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Any

from blink.files import replace_durably

__all__ = ["DatabaseFile"]


class DatabaseFile:
    """The identity (device, inode) of a SQLite database file, checked against its path."""

    def __init__(self, path: str) -> None:
        self.path = Path(path)
        self.ident = self._ident()

    def _ident(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return st.st_dev, st.st_ino

    def moved(self) -> str | None:
        """``None`` while the path names the opened file; else ``"deleted"`` or ``"replaced"``."""
        now = self._ident()
        if now == self.ident:
            return None
        return "deleted" if now is None else "replaced"

    def restore(self, source: Any) -> None:
        """Write the database open on ``source`` (a sqlite3 connection to the deleted file) to
        a new file beside the path, to be moved there by :meth:`install` once every connection
        to the old file is closed. Raises ``OSError`` or ``sqlite3.Error``."""
        tmp = self._tmp()
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        dest = sqlite3.connect(tmp)
        try:
            source.backup(dest)
        finally:
            dest.close()

    def install(self) -> None:
        """Move the restored copy to the path (the old file's log files are gone by now: the
        last connection to it removed them) and watch the new file."""
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{self.path}{suffix}").unlink()
        replace_durably(self._tmp(), self.path)
        self.ident = self._ident()

    def _tmp(self) -> Path:
        return self.path.with_name(self.path.name + ".restoring")

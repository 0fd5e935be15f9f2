"""Files on disk, one way each: the user's folders and the atomic write.

* :func:`user_data_folder` and :func:`user_config_folder` are the folders platformdirs gives
  (``~/.local/share/blink`` and ``~/.config/blink`` on Linux, or under ``$XDG_DATA_HOME`` and
  ``$XDG_CONFIG_HOME`` when these hold an absolute path: the XDG specification says a relative
  one is ignored, so it never makes a folder relative to wherever a command runs).
* :func:`write_atomic` writes a file so that it is always the old or the new content, also
  after a crash or a power cut: a temporary file in the same folder, flushed to disk, moved over
  the path with ``os.replace``, then the folder flushed so the move itself is on disk.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import platformdirs

__all__ = [
    "fsync_folder",
    "replace_durably",
    "user_config_folder",
    "user_data_folder",
    "write_atomic",
]

APP = "blink"
"""The name of the application's folders."""


def user_data_folder() -> Path:
    """The folder of the user's data (the server's default database), not made here."""
    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def user_config_folder() -> Path:
    """The folder of the user's settings (the terminal client's profiles), not made here."""
    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def fsync_folder(folder: str | os.PathLike[str]) -> None:
    """Flush a folder's entries to disk, so a file made, moved or removed in it stays so after a
    crash. A no-op where folders cannot be opened (Windows). Raises ``OSError``."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def replace_durably(source: str | os.PathLike[str], path: str | os.PathLike[str]) -> None:
    """Move the file ``source`` over ``path`` (same file system) with ``os.replace`` and flush
    the folder, so the move survives a crash. The caller has flushed ``source`` itself.
    Raises ``OSError``."""
    os.replace(source, path)
    fsync_folder(_folder_of(Path(path)))


def write_atomic(
    path: str | os.PathLike[str], data: str | bytes, *, mode: int | None = None
) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` so that the file is always the old
    or the new content: a temporary file in the same folder, flushed to disk, ``os.replace``,
    then the folder flushed.

    The file gets ``mode`` when given (set before any data is written, so a secret is never
    readable by others), else the mode of the file it replaces, else the usual mode of a new
    file under the umask. Raises ``OSError``, with no temporary file left behind."""
    p = Path(path)
    folder = _folder_of(p)
    final_mode = mode if mode is not None else _file_mode(p)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), final_mode)
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        replace_durably(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A new, empty temporary file beside ``path`` for another writer to fill (SQLite's
    online backup, ``pg_dump``): when the block ends, the file is flushed to disk and moved over
    ``path`` (:func:`replace_durably`); when it raises, the file is removed and ``path`` left as
    it was. Raises ``OSError``."""
    p = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=_folder_of(p))
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with tmp.open("rb") as f:
            os.fsync(f.fileno())
        replace_durably(tmp, p)
    finally:
        tmp.unlink(missing_ok=True)


def _folder_of(p: Path) -> Path:
    """The folder a path is in (``.`` for a bare file name)."""
    return p.parent if str(p.parent) else Path(".")


def _file_mode(p: Path) -> int:
    """The existing file's mode, or the usual mode for a new file under the current umask."""
    try:
        return p.stat().st_mode & 0o777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask

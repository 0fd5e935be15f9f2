"""Output paths given on the command line, checked before any work starts.

Every command that writes somewhere the user names (``blink simulate --plot/--records``,
``blink play --record``, ``blink train --out``, a tournament's ``--png``/``--html``/``--save``,
``blink serve --db`` ...) checks the path here first, so a path it cannot write to is one
sentence (in the terminal's language) and exit status 2 before the simulation or the game, not
a traceback after it. One rule for every command: the folder a path names must already exist
(a typo in a folder name is refused, not made into a new tree of folders); a ``--records`` DIR
itself may be missing, and is made in a folder that exists. Only the defaults (the user data
folder) are made with their parents.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from blink.tui.i18n import _

__all__ = ["OutputPathError", "check_output_file", "check_output_folder"]


class OutputPathError(ValueError):
    """An output path that cannot be written to; the message is one sentence for people."""


def _folder_of(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _check_folder_exists(path: Path, folder: Path, option: str) -> None:
    """Refuse a ``folder`` that is missing, or that a file stands in the way of."""
    if folder.is_dir():
        return
    blocker = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        raise OutputPathError(
            _("{option} {path}: {blocker} is a file, not a folder").format(
                option=option, path=path, blocker=blocker
            )
        )
    raise OutputPathError(
        _("{option} {path}: there is no folder {folder}; make it first").format(
            option=option, path=path, folder=folder
        )
    )


def _check_writable(path: Path, folder: Path, option: str) -> None:
    """Refuse a ``folder`` in which no file can be made (no permission, a read-only disk, a
    file system such as /proc or /sys that takes no new files)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".blink-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OutputPathError(
            _("{option} {path}: cannot write in {folder} ({reason})").format(
                option=option, path=path, folder=folder, reason=exc.strerror or exc
            )
        ) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def check_output_file(path: str | os.PathLike[str], option: str) -> Path:
    """Refuse, in one sentence, a file path given to ``option`` that cannot be written: a
    folder, a missing folder, a file where a folder should be, a folder that takes no files.
    The path (an existing file is replaced when the command writes)."""
    p = Path(path).expanduser()
    if p.is_dir():
        raise OutputPathError(
            _("{option} {path}: it is a folder; give a file name").format(option=option, path=p)
        )
    folder = _folder_of(p)
    _check_folder_exists(p, folder, option)
    _check_writable(p, folder, option)
    return p


def check_output_folder(path: str | os.PathLike[str], option: str) -> Path:
    """Refuse, in one sentence, a folder given to ``option`` that files cannot be written in:
    a file, a missing folder around it, a folder that takes no files. A missing folder is
    fine when the folder it would be made in exists and takes files (the command makes it
    when it writes). The path."""
    p = Path(path).expanduser()
    if p.exists() and not p.is_dir():
        raise OutputPathError(
            _("{option} {path}: it is a file, not a folder").format(option=option, path=p)
        )
    if p.is_dir():
        _check_writable(p, p, option)
        return p
    folder = _folder_of(p)
    _check_folder_exists(p, folder, option)
    _check_writable(p, folder, option)
    return p

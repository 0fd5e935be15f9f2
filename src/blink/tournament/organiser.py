"""Tournaments played with real cards: the organiser's tournament file.

A tournament is kept as one JSON file (the form of :meth:`blink.tournament.Tournament.to_dict`:
players, draw and results, plus the derived matches and standings for readers). Every change is
written atomically (:func:`blink.files.write_atomic`: a temporary file in the same folder,
flushed to disk, ``os.replace``, the folder flushed),
so a crash or a full disk never leaves a half-written file: the old state or the new one.
Changes hold an exclusive lock (a hidden ``.<name>.lock`` file next to it), so two people
entering results at once both count.

Storage-agnostic by design: :func:`apply` runs a change on a loaded tournament, and only
:func:`load` and :func:`save` touch the disk, so a server can keep the same JSON in a database.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from blink import files
from blink.model.registry import DEFAULT_GAME
from blink.tournament.errors import FieldError, TournamentError
from blink.tournament.state import Tournament
from blink.tournament.values import Entrant

__all__ = [
    "OrganiserError",
    "create",
    "load",
    "parse_player",
    "save",
    "update",
    "write_atomic",
]

T = TypeVar("T")


class OrganiserError(Exception):
    """A tournament file that cannot be read or written. ``code`` is machine-readable."""

    def __init__(self, message: str, code: str = "file") -> None:
        super().__init__(message)
        self.code = code


def parse_player(text: str) -> Entrant:
    """Read a player as given on the command line.

    ``"Ann"``: no experience known; ``"Ann:1"``: the organiser ranks Ann first (1 = most
    experienced); ``"Ann@31.5"``: Ann has a rating of 31.5. Ranks come before ratings for byes.
    """
    raw = text.strip()
    rank: int | None = None
    rating: float | None = None
    if "@" in raw:
        raw, _, value = raw.rpartition("@")
        try:
            rating = float(value)
        except ValueError:
            raise FieldError(
                f"player {text!r}: the rating after @ must be a number, like Ann@31.5",
                "bad-rating",
            ) from None
    elif ":" in raw:
        raw, _, value = raw.rpartition(":")
        if not value.strip().isdigit():
            raise FieldError(
                f"player {text!r}: the rank after : must be a whole number, like Ann:1",
                "bad-rank",
            )
        rank = int(value)
    entrant = Entrant(raw.strip(), rank, rating)
    Tournament([entrant])  # checks the name, rank and rating
    return entrant


def load(path: str | os.PathLike[str]) -> Tournament:
    """Read a tournament file; :class:`OrganiserError` (one line) if it cannot be used."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OrganiserError(
            f"{p}: no such tournament file (create one with: blink tournament new {p} ...)",
            "not-found",
        ) from None
    except OSError as e:
        raise OrganiserError(f"{p}: cannot read the file ({e.strerror})", "unreadable") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise OrganiserError(f"{p}: not valid JSON (line {e.lineno})", "bad-json") from None
    try:
        t = Tournament.from_dict(data)
        t.plan  # noqa: B018 - a file of ``blink tournament new`` has a field (2 to 64 players)
    except TournamentError as e:
        raise OrganiserError(f"{p}: {e}", e.code) from None
    return t


def save(tournament: Tournament, path: str | os.PathLike[str]) -> None:
    """Write the tournament atomically (temporary file, fsync, ``os.replace``)."""
    write_atomic(path, json.dumps(tournament.to_dict(), indent=2, ensure_ascii=False) + "\n")


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that the file is always the old or the new content
    (:func:`blink.files.write_atomic`, keeping the mode of the file it replaces); raise
    :class:`OrganiserError` when the folder takes no file."""
    p = Path(path)
    try:
        files.write_atomic(p, text)
    except OSError as e:
        raise OrganiserError(f"{p}: cannot write here ({e.strerror})", "unwritable") from None


def create(
    path: str | os.PathLike[str],
    players: Sequence[Entrant],
    name: str = "Blink tournament",
    force: bool = False,
    game: str = DEFAULT_GAME,
) -> Tournament:
    """Make a new tournament file of ``game`` (a registered game's name); refuse to overwrite
    an existing one unless ``force``."""
    p = Path(path)
    t = Tournament.create(players, name, game)
    if p.exists() and not force:
        raise OrganiserError(f"{p} already exists (use --force to replace it)", "exists")
    save(t, p)
    return t


def update(path: str | os.PathLike[str], change: Callable[[Tournament], T]) -> tuple[Tournament, T]:
    """Load, apply ``change``, save, holding a lock so that two organisers entering results at
    the same time both count. A change that raises leaves the file as it was."""
    with _locked(Path(path)):
        t = load(path)
        result = change(t)
        save(t, path)
    return t, result


@contextlib.contextmanager
def _locked(p: Path) -> Iterator[None]:
    """An exclusive lock on a hidden file next to ``p`` (POSIX ``flock``; none elsewhere)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    folder = p.parent if str(p.parent) else Path(".")
    try:
        fd = os.open(folder / f".{p.name}.lock", os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as e:
        raise OrganiserError(f"{p}: cannot lock the file ({e.strerror})", "unwritable") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def to_json(tournament: Tournament) -> dict[str, Any]:
    """The export form (the same as the file)."""
    return tournament.to_dict()

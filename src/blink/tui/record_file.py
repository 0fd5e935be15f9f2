"""``blink play --record FILE``: the record of the game (or series) played, kept in a file.

The path is checked before the game starts (:func:`check_path`); the file is written
atomically (:func:`blink.files.write_atomic`: a temporary file in the same folder, flushed to
disk, ``os.replace``, the folder flushed) after
each game and once more on leaving, so a quit mid-game keeps the unfinished game too (the
record format allows a last game without a result; see docs/record-format.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from blink import files
from blink.match import Series
from blink.model.records import AnyRecord, SeriesRecord
from blink.tui.i18n import _
from blink.tui.outputs import OutputPathError, check_output_file

__all__ = [
    "RecordFileError",
    "RecordedTable",
    "check_path",
    "record_of",
    "write_atomic",
    "write_record",
]


class RecordedTable(Protocol):
    """A local table whose series is recorded (classic Blink's
    :class:`blink.games.classic.tui.table.LocalTable`)."""

    seed: int
    """The table's master seed."""
    series: Series
    """The series played (its ``best_of``)."""

    def game_records(self, meta: Mapping[str, Any]) -> list[AnyRecord]:
        """The record of each game of the current series so far, ``meta`` in each."""
        ...


class RecordFileError(OSError):
    """The record file cannot be written; the message is one sentence for people."""


def check_path(path: str | os.PathLike[str]) -> None:
    """Refuse, in one sentence, a ``--record`` path the record cannot be written to
    (:func:`blink.tui.outputs.check_output_file`)."""
    try:
        check_output_file(path, "--record")
    except OutputPathError as exc:
        raise RecordFileError(str(exc)) from None


def record_of(table: RecordedTable) -> AnyRecord | SeriesRecord | None:
    """The record of the table's current series as it stands: one game's record for a single
    game, a series record for a best-of-N; None before the first deal."""
    meta: dict[str, Any] = {"client": "terminal", "seed": table.seed}
    games = table.game_records(meta)
    if not games:
        return None
    if table.series.best_of == 1:
        return games[-1]
    return SeriesRecord(table.series.best_of, games, meta)


def write_record(table: RecordedTable, path: str | os.PathLike[str]) -> bool:
    """Write the table's record to ``path`` atomically; False when there is nothing to write
    yet. Raise :class:`RecordFileError` (one sentence) when the file cannot be written."""
    record = record_of(table)
    if record is None:
        return False
    write_atomic(path, record.to_json(indent=2) + "\n")
    return True


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that the file is always the old or the new content
    (:func:`blink.files.write_atomic`); raise :class:`RecordFileError` (one sentence) when it
    cannot be written."""
    p = Path(path)
    try:
        files.write_atomic(p, text)
    except OSError as e:
        raise RecordFileError(
            _("could not write the record to {path}: {reason}").format(
                path=p, reason=e.strerror or _("write failed")
            )
        ) from None

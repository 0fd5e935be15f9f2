"""What the ``blink tournament`` commands share: one-line failures and the tournament file."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from blink.tournament import Tournament, TournamentError

__all__ = [
    "FileArg",
    "MatchOpt",
    "check_outputs",
    "fail",
    "load_file",
    "plural",
    "update_file",
]

FileArg = Annotated[Path, typer.Argument(help="The tournament file.")]
MatchOpt = Annotated[str, typer.Option("--match", "-m", help="The match id, e.g. R1-3.")]


def fail(message: str) -> NoReturn:
    """One line on stderr and exit status 2."""
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(2)


def load_file(path: Path) -> Tournament:
    """The tournament kept in ``path`` (a bad or missing file fails)."""
    from blink.tournament.organiser import OrganiserError, load

    try:
        return load(path)
    except OrganiserError as e:
        fail(str(e))


def update_file(path: Path, change: Callable[[Tournament], Any]) -> tuple[Tournament, Any]:
    """Apply ``change`` to the tournament in ``path`` and save it; a refused change fails and
    leaves the file as it was. Returns the tournament and what ``change`` returned."""
    from blink.tournament.organiser import OrganiserError, update

    try:
        return update(path, change)
    except (OrganiserError, TournamentError) as e:
        fail(str(e))


def plural(count: int, noun: str) -> str:
    """``1 bye``, ``3 byes``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def check_outputs(
    files: Sequence[tuple[Path | None, str]] = (), folders: Sequence[tuple[Path | None, str]] = ()
) -> None:
    """Refuse, before any work, an output file or folder (with the option that named it) that
    cannot be written (:mod:`blink.tui.outputs`): one line and exit status 2."""
    from blink.tui.outputs import OutputPathError, check_output_file, check_output_folder

    try:
        for path, option in files:
            if path is not None:
                check_output_file(path, option)
        for path, option in folders:
            if path is not None:
                check_output_folder(path, option)
    except OutputPathError as e:
        fail(str(e))

"""``blink tournament withdraw, forfeit, correct, check-in, changes``: the organiser's
withdrawals, no-shows, corrections and check-in for a tournament kept in a file, each change
in the tournament's audit trail (who: ``--by``; when: this machine's clock)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Annotated

import typer

from blink.cli.tournament.common import FileArg, MatchOpt, fail, load_file, update_file
from blink.tournament import Change, Tournament

__all__ = [
    "change_text",
    "changes_cmd",
    "check_in_cmd",
    "correct_cmd",
    "forfeit_cmd",
    "withdraw_cmd",
]

ByOpt = Annotated[str, typer.Option("--by", help="Who makes the change (kept in the audit trail).")]
NoteOpt = Annotated[str | None, typer.Option("--note", help="Why (kept in the audit trail).")]


def change_text(c: Change) -> str:
    """One line of the audit trail: ``2026-12-02 20:15 UTC · Maria: ...``."""
    when = datetime.fromtimestamp(c.at, UTC).strftime("%Y-%m-%d %H:%M UTC") if c.at else "(no time)"
    who = ", ".join(c.players)

    def names(w: tuple[str, ...] | None) -> str:
        return "tie" if w is None or len(w) != 1 else w[0]

    what = {
        "withdrawal": f"{who} withdrew",
        "forfeit": f"{who} forfeited {c.match}",
        "correction": f"game {c.game} of {c.match} corrected: "
        f"{names(c.before)} -> {names(c.after)}",
        "take-back": f"game {c.game} of {c.match} taken back (won by {names(c.before)})",
        "check-in-missed": f"not checked in at the draw: {who}",
    }.get(c.kind, c.kind)
    note = f" ({c.note})" if c.note else ""
    return f"{when} · {c.by or '?'}: {what}{note}"


def _after(t: Tournament, c: Change) -> None:
    typer.echo(change_text(c))
    if t.finished:
        typer.echo(f"The tournament is over. Champion: {t.champion or 'none (double forfeit)'}")
    else:
        typer.echo(f"Ready to play: {', '.join(m.id for m in t.ready_matches())}")


def withdraw_cmd(
    file: FileArg,
    player: Annotated[str, typer.Option("--player", "-p", help="The player who withdraws.")],
    by: ByOpt = "organiser",
    note: NoteOpt = None,
) -> None:
    """A player withdraws after the draw: the rest of their matches are walkovers."""
    t, c = update_file(file, lambda t: t.withdraw(player, by, time.time(), note))
    _after(t, c)


def forfeit_cmd(
    file: FileArg,
    match: MatchOpt,
    player: Annotated[
        list[str], typer.Option("--player", "-p", help="A player who did not come (repeat).")
    ],
    by: ByOpt = "organiser",
    note: NoteOpt = None,
) -> None:
    """Players who did not come forfeit a match: a walkover, or a double forfeit."""
    t, c = update_file(file, lambda t: t.forfeit(match, player, by, time.time(), note))
    _after(t, c)


def correct_cmd(
    file: FileArg,
    match: MatchOpt,
    game: Annotated[int, typer.Option("--game", "-g", help="The game to correct (1 = first).")],
    game_winner: Annotated[
        str | None, typer.Option("--game-winner", "-w", help="Who really won it.")
    ] = None,
    tie: Annotated[bool, typer.Option("--tie", help="The game was really a tie.")] = False,
    by: ByOpt = "organiser",
    note: NoteOpt = None,
) -> None:
    """Correct a game's result; the audit trail keeps what it was."""
    if (game_winner is None) == (not tie):
        fail("give exactly one of --game-winner NAME or --tie")

    def change(t: Tournament) -> Change:
        m = t.match(match)
        winners = [p for p in m.players if p is not None] if tie else [game_winner or ""]
        return t.correct_game(match, game, winners, by, time.time(), note)

    t, c = update_file(file, change)
    _after(t, c)


def check_in_cmd(
    file: FileArg,
    player: Annotated[
        list[str] | None, typer.Option("--player", "-p", help="A player who checks in (repeat).")
    ] = None,
    open_: Annotated[
        bool, typer.Option("--open", help="Open check-in: the draw is over those checked in.")
    ] = False,
) -> None:
    """Open check-in before the draw, and check players in."""
    if not open_ and not player:
        fail("give --open, or --player NAME for each player who checks in")

    def change(t: Tournament) -> None:
        if open_:
            t.open_check_in()
        for p in player or []:
            t.check_in(p)

    t, _ = update_file(file, change)
    checked = t.checked_in or []
    typer.echo(f"{file}: {len(checked)} of {len(t.entrants)} checked in: {', '.join(checked)}")


def changes_cmd(file: FileArg) -> None:
    """Show the audit trail: withdrawals, forfeits, corrections, check-ins missed."""
    t = load_file(file)
    if not t.changes:
        typer.echo("No changes.")
    for c in t.changes:
        typer.echo(change_text(c))

"""``blink tournament new, add, remove, draw, show, result, bracket, handicap, rate, export``:
organise a tournament played with real cards, kept in one JSON file."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from blink.cli.tournament.common import (
    FileArg,
    MatchOpt,
    check_outputs,
    fail,
    load_file,
    plural,
    update_file,
)
from blink.cli.tournament.views import bracket_view, plain, score_text
from blink.tournament import Match, Tournament, TournamentError

if TYPE_CHECKING:
    from blink.ratings import RatingTable

__all__ = [
    "add_cmd",
    "bracket_cmd",
    "draw_cmd",
    "export_cmd",
    "handicap_cmd",
    "handicap_hints",
    "new_cmd",
    "rate_cmd",
    "rate_tournament",
    "remove_cmd",
    "result_cmd",
    "show_cmd",
    "suggestions",
    "tournament_key",
]


def tournament_key(t: Tournament) -> str:
    """A short id of a drawn tournament: its name, players and draw seed."""
    import hashlib

    seed = t.draw_record.seed if t.draw_record is not None else None
    text = json.dumps([t.name, [e.name for e in t.entrants], seed])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def rate_tournament(t: Tournament, table: RatingTable) -> int:
    """Rate the tournament's games not yet in ``table`` (in playing order); return how many.

    Each game's key is ``<tournament key>/<match>/<game number>``, so rating the same file
    again after more games adds only the new ones. Tied games are rated as ties.
    """
    key = tournament_key(t)
    count = 0
    for m in t.matches():
        names = [p for p in m.players if p is not None]
        for i, g in enumerate(m.games):
            k = f"{key}/{m.id}/{i + 1}"
            if k in table.rated:
                continue
            table.record(names, list(g.winners))
            table.rated.add(k)
            count += 1
    return count


def suggestions(t: Tournament, matches: Sequence[Match]) -> dict[str, tuple[int, int]]:
    """Suggested handicaps for two-player matches whose players both have a rating (an
    organiser's rating is taken as well known: sigma a third of a newcomer's); none in a game
    without deal rules."""
    from blink.ratings import DEFAULT_SIGMA, Rating, suggest_handicap
    from blink.tournament.playing import deal_rules

    try:
        deck = deal_rules(t.game).deck_size
    except TournamentError:
        return {}
    rating = {e.name: e.rating for e in t.entrants}
    out: dict[str, tuple[int, int]] = {}
    for m in matches:
        if len(m.players) != 2 or None in m.players:
            continue
        a, b = (p or "" for p in m.players)
        ra, rb = rating.get(a), rating.get(b)
        if ra is None or rb is None:
            continue
        h = suggest_handicap(Rating(ra, DEFAULT_SIGMA / 3), Rating(rb, DEFAULT_SIGMA / 3), deck)
        if h.sizes is not None:
            out[m.id] = h.sizes
    return out


def handicap_hints(t: Tournament, ready: Sequence[Match]) -> list[str]:
    """Lines suggesting a handicap for ready matches dealt equally."""
    out = []
    for mid, (x, y) in suggestions(t, [m for m in ready if m.handicap is None]).items():
        a, b = (p or "" for p in t.match(mid).players)
        out.append(
            f"  balanced play for {mid}: deal {a} {x} cards and {b} {y} "
            f"(blink tournament handicap FILE --match {mid} --suggest)"
        )
    return out


def new_cmd(
    file: Annotated[Path, typer.Argument(help="The tournament file to create (JSON).")],
    player: Annotated[
        list[str] | None,
        typer.Option(
            "--player", "-p", help="NAME, NAME:RANK (1 = most experienced) or NAME@RATING."
        ),
    ] = None,
    name: Annotated[
        str, typer.Option("--name", help="The tournament's name.")
    ] = "Blink tournament",
    force: Annotated[bool, typer.Option("--force", help="Replace an existing file.")] = False,
    game: Annotated[
        str | None,
        typer.Option("--game", help="The game its matches are played in (default: classic)."),
    ] = None,
) -> None:
    """Create a tournament file for a tournament played with real cards."""
    from blink.model.registry import DEFAULT_GAME
    from blink.tournament.organiser import OrganiserError, create, parse_player

    if not player:
        fail("give the players: --player NAME[:RANK] (2 to 64 of them)")
    try:
        entrants = [parse_player(p) for p in player]
        t = create(file, entrants, name, force=force, game=game or DEFAULT_GAME)
    except (OrganiserError, TournamentError) as e:
        fail(str(e))
    p = t.plan
    typer.echo(
        f"Created {file}: {p.players} players, {plural(p.byes, 'bye')}, "
        f"{plural(p.pairings, 'first-round pairing')}, {p.finalists} in the final round. "
        f"Next: blink tournament draw {file}"
    )


def add_cmd(
    file: FileArg,
    player: Annotated[
        list[str], typer.Option("--player", "-p", help="NAME, NAME:RANK or NAME@RATING.")
    ],
) -> None:
    """Add players before the draw."""
    from blink.tournament.organiser import parse_player

    def change(t: Tournament) -> None:
        for p in player:
            t.add_player(parse_player(p))

    t, _ = update_file(file, change)
    typer.echo(f"{file}: {len(t.entrants)} players, {plural(t.plan.byes, 'bye')}.")


def remove_cmd(
    file: FileArg,
    player: Annotated[str, typer.Option("--player", "-p", help="The player's name.")],
) -> None:
    """Remove a player before the draw."""
    t, _ = update_file(file, lambda t: t.remove_player(player))
    typer.echo(f"{file}: {len(t.entrants)} players.")


def draw_cmd(
    file: FileArg,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed of the hat draw (default: random).")
    ] = None,
) -> None:
    """Draw the first round: byes to the most experienced, numbers from a hat."""
    s = seed if seed is not None else secrets.randbelow(1_000_000)
    t, d = update_file(file, lambda t: t.draw(s))
    typer.echo(f"Draw made with seed {d.seed}.")
    for b in d.byes:
        typer.echo(f"  bye: {b}")
    for k in range(1, t.plan.pairings + 1):
        pair = [n for n, num in d.hat if num == k]
        typer.echo(f"  R1-{k}: {pair[0]} v {pair[1]} (both drew {k})")
    if not t.plan.rounds:
        typer.echo("  no elimination rounds: the final round starts now")


def show_cmd(file: FileArg) -> None:
    """Show the bracket, the matches ready to play and the standings."""
    from rich.console import Console

    t = load_file(file)
    console = Console()
    console.print(bracket_view(t))
    if t.drawn and not t.finished:
        ready = t.ready_matches()
        console.print(
            "[b]Ready to play:[/b] "
            + ", ".join(f"{m.id} ({' v '.join(p or '?' for p in m.players)})" for m in ready)
        )
        for line in handicap_hints(t, ready):
            console.print(line)
    if t.finished:
        console.print(f"Champion: [b]{t.champion}[/b]")


def result_cmd(
    file: FileArg,
    match: MatchOpt,
    game_winner: Annotated[
        str | None, typer.Option("--game-winner", "-w", help="The winner of one game.")
    ] = None,
    tie: Annotated[bool, typer.Option("--tie", help="The game was tied (replay it).")] = False,
    undo: Annotated[
        bool, typer.Option("--undo", help="Take back the match's last game instead.")
    ] = False,
) -> None:
    """Enter the result of one game (a tied game is replayed)."""
    if sum((game_winner is not None, tie, undo)) != 1:
        fail("give exactly one of --game-winner NAME, --tie or --undo")
    if undo:
        t, g = update_file(file, lambda t: t.undo_game(match, "organiser", time.time()))
        typer.echo(f"Took back a game of {match.upper()} (won by {', '.join(g.winners)}).")
        return
    if tie:
        t, m = update_file(file, lambda t: t.record_tie(match))
    else:
        t, m = update_file(file, lambda t: t.record_game(match, game_winner or ""))
    typer.echo(f"{m.id}: {plain(score_text(m))} · {m.status}")
    if m.decided and m.winner:
        typer.echo(f"{m.winner} wins {m.id}.")
    if t.finished:
        typer.echo(f"The tournament is over. Champion: {t.champion}")
    else:
        ready = ", ".join(x.id for x in t.ready_matches())
        typer.echo(f"Ready to play: {ready}")


def bracket_cmd(
    file: FileArg,
    png: Annotated[Path | None, typer.Option("--png", help="Write a PNG image here.")] = None,
    html_out: Annotated[
        Path | None, typer.Option("--html", help="Write a printable HTML page here.")
    ] = None,
    lang: Annotated[
        str, typer.Option("--lang", help="The bracket's language: en (English) or es (Spanish).")
    ] = "en",
) -> None:
    """Print the bracket: a printable HTML page and/or a PNG image, in English or Spanish."""
    from blink.tournament.bracket import LANGS, render_html, write_png

    if png is None and html_out is None:
        fail("give --png FILE and/or --html FILE")
    if lang not in LANGS:
        fail(f"--lang must be one of {', '.join(LANGS)}, not {lang!r}")
    check_outputs([(png, "--png"), (html_out, "--html")])
    t = load_file(file)
    try:
        if html_out is not None:
            html_out.write_text(render_html(t, lang), encoding="utf-8")
            typer.echo(f"Wrote {html_out}")
        if png is not None:
            write_png(t, png, lang=lang)
            typer.echo(f"Wrote {png}")
    except OSError as e:
        fail(f"cannot write: {e.strerror} ({e.filename})")


def handicap_cmd(
    file: FileArg,
    match: MatchOpt,
    sizes: Annotated[
        str | None,
        typer.Option("--sizes", help="Draw-pile sizes in the match's player order, e.g. 36:24."),
    ] = None,
    suggest: Annotated[
        bool, typer.Option("--suggest", help="Use the handicap suggested from the ratings.")
    ] = False,
    clear: Annotated[bool, typer.Option("--clear", help="Back to an equal deal.")] = False,
) -> None:
    """Deal a pairing's games with a handicap (balanced play: more cards for the faster)."""
    if sum((sizes is not None, suggest, clear)) != 1:
        fail("give exactly one of --sizes A:B, --suggest or --clear")
    _, m = update_file(file, lambda t: _set_handicap(t, match, sizes, suggest, clear))
    if m.handicap is None:
        typer.echo(f"{m.id}: an equal deal.")
    else:
        typer.echo(f"{m.id}: " + ", ".join(f"{n} {k} cards" for n, k in m.handicap))


def _set_handicap(
    t: Tournament, match: str, sizes: str | None, suggest: bool, clear: bool
) -> Match:
    """Set the handicap ``blink tournament handicap`` was asked for."""
    from blink.tournament.playing import deal_rules

    m = t.match(match)
    players = [p for p in m.players if p is not None]
    if clear:
        return t.set_handicap(m.id, None)
    if suggest:
        hints = suggestions(t, [m])
        if m.id not in hints:
            fail(f"no suggestion for {m.id}: both players need a rating, and a gap")
        return t.set_handicap(m.id, dict(zip(players, hints[m.id], strict=True)))
    try:
        parsed = deal_rules(t.game).parse_sizes(sizes or "", len(players))
    except ValueError as e:
        fail(str(e))
    if parsed is None:
        return t.set_handicap(m.id, None)
    return t.set_handicap(m.id, dict(zip(players, parsed, strict=True)))


def rate_cmd(
    file: FileArg,
    ratings: Annotated[
        Path, typer.Option("--ratings", help="The ratings file (JSON; created if missing).")
    ],
) -> None:
    """Rate every game of the tournament not rated yet (OpenSkill), into a ratings file."""
    from blink.ratings import RatingError, RatingTable
    from blink.tournament.organiser import OrganiserError, write_atomic

    t = load_file(file)
    try:
        table = (
            RatingTable.from_dict(json.loads(ratings.read_text(encoding="utf-8")))
            if ratings.exists()
            else RatingTable()
        )
    except (json.JSONDecodeError, RatingError) as e:
        fail(f"{ratings}: not a ratings file ({e})")
    new = rate_tournament(t, table)
    try:
        write_atomic(ratings, json.dumps(table.to_dict(), indent=2) + "\n")
    except OrganiserError as e:
        fail(str(e))
    typer.echo(f"Rated {plural(new, 'new game')} into {ratings}.")


def export_cmd(
    file: FileArg,
    as_json: Annotated[bool, typer.Option("--json", help="JSON (the only format).")] = True,
) -> None:
    """Print the whole tournament as JSON (players, draw, results, matches, standings)."""
    del as_json
    typer.echo(json.dumps(load_file(file).to_dict(), indent=2, ensure_ascii=False))

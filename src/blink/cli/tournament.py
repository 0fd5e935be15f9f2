"""``blink tournament``: run tournaments of bots, or organise one played with real cards.

Examples::

    blink tournament bots --field 12 --seed 7
    blink tournament bots --player "Ann=champion:blocker" --player "Bo=beginner:random" \\
        --player "Cy=expert" --player "Di=skilled:first" --player "Ed=casual" --json
    blink tournament new club.json --player Ann:1 --player Bo --player Cy@31.5 --player Di
    blink tournament draw club.json --seed 42
    blink tournament show club.json
    blink tournament result club.json --match R1-1 --game-winner Ann
    blink tournament result club.json --match R1-1 --tie
    blink tournament bracket club.json --png club.png --html club.html
    blink tournament export club.json --json
    blink leaderboard --ratings ratings.json
    blink leaderboard --server http://localhost:8000 --json
    blink profile --server http://localhost:8000

Every bad input ends with one line on stderr and exit status 2. Heavy modules (the simulator,
Rich, matplotlib) are imported inside the commands.
"""

from __future__ import annotations

import json
import random
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from blink.tournament import Entrant, Match, MatchKind, Tournament, TournamentError

if TYPE_CHECKING:
    from rich.console import RenderableType

    from blink.games.classic.bots import BotSpec
    from blink.ratings import RatingTable

__all__ = ["BotPlayer", "BotRun", "parse_bot_player", "register", "run_bots"]


def _fail(message: str) -> NoReturn:
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(2)


# --------------------------------------------------------------------------- bot tournaments


@dataclass(frozen=True)
class BotPlayer:
    """A bot entrant: a name and a bot spec (``level:strategy``)."""

    name: str
    spec: BotSpec


def parse_bot_player(text: str) -> BotPlayer:
    """Read ``"Ann=champion:blocker"`` (or just ``"champion:blocker"``, named after the spec)."""
    from blink.games.classic.bots import BotSpec

    name, sep, spec = text.partition("=")
    if not sep:
        spec, name = text, text.strip()
    return BotPlayer(name.strip(), BotSpec.parse(spec))


def random_field(size: int, seed: int) -> list[BotPlayer]:
    """``size`` bots with levels and strategies drawn from ``seed`` (no ``inhuman`` bots)."""
    from blink.games.classic.bots import LEVELS, STRATEGIES, BotSpec

    rng = random.Random(f"field:{seed}")
    levels = [lv for lv in LEVELS if lv != "inhuman"]
    names = rng.sample(BOT_NAMES, size)
    out = []
    for i in range(size):
        spec = BotSpec(rng.choice(levels), rng.choice(sorted(STRATEGIES)))
        out.append(BotPlayer(names[i], spec))
    return out


BOT_NAMES = [
    "Ada",
    "Al",
    "Ann",
    "Ari",
    "Bea",
    "Ben",
    "Bo",
    "Cal",
    "Cy",
    "Dan",
    "Dee",
    "Di",
    "Ed",
    "Eli",
    "Eva",
    "Fay",
    "Fin",
    "Flo",
    "Gil",
    "Gus",
    "Hal",
    "Hana",
    "Ian",
    "Ida",
    "Ike",
    "Ivy",
    "Jo",
    "Jon",
    "Kai",
    "Kim",
    "Lea",
    "Leo",
    "Liv",
    "Lou",
    "Max",
    "Mei",
    "Mo",
    "Ned",
    "Nia",
    "Noa",
    "Oli",
    "Ona",
    "Pam",
    "Pia",
    "Ray",
    "Rex",
    "Ria",
    "Rob",
    "Sal",
    "Sam",
    "Sue",
    "Tad",
    "Tia",
    "Tom",
    "Una",
    "Uri",
    "Val",
    "Vic",
    "Wes",
    "Wyn",
    "Xan",
    "Yui",
    "Zac",
    "Zoe",
]
"""Short names for a random field (64 of them)."""


@dataclass
class BotRun:
    """The result of :func:`run_bots`: the tournament and where each game's record went."""

    tournament: Tournament
    bots: dict[str, str]
    games: int = 0
    records: list[str] = field(default_factory=list)
    handicaps: dict[str, str] = field(default_factory=dict)


def _game_seed(seed: int, match_id: str, index: int) -> int:
    from blink.sim import derive_seed

    return derive_seed(seed, "tournament", match_id, index)


def run_bots(
    players: Sequence[BotPlayer],
    seed: int,
    *,
    name: str = "Bot tournament",
    records: Path | None = None,
    balanced: bool = False,
    on_game: Callable[[Tournament, Match], None] | None = None,
) -> BotRun:
    """Play a whole tournament of bots with the simulator; deterministic for a ``seed``.

    Experience for the byes is each bot's fixed rating by level. ``balanced`` deals each
    two-player game with the handicap suggested from the two bots' ratings. ``records`` is a
    folder for every game's record. ``on_game`` is called after every game (a live view).
    """
    from blink.ratings import bot_rating, suggest_handicap
    from blink.sim import simulate_game

    specs = {p.name: p.spec for p in players}
    entrants = [Entrant(p.name, rating=bot_rating(p.spec.level).mu) for p in players]
    t = Tournament.create(entrants, name)
    t.draw(seed)
    run = BotRun(t, {p.name: str(p.spec) for p in players})
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
    while not t.finished:
        m = t.ready_matches()[0]
        names = [p for p in m.players if p is not None]
        if balanced and len(names) == 2 and not m.games:
            h = suggest_handicap(
                bot_rating(specs[names[0]].level), bot_rating(specs[names[1]].level)
            )
            if h.sizes is not None:
                m = t.set_handicap(m.id, dict(zip(names, h.sizes, strict=True)))
                run.handicaps[m.id] = h.text
        sizes = None if m.handicap is None else [size for _, size in m.handicap]
        g = simulate_game(
            [specs[n] for n in names], _game_seed(seed, m.id, len(m.games)), sizes=sizes
        )
        winners = [names[i] for i in g.outcome.winners]
        ref = None
        if records is not None:
            path = records / f"{m.id}-game{len(m.games) + 1}.json"
            rec = g.record
            data = rec.to_dict()
            data.setdefault("meta", {})
            if isinstance(data["meta"], dict):
                data["meta"].update(tournament=name, match=m.id, players=names)
            path.write_text(json.dumps(data) + "\n", encoding="utf-8")
            ref = str(path)
            run.records.append(ref)
        m = t.record_game(m.id, winners, ref)
        run.games += 1
        if on_game is not None:
            on_game(t, m)
    return run


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


# --------------------------------------------------------------------------- views (Rich)


def _score_text(m: Match) -> str:
    names = [p or s.replace("winner:", "w. ") for p, s in zip(m.players, m.sources, strict=True)]
    if not m.games:
        return " v ".join(names) + _handicap_note(m)
    parts = []
    for p, n in zip(m.players, names, strict=True):
        won = m.score.get(p or "", 0)
        mark = "[b]" if m.winner == p and p is not None else ""
        end = "[/b]" if mark else ""
        parts.append(f"{mark}{n} {won}{end}")
    tie = f" ({m.ties} tied)" if m.ties else ""
    return " – ".join(parts) + tie + _handicap_note(m)


def bracket_view(t: Tournament, bots: dict[str, str] | None = None) -> RenderableType:
    """A Rich view of the tournament: rounds side by side, the final round, the standings."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    p = t.plan
    parts: list[RenderableType] = []
    title = f"{t.name} · {p.players} players · {_n(p.byes, 'bye')}"
    if t.draw_record is not None:
        title += f" · seed {t.draw_record.seed}"
    parts.append(Text(title, style="bold"))
    if t.draw_record is None:
        parts.append(Text("The draw has not been made yet."))
        return Group(*parts)
    ms = t.matches()
    if p.rounds:
        grid = Table(show_lines=False, expand=False, pad_edge=False)
        for r in range(1, p.rounds + 1):
            grid.add_column(f"Round {r}", overflow="fold")
        cols: list[list[str]] = []
        from blink.bracket import layout

        by_id = {m.id: m for m in ms}
        for r in range(1, p.rounds + 1):
            col = []
            if r == 1:  # in bracket order, byes in their places
                for box in (b for b in layout(t).boxes if b.x == 0):
                    if box.match_id is None:
                        col.append(f"{box.rows[0][0]} (bye)")
                    else:
                        m = by_id[box.match_id]
                        col.append(f"{m.id}: {_score_text(m)}")
                cols.append(col)
                continue
            for m in ms:
                if m.kind is MatchKind.ELIMINATION and m.round == r:
                    style = "dim" if m.status == "waiting" else ""
                    text = f"{m.id}: {_score_text(m)}"
                    col.append(f"[{style}]{text}[/{style}]" if style else text)
            cols.append(col)
        for i in range(max(len(c) for c in cols)):
            grid.add_row(*[c[i] if i < len(c) else "" for c in cols])
        parts.append(grid)
    fin = Table(title="Final round" if p.finalists > 2 else "Final", title_justify="left")
    fin.add_column("Match")
    fin.add_column("Players / score")
    fin.add_column("Status")
    for m in ms:
        if m.kind is not MatchKind.ELIMINATION:
            fin.add_row(m.id, _score_text(m), m.status)
    parts.append(fin)
    st = Table(title="Standings", title_justify="left")
    st.add_column("Place", justify="right")
    st.add_column("Player")
    if bots:
        st.add_column("Bot")
    st.add_column("Status")
    st.add_column("Final wins", justify="right")
    for s in t.standings():
        status = s.status + (f" (round {s.round_out})" if s.round_out else "")
        wins = "" if s.final_wins is None else str(s.final_wins)
        row = [s.place_text, s.name, *([bots.get(s.name, "")] if bots else []), status, wins]
        st.add_row(*row)
    parts.append(st)
    return Group(*parts)


# --------------------------------------------------------------------------- commands


def _load(path: Path) -> Tournament:
    from blink.organiser import OrganiserError, load

    try:
        return load(path)
    except OrganiserError as e:
        _fail(str(e))


def _update(path: Path, change: Callable[[Tournament], Any]) -> tuple[Tournament, Any]:
    from blink.organiser import OrganiserError, update

    try:
        return update(path, change)
    except (OrganiserError, TournamentError) as e:
        _fail(str(e))


def register(app: typer.Typer) -> None:
    """Add ``blink tournament ...``, ``blink leaderboard`` and ``blink profile`` to the main app."""
    tour = typer.Typer(
        name="tournament",
        help="Tournaments as the rulebook runs them: bots, or real cards with an organiser.",
        no_args_is_help=True,
    )

    @tour.command("bots")
    def bots_cmd(
        player: Annotated[
            list[str] | None,
            typer.Option("--player", "-p", help='A bot entrant, "Name=level:strategy".'),
        ] = None,
        field_size: Annotated[
            int | None, typer.Option("--field", help="A field of N bots with random levels.")
        ] = None,
        seed: Annotated[int | None, typer.Option("--seed", help="Seed (default: random).")] = None,
        name: Annotated[
            str, typer.Option("--name", help="The tournament's name.")
        ] = "Bot tournament",
        as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
        records: Annotated[
            Path | None, typer.Option("--records", help="Folder for every game's record.")
        ] = None,
        save: Annotated[
            Path | None, typer.Option("--save", help="Also write the tournament file here.")
        ] = None,
        balanced: Annotated[
            bool, typer.Option("--balanced", help="Deal each pairing its suggested handicap.")
        ] = False,
        delay: Annotated[
            float | None,
            typer.Option("--delay", help="Seconds to pause after each game (live view)."),
        ] = None,
    ) -> None:
        """Run a whole tournament of bot players with the simulator, live in the terminal."""
        from blink.games.classic.bots import BotConfigError

        if seed is None:
            seed = secrets.randbelow(1_000_000)
        try:
            if player and field_size is not None:
                _fail("give either --player ... or --field N, not both")
            if player:
                players = [parse_bot_player(p) for p in player]
            elif field_size is not None:
                if not 2 <= field_size <= 64:
                    _fail(f"--field must be 2 to 64, not {field_size}")
                players = random_field(field_size, seed)
            else:
                _fail('give the players (--player "Ann=expert:blocker" ...) or --field N')
        except BotConfigError as e:
            _fail(str(e))
        try:
            Tournament.create([Entrant(p.name) for p in players])
        except TournamentError as e:
            _fail(str(e))
        pause = delay if delay is not None else (0.03 if sys.stdout.isatty() and not as_json else 0)
        if as_json:
            run = run_bots(players, seed, name=name, records=records, balanced=balanced)
        else:
            from rich.console import Console
            from rich.live import Live

            console = Console()
            with Live(
                bracket_view(Tournament.create([p.name for p in players], name)),
                console=console,
                auto_refresh=False,
                vertical_overflow="visible",
            ) as live:
                labels = {p.name: str(p.spec) for p in players}

                def show(t: Tournament, m: Match) -> None:
                    live.update(bracket_view(t, labels), refresh=True)
                    if pause:
                        time.sleep(pause)

                run = run_bots(
                    players, seed, name=name, records=records, balanced=balanced, on_game=show
                )
                live.update(bracket_view(run.tournament, labels), refresh=True)
            console.print()
            champ = run.tournament.champion or ""
            console.print(
                f"Champion: [b]{champ}[/b] ({run.bots.get(champ, '')})"
                f" · {run.games} games · seed {seed}"
            )
        if save is not None:
            from blink.organiser import save as save_file

            save_file(run.tournament, save)
        if as_json:
            out = run.tournament.to_dict()
            out["bots"] = run.bots
            out["games_played"] = run.games
            if run.handicaps:
                out["handicaps"] = run.handicaps
            typer.echo(json.dumps(out, indent=2))

    tour.command("run", help="Same as `blink tournament bots`.")(bots_cmd)

    @tour.command("new")
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
    ) -> None:
        """Create a tournament file for a tournament played with real cards."""
        from blink.organiser import OrganiserError, create, parse_player

        if not player:
            _fail("give the players: --player NAME[:RANK] (2 to 64 of them)")
        try:
            entrants = [parse_player(p) for p in player]
            t = create(file, entrants, name, force=force)
        except (OrganiserError, TournamentError) as e:
            _fail(str(e))
        p = t.plan
        typer.echo(
            f"Created {file}: {p.players} players, {_n(p.byes, 'bye')}, "
            f"{_n(p.pairings, 'first-round pairing')}, {p.finalists} in the final round. "
            f"Next: blink tournament draw {file}"
        )

    @tour.command("add")
    def add_cmd(
        file: Annotated[Path, typer.Argument(help="The tournament file.")],
        player: Annotated[
            list[str], typer.Option("--player", "-p", help="NAME, NAME:RANK or NAME@RATING.")
        ],
    ) -> None:
        """Add players before the draw."""
        from blink.organiser import parse_player

        def change(t: Tournament) -> None:
            for p in player:
                t.add_player(parse_player(p))

        t, _ = _update(file, change)
        typer.echo(f"{file}: {len(t.entrants)} players, {_n(t.plan.byes, 'bye')}.")

    @tour.command("remove")
    def remove_cmd(
        file: Annotated[Path, typer.Argument(help="The tournament file.")],
        player: Annotated[str, typer.Option("--player", "-p", help="The player's name.")],
    ) -> None:
        """Remove a player before the draw."""
        t, _ = _update(file, lambda t: t.remove_player(player))
        typer.echo(f"{file}: {len(t.entrants)} players.")

    @tour.command("draw")
    def draw_cmd(
        file: Annotated[Path, typer.Argument(help="The tournament file.")],
        seed: Annotated[
            int | None, typer.Option("--seed", help="Seed of the hat draw (default: random).")
        ] = None,
    ) -> None:
        """Draw the first round: byes to the most experienced, numbers from a hat."""
        s = seed if seed is not None else secrets.randbelow(1_000_000)
        t, d = _update(file, lambda t: t.draw(s))
        typer.echo(f"Draw made with seed {d.seed}.")
        for b in d.byes:
            typer.echo(f"  bye: {b}")
        for k in range(1, t.plan.pairings + 1):
            pair = [n for n, num in d.hat if num == k]
            typer.echo(f"  R1-{k}: {pair[0]} v {pair[1]} (both drew {k})")
        if not t.plan.rounds:
            typer.echo("  no elimination rounds: the final round starts now")

    @tour.command("show")
    def show_cmd(file: Annotated[Path, typer.Argument(help="The tournament file.")]) -> None:
        """Show the bracket, the matches ready to play and the standings."""
        from rich.console import Console

        t = _load(file)
        console = Console()
        console.print(bracket_view(t))
        if t.drawn and not t.finished:
            ready = t.ready_matches()
            console.print(
                "[b]Ready to play:[/b] "
                + ", ".join(f"{m.id} ({' v '.join(p or '?' for p in m.players)})" for m in ready)
            )
            for line in _handicap_hints(t, ready):
                console.print(line)
        if t.finished:
            console.print(f"Champion: [b]{t.champion}[/b]")

    @tour.command("result")
    def result_cmd(
        file: Annotated[Path, typer.Argument(help="The tournament file.")],
        match: Annotated[str, typer.Option("--match", "-m", help="The match id, e.g. R1-3.")],
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
            _fail("give exactly one of --game-winner NAME, --tie or --undo")
        if undo:
            t, g = _update(file, lambda t: t.undo_game(match))
            typer.echo(f"Took back a game of {match.upper()} (won by {', '.join(g.winners)}).")
            return
        if tie:
            t, m = _update(file, lambda t: t.record_tie(match))
        else:
            t, m = _update(file, lambda t: t.record_game(match, game_winner or ""))
        typer.echo(f"{m.id}: {_plain(_score_text(m))} · {m.status}")
        if m.decided and m.winner:
            typer.echo(f"{m.winner} wins {m.id}.")
        if t.finished:
            typer.echo(f"The tournament is over. Champion: {t.champion}")
        else:
            ready = ", ".join(x.id for x in t.ready_matches())
            typer.echo(f"Ready to play: {ready}")

    @tour.command("bracket")
    def bracket_cmd(
        file: Annotated[Path, typer.Argument(help="The tournament file.")],
        png: Annotated[Path | None, typer.Option("--png", help="Write a PNG image here.")] = None,
        html_out: Annotated[
            Path | None, typer.Option("--html", help="Write a printable HTML page here.")
        ] = None,
    ) -> None:
        """Print the bracket: a printable HTML page and/or a PNG image."""
        from blink.bracket import render_html, write_png

        if png is None and html_out is None:
            _fail("give --png FILE and/or --html FILE")
        t = _load(file)
        try:
            if html_out is not None:
                html_out.write_text(render_html(t), encoding="utf-8")
                typer.echo(f"Wrote {html_out}")
            if png is not None:
                write_png(t, png)
                typer.echo(f"Wrote {png}")
        except OSError as e:
            _fail(f"cannot write: {e.strerror} ({e.filename})")

    @tour.command("handicap")
    def handicap_cmd(
        file: Annotated[Path, typer.Argument(help="The tournament file.")],
        match: Annotated[str, typer.Option("--match", "-m", help="The match id, e.g. R1-3.")],
        sizes: Annotated[
            str | None,
            typer.Option(
                "--sizes", help="Draw-pile sizes in the match's player order, e.g. 36:24."
            ),
        ] = None,
        suggest: Annotated[
            bool, typer.Option("--suggest", help="Use the handicap suggested from the ratings.")
        ] = False,
        clear: Annotated[bool, typer.Option("--clear", help="Back to an equal deal.")] = False,
    ) -> None:
        """Deal a pairing's games with a handicap (balanced play: more cards for the faster)."""
        from blink.games.classic.rules import DealError, parse_handicap

        if sum((sizes is not None, suggest, clear)) != 1:
            _fail("give exactly one of --sizes A:B, --suggest or --clear")

        def change(t: Tournament) -> Match:
            m = t.match(match)
            players = [p for p in m.players if p is not None]
            if clear:
                return t.set_handicap(m.id, None)
            if suggest:
                hints = _suggestions(t, [m])
                if m.id not in hints:
                    _fail(f"no suggestion for {m.id}: both players need a rating, and a gap")
                return t.set_handicap(m.id, dict(zip(players, hints[m.id], strict=True)))
            try:
                parsed = parse_handicap(sizes or "", len(players))
            except DealError as e:
                _fail(str(e))
            if parsed is None:
                return t.set_handicap(m.id, None)
            return t.set_handicap(m.id, dict(zip(players, parsed, strict=True)))

        _, m = _update(file, change)
        if m.handicap is None:
            typer.echo(f"{m.id}: an equal deal.")
        else:
            typer.echo(f"{m.id}: " + ", ".join(f"{n} {k} cards" for n, k in m.handicap))

    @tour.command("rate")
    def rate_cmd(
        file: Annotated[Path, typer.Argument(help="The tournament file.")],
        ratings: Annotated[
            Path, typer.Option("--ratings", help="The ratings file (JSON; created if missing).")
        ],
    ) -> None:
        """Rate every game of the tournament not rated yet (OpenSkill), into a ratings file."""
        from blink.organiser import OrganiserError, write_atomic
        from blink.ratings import RatingError, RatingTable

        t = _load(file)
        try:
            table = (
                RatingTable.from_dict(json.loads(ratings.read_text(encoding="utf-8")))
                if ratings.exists()
                else RatingTable()
            )
        except (json.JSONDecodeError, RatingError) as e:
            _fail(f"{ratings}: not a ratings file ({e})")
        new = rate_tournament(t, table)
        try:
            write_atomic(ratings, json.dumps(table.to_dict(), indent=2) + "\n")
        except OrganiserError as e:
            _fail(str(e))
        typer.echo(f"Rated {_n(new, 'new game')} into {ratings}.")

    @tour.command("export")
    def export_cmd(
        file: Annotated[Path, typer.Argument(help="The tournament file.")],
        as_json: Annotated[bool, typer.Option("--json", help="JSON (the only format).")] = True,
    ) -> None:
        """Print the whole tournament as JSON (players, draw, results, matches, standings)."""
        del as_json
        typer.echo(json.dumps(_load(file).to_dict(), indent=2, ensure_ascii=False))

    app.add_typer(tour, name="tournament")

    @app.command("leaderboard")
    def leaderboard_cmd(
        ratings: Annotated[
            Path | None, typer.Option("--ratings", help="A ratings file (JSON).")
        ] = None,
        server: Annotated[
            str | None,
            typer.Option("--server", help="A blink server's leaderboard (e.g. http://HOST:8000)."),
        ] = None,
        top: Annotated[int, typer.Option("--top", help="Show this many players.")] = 20,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Show the players with the best ratings: a server's profiles, or a ratings file."""
        if (ratings is None) == (server is None):
            _fail("give either --server URL or --ratings FILE")
        if top < 1:
            _fail(f"--top must be at least 1, not {top}")
        if server is not None:
            _server_leaderboard(server, top, as_json)
            return
        assert ratings is not None
        from blink.ratings import RatingError, RatingTable

        try:
            table = RatingTable.from_dict(json.loads(ratings.read_text(encoding="utf-8")))
        except FileNotFoundError:
            _fail(f"{ratings}: no such ratings file")
        except (json.JSONDecodeError, RatingError) as e:
            _fail(f"{ratings}: not a ratings file ({e})")
        board = table.leaderboard()[:top]
        if as_json:
            typer.echo(
                json.dumps(
                    [
                        {
                            "name": n,
                            "rating": round(r.ordinal, 2),
                            "mu": r.mu,
                            "sigma": r.sigma,
                            "games": g,
                        }
                        for n, r, g in board
                    ],
                    indent=2,
                )
            )
            return
        from rich.console import Console
        from rich.table import Table

        tbl = Table(title="Leaderboard")
        for col in ("#", "Player", "Rating", "mu", "sigma", "Games"):
            tbl.add_column(col, justify="left" if col == "Player" else "right")
        for i, (n, r, g) in enumerate(board, 1):
            tbl.add_row(str(i), n, f"{r.ordinal:.1f}", f"{r.mu:.1f}", f"{r.sigma:.2f}", str(g))
        Console().print(tbl)

    @app.command("profile")
    def profile_cmd(
        server: Annotated[str, typer.Option("--server", help="The server the profile belongs to.")],
        last: Annotated[int, typer.Option("--last", help="Show this many recent games.")] = 10,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Show your stored profile on a server: rating, games and the last rated games."""
        _show_profile(server, last, as_json)


def _server_get(server: str, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """GET a JSON object from a blink server; any failure is one line and exit status 2."""
    import httpx

    raw = server.strip()
    if "://" not in raw:
        raw = "http://" + raw
    base = raw.rstrip("/")
    try:
        r = httpx.get(base + path, params=params, timeout=10.0)
    except httpx.HTTPError as e:
        host = base.split("://", 1)[1]
        _fail(f"cannot reach the server at {host} ({type(e).__name__})")
    try:
        data = r.json()
    except ValueError:
        data = None
    if r.status_code >= 400:
        err = data.get("error") if isinstance(data, dict) else None
        if isinstance(err, dict):
            _fail(str(err.get("message")))
        _fail(f"the server answered {r.status_code} to {path}")
    if not isinstance(data, dict):
        _fail(f"the server sent something other than JSON for {path}")
    return data


def server_board(data: dict[str, Any]) -> list[dict[str, Any]]:
    """A server's ``/api/leaderboard`` answer as rows, players and bots together by rating
    (``ordinal``), best first; bot rows have ``bot: True`` and no rank."""
    from blink.ratings import Rating

    rows: list[dict[str, Any]] = []
    for p in data.get("players", []):
        r = p.get("rating") or {}
        rows.append(
            {
                "rank": int(p["rank"]),
                "id": str(p["id"]),
                "name": str(p["name"]),
                "rating": round(float(r["ordinal"]), 2),
                "mu": float(r["mu"]),
                "sigma": float(r["sigma"]),
                "games": int(p.get("games", 0)),
                "wins": int(p.get("wins", 0)),
                "bot": False,
            }
        )
    for level, b in (data.get("bots") or {}).items():
        r = Rating(float(b["mu"]), float(b["sigma"]))
        rows.append(
            {
                "rank": None,
                "name": f"bot {level}",
                "rating": round(r.ordinal, 2),
                "mu": r.mu,
                "sigma": r.sigma,
                "bot": True,
            }
        )
    rows.sort(key=lambda x: (-x["rating"], x["bot"]))
    return rows


def _server_leaderboard(server: str, top: int, as_json: bool) -> None:
    data = _server_get(server, "/api/leaderboard", {"limit": top})
    rows = server_board(data)
    if as_json:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    host = server.strip().split("://", 1)[-1].rstrip("/")
    tbl = Table(title=f"Leaderboard · {host}", caption="Rating = mu - 3 sigma; bots are fixed.")
    for col in ("#", "Player", "Rating", "mu", "sigma", "Games", "Wins"):
        tbl.add_column(col, justify="left" if col == "Player" else "right")
    for x in rows:
        if x["bot"]:
            tbl.add_row(
                "bot",
                x["name"],
                f"{x['rating']:.1f}",
                f"{x['mu']:.1f}",
                f"{x['sigma']:.2f}",
                "–",
                "–",
                style="dim",
            )
        else:
            tbl.add_row(
                str(x["rank"]),
                escape(x["name"]),
                f"{x['rating']:.1f}",
                f"{x['mu']:.1f}",
                f"{x['sigma']:.2f}",
                str(x["games"]),
                str(x["wins"]),
            )
    if not any(not x["bot"] for x in rows):
        tbl.caption = "No profiles yet. " + str(tbl.caption)
    Console().print(tbl)


def _show_profile(server: str, last: int, as_json: bool) -> None:
    """``blink profile``: the stored profile for ``server`` as the server knows it."""
    from blink import profile_store

    try:
        stored = profile_store.load(server)
    except profile_store.ProfileStoreError as e:
        _fail(e.message)
    if stored is None:
        _fail(
            f"no profile is stored for {profile_store.server_key(server)}: make one with "
            f"blink play --server {server} --profile NAME"
        )
    data = _server_get(server, f"/api/profiles/{stored.id}")
    history = list(data.get("history", []))[: max(0, last)]
    if as_json:
        out = {k: v for k, v in data.items() if k != "history"}
        out["history"] = history
        out["file"] = str(profile_store.profile_path(server))
        typer.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    r = data["rating"]
    console = Console()
    console.print(
        f"[b]{escape(str(data['name']))}[/b] (profile {data['id']} on "
        f"{profile_store.server_key(server)}): rating {r['ordinal']:.1f} "
        f"(mu {r['mu']:.1f}, sigma {r['sigma']:.2f}), "
        f"{_n(int(data['games']), 'rated game')}, {data['wins']} won"
    )
    if not history:
        console.print("No rated games yet.")
        return
    tbl = Table(title="Last rated games")
    for col in ("Game", "Room", "Place", "Opponents", "Rating after", "Change"):
        tbl.add_column(col, justify="left" if col == "Opponents" else "right")
    for h in history:
        before = h["before"]["mu"] - 3 * h["before"]["sigma"]
        after = h["after"]["mu"] - 3 * h["after"]["sigma"]
        tbl.add_row(
            str(h["game"]),
            str(h["room"]),
            f"{h['place']} of {h['players']}",
            escape(", ".join(str(o) for o in h["opponents"])),
            f"{after:.1f}",
            f"{after - before:+.1f}",
        )
    console.print(tbl)


def _handicap_note(m: Match) -> str:
    if m.handicap is None:
        return ""
    return " [" + ":".join(str(k) for _, k in m.handicap) + " cards]"


def _plain(text: str) -> str:
    return text.replace("[b]", "").replace("[/b]", "")


def _suggestions(t: Tournament, matches: Sequence[Match]) -> dict[str, tuple[int, int]]:
    """Suggested handicaps for two-player matches whose players both have a rating (an
    organiser's rating is taken as well known: sigma a third of a newcomer's)."""
    from blink.ratings import DEFAULT_SIGMA, Rating, suggest_handicap

    rating = {e.name: e.rating for e in t.entrants}
    out: dict[str, tuple[int, int]] = {}
    for m in matches:
        if len(m.players) != 2 or None in m.players:
            continue
        a, b = (p or "" for p in m.players)
        ra, rb = rating.get(a), rating.get(b)
        if ra is None or rb is None:
            continue
        h = suggest_handicap(Rating(ra, DEFAULT_SIGMA / 3), Rating(rb, DEFAULT_SIGMA / 3))
        if h.sizes is not None:
            out[m.id] = h.sizes
    return out


def _handicap_hints(t: Tournament, ready: Sequence[Match]) -> list[str]:
    """Lines suggesting a handicap for ready matches dealt equally."""
    out = []
    for mid, (x, y) in _suggestions(t, [m for m in ready if m.handicap is None]).items():
        a, b = (p or "" for p in t.match(mid).players)
        out.append(
            f"  balanced play for {mid}: deal {a} {x} cards and {b} {y} "
            f"(blink tournament handicap FILE --match {mid} --suggest)"
        )
    return out


def _n(count: int, noun: str) -> str:
    """``1 bye``, ``3 byes``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"

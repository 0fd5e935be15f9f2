"""``blink goblink``: Go Blink in the terminal (``play``) and bot-vs-bot runs (``simulate``).

The game's command group, found by the ``blink`` command through the registry
(:func:`blink.model.registry.front_end`), which also runs :func:`run_simulation` for ``blink
simulate --game goblink``. Textual and the simulator are imported inside the commands, so
``blink`` itself starts instantly; the help reads the player range and the bots from their
registries.
"""

from __future__ import annotations

import importlib
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Final, NoReturn

import typer

from blink.cli.listing import in_range, or_list
from blink.cli.play import LangOpt, use_language
from blink.cli.simrun import ClusterOpt, ClusterTimeoutOpt, SimulationOptions
from blink.dask_runner.client import DEFAULT_TIMEOUT
from blink.games.goblink.bots import DEFAULT_OPPONENT, GOBOTS, GoBotError, get_gobot_kind
from blink.games.goblink.definition import GOBLINK
from blink.model.base import GameInfo
from blink.tui.i18n import _

__all__ = ["GOBLINK_INFO", "GOBOT_NAMES", "register", "run_simulation"]

GOBLINK_INFO: Final[GameInfo] = GOBLINK.info
"""Go Blink's facts."""
GOBOT_NAMES: Final = or_list(GOBOTS)
"""Every Go Blink bot: ``"random, greedy, memory or master"``."""

_PLAYERS_HELP = f"{GOBLINK_INFO.player_range} players."

goblink_app = typer.Typer(
    name="goblink",
    help=f"{GOBLINK_INFO.title}, the rulebook's turn-based game for {_PLAYERS_HELP}",
    no_args_is_help=True,
)


def _fail(command: str, message: str) -> NoReturn:
    typer.echo(f"blink goblink {command}: {message}", err=True)
    raise typer.Exit(2)


def _check_play(
    players: int, humans: int, delay: float, dealer: int | None, bots: list[str]
) -> list[str]:
    """Refuse ``blink goblink play`` options that cannot be played (one sentence, exit 2);
    the bots' names, each ``--bot`` split at its commas (the default opponent when none)."""
    if not in_range(GOBLINK_INFO, players):
        _fail(
            "play",
            _("--players must be {range}, not {n}").format(
                range=GOBLINK_INFO.player_range, n=players
            ),
        )
    if not 0 <= humans <= players:
        _fail("play", _("--humans must be 0 to {max}, not {n}").format(max=players, n=humans))
    if humans == 0:
        _fail("play", _("--humans must be at least 1 (use 'blink goblink simulate' for bots only)"))
    if delay < 0:
        _fail("play", _("--delay must be 0 or more"))
    if dealer is not None and not 1 <= dealer <= players:
        _fail(
            "play", _("--dealer must be a seat 1 to {max}, not {n}").format(max=players, n=dealer)
        )
    names = [n.strip() for b in bots for n in b.split(",") if n.strip()] or [DEFAULT_OPPONENT]
    for n in names:
        try:
            get_gobot_kind(n)
        except GoBotError:
            _fail(
                "play",
                _("unknown bot {name}; choose one of: {bots}").format(
                    name=repr(n), bots=", ".join(GOBOTS)
                ),
            )
    return names


@goblink_app.command("play")
def play(
    players: Annotated[int, typer.Option("--players", "-p", help=_PLAYERS_HELP)] = 3,
    humans: Annotated[
        int,
        typer.Option(
            "--humans",
            help="People sharing this screen (the rest are bots); with 2 or more, a 'pass to "
            "the next player' screen hides each hand between turns.",
        ),
    ] = 1,
    bot: Annotated[
        list[str] | None,
        typer.Option("--bot", "-b", help=f"Bot seats: {GOBOT_NAMES} (repeat, cycled)."),
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed for the deal and bots.")] = None,
    dealer: Annotated[
        int | None,
        typer.Option("--dealer", help="Dealer seat, 1-based (the player after asks first)."),
    ] = None,
    delay: Annotated[float, typer.Option("--delay", help="Seconds between bot actions.")] = 0.7,
    ascii_symbols: Annotated[
        bool, typer.Option("--ascii", help="Draw shapes as letters instead of symbols.")
    ] = False,
    record: Annotated[
        Path | None,
        typer.Option(
            "--record", help="Write the game's record (JSON) here at exit (its folder must exist)."
        ),
    ] = None,
    lang: LangOpt = None,
) -> None:
    """Play Go Blink in the terminal against bots, or pass one screen between people."""
    use_language(lang, lambda message: _fail("play", message))
    names = _check_play(players, humans, delay, dealer, bot or [])
    from blink.games.goblink.tui.app import GoBlinkApp
    from blink.games.goblink.tui.driver import GoTable
    from blink.tui.record_file import RecordFileError, check_path, write_atomic
    from blink.tui.render import CardStyle

    if record is not None:
        try:
            check_path(record)  # refused before the game, not after it
        except RecordFileError as exc:
            _fail("play", str(exc))

    table = GoTable(
        players=players,
        humans=tuple(range(humans)),
        bots=names,
        seed=secrets.randbits(31) if seed is None else seed,
        dealer=None if dealer is None else dealer - 1,
    )
    try:
        GoBlinkApp(
            table, bot_delay=delay, style=CardStyle(letters=True, ascii_symbols=ascii_symbols)
        ).run()
    finally:  # also when the run is interrupted: the game so far is kept
        failure = None
        if record is not None:
            try:
                write_atomic(record, table.record().to_json(indent=1) + "\n")
            except RecordFileError as exc:
                failure = str(exc)
    if failure is not None:
        _fail("play", failure)
    if record is not None:
        typer.echo(_("record written to {path}").format(path=record))


@goblink_app.command("simulate")
def simulate(
    games: Annotated[int, typer.Option("--games", "-g", help="Number of games.")] = 1000,
    players: Annotated[
        int | None,
        typer.Option(
            "--players",
            "-p",
            help=f"{GOBLINK_INFO.player_range} players (default: one per bot named, or 2).",
        ),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option("--bot", "-b", help=f"{GOBOT_NAMES} per seat (repeat, cycled)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Master seed.")] = 0,
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", help="Processes (default: all cores).")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
    plot: Annotated[
        Path | None, typer.Option("--plot", help="Write a PNG figure (its folder must exist).")
    ] = None,
    records: Annotated[
        Path | None,
        typer.Option(
            "--records", help="Write every game's record to DIR (made in a folder that exists)."
        ),
    ] = None,
    engine: Annotated[
        str | None,
        typer.Option(
            "--engine",
            help="exact: game by game with the bots live play uses; fast: the same rules and "
            "bots compiled with numba, far faster (other deals, the same statistics). "
            "Default: fast when it plays every --bot.",
            show_default=False,
        ),
    ] = None,
    cluster: ClusterOpt = None,
    cluster_timeout: ClusterTimeoutOpt = DEFAULT_TIMEOUT,
) -> None:
    """Simulate bot-vs-bot Go Blink games (same as 'blink simulate --game goblink')."""
    run_simulation(
        SimulationOptions(
            games=games,
            players=players,
            bots=tuple(bot or ()),
            seed=seed,
            workers=workers,
            json_out=json_out,
            plot=plot,
            records=records,
            cluster=cluster,
            cluster_timeout=cluster_timeout,
            engine=engine,
        )
    )


def run_simulation(options: SimulationOptions) -> None:
    """Simulate Go Blink games: ``blink goblink simulate`` and ``blink simulate --game
    goblink`` (:func:`blink.cli.simulate.run_game_simulation`), the same run.

    Raises ``ImportError`` when the game's simulator cannot be imported, ``typer.Exit`` on bad
    input."""
    # The game's simulation first: unavailable even if simulate_cli was loaded before.
    importlib.import_module("blink.games.goblink.sim")
    gosim = importlib.import_module("blink.games.goblink.simulate_cli")
    simulate_cli: Callable[[SimulationOptions], object] = gosim.simulate_cli
    code = simulate_cli(options)
    if isinstance(code, int) and code:
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add ``blink goblink`` (play, simulate) to the main app."""
    app.add_typer(goblink_app, name="goblink")

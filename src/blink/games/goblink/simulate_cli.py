"""Go Blink simulation on the command line: ``blink simulate --game goblink`` and
``blink goblink simulate``.

The simulation itself is :mod:`blink.games.goblink.sim`; this module (the commands' part of
it, beside :mod:`blink.games.goblink.cli`) checks the options, runs the games on local
processes or a Dask cluster's workers with the progress bar every game's simulate command
shares (:mod:`blink.cli.simrun`), and prints the summary (tables, or JSON) and the figure. It
is imported only when a command needs it, so ``blink`` starts fast.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from blink.cli.simrun import SimulationOptions, check_outputs, pool, progress_bar
from blink.games.goblink.bots import GOBOTS, GoBotError
from blink.games.goblink.definition import GOBLINK
from blink.games.goblink.sim import (
    ENGINES,
    GoGameRow,
    GoJob,
    GoSummary,
    default_engine,
    parse_bots,
    plot_go,
    run_games,
    summarize_go,
)

if TYPE_CHECKING:
    from rich.table import Table

__all__ = ["simulate_cli"]


def _fail(message: str) -> NoReturn:
    typer.echo(f"blink simulate: {message}", err=True)
    raise typer.Exit(2)


def simulate_cli(options: SimulationOptions) -> None:
    """Run a Go Blink simulation for the command line (local processes, or a cluster's
    workers): progress bar, table or JSON, plot.

    Raises ``typer.Exit(2)`` with a message on bad input.
    """
    games, seed, plot, records = options.games, options.seed, options.plot, options.records
    seats = _check(games, options.players, list(options.bots), plot, records)
    engine = _engine(options.engine, seats)
    job = GoJob(
        tuple(seats),
        seed=seed,
        records=str(records) if records is not None else None,
        engine=engine,
    )
    rows, elapsed = _run(job, options)
    summary = summarize_go(rows, seats)
    summary.extra.update(
        seed=seed, turn_limit=job.turn_limit, elapsed_s=round(elapsed, 3), engine=engine
    )
    if plot is not None:
        plot_go(summary, plot)
    if options.json_out:
        typer.echo(json.dumps(summary.to_dict()))
        return
    _print_summary(summary, seats, seed, elapsed, plot, records)


def _check(
    games: int, players: int | None, bots: list[str], plot: Path | None, records: Path | None
) -> list[str]:
    """The bot of each seat; bad options fail with one line. Without ``players``, one seat
    per bot named ("--bot memory,greedy" or "--bot memory --bot greedy"), or two."""
    if not isinstance(games, int) or games < 1:
        _fail(f"--games must be at least 1, not {games}")
    named = [n for b in bots for n in b.split(",") if n.strip()]
    info = GOBLINK.info
    if players is None:
        players = len(named) if info.min_players <= len(named) <= info.max_players else 2
    try:
        seats = parse_bots(bots, players)
    except GoBotError as exc:
        _fail(f"{exc} (Go Blink bots: {', '.join(GOBOTS)})")
    except ValueError as exc:
        _fail(str(exc))
    check_outputs(plot, records, _fail)
    return seats


def _engine(asked: str | None, seats: list[str]) -> str:
    """The engine to run (``--engine``, or the default for the bots); exit 2 if it cannot:
    an unknown name, the fast engine without numba or for a bot it does not play."""
    name = default_engine(seats) if asked is None else asked.strip().lower()
    if name not in ENGINES:
        _fail(f"unknown engine {name!r}: the engines are {', '.join(ENGINES)}")
    if name == "fast":
        from blink.games.goblink.fast import NoKernelFormError, check_bots, unavailable

        why = unavailable()
        if why is not None:
            _fail(why)
        try:
            check_bots(seats)
        except NoKernelFormError as exc:
            _fail(str(exc))
    return name


def _run(job: GoJob, options: SimulationOptions) -> tuple[list[GoGameRow], float]:
    """Play the games with a progress bar on stderr, on local processes or the cluster; the
    rows and the seconds. Ctrl-C ends with exit status 130."""
    games = options.games
    try:
        with pool(options, _fail) as where:
            start = time.perf_counter()
            with progress_bar(games, "simulating Go Blink games") as advance:
                rows = run_games(job, games, where.workers, advance, executor=where.executor)
            return rows, time.perf_counter() - start
    except KeyboardInterrupt:
        typer.echo("blink simulate: interrupted", err=True)
        raise typer.Exit(130) from None


def _print_summary(
    summary: GoSummary,
    seats: list[str],
    seed: int,
    elapsed: float,
    plot: Path | None,
    records: Path | None,
) -> None:
    """The summary as tables: wins by seat (and by bot), game lengths, endings."""
    from rich.console import Console

    console = Console()
    console.print(_wins_table(summary, seats))
    if len(set(seats)) > 1:
        console.print(_bots_table(summary))
    console.print(_lengths_table(summary))
    console.print(
        "endings: "
        + ", ".join(f"{k} {v}" for k, v in summary.endings.items())
        + f"; first asker won {summary.first_wins}; seed {seed}; {elapsed:.1f} s "
        + f"({summary.extra.get('engine')} engine)"
    )
    if plot is not None:
        console.print(f"figure written to {plot}")
    if records is not None:
        console.print(f"records written to {records}/")


def _wins_table(summary: GoSummary, seats: list[str]) -> Table:
    """Wins, win rate and shared ties by seat, and the ties."""
    from rich.table import Table

    players = len(seats)
    table = Table(title=f"Go Blink: wins over {summary.games} games ({players} players)")
    table.add_column("seat", justify="right")
    table.add_column("bot")
    table.add_column("wins", justify="right")
    table.add_column("win rate", justify="right")
    table.add_column("95% CI (Wilson)", justify="right")
    table.add_column("shared ties", justify="right")
    for s in range(players):
        r, lo, hi = summary.win_rate(s)
        table.add_row(
            str(s),
            seats[s],
            str(summary.wins[s]),
            f"{r:.1%}",
            f"{lo:.1%} - {hi:.1%}",
            str(summary.tie_shares[s]),
        )
    table.add_row("", "ties", str(summary.ties), f"{summary.ties / summary.games:.1%}", "", "")
    return table


def _bots_table(summary: GoSummary) -> Table:
    """Wins and win rate by bot, against the fair share."""
    from rich.table import Table

    bt = Table(title="By bot (fair share " + f"{1 / summary.players:.1%})")
    bt.add_column("bot")
    bt.add_column("seat-games", justify="right")
    bt.add_column("wins", justify="right")
    bt.add_column("win rate", justify="right")
    bt.add_column("95% CI", justify="right")
    for name, d in summary.by_bot().items():
        bt.add_row(
            name,
            str(int(d["seat_games"])),
            str(int(d["wins"])),
            f"{d['rate']:.1%}",
            f"{d['ci95_low']:.1%} - {d['ci95_high']:.1%}",
        )
    return bt


def _lengths_table(summary: GoSummary) -> Table:
    """Turns, asks and actions per game: mean, median, 10th and 90th percentiles."""
    from rich.table import Table

    lengths = Table(title="Game length")
    lengths.add_column("per game")
    for col in ("mean", "median", "p10", "p90"):
        lengths.add_column(col, justify="right")
    for label, dist in (
        ("turns", summary.turns),
        ("asks", summary.asks),
        ("actions", summary.plays),
    ):
        lengths.add_row(
            label, f"{dist.mean:.1f}", f"{dist.median:.1f}", f"{dist.p10:.1f}", f"{dist.p90:.1f}"
        )
    return lengths

"""Classic Blink's simulation on the command line: ``blink simulate`` (classic Blink is the
default game) and ``blink simulate sweep``.

Examples::

    blink simulate --games 2000 --bot champion:blocker --bot beginner:random
    blink simulate --players 3 --bot expert --bot expert:blocker --bot expert:flexible --json
    blink simulate --bot champion --bot beginner --handicap 40:20 --best-of 3 --plot out.png
    blink simulate sweep --param speed --values 1,1.25,1.5,2 --bot expert --bot expert
    blink simulate sweep --param handicap --values 0,4,8,12,16 --bot champion --bot beginner
    blink simulate --games 1000000 --cluster tcp://scheduler:8786   # on Dask's workers

The simulation itself is :mod:`blink.games.classic.sim`; this module (the commands' part of it,
beside :mod:`blink.games.classic.cli`) checks classic Blink's options (bots, handicap, ruleset,
series, the referee's timings), runs the games with what every game's simulate command shares
(:mod:`blink.cli.simrun`: its options, the progress bar, local processes or a Dask cluster),
and prints the summary. The generic ``blink simulate`` (:mod:`blink.cli.simulate`) gives the
``--game`` option and runs another game's simulation. Heavy modules (the simulator, Rich,
matplotlib, Dask) are imported inside the commands; the help reads the levels, strategies and
player range from their registries.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, NoReturn

import typer

from blink.cli.listing import in_range
from blink.cli.simrun import (
    ClusterOpt,
    ClusterTimeoutOpt,
    SimulationOptions,
    check_outputs,
    pool,
    progress_bar,
)
from blink.cli.simulate import GameOpt, game_kind, run_game_simulation
from blink.dask_runner.client import DEFAULT_TIMEOUT
from blink.games.classic.bots import LEVELS, STRATEGIES, BotSpec
from blink.games.classic.definition import CLASSIC
from blink.games.classic.rules import CHOICE_DEADLINE

if TYPE_CHECKING:
    from blink.games.classic.rules import Ruleset
    from blink.games.classic.sim.runner import Job
    from blink.games.classic.sim.stats import Summary

__all__ = ["run_simulation", "simulate", "sweep"]

NAME: Final = CLASSIC.info.name
"""Classic Blink's name in the registry (``--game``)."""
CLASSIC_INFO: Final = CLASSIC.info
"""Classic Blink's facts (its player range)."""
LEVEL_NAMES: Final = ", ".join(LEVELS)
"""Every bot level, slowest first: ``"beginner, casual, ..."``."""
STRATEGY_NAMES: Final = ", ".join(STRATEGIES)
"""Every bot strategy, in the order registered."""
_GAME_KIND: Final = game_kind(NAME)
"""``--game``'s default: classic Blink."""
DEFAULT_BOT = str(BotSpec("expert"))
"""The bot of every seat when no --bot is given (an expert with the default strategy)."""


class SweepParam(StrEnum):
    """What a sweep varies."""

    speed = "speed"
    handicap = "handicap"


def _fail(message: str) -> NoReturn:
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(2)


GamesOpt = Annotated[int, typer.Option("--games", "-n", help="Number of games (or series).")]
PlayersOpt = Annotated[
    int | None,
    typer.Option(
        "--players", "-p", help=f"{CLASSIC_INFO.player_range} (default: the number of --bot)."
    ),
]
BotOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--bot",
        "-b",
        help="level:strategy for each seat in order, e.g. --bot champion:blocker --bot "
        f"beginner:random (levels: {LEVEL_NAMES}; strategies: {STRATEGY_NAMES}; @F makes a "
        "bot F times faster).",
    ),
]
HandicapOpt = Annotated[
    str, typer.Option("--handicap", help="Draw-pile sizes like 35:25, or +5 extra for seat 0.")
]
RulesetOpt = Annotated[str, typer.Option("--ruleset", help="official or dead-end.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Master seed: same seed, same results.")]
WorkersOpt = Annotated[
    int | None, typer.Option("--workers", "-w", help="Processes (default: all cores).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]


EngineOpt = Annotated[
    str | None,
    typer.Option(
        "--engine",
        help="exact: game by game with the bots live play uses; fast: the same rules and bots "
        "compiled with numba, about 50x faster (other deals). Default: fast when it plays "
        "every --bot (a strategy without a kernel form: exact), for Go Blink too.",
        show_default=False,
    ),
]


def _engine(engine: str | None, specs: Sequence[BotSpec]) -> str:
    """The engine to run (``--engine``, or the default for the bots); exit 2 if it cannot."""
    from blink.games.classic.sim.runner import UnknownEngineError, default_engine

    name = default_engine(specs) if engine is None else engine.strip().lower()
    if name not in ("exact", "fast"):
        _fail(str(UnknownEngineError(name)))
    if name == "fast":
        _check_fast(specs)
    return name


def _check_fast(specs: Sequence[BotSpec]) -> None:
    """--engine fast: numba importable, and a kernel form for every bot (else exit 2)."""
    from blink.games.classic.sim.fast import NoKernelFormError, check_specs, unavailable

    why = unavailable()
    if why is not None:
        _fail(why)
    try:
        check_specs(specs)
    except NoKernelFormError as exc:
        _fail(str(exc))


PlotOpt = Annotated[
    Path | None, typer.Option("--plot", help="Write a figure (PNG; its folder must exist).")
]


def _check_common(games: int, seed: int, workers: int | None) -> None:
    if games < 1:
        _fail(f"--games must be a positive whole number, not {games}")
    if seed < 0:
        _fail(f"--seed must be zero or positive, not {seed}")
    if workers is not None and workers < 1:
        _fail(f"--workers must be at least 1, not {workers}")


def _parse_bots(players: int | None, bots: list[str] | None) -> list[BotSpec]:
    from blink.games.classic.bots import BotConfigError

    raw = list(bots or [])
    if players is None:
        players = len(raw) if in_range(CLASSIC_INFO, len(raw)) else CLASSIC_INFO.default_players
    if not in_range(CLASSIC_INFO, players):
        _fail(f"--players must be {CLASSIC_INFO.player_range} for classic Blink, not {players}")
    if not raw:
        raw = [DEFAULT_BOT] * players
    elif len(raw) == 1:
        raw = raw * players
    elif len(raw) != players:
        _fail(
            f"{len(raw)} --bot options for {players} players: give one --bot per seat "
            "(or a single one for every seat)"
        )
    specs = []
    for text in raw:
        try:
            spec = BotSpec.parse(text)
            spec.check_players(players)
        except BotConfigError as exc:
            _fail(str(exc))
        specs.append(spec)
    return specs


def _parse_setting(
    players: int, handicap: str, ruleset: str, best_of: int
) -> tuple[Ruleset, tuple[int, ...] | None]:
    from blink.games.classic.rules import DealError, RulesetError, get_ruleset, parse_handicap

    try:
        rules = get_ruleset(ruleset)
    except RulesetError as exc:
        _fail(str(exc))
    try:
        sizes = parse_handicap(handicap, players)
    except DealError as exc:
        _fail(
            f"{exc} (handicap: draw-pile sizes like 35:25, one per seat, each at least 4 and "
            "60 cards in all at most; or extra cards for seat 0 like +5)"
        )
    if best_of < 1 or best_of % 2 == 0:
        _fail(f"--best-of must be a positive odd number (1, 3, 5, ...), not {best_of}")
    return rules, sizes


def _print_summary(summary: Summary, elapsed: float, fast_plays_it: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    unit = "series" if summary.best_of > 1 else "games"
    if summary.interrupted:
        console.print(
            f"[bold yellow]Interrupted:[/] {summary.matches} of {summary.requested} {unit} "
            "finished; summary of those:"
        )
    wins = Table(
        title=f"Wins over {summary.matches} {unit}"
        + (
            f" (best of {summary.best_of}, {summary.games_played} games)"
            if summary.best_of > 1
            else ""
        )
    )
    wins.add_column("seat", justify="right")
    wins.add_column("bot")
    wins.add_column("wins", justify="right")
    wins.add_column("win rate", justify="right")
    wins.add_column("95% CI (Wilson)", justify="right")
    for s in range(summary.players):
        r, lo, hi = summary.win_rate(s)
        bot = summary.bots[s] if s < len(summary.bots) else ""
        wins.add_row(str(s), bot, str(summary.wins[s]), f"{r:.1%}", f"{lo:.1%} - {hi:.1%}")
    wins.add_row("", "ties", str(summary.ties), f"{summary.ties / max(1, summary.matches):.1%}", "")
    console.print(wins)

    games = Table(title=f"Games ({summary.games_played})")
    games.add_column("measure")
    for col in ("mean", "median", "p10", "p90"):
        games.add_column(col, justify="right")
    p, d = summary.plays, summary.duration
    games.add_row("plays", f"{p.mean:.1f}", f"{p.median:.1f}", f"{p.p10:.1f}", f"{p.p90:.1f}")
    games.add_row(
        "virtual seconds", f"{d.mean:.1f}", f"{d.median:.1f}", f"{d.p10:.1f}", f"{d.p90:.1f}"
    )
    console.print(games)

    st = summary.stalls
    other = Table(title="Stalls and endings")
    other.add_column("what")
    other.add_column("count", justify="right")
    other.add_column("per game", justify="right")
    n = max(1, summary.games_played)
    other.add_row("stalls", str(st["total"]), f"{summary.stalls_per_game:.3f}")
    other.add_row("  broken by a flip", str(st["flip"]), f"{st['flip'] / n:.3f}")
    other.add_row("  broken by chosen cards", str(st["choose"]), f"{st['choose'] / n:.3f}")
    other.add_row("  ended the game (dead end)", str(st["dead_end"]), f"{st['dead_end'] / n:.3f}")
    other.add_row(
        "  default choices at the deadline",
        str(st["default_choices"]),
        f"{st['default_choices'] / n:.3f}",
    )
    for reason, count in summary.endings.items():
        other.add_row(f"ended: {reason}", str(count), f"{count / n:.3f}")
    other.add_row(
        "won from behind (trailed by 3+ cards)",
        str(summary.from_behind),
        f"{summary.from_behind / n:.3f}",
    )
    console.print(other)
    rate = summary.games_played / elapsed if elapsed > 0 else 0.0
    console.print(
        f"[dim]{summary.games_played} games in {elapsed:.1f} s ({rate:,.0f} games/s, "
        f"{summary.extra.get('engine')} engine)[/]"
    )
    if summary.extra.get("engine") == "exact" and elapsed > 10 and fast_plays_it:
        console.print("[dim]For large runs, --engine fast is about fifty times faster.[/]")


RecordsOpt = Annotated[
    Path | None,
    typer.Option(
        "--records", help="Write every game's record to DIR (made in a folder that exists)."
    ),
]
BestOfOpt = Annotated[int, typer.Option("--best-of", help="Play best-of-N series.")]
FlipPauseOpt = Annotated[
    float, typer.Option("--flip-pause", help="Virtual seconds from a stall to the flip.")
]
ChoiceTimeoutOpt = Annotated[
    float,
    typer.Option("--choice-timeout", help="Virtual seconds to choose a stall card."),
]
ParamOpt = Annotated[SweepParam, typer.Option("--param", help="speed or handicap.")]
ValuesOpt = Annotated[
    str,
    typer.Option(
        "--values",
        help="Comma-separated values: seat 0's speed factor (1 = as given), or the extra "
        "cards seat 0 is dealt (negative: fewer).",
    ),
]


def simulate(
    ctx: typer.Context,
    games: GamesOpt = 1000,
    players: PlayersOpt = None,
    bot: BotOpt = None,
    handicap: HandicapOpt = "",
    ruleset: RulesetOpt = "official",
    best_of: BestOfOpt = 1,
    seed: SeedOpt = 0,
    workers: WorkersOpt = None,
    json_out: JsonOpt = False,
    records: RecordsOpt = None,
    plot: PlotOpt = None,
    game: GameOpt = _GAME_KIND,
    flip_pause: FlipPauseOpt = 1.0,
    choice_timeout: ChoiceTimeoutOpt = CHOICE_DEADLINE,
    engine: EngineOpt = None,
    cluster: ClusterOpt = None,
    cluster_timeout: ClusterTimeoutOpt = DEFAULT_TIMEOUT,
) -> None:
    """Simulate bot-vs-bot games in virtual time and summarise them."""
    if ctx.invoked_subcommand is not None:
        return
    _check_common(games, seed, workers)
    check_outputs(plot, records, _fail)
    options = SimulationOptions(
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
    if game != NAME:
        run_game_simulation(str(game), options)
        return
    _simulate(options, _Setting(handicap, ruleset, best_of, flip_pause, choice_timeout))


@dataclass(frozen=True)
class _Setting:
    """Classic Blink's own simulation options (beside the shared ones)."""

    handicap: str = ""
    ruleset: str = "official"
    best_of: int = 1
    flip_pause: float = 1.0
    choice_timeout: float = CHOICE_DEADLINE


def run_simulation(options: SimulationOptions) -> None:
    """Simulate classic Blink games with its own options at their defaults: ``blink simulate
    --game classic`` when classic Blink is not the default game (then ``blink simulate``'s
    own options are that game's); ``typer.Exit`` on bad input."""
    _check_common(options.games, options.seed, options.workers)
    check_outputs(options.plot, options.records, _fail)
    _simulate(options, _Setting())


def _simulate(options: SimulationOptions, setting: _Setting) -> None:
    """Check the bots and the setting, run the games and print (or write) their summary."""
    players, bot, engine = options.players, list(options.bots), options.engine
    seed, records, plot = options.seed, options.records, options.plot
    best_of, flip_pause = setting.best_of, setting.flip_pause
    choice_timeout, json_out = setting.choice_timeout, options.json_out
    specs = _parse_bots(players, bot)
    rules, sizes = _parse_setting(len(specs), setting.handicap, setting.ruleset, best_of)
    engine_name = _engine(engine, specs)
    if flip_pause < 0 or choice_timeout <= 0:
        _fail("--flip-pause must be 0 or more and --choice-timeout more than 0")

    from blink.games.classic.sim.core import SimConfig
    from blink.games.classic.sim.runner import Job

    job = Job(
        tuple(specs),
        seed=seed,
        best_of=best_of,
        ruleset=rules,
        sizes=sizes,
        config=SimConfig(flip_pause, choice_timeout),
        records=str(records) if records is not None else None,
        engine=engine_name,
    )
    summary, elapsed = _run_classic(job, options)
    if plot is not None and summary.games_played:
        from blink.games.classic.sim.plots import plot_summary

        plot_summary(summary, plot, " vs ".join(str(s) for s in specs))
    if json_out:
        typer.echo(json.dumps(summary.to_dict()))
    else:
        from blink.games.classic.sim.runner import default_engine

        _print_summary(summary, elapsed, default_engine(specs) == "fast")
        if plot is not None:
            typer.echo(f"figure written to {plot}")
        if records is not None:
            typer.echo(f"records written to {records}/")
    if summary.interrupted:
        raise typer.Exit(130)


def _run_classic(job: Job, options: SimulationOptions) -> tuple[Summary, float]:
    """Run ``options.games`` matches of ``job`` with a progress bar, on local processes or the
    cluster; their summary and the seconds."""
    from blink.games.classic.sim.runner import run
    from blink.games.classic.sim.stats import summarize_run

    games = options.games
    unit = "series" if job.best_of > 1 else "games"
    try:
        with pool(options, _fail) as where:
            start = time.perf_counter()
            with progress_bar(games, f"simulating {unit}") as advance:
                result = run(job, games, where.workers, advance, executor=where.executor)
            elapsed = time.perf_counter() - start
    except KeyboardInterrupt:  # pragma: no cover - run() normally catches it itself
        _fail("interrupted before any game finished")
    summary = summarize_run(result, len(job.specs), [str(s) for s in job.specs], job.best_of)
    summary.extra.update(
        seed=job.seed,
        ruleset=job.ruleset.name,
        sizes=list(job.sizes) if job.sizes is not None else None,
        engine=job.engine,
        elapsed_s=round(elapsed, 3),
    )
    return summary, elapsed


Setting = tuple[float, list["BotSpec"], tuple[int, ...] | None]
"""A sweep's point: the value, the bots (seat 0's speed changed) and the draw-pile sizes."""


def sweep(
    param: ParamOpt = SweepParam.speed,
    values: ValuesOpt = "",
    games: GamesOpt = 1000,
    players: PlayersOpt = None,
    bot: BotOpt = None,
    ruleset: RulesetOpt = "official",
    seed: SeedOpt = 0,
    workers: WorkersOpt = None,
    json_out: JsonOpt = False,
    plot: PlotOpt = None,
    engine: EngineOpt = None,
    cluster: ClusterOpt = None,
    cluster_timeout: ClusterTimeoutOpt = DEFAULT_TIMEOUT,
) -> None:
    """Vary one parameter (seat 0's speed, or the handicap) and chart seat 0's win rate."""
    _check_common(games, seed, workers)
    options = SimulationOptions(
        games=games, seed=seed, workers=workers, cluster=cluster, cluster_timeout=cluster_timeout
    )
    specs = _parse_bots(players, bot)
    rules, _ = _parse_setting(len(specs), "", ruleset, 1)
    engine_name = _engine(engine, specs)
    check_outputs(plot, None, _fail)
    settings = _sweep_settings(param, _sweep_values(param, values), specs)

    from blink.games.classic.sim.plots import plot_sweep
    from blink.games.classic.sim.runner import Job, run

    out: list[dict[str, Any]] = []
    interrupted = False
    total = games * len(settings)
    with pool(options, _fail) as where, progress_bar(total, f"sweeping {param.value}") as advance:
        for v, sp, sizes in settings:
            job = Job(tuple(sp), seed=seed, ruleset=rules, sizes=sizes, engine=engine_name)
            res = run(job, games, where.workers, advance, executor=where.executor)
            out.append(_sweep_point(v, sp, sizes, res.rows))
            if res.interrupted:
                interrupted = True
                break
    label = "seat 0 speed factor" if param is SweepParam.speed else "extra cards dealt to seat 0"
    if plot is not None and out:
        plot_sweep(
            label,
            [p["value"] for p in out],
            [p["wins"][0] for p in out],
            [p["games"] for p in out],
            plot,
            " vs ".join(str(s) for s in specs),
            f"seat 0 ({specs[0]})",
        )
    if json_out:
        doc = {
            "parameter": param.value,
            "bots": [str(s) for s in specs],
            "seed": seed,
            "engine": engine_name,
            "interrupted": interrupted,
            "points": out,
        }
        typer.echo(json.dumps(doc))
    else:
        _print_sweep(out, label, specs[0], plot)
    if interrupted:
        raise typer.Exit(130)


def _sweep_values(param: SweepParam, values: str) -> list[float]:
    """The numbers of ``--values`` (a default range for the parameter when empty)."""
    if not values.strip():
        values = "0.5,0.75,1,1.25,1.5,2" if param is SweepParam.speed else "-8,-4,0,4,8,12,16"
    try:
        points = [float(v) for v in values.replace(" ", "").split(",") if v]
    except ValueError:
        _fail(f"--values must be numbers separated by commas, not {values!r}")
    if not points:
        _fail("--values needs at least one value")
    return points


def _sweep_settings(param: SweepParam, points: list[float], specs: list[BotSpec]) -> list[Setting]:
    """Each value as the bots and draw-pile sizes to play; a value that cannot be played fails."""
    from dataclasses import replace

    from blink.games.classic.rules import DealError, deal_sizes

    n = len(specs)
    settings: list[Setting] = []
    for v in points:
        if param is SweepParam.speed:
            if v <= 0:
                _fail(f"speed values must be positive, not {v:g}")
            settings.append((v, [replace(specs[0], speed=specs[0].speed * v), *specs[1:]], None))
        else:
            if v != int(v) or int(v) % (n - 1):
                _fail(f"handicap values must be whole multiples of {n - 1}, not {v:g}")
            extra = int(v)
            each = 60 // n
            wanted = [each + extra] + [each - extra // (n - 1)] * (n - 1)
            try:
                settings.append((v, specs, deal_sizes(n, 60, wanted) if extra else None))
            except DealError as exc:
                _fail(f"handicap {extra:+d}: {exc}")
    return settings


def _sweep_point(
    v: float, sp: list[BotSpec], sizes: tuple[int, ...] | None, rows: Sequence[Any]
) -> dict[str, Any]:
    """One point of the sweep: the games played at value ``v`` and seat 0's win rate."""
    from blink.games.classic.sim.stats import wilson

    wins = [0] * len(sp)
    ties = 0
    for row in rows:
        if len(row.winners) == 1:
            wins[row.winners[0]] += 1
        else:
            ties += 1
    m = len(rows)
    lo, hi = wilson(wins[0], m)
    return {
        "value": v,
        "bots": [str(s) for s in sp],
        "sizes": list(sizes) if sizes else None,
        "games": m,
        "wins": wins,
        "ties": ties,
        "rate": wins[0] / m if m else None,
        "ci95": [lo, hi],
    }


def _print_sweep(out: list[dict[str, Any]], label: str, seat0: BotSpec, plot: Path | None) -> None:
    """The sweep as a table: seat 0's win rate at each value."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Seat 0 ({seat0}) win rate against {label}")
    table.add_column(label, justify="right")
    table.add_column("games", justify="right")
    table.add_column("seat 0 wins", justify="right")
    table.add_column("rate", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("ties", justify="right")
    for p in out:
        lo, hi = p["ci95"]
        table.add_row(
            f"{p['value']:g}",
            str(p["games"]),
            str(p["wins"][0]),
            f"{p['rate']:.1%}" if p["rate"] is not None else "-",
            f"{lo:.1%} - {hi:.1%}",
            str(p["ties"]),
        )
    Console().print(table)
    if plot is not None:
        typer.echo(f"figure written to {plot}")

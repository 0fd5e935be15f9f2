"""Go Blink simulation: many bot-vs-bot games in parallel, summarised and plotted.

Game ``i`` of a run seeded ``master`` is dealt from ``derive_seed(master, "goblink", i)``, its
dealer is seat ``i % players`` (so every seat asks first equally often) and the bot in seat
``s`` is seeded ``derive_seed(game_seed, "bot", s)``. Results are gathered in index order, so a
run gives identical results for any number of worker processes.

``blink simulate --game goblink`` delegates to :func:`simulate_cli`.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

from blink.games.goblink.bots import GOBOTS, GoBotError, make_gobot
from blink.games.goblink.engine import MAX_PLAYERS, MIN_PLAYERS, GoGame
from blink.games.goblink.record import GoRecord
from blink.sim.seeds import derive_seed
from blink.sim.stats import Distribution, wilson

__all__ = [
    "DEFAULT_TURN_LIMIT",
    "GoGameRow",
    "GoJob",
    "GoSummary",
    "parse_bots",
    "play_one",
    "plot_go",
    "run_games",
    "simulate_cli",
    "summarize_go",
]

DEFAULT_TURN_LIMIT = 1000
"""A safety net: a game still going after this many turns ends by fewest cards."""


def parse_bots(bots: Sequence[str], players: int) -> list[str]:
    """One bot name per seat from ``bots`` (names or comma-separated lists, cycled over seats).

    An empty list means greedy bots everywhere. Raises ``ValueError`` (or :class:`GoBotError`
    for an unknown name) saying what is wrong.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Go Blink is for 2 to 6 players, not {players}")
    names = [n.strip() for b in bots for n in b.split(",") if n.strip()]
    if not names:
        names = ["greedy"]
    if len(names) > players:
        raise ValueError(f"{len(names)} bots given for {players} players")
    canon = [make_gobot(n, 0, 0).name for n in names]  # GoBotError for unknown names
    return [canon[s % len(canon)] for s in range(players)]


@dataclass(frozen=True)
class GoJob:
    """What to simulate: one bot name per seat, the master seed, the turn limit, records dir."""

    bots: tuple[str, ...]
    seed: int = 0
    turn_limit: int = DEFAULT_TURN_LIMIT
    records: str | None = None


class GoGameRow(NamedTuple):
    """One finished game."""

    game_index: int
    winners: tuple[int, ...]
    reason: str
    turns: int
    asks: int
    plays: int
    matches: int
    first: int


def play_one(job: GoJob, index: int) -> GoGameRow:
    """Play game ``index`` of ``job`` to the end."""
    players = len(job.bots)
    game_seed = derive_seed(job.seed, "goblink", index)
    dealer = index % players
    game = GoGame.new(players, seed=game_seed, dealer=dealer, turn_limit=job.turn_limit)
    bots = [
        make_gobot(name, seat, derive_seed(game_seed, "bot", seat))
        for seat, name in enumerate(job.bots)
    ]
    while not game.over:
        seat = game.current
        assert seat is not None  # a game that is not over always has a current player
        game.apply(bots[seat].act(game.view(seat)))
    outcome = game.outcome
    assert outcome is not None
    if job.records is not None:
        names = [f"{name} (seat {s})" for s, name in enumerate(job.bots)]
        record = GoRecord.from_game(
            game, names, meta={"seed": game_seed, "index": index, "master_seed": job.seed}
        )
        Path(job.records, f"goblink-{index:06d}.json").write_text(
            record.to_json(indent=1), encoding="utf-8"
        )
    return GoGameRow(
        index,
        outcome.winners,
        outcome.reason,
        game.turns,
        game.asks,
        len(game.history),
        len(game.discard()),
        game.first_player,
    )


def _run_chunk(job: GoJob, start: int, stop: int) -> list[GoGameRow]:
    return [play_one(job, i) for i in range(start, stop)]


def run_games(
    job: GoJob,
    games: int,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[GoGameRow]:
    """Play ``games`` games on ``workers`` processes; rows come back in index order."""
    if job.records is not None:
        Path(job.records).mkdir(parents=True, exist_ok=True)
    size = max(1, min(200, games // max(1, workers * 8)))
    chunks = [(s, min(games, s + size)) for s in range(0, games, size)]
    rows: list[GoGameRow] = []
    if workers <= 1 or len(chunks) <= 1:
        for start, stop in chunks:
            rows.extend(_run_chunk(job, start, stop))
            if progress is not None:
                progress(stop - start)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_run_chunk, job, a, b): b - a for a, b in chunks}
            for fut in as_completed(futures):
                rows.extend(fut.result())
                if progress is not None:
                    progress(futures[fut])
    rows.sort(key=lambda r: r.game_index)
    return rows


@dataclass
class GoSummary:
    """What a run found: wins per seat and per bot, ties, game lengths, endings."""

    players: int
    bots: list[str]
    games: int
    wins: list[int]
    ties: int
    tie_shares: list[int]
    turns: Distribution
    asks: Distribution
    plays: Distribution
    endings: dict[str, int]
    first_wins: int
    turn_values: list[int] = field(default_factory=list, repr=False)
    extra: dict[str, Any] = field(default_factory=dict)

    def win_rate(self, seat: int) -> tuple[float, float, float]:
        """The seat's outright win rate and its 95 % Wilson interval."""
        lo, hi = wilson(self.wins[seat], self.games)
        return (self.wins[seat] / self.games if self.games else math.nan, lo, hi)

    def by_bot(self) -> dict[str, dict[str, float]]:
        """Per bot name: seat-games played, outright wins, win rate with CI, and the fair rate."""
        out: dict[str, dict[str, float]] = {}
        for name in dict.fromkeys(self.bots):
            seats = [s for s, b in enumerate(self.bots) if b == name]
            n = self.games * len(seats)
            w = sum(self.wins[s] for s in seats)
            lo, hi = wilson(w, n)
            out[name] = {
                "seat_games": n,
                "wins": w,
                "rate": w / n if n else math.nan,
                "ci95_low": lo,
                "ci95_high": hi,
                "fair": 1 / self.players,
            }
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON summary: ``games``, ``wins`` per seat, ``ties``, ``plays`` (mean) and more."""
        return {
            "game": "goblink",
            "games": self.games,
            "players": self.players,
            "bots": list(self.bots),
            "wins": list(self.wins),
            "ties": self.ties,
            "tie_shares": list(self.tie_shares),
            "plays": self.plays.mean,
            "win_rate": [
                {"seat": s, "bot": self.bots[s], "rate": r, "ci95": [lo, hi]}
                for s, (r, lo, hi) in enumerate(self.win_rate(s) for s in range(self.players))
            ],
            "by_bot": self.by_bot(),
            "turns_per_game": self.turns.to_dict(),
            "asks_per_game": self.asks.to_dict(),
            "plays_per_game": self.plays.to_dict(),
            "endings": dict(self.endings),
            "first_player_wins": self.first_wins,
            **self.extra,
        }


def summarize_go(rows: Sequence[GoGameRow], bots: Sequence[str]) -> GoSummary:
    """Summarise finished games (in index order)."""
    players = len(bots)
    wins = [0] * players
    shares = [0] * players
    ties = 0
    first = 0
    endings: Counter[str] = Counter()
    for row in sorted(rows, key=lambda r: r.game_index):
        if len(row.winners) == 1:
            wins[row.winners[0]] += 1
            first += row.winners[0] == row.first
            endings[row.reason] += 1
        else:
            ties += 1
            for w in row.winners:
                shares[w] += 1
            endings[f"{row.reason} (tie)"] += 1
    turns = [r.turns for r in rows]
    return GoSummary(
        players=players,
        bots=list(bots),
        games=len(rows),
        wins=wins,
        ties=ties,
        tie_shares=shares,
        turns=Distribution.of(turns),
        asks=Distribution.of([r.asks for r in rows]),
        plays=Distribution.of([r.plays for r in rows]),
        endings=dict(sorted(endings.items())),
        first_wins=first,
        turn_values=turns,
    )


_COLORS = {"random": "#999999", "greedy": "#E69F00", "memory": "#0072B2"}


def plot_go(summary: GoSummary, path: str | Path, title: str = "") -> None:
    """A PNG: the game length histogram (turns) and win rates with 95 % intervals per seat."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    ax = axes[0]
    if summary.turn_values:
        hi = max(summary.turn_values)
        ax.hist(summary.turn_values, bins=range(0, hi + 2), color="#009E73", edgecolor="white")
    ax.axvline(summary.turns.median, color="black", lw=0.8, ls="--", label="median")
    ax.set_xlabel("turns per game")
    ax.set_ylabel("games")
    ax.set_title(f"Game length ({summary.players} players)")
    ax.legend()
    ax = axes[1]
    seats = list(range(summary.players))
    rates = [summary.win_rate(s) for s in seats]
    ax.bar(
        [f"seat {s}\n{summary.bots[s]}" for s in seats],
        [r for r, _, _ in rates],
        yerr=[[max(0.0, r - lo) for r, lo, _ in rates], [max(0.0, hi - r) for r, _, hi in rates]],
        capsize=5,
        color=[_COLORS.get(b, "#CC79A7") for b in summary.bots],
    )
    ax.axhline(1 / summary.players, color="grey", lw=0.8, ls="--", label="fair share")
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of games won outright (95% CI)")
    ax.set_title(f"Win rate over {summary.games} games ({summary.ties} ties)")
    ax.legend()
    fig.suptitle(title or "Go Blink: " + " vs ".join(summary.bots))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _fail(message: str) -> NoReturn:
    import typer

    typer.echo(f"blink simulate: {message}", err=True)
    raise typer.Exit(2)


def simulate_cli(
    games: int,
    players: int,
    bots: list[str],
    seed: int,
    workers: int,
    json_out: bool,
    plot: Path | None,
    records: Path | None,
) -> None:
    """Run a Go Blink simulation for the command line: progress bar, table or JSON, plot.

    Raises ``typer.Exit(2)`` with a message on bad input.
    """
    import typer
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.table import Table

    if not isinstance(games, int) or games < 1:
        _fail(f"--games must be at least 1, not {games}")
    if not isinstance(workers, int) or workers < 1:
        _fail(f"--workers must be at least 1, not {workers}")
    named = [n for b in bots for n in b.split(",") if n.strip()]
    if players < MIN_PLAYERS and MIN_PLAYERS <= len(named) <= MAX_PLAYERS:
        players = len(named)  # "--bot memory,greedy" without --players: one seat per name
    try:
        seats = parse_bots(bots, players)
    except GoBotError as exc:
        _fail(f"{exc} (Go Blink bots: {', '.join(GOBOTS)})")
    except ValueError as exc:
        _fail(str(exc))
    if plot is not None and plot.suffix.lower() != ".png":
        _fail(f"--plot needs a .png file name, not {plot}")
    if records is not None and records.exists() and not records.is_dir():
        _fail(f"--records {records} exists and is not a directory")
    job = GoJob(tuple(seats), seed=seed, records=str(records) if records is not None else None)
    start = time.perf_counter()
    progress = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    try:
        with progress:
            task = progress.add_task("simulating Go Blink games", total=games)
            rows = run_games(job, games, workers, lambda k: progress.advance(task, k))
    except KeyboardInterrupt:
        typer.echo("blink simulate: interrupted", err=True)
        raise typer.Exit(130) from None
    elapsed = time.perf_counter() - start
    summary = summarize_go(rows, seats)
    summary.extra.update(seed=seed, turn_limit=job.turn_limit, elapsed_s=round(elapsed, 3))
    if plot is not None:
        plot_go(summary, plot)
    if json_out:
        typer.echo(json.dumps(summary.to_dict()))
        return
    console = Console()
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
    console.print(table)
    if len(set(seats)) > 1:
        bt = Table(title="By bot (fair share " + f"{1 / players:.1%})")
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
        console.print(bt)
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
    console.print(lengths)
    console.print(
        "endings: "
        + ", ".join(f"{k} {v}" for k, v in summary.endings.items())
        + f"; first asker won {summary.first_wins}; seed {seed}; {elapsed:.1f} s"
    )
    if plot is not None:
        console.print(f"figure written to {plot}")
    if records is not None:
        console.print(f"records written to {records}/")

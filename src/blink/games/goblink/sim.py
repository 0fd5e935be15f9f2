"""Go Blink simulation: many bot-vs-bot games in parallel, summarised and plotted.

Game ``i`` of a run seeded ``master`` is dealt from ``derive_seed(master, "goblink", i)``, its
dealer is seat ``i % players`` (so every seat asks first equally often) and the bot in seat
``s`` is seeded ``derive_seed(game_seed, "bot", s)``. Results are gathered in index order, so a
run gives identical results for any number of worker processes.

Two engines play the games (:data:`ENGINES`): ``exact``, game by game through
:class:`~blink.games.goblink.engine.GoGame` and the bot objects live play uses, and ``fast``,
the same rules and bots compiled with numba (:mod:`blink.games.goblink.fast`: the same game
seeds and dealers, its own deals and draws from each seed, so the same statistics, not the
same games).

The command line (``blink simulate --game goblink``, ``blink goblink simulate``) is
:mod:`blink.games.goblink.simulate_cli`.
"""

from __future__ import annotations

import contextlib
import math
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from blink.games.goblink.bots import DEFAULT_GOBOT, GoBotError, get_gobot_kind, make_gobot
from blink.games.goblink.engine import MAX_PLAYERS, MIN_PLAYERS, GoGame
from blink.games.goblink.record import GoRecord
from blink.sim.pool import worker_pool
from blink.sim.seeds import derive_seed, derive_seeds
from blink.sim.statistics import Distribution, wilson

__all__ = [
    "DEFAULT_TURN_LIMIT",
    "ENGINES",
    "GoGameRow",
    "GoJob",
    "GoSummary",
    "default_engine",
    "parse_bots",
    "play_one",
    "plot_go",
    "run_games",
    "summarize_go",
]

ENGINES = ("exact", "fast")
"""The simulator's engines: ``exact`` (the rules engine and the bot objects) and ``fast`` (the
compiled kernel, :mod:`blink.games.goblink.fast`)."""

DEFAULT_TURN_LIMIT = 1000
"""A safety net: a game still going after this many turns ends by fewest cards."""


def parse_bots(bots: Sequence[str], players: int) -> list[str]:
    """One bot name per seat from ``bots`` (names or comma-separated lists, cycled over seats).

    An empty list means :data:`~blink.games.goblink.bots.DEFAULT_GOBOT` bots everywhere. Raises
    ``ValueError`` (or :class:`GoBotError` for an unknown name) saying what is wrong.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Go Blink is for 2 to 6 players, not {players}")
    names = [n.strip() for b in bots for n in b.split(",") if n.strip()]
    if not names:
        names = [DEFAULT_GOBOT]
    if len(names) > players:
        raise ValueError(f"{len(names)} bots given for {players} players")
    canon = [get_gobot_kind(n).name for n in names]  # GoBotError for unknown names
    return [canon[s % len(canon)] for s in range(players)]


@dataclass(frozen=True)
class GoJob:
    """What to simulate: one bot name per seat, the master seed, the turn limit, records dir,
    the engine (one of :data:`ENGINES`)."""

    bots: tuple[str, ...]
    seed: int = 0
    turn_limit: int = DEFAULT_TURN_LIMIT
    records: str | None = None
    engine: str = "exact"

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ValueError(
                f"unknown engine {self.engine!r}: the engines are {', '.join(ENGINES)}"
            )
        if self.engine == "fast":
            from blink.games.goblink.fast import check_bots

            check_bots(_registered(self.bots))  # a bot it cannot play is refused here


def default_engine(bots: Sequence[str]) -> str:
    """``fast`` when the fast engine plays every seat's bot, else ``exact`` (it depends on the
    bots alone: without numba such a run is refused, not played by the exact engine)."""
    from blink.games.goblink.fast import NoKernelFormError, check_bots

    try:
        check_bots(_registered(bots))
    except NoKernelFormError:
        return "exact"
    return "fast"


def _registered(bots: Sequence[str]) -> list[str]:
    """Each bot's registered name (an alias resolved; an unknown name as it is, for the fast
    engine to refuse)."""
    names = []
    for b in bots:
        try:
            names.append(get_gobot_kind(b).name)
        except GoBotError:
            names.append(b)
    return names


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
    if job.engine == "fast":
        return _fast_chunk(job, start, stop)
    return [play_one(job, i) for i in range(start, stop)]


def _fast_chunk(job: GoJob, start: int, stop: int) -> list[GoGameRow]:
    """Games ``start`` to ``stop - 1`` of ``job`` on the fast engine (each from its own seed
    and dealer, so any chunking gives the same rows); with records, each game replayed through
    the rules engine into its record."""
    from blink.games.goblink import fast

    players = len(job.bots)
    indices = range(start, stop)
    seeds = derive_seeds(job.seed, "goblink", start, stop)
    keep = job.records is not None
    run = fast.run(
        _registered(job.bots),
        seeds,
        [i % players for i in indices],
        turn_limit=job.turn_limit,
        records=keep,
    )
    f = run.fields
    if keep:
        names = [f"{name} (seat {s})" for s, name in enumerate(job.bots)]
        for i, game in zip(indices, fast.games_of(run), strict=True):
            meta = {"seed": game.seed, "index": i, "master_seed": job.seed, "engine": "fast"}
            record = GoRecord.from_game(fast.replay(game), names, meta=meta)
            Path(str(job.records), f"goblink-{i:06d}.json").write_text(
                record.to_json(indent=1), encoding="utf-8"
            )
    # Read column by column as Python ints (a numpy scalar per field is most of the cost).
    winner_sets = [tuple(p for p in range(players) if w >> p & 1) for w in range(1 << players)]
    cols = zip(
        indices,
        [winner_sets[w] for w in f[:, fast.F_WINNERS].tolist()],
        [fast.REASONS[r] for r in f[:, fast.F_REASON].tolist()],
        f[:, fast.F_TURNS].tolist(),
        f[:, fast.F_ASKS].tolist(),
        f[:, fast.F_ACTIONS].tolist(),
        f[:, fast.F_MATCHES].tolist(),
        f[:, fast.F_FIRST].tolist(),
        strict=True,
    )
    return [GoGameRow(*row) for row in cols]


def run_games(
    job: GoJob,
    games: int,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    executor: Executor | None = None,
) -> list[GoGameRow]:
    """Play ``games`` games on ``workers`` processes; rows come back in index order.

    ``executor``: play the chunks there instead (for example a cluster's,
    :mod:`blink.dask_runner`), ``workers`` being its parallelism; the same chunks, so the same
    rows. It is not shut down.
    """
    if job.records is not None:
        Path(job.records).mkdir(parents=True, exist_ok=True)
    if job.engine == "fast":  # big chunks: a call's fixed costs spread over more games
        size = max(1, min(5000, -(-games // max(1, workers * 2))))
    else:
        size = max(1, min(200, games // max(1, workers * 8)))
    chunks = [(s, min(games, s + size)) for s in range(0, games, size)]
    rows: list[GoGameRow] = []
    if executor is None and (workers <= 1 or len(chunks) <= 1):
        for start, stop in chunks:
            rows.extend(_run_chunk(job, start, stop))
            if progress is not None:
                progress(stop - start)
    else:
        pool = worker_pool(workers) if executor is None else contextlib.nullcontext(executor)
        with pool as ex:
            futures = {ex.submit(_run_chunk, job, a, b): b - a for a, b in chunks}
            try:
                for fut in as_completed(futures):
                    rows.extend(fut.result())
                    if progress is not None:
                        progress(futures[fut])
            finally:
                for fut in futures:
                    fut.cancel()
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


_COLORS = {"random": "#999999", "greedy": "#E69F00", "memory": "#0072B2", "master": "#009E73"}


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

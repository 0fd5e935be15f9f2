"""Summary statistics of a run: win rates with Wilson intervals, game lengths, stalls."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from blink.games.classic.sim.runner import GameColumns, MatchRow, RunResult
from blink.sim.statistics import Distribution, percentile, wilson

__all__ = [
    "Distribution",
    "Summary",
    "percentile",
    "summarize",
    "summarize_columns",
    "summarize_run",
    "wilson",
]


@dataclass
class Summary:
    """What a run found. A "match" is one game, or one series with ``best_of`` > 1."""

    players: int
    bots: list[str]
    best_of: int
    matches: int
    wins: list[int]
    ties: int
    games_played: int
    game_wins: list[int]
    game_ties: int
    plays: Distribution
    duration: Distribution
    stalls_per_game: float
    stalls: dict[str, int]
    endings: dict[str, int]
    from_behind: int
    interrupted: bool = False
    requested: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    plays_values: list[int] = field(default_factory=list, repr=False)
    duration_values: list[float] = field(default_factory=list, repr=False)

    def win_rate(self, seat: int) -> tuple[float, float, float]:
        """The seat's match win rate and its 95 % Wilson interval."""
        n = self.matches
        lo, hi = wilson(self.wins[seat], n)
        return (self.wins[seat] / n if n else math.nan, lo, hi)

    def to_dict(self) -> dict[str, Any]:
        """The JSON summary (``games``, ``wins``, ``ties`` and ``plays`` are the mean plays).

        Undefined figures (for example means over no games) are ``None``, so the result is
        strict JSON.
        """
        out: dict[str, Any] = _finite(self._dict())
        return out

    def _dict(self) -> dict[str, Any]:
        return {
            "games": self.matches,
            "wins": list(self.wins),
            "ties": self.ties,
            "plays": self.plays.mean,
            "players": self.players,
            "bots": self.bots,
            "best_of": self.best_of,
            "win_rate": [
                {"seat": s, "rate": r, "ci95": [lo, hi]}
                for s, (r, lo, hi) in enumerate(self.win_rate(s) for s in range(self.players))
            ],
            "games_played": self.games_played,
            "game_wins": list(self.game_wins),
            "game_ties": self.game_ties,
            "plays_per_game": self.plays.to_dict(),
            "seconds_per_game": self.duration.to_dict(),
            "stalls_per_game": self.stalls_per_game,
            "stalls": dict(self.stalls),
            "endings": dict(self.endings),
            "won_from_behind": self.from_behind,
            "interrupted": self.interrupted,
            "requested": self.requested,
            **self.extra,
        }


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def summarize(
    rows: Sequence[MatchRow],
    players: int,
    bots: Sequence[str] = (),
    best_of: int = 1,
    *,
    interrupted: bool = False,
    requested: int = 0,
) -> Summary:
    """Summarise finished matches (in index order, for reproducible floating-point sums)."""
    wins = [0] * players
    ties = 0
    game_wins = [0] * players
    game_ties = 0
    plays: list[int] = []
    duration: list[float] = []
    stalls = Counter({"total": 0, "flip": 0, "choose": 0, "dead_end": 0, "default_choices": 0})
    endings: Counter[str] = Counter()
    behind = 0
    for row in sorted(rows, key=lambda r: r.number):
        if len(row.winners) == 1:
            wins[row.winners[0]] += 1
        else:
            ties += 1
        for g in row.games:
            if len(g.winners) == 1:
                game_wins[g.winners[0]] += 1
            else:
                game_ties += 1
            plays.append(g.plays)
            duration.append(g.duration)
            stalls["total"] += g.stalls
            stalls["flip"] += g.flips
            stalls["choose"] += g.choices
            stalls["dead_end"] += g.dead_ends
            stalls["default_choices"] += g.defaults
            endings[g.reason if len(g.winners) == 1 else f"{g.reason} (tie)"] += 1
            behind += g.from_behind
    n_games = len(plays)
    return Summary(
        players=players,
        bots=list(bots),
        best_of=best_of,
        matches=len(rows),
        wins=wins,
        ties=ties,
        games_played=n_games,
        game_wins=game_wins,
        game_ties=game_ties,
        plays=Distribution.of(plays),
        duration=Distribution.of(duration),
        stalls_per_game=stalls["total"] / n_games if n_games else math.nan,
        stalls=dict(stalls),
        endings=dict(sorted(endings.items())),
        from_behind=behind,
        interrupted=interrupted,
        requested=requested,
        plays_values=plays,
        duration_values=duration,
    )


def summarize_run(
    result: RunResult, players: int, bots: Sequence[str] = (), best_of: int = 1
) -> Summary:
    """Summarise a run: from its columns when its games came back as columns (no row built),
    else from its rows; the same figures either way."""
    cols = result.columns
    if cols is None:
        return summarize(
            result.rows, players, bots, best_of,
            interrupted=result.interrupted, requested=result.requested,
        )  # fmt: skip
    return summarize_columns(cols, bots, interrupted=result.interrupted, requested=result.requested)


def summarize_columns(
    cols: GameColumns, bots: Sequence[str] = (), *, interrupted: bool = False, requested: int = 0
) -> Summary:
    """Summarise single games given as columns: the figures :func:`summarize` gives for their
    rows (its sums in index order too)."""
    import numpy as np

    order = np.argsort(cols.numbers, kind="stable")
    winners = cols.winners[order]
    players = cols.players
    wins = [int(np.count_nonzero(winners == 1 << p)) for p in range(players)]
    n = len(winners)
    ties = n - sum(wins)
    single = np.isin(winners, [1 << p for p in range(players)])
    endings: Counter[str] = Counter()
    for code, reason in enumerate(cols.reasons):
        of_reason = cols.reason[order] == code
        if won := int(np.count_nonzero(of_reason & single)):
            endings[reason] = won
        if tied := int(np.count_nonzero(of_reason & ~single)):
            endings[f"{reason} (tie)"] = tied
    plays: list[int] = cols.plays[order].tolist()
    duration: list[float] = cols.duration[order].tolist()
    stalls = {
        "total": int(cols.stalls.sum()),
        "flip": int(cols.flips.sum()),
        "choose": int(cols.choices.sum()),
        "dead_end": int(cols.dead_ends.sum()),
        "default_choices": int(cols.defaults.sum()),
    }
    return Summary(
        players=players,
        bots=list(bots),
        best_of=1,
        matches=n,
        wins=wins,
        ties=ties,
        games_played=n,
        game_wins=list(wins),
        game_ties=ties,
        plays=Distribution.of(plays),
        duration=Distribution.of(duration),
        stalls_per_game=stalls["total"] / n if n else math.nan,
        stalls=stalls,
        endings=dict(sorted(endings.items())),
        from_behind=int(np.count_nonzero(cols.from_behind)),
        interrupted=interrupted,
        requested=requested,
        plays_values=plays,
        duration_values=duration,
    )

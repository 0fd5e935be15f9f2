"""Best-of-N series: the score, who has won, and who deals next.

A series of best-of-N (N odd) is won by the first player to win a majority of N games. A tied
game counts for no one and the series goes on, so a series can last longer than N games.
Works for any number of players (2 or 3 in classic Blink, up to 6 in Go Blink): the target is
``N // 2 + 1`` wins.

A set of N games (``play_all``, a tournament's final-round set: every decided game counts) is
not over at a majority: it is over once N games have a winner (tied games are replayed), and
its winner is then the seat with the most wins, if one seat has more than every other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Series", "SeriesError"]


class SeriesError(ValueError):
    """A series that cannot be set up, or a result that cannot be recorded."""


@dataclass
class Series:
    """The state of a best-of-N series between ``players`` players."""

    best_of: int = 1
    players: int = 2
    results: list[tuple[int, ...]] = field(default_factory=list)
    """The winners of each game played so far; a tuple of several seats is a tie."""
    play_all: bool = False
    """Every one of the ``best_of`` games is played (a set of N decided games, every game
    counts) instead of stopping at the first seat to win a majority."""

    def __post_init__(self) -> None:
        if not isinstance(self.best_of, int) or self.best_of < 1 or self.best_of % 2 == 0:
            raise SeriesError(f"best-of must be a positive odd number, not {self.best_of!r}")
        if not 2 <= self.players <= 6:
            raise SeriesError(f"a series needs 2 to 6 players, not {self.players}")

    @property
    def target(self) -> int:
        """Wins needed to take the series."""
        return self.best_of // 2 + 1

    @property
    def score(self) -> tuple[int, ...]:
        """Games won by each seat (ties count for no one)."""
        wins = [0] * self.players
        for winners in self.results:
            if len(winners) == 1:
                wins[winners[0]] += 1
        return tuple(wins)

    @property
    def ties(self) -> int:
        """Tied games so far."""
        return sum(1 for w in self.results if len(w) != 1)

    @property
    def first_to(self) -> int | None:
        """Wins that end the series early (:attr:`target`); ``None`` when every game is
        played (:attr:`play_all`)."""
        return None if self.play_all else self.target

    @property
    def decided_games(self) -> int:
        """Games with a single winner."""
        return sum(self.score)

    @property
    def winner(self) -> int | None:
        """The seat that has won the series, or ``None`` while it goes on (and, for a set of
        every game, when the most wins are shared)."""
        score = self.score
        if self.play_all:
            if self.decided_games < self.best_of:
                return None
            best = max(score)
            return score.index(best) if score.count(best) == 1 else None
        for seat, wins in enumerate(score):
            if wins >= self.target:
                return seat
        return None

    @property
    def over(self) -> bool:
        """True once a seat has reached the target (for a set of every game: once all its
        games have a winner)."""
        if self.play_all:
            return self.decided_games >= self.best_of
        return self.winner is not None

    @property
    def games_played(self) -> int:
        """Games recorded so far, ties included."""
        return len(self.results)

    @property
    def next_dealer(self) -> int:
        """The dealer of the next game: the deal rotates one seat per game."""
        return len(self.results) % self.players

    def record(self, winners: Sequence[int]) -> None:
        """Record a finished game's winners (several for a tie)."""
        if self.over:
            raise SeriesError("the series is already decided")
        ws = tuple(winners)
        if not ws or any(not 0 <= w < self.players for w in ws) or len(set(ws)) != len(ws):
            raise SeriesError(f"not a valid result for {self.players} players: {ws!r}")
        self.results.append(ws)

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready summary."""
        return {
            "best_of": self.best_of,
            "first_to": self.first_to,
            "play_all": self.play_all,
            "over": self.over,
            "players": self.players,
            "results": [list(r) for r in self.results],
            "score": list(self.score),
            "ties": self.ties,
            "winner": self.winner,
        }

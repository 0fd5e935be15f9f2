"""Ratings: OpenSkill (Weng-Lin, Plackett-Luce) updates for Blink games (classic Blink's two or
three players unless another game's range is given), fixed ratings for bots by level, and a
handicap suggested from two ratings.

Pure: no I/O, no clock. A :class:`Rating` is ``mu`` (skill) and ``sigma`` (uncertainty);
:attr:`Rating.ordinal` (``mu - 3 sigma``) is the conservative number shown on leaderboards. A
game is rated as the pairwise results it shows: each winner beat each other player, and
nothing is learnt between two losers (Blink only says who is out of cards first) or between
players who tied. In a two-player game this is the plain OpenSkill update.

Bots have fixed ratings by level (:data:`BOT_RATINGS`, read from the bot levels: the level
names are stated once, in the default game's bots, found through the registry): a game against
a bot moves the person's rating and never the bot's, so a newcomer gets a meaningful number
after a few games.

The handicap (the rulebook's "balanced play": the faster player starts with more cards) is
suggested from the stronger player's predicted chance to win, by :data:`HANDICAP_STEPS`. The
steps are a first, documented guess that the simulator's findings can refine.

Typical use::

    a, b = Rating(), BOT_RATINGS["expert"]
    new_a, _ = rate_game([a, b], winners=[0], fixed=[False, True])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from openskill.models import PlackettLuce

from blink.model.base import GameInfo
from blink.model.registry import DEFAULT_GAME, NoTable, UnknownGame, get_game, get_table
from blink.model.table import BadMessage

__all__ = [
    "BOT_RATINGS",
    "DEFAULT_MU",
    "DEFAULT_SIGMA",
    "HANDICAP_STEPS",
    "Handicap",
    "Rating",
    "RatingError",
    "RatingTable",
    "bot_rating",
    "game_bot_rating",
    "game_bot_ratings",
    "rate_game",
    "suggest_handicap",
    "win_probability",
]

DEFAULT_MU: Final = 25.0
DEFAULT_SIGMA: Final = 25.0 / 3.0
BOT_SIGMA: Final = 1.0
"""The uncertainty given to a bot's fixed rating (small: bots are well known)."""


class RatingError(ValueError):
    """A rating or game result that cannot be used. ``code`` is machine-readable."""

    def __init__(self, message: str, code: str = "bad-rating") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's skill estimate: ``mu`` and its uncertainty ``sigma``."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    def __post_init__(self) -> None:
        if not (math.isfinite(self.mu) and math.isfinite(self.sigma) and self.sigma > 0):
            raise RatingError(f"not a rating: mu={self.mu!r}, sigma={self.sigma!r}")

    @property
    def ordinal(self) -> float:
        """The conservative estimate ``mu - 3 sigma`` (what leaderboards sort by)."""
        return self.mu - 3.0 * self.sigma

    def to_dict(self) -> dict[str, float]:
        """A JSON-ready form."""
        return {"mu": self.mu, "sigma": self.sigma}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rating:
        """Load the form written by :meth:`to_dict`."""
        try:
            return cls(float(data["mu"]), float(data["sigma"]))
        except (KeyError, TypeError, ValueError):
            raise RatingError(f"not a rating: {data!r}") from None


def game_bot_ratings(game: str) -> Mapping[str, Rating]:
    """Fixed ratings of every bot of ``game``, by name, read from its live table
    (:meth:`blink.model.table.Table.bot_rating`, which reads them from the game's bots, where
    the figures they come from are given); empty for a game without bots."""
    try:
        table = get_table(game)
    except (UnknownGame, NoTable):
        return MappingProxyType({})
    return MappingProxyType(
        {name: Rating(table.bot_rating(name), BOT_SIGMA) for name in table.bot_names()}
    )


BOT_RATINGS: Final[Mapping[str, Rating]] = game_bot_ratings(DEFAULT_GAME)
"""Fixed ratings of the default game's bot levels (classic Blink's), read from the registry:
its live table reads them from the levels themselves (classic Blink's ``Level.rating``, by
name in its bots' ``LEVELS``), set from simulated games (400 per pairing of
neighbouring levels, seats alternating, docs/rules.md, "Tournaments"): a skilled bot
beat a casual one 97 % of the time and an expert a skilled one 96 % (11 points apart: the
model predicts 96 %); casual beat beginner and champion beat expert 99-100 % (15 points:
99 %). The trained level, a policy, has the rating that predicts its 83.75 % (ties as
halves) in 1,000 games against the champion: 68 (docs/strategy.md). A newcomer starts at 25,
the casual bot's rating."""


def bot_rating(level: str) -> Rating:
    """The fixed rating of a bot level of the default game (``"expert"`` or a spec such as
    ``"expert:blocker"``)."""
    name = level.strip().lower().split(":")[0].split("@")[0]
    try:
        return BOT_RATINGS[name]
    except KeyError:
        raise RatingError(
            f"no rating for bot level {level!r}; levels: {', '.join(BOT_RATINGS)}", "bad-level"
        ) from None


def game_bot_rating(name: str, game: str) -> Rating:
    """The fixed rating of a seat played by the bot ``name`` in a rated game of ``game``
    (the default game, classic Blink: a level or a spec, :func:`bot_rating`; another game: what
    its live table says, :meth:`blink.model.table.Table.bot_rating`)."""
    if game == DEFAULT_GAME:
        return bot_rating(name)
    try:
        table = get_table(game)
    except (UnknownGame, NoTable):
        table = None
    if table is None or not table.bot_names():
        raise RatingError(f"no bot ratings for the game {game!r}", "bad-level")
    try:
        return Rating(table.bot_rating(name), BOT_SIGMA)
    except BadMessage:
        title = get_game(game).info.title
        raise RatingError(f"no rating for {title} bot {name!r}", "bad-level") from None


def _model() -> PlackettLuce:
    return PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)


def rate_game(
    ratings: Sequence[Rating],
    winners: Sequence[int],
    fixed: Sequence[bool] | None = None,
    game: GameInfo | None = None,
) -> list[Rating]:
    """New ratings after one game of ``game`` (the default game, classic Blink, unless told:
    2 or 3 players).

    ``winners`` are the seats that won (several for a tie). Each winner is rated as having
    beaten each other player (two-player OpenSkill updates against their ratings before the
    game); losers are not compared with each other. Seats marked in ``fixed`` (bots) keep their
    rating. A number of players outside the game's range is refused.
    """
    if game is None:
        game = get_game(DEFAULT_GAME).info
    n = len(ratings)
    if not game.min_players <= n <= game.max_players:
        raise RatingError(
            f"a rated Blink game has {game.player_range} players, not {n}", "bad-players"
        )
    ws = list(winners)
    if not ws or len(set(ws)) != len(ws) or any(not 0 <= w < n for w in ws):
        raise RatingError(f"not a valid result for {n} players: winners {ws!r}", "bad-result")
    fix = list(fixed) if fixed is not None else [False] * n
    if len(fix) != n:
        raise RatingError("give one fixed flag per player", "bad-players")
    if len(ws) == n:  # everyone tied: nothing is learnt
        return list(ratings)
    losers = [i for i in range(n) if i not in ws]
    new = list(ratings)
    for i in ws:  # each winner beat each loser, judged against the loser's rating before the game
        for j in losers:
            new[i] = _duel(new[i], ratings[j])[0]
    for j in losers:
        for i in ws:
            new[j] = _duel(ratings[i], new[j])[1]
    return [r if fix[k] else new[k] for k, r in enumerate(ratings)]


def _duel(winner: Rating, loser: Rating) -> tuple[Rating, Rating]:
    """Both ratings after ``winner`` beat ``loser`` in a two-player game."""
    model = _model()
    a = model.rating(mu=winner.mu, sigma=winner.sigma)
    b = model.rating(mu=loser.mu, sigma=loser.sigma)
    (na,), (nb,) = model.rate([[a], [b]], ranks=[1.0, 2.0])
    return Rating(float(na.mu), float(na.sigma)), Rating(float(nb.mu), float(nb.sigma))


def win_probability(a: Rating, b: Rating) -> float:
    """The chance that ``a`` beats ``b`` in one game, by the rating model."""
    model = _model()
    p = model.predict_win(
        [[model.rating(mu=a.mu, sigma=a.sigma)], [model.rating(mu=b.mu, sigma=b.sigma)]]
    )
    return float(p[0])


HANDICAP_STEPS: Final[tuple[tuple[float, int], ...]] = (
    (0.60, 0),
    (0.75, 2),
    (0.90, 4),
    (0.98, 6),
    (1.01, 8),
)
"""Extra cards for the stronger player by their chance to win one game: below 60 % none,
below 75 % two, below 90 % four, below 98 % six, otherwise eight (taken from the weaker
player's pile: 32:28 ... 38:22 with a 60-card deck). From simulated games (200 per cell): a
skilled bot's 98 % against a casual one fell to 82 % with four extra cards and 23 % with
eight; an expert's 96 % against a skilled bot to 62 % and 14 %; a casual bot's 100 % against
a beginner to 92 % and 48 %. So six cards even a 96-98 % favourite, eight a 99 % one."""


@dataclass(frozen=True, slots=True)
class Handicap:
    """A suggested deal for a pairing: each seat's draw-pile size, and why."""

    sizes: tuple[int, int] | None
    """Draw-pile sizes for (a, b); ``None`` is an equal deal."""
    extra: int
    """Cards added to the stronger player's pile (and taken from the weaker's)."""
    stronger: int | None
    """0 for a, 1 for b, ``None`` when the deal is equal."""
    win_probability: float
    """The stronger player's chance to win one game with an equal deal."""

    @property
    def text(self) -> str:
        """The handicap as ``blink.games.classic.rules.parse_handicap`` reads it (``"34:26"`` or
        ``"0"``)."""
        return "0" if self.sizes is None else f"{self.sizes[0]}:{self.sizes[1]}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "sizes": None if self.sizes is None else list(self.sizes),
            "extra": self.extra,
            "stronger": self.stronger,
            "win_probability": self.win_probability,
            "text": self.text,
        }


def suggest_handicap(a: Rating, b: Rating, deck_size: int = 60) -> Handicap:
    """The handicap that should even a pairing of ``a`` and ``b`` (see :data:`HANDICAP_STEPS`)."""
    p = win_probability(a, b)
    stronger = 0 if p >= 0.5 else 1
    q = max(p, 1.0 - p)
    extra = next(e for limit, e in HANDICAP_STEPS if q < limit)
    each = deck_size // 2
    extra = min(extra, each - 4)  # the weaker pile keeps at least a center card and a hand
    if extra <= 0:
        return Handicap(None, 0, None, q)
    big, small = each + extra, each - extra
    sizes = (big, small) if stronger == 0 else (small, big)
    return Handicap(sizes, extra, stronger, q)


@dataclass
class RatingTable:
    """Ratings by player name, with games counted; JSON-serialisable (a simple store)."""

    ratings: dict[str, Rating] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    rated: set[str] = field(default_factory=set)
    """Keys of the games already rated (so rating a tournament again adds only new games)."""

    def get(self, name: str) -> Rating:
        """The player's rating (a newcomer's default if unknown)."""
        return self.ratings.get(name, Rating())

    def record(
        self, names: Sequence[str], winners: Sequence[str], bots: Mapping[str, str] | None = None
    ) -> list[Rating]:
        """Rate one game between ``names`` won by ``winners`` (several for a tie). ``bots`` maps
        a bot player's name to its level: its fixed rating is used and never changed."""
        bots = bots or {}
        if len(set(names)) != len(names):
            raise RatingError("a player cannot play themself", "bad-players")
        missing = [w for w in winners if w not in names]
        if missing:
            raise RatingError(f"{missing[0]!r} did not play in this game", "bad-result")
        current = [bot_rating(bots[n]) if n in bots else self.get(n) for n in names]
        new = rate_game(current, [names.index(w) for w in winners], [n in bots for n in names])
        for n, r in zip(names, new, strict=True):
            if n not in bots:
                self.ratings[n] = r
                self.games[n] = self.games.get(n, 0) + 1
        return new

    def leaderboard(self) -> list[tuple[str, Rating, int]]:
        """(name, rating, games) sorted by ordinal, best first."""
        return sorted(
            ((n, r, self.games.get(n, 0)) for n, r in self.ratings.items()),
            key=lambda x: (-x[1].ordinal, x[0]),
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "format": "blink-ratings",
            "version": 1,
            "players": {
                n: {**r.to_dict(), "games": self.games.get(n, 0)} for n, r in self.ratings.items()
            },
            "rated": sorted(self.rated),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RatingTable:
        """Load the form written by :meth:`to_dict`."""
        if data.get("format") != "blink-ratings":
            raise RatingError("not a blink-ratings file", "bad-file")
        players = data.get("players")
        if not isinstance(players, Mapping):
            raise RatingError("a ratings file needs a players object", "bad-file")
        t = cls()
        for n, d in players.items():
            t.ratings[str(n)] = Rating.from_dict(d)
            t.games[str(n)] = int(d.get("games", 0))
        rated = data.get("rated", [])
        if not isinstance(rated, list):
            raise RatingError("rated must be a list of game keys", "bad-file")
        t.rated = {str(k) for k in rated}
        return t

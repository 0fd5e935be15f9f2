"""The reaction-time model: how long a bot takes to see a play (see docs/bots.md for sources).

A decision after a change of the table takes

    floor + lognormal(0, sigma) * (encode + comparisons * per_comparison
                                   + log2(options) * per_bit) + exponential(tau)

* ``floor``: simple reaction time, the irreducible sensory and motor delay (about 0.2 s for
  people).
* ``encode``: looking at what changed and moving the hand, beyond the simple-reaction floor.
* ``comparisons``: card-pile-attribute comparisons made by the search (a serial,
  self-terminating visual search for the ``first`` strategy, an exhaustive one for strategies
  that weigh every legal play), each costing ``per_comparison`` seconds.
* ``per_bit``: the time to weigh the legal plays found against each other, per bit of choice
  (the Hick-Hyman law: decision time grows with the logarithm of the number of alternatives;
  zero with a single option, and for the ``first`` strategy, which does not weigh).
* the lognormal factor and the exponential tail give the right-skewed, ex-Gaussian-like
  distribution of human response times.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from blink.games.classic.bots.base import BotConfigError

__all__ = ["DEFAULT_LEVEL", "LEVELS", "Level", "get_level"]

_LOG2 = [0.0] + [math.log2(n) for n in range(1, 16)]
_TWOPI = 2.0 * math.pi
_log = math.log
_exp = math.exp
_sqrt = math.sqrt
_cos = math.cos
_sin = math.sin
_Random = random.Random


@dataclass(frozen=True, slots=True)
class Level:
    """A skill level: the parameters of the reaction-time model (seconds), a description and
    the fixed rating of its bots. Every level is registered once, in :data:`LEVELS`."""

    name: str
    mean_play: float
    """The nominal mean time per play (a solo pace with the ``first`` strategy, see docs)."""
    floor: float
    encode: float
    per_comparison: float
    per_bit: float
    sigma: float
    tau: float
    description: str
    """One line for people."""
    rating: float
    """The fixed rating (OpenSkill ``mu``) of the level's bots: see
    :data:`blink.ratings.BOT_RATINGS`, which reads it from here."""
    tournaments: bool = True
    """Whether the level's bots may enter bot tournaments (a random field of bots)."""
    title: str = ""
    """The level's name for people ("Skilled"): in a bot's name at the table."""
    policy: str = ""
    """A trained policy's weights file in this package, or "" (every level but ``trained``).
    A level with a policy plays it (:class:`~blink.games.classic.bots.trained.PolicyBot`),
    not the reaction-time model, whose parameters it leaves at zero: its bots look at the
    table once every ``mean_play`` seconds and play the policy's most likely legal action,
    and take no strategy but the default."""

    @property
    def display_name(self) -> str:
        """The title, or the name capitalised when the level has no title."""
        return self.title or self.name.capitalize()

    def sample(self, rng: random.Random, comparisons: float, options: int = 1) -> float:
        """One reaction time for a search of ``comparisons`` comparisons among ``options``."""
        work = self.encode + comparisons * self.per_comparison
        if options > 1:
            work += (_LOG2[options] if options < 16 else math.log2(options)) * self.per_bit
        t = self.floor
        if type(rng) is not _Random:  # a subclass may draw differently: use its methods
            if self.sigma > 0.0:
                t += work * math.exp(rng.gauss(0.0, self.sigma))
            else:
                t += work
            if self.tau > 0.0:
                t += rng.expovariate(1.0 / self.tau)
            return t
        # The same draws and arithmetic as ``rng.gauss(0.0, sigma)`` and
        # ``rng.expovariate(1.0 / tau)`` (CPython's random.py), inlined for speed.
        sigma = self.sigma
        if sigma > 0.0:
            z = rng.gauss_next  # type: ignore[attr-defined]
            rng.gauss_next = None  # type: ignore[attr-defined]
            if z is None:
                x2pi = rng.random() * _TWOPI
                g2rad = _sqrt(-2.0 * _log(1.0 - rng.random()))
                z = _cos(x2pi) * g2rad
                rng.gauss_next = _sin(x2pi) * g2rad  # type: ignore[attr-defined]
            t += work * _exp(0.0 + z * sigma)
        else:
            t += work
        tau = self.tau
        if tau > 0.0:
            t += -_log(1.0 - rng.random()) / (1.0 / tau)
        return t

    def scaled(self, speed: float) -> Level:
        """The same level ``speed`` times faster (every time divided by ``speed``)."""
        if speed == 1.0:
            return self
        return Level(
            f"{self.name}@{speed:g}",
            self.mean_play / speed,
            self.floor / speed,
            self.encode / speed,
            self.per_comparison / speed,
            self.per_bit / speed,
            self.sigma,
            self.tau / speed,
            self.description,
            self.rating,
            self.tournaments,
            self.title,
            self.policy,
        )


# Calibrated with ``blink.games.classic.sim.pace`` so that a bot using the ``first`` strategy,
# alone, plays a card every ``mean_play`` seconds on average
# (tests/games/classic/bots/test_reaction.py checks it). The
# ratings (the last column) are set from simulated games: see blink.ratings.BOT_RATINGS. A
# level for testing is kept out of bot tournaments (``tournaments=False``). The trained level
# plays a policy, not this model: its rating is the one the rating model gives a player who
# scores what it scored against champion:first, 83.75 % with ties as halves (docs/strategy.md).
# fmt: off
_LEVELS = (
    Level("beginner", 3.0, 0.2, 1.27, 0.139, 0.2, 0.45, 0.635, "learning the game", 10.0,
          title="Beginner"),
    Level("casual", 2.0, 0.2, 0.82, 0.0937, 0.15, 0.4, 0.41, "plays now and then", 25.0,
          title="Casual"),
    Level("skilled", 1.5, 0.2, 0.593, 0.0711, 0.12, 0.35, 0.296, "a practised player", 36.0,
          title="Skilled"),
    Level("expert", 1.2, 0.2, 0.481, 0.0541, 0.1, 0.3, 0.217, "a strong club player", 47.0,
          title="Expert"),
    Level("champion", 0.9, 0.2, 0.34, 0.04, 0.08, 0.25, 0.146, "the 27-second deck pace", 62.0,
          title="Champion"),
    Level("trained", 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, "a policy trained against the champion",
          68.0, tournaments=False, title="Trained", policy="trained.npz"),
    Level("inhuman", 0.015, 0.005, 0.005, 0.0005, 0.0005, 0.1, 0.002, "for testing", 90.0,
          tournaments=False, title="Inhuman"),
)
# fmt: on

LEVELS: Final[Mapping[str, Level]] = MappingProxyType({level.name: level for level in _LEVELS})
"""Every bot level by name, slowest first (read-only)."""

DEFAULT_LEVEL: Final = LEVELS["skilled"].name
"""The level of a bot when none is named (the terminal's and the browser's opponent)."""


def get_level(name: str) -> Level:
    """The bot level called ``name``.

    Raises :class:`~blink.games.classic.bots.base.BotConfigError` (field ``level``) for an
    unknown name, listing the known ones.
    """
    try:
        return LEVELS[name]
    except KeyError:
        allowed = tuple(LEVELS)
        raise BotConfigError(
            f"unknown bot level {name!r}; choose one of: {', '.join(allowed)}", "level", allowed
        ) from None

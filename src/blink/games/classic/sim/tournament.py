"""Classic Blink's bots in a tournament of bots (``blink tournament bots``): their specs, a
random field of them, and one game of a match played by the simulator.

The generic command (:mod:`blink.cli.tournament.bots`) runs the tournament; it finds this
module through the registry (the tournament's game's commands module,
:func:`blink.games.classic.cli.bot_tournament`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from blink.games.classic import bots
from blink.games.classic.bots import BotConfigError, BotSpec
from blink.games.classic.sim.core import simulate_game

__all__ = ["SpecError", "field", "parse_spec", "play", "rating_level"]

SpecError: Final = BotConfigError
"""What :func:`parse_spec` raises for a spec it cannot read (a ``ValueError``)."""


def parse_spec(text: str) -> BotSpec:
    """A bot entrant's spec, ``level:strategy`` (:class:`SpecError` otherwise)."""
    return BotSpec.parse(text)


def rating_level(spec: BotSpec) -> str:
    """The name a bot's fixed rating is read by (its level: :func:`blink.ratings.bot_rating`)."""
    return spec.level


def field(rng: random.Random, size: int) -> list[BotSpec]:
    """``size`` bots with levels and strategies drawn from ``rng`` (only the levels that may
    enter tournaments: :attr:`~blink.games.classic.bots.Level.tournaments`)."""
    # Read at each call: the registries may change (a test marks a level out of tournaments).
    levels = [name for name, lv in bots.LEVELS.items() if lv.tournaments]
    return [BotSpec(rng.choice(levels), rng.choice(sorted(bots.STRATEGIES))) for _ in range(size)]


def play(
    specs: Sequence[BotSpec], seed: int, sizes: Sequence[int] | None
) -> tuple[list[int], dict[str, Any]]:
    """One game between these bots, one per seat, deterministic for ``seed`` (``sizes``: each
    seat's draw pile, a handicap): the winning seats and the game's record (its JSON dict)."""
    g = simulate_game(list(specs), seed, sizes=sizes)
    return list(g.outcome.winners), g.record.to_dict()

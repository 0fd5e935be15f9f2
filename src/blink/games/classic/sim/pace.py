"""Measure a bot level's pace: its mean time per play when it plays alone.

The bot plays seat 0 of a two-player game whose other seat never plays; stalls are broken at
once (flips, or default choices), so only the bot's own reaction times count. This is how the
levels' ``mean_play`` figures were calibrated (see docs/bots.md).
"""

from __future__ import annotations

from blink.games.classic.bots import BotSpec
from blink.games.classic.definition import CLASSIC
from blink.sim.seeds import derive_seed

__all__ = ["measure_pace"]


def measure_pace(spec: BotSpec, games: int = 200, seed: int = 0) -> float:
    """The mean virtual seconds per play of ``spec`` playing alone over ``games`` games."""
    total_time = 0.0
    total_plays = 0
    for g in range(games):
        gseed = derive_seed(seed, "pace", g)
        game = CLASSIC.new(2, derive_seed(gseed, "deck"))
        bot = spec.build(0, derive_seed(gseed, "bot", 0))
        now = 0.0
        while not game.over:
            pending = CLASSIC.referee(game)
            if pending is not None:  # the table acts at once: the reveal, a flip, choices
                for _, action in pending.actions:
                    CLASSIC.apply(game, action)
                continue
            intent = bot.plan(game.view(0), now)
            if intent is None:
                # Only the statue seat could move: nothing will change, so let it flip.
                break
            now += intent.delay
            game.apply(intent.action)
            total_plays += 1
        total_time += now
    return total_time / max(1, total_plays)

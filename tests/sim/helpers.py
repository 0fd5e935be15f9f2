"""What the fast engine's tests share: bot specs from text, the settings it plays in full, and
the check that every game it played is a legal game of the rules engine with the same result."""

from __future__ import annotations

import math
from collections.abc import Sequence

from blink.games.classic.bots import BotSpec
from blink.games.classic.rules import DEAD_END, OFFICIAL, DeadEnd, Ruleset
from blink.games.classic.sim.core import SimConfig
from blink.games.classic.sim.fast import FastGame, replay


def bot_specs(*texts: str) -> tuple[BotSpec, ...]:
    """The bot specs written as text (``expert:blocker`` and so on)."""
    return tuple(BotSpec.parse(t) for t in texts)


def check_against_engine(
    games: Sequence[FastGame],
    ruleset: Ruleset = OFFICIAL,
    sizes: tuple[int, ...] | None = None,
    *,
    timed: bool = True,
) -> None:
    """Replay every game through ClassicGame: legal, and the same result in every detail
    (``timed``: the game's length is its last action's time, as for bots' races)."""
    for g in games:
        classic = replay(g, ruleset, sizes)
        res = g.result
        assert classic.over
        assert classic.outcome == res.outcome
        assert classic.plays == res.plays
        assert classic.stalls == res.stalls
        assert tuple(classic.cards_left(s) for s in range(classic.players)) == res.cards_left
        assert sum(res.plays_by_seat) == res.plays
        assert res.flips + res.choices + res.dead_ends == res.stalls
        times = [t for _, t in g.actions]
        assert times == sorted(times)
        if timed:
            assert math.isclose(res.duration * 1000, times[-1], abs_tol=1.0)


EARLIER_DEAD_END = Ruleset("dead-end-any-empty", DeadEnd.FEWEST_CARDS_ANY_EMPTY)
"""The dead-end ruling before it was limited to no draw pile left."""

TWO_CARD_HANDS = Ruleset("two", hand_size=2)

SETTINGS = [
    (bot_specs("expert:blocker", "expert:random"), OFFICIAL, None, SimConfig()),
    (bot_specs("champion:first", "beginner:flexible"), OFFICIAL, (25, 35), SimConfig()),
    (bot_specs("expert:first", "casual:blocker", "skilled:flexible"), DEAD_END, None, SimConfig()),
    (bot_specs("expert:blocker", "expert:random"), DEAD_END, None, SimConfig()),
    (bot_specs("inhuman:random", "expert:first@2", "beginner:random"), OFFICIAL, None, SimConfig()),
    # choosing stalls decided by the deadline: the default choices are exercised
    (bot_specs("beginner:blocker", "beginner:first"), OFFICIAL, None, SimConfig(0.0, 0.01)),
    (bot_specs("expert:flexible", "expert:flexible"), TWO_CARD_HANDS, None, SimConfig()),
    # the earlier dead-end ruling (records written under it still replay): a dead end as soon
    # as any draw pile is empty, with even and with uneven piles, so that one empties first
    (bot_specs("skilled:first", "casual:flexible"), EARLIER_DEAD_END, None, SimConfig()),
    (bot_specs("expert:first", "casual:random"), EARLIER_DEAD_END, (20, 40), SimConfig()),
]
"""(bots, ruleset, draw-pile sizes, simulation settings) that the fast engine plays in full."""

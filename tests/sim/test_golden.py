"""Pinned results: the figures in docs/strategy.md must reproduce from their commands.

If a test here fails after a change to the bots, the simulator or the engine (deal order, hand
slots, refills), the published numbers no longer reproduce: re-run the commands in
docs/strategy.md, update the document, then update the pins.
"""

from __future__ import annotations

import pytest

from blink.games.classic.bots import BotSpec
from blink.games.classic.sim import simulate_game

E = [BotSpec.parse("expert:blocker"), BotSpec.parse("expert:random")]


@pytest.mark.parametrize(
    ("seed", "winners", "plays", "duration"),
    [
        (1, (0,), 56, 63.611371),
        (2, (1,), 54, 58.920596),
        (3, (1,), 54, 59.827073),
    ],
)
def test_pinned_games(seed: int, winners: tuple[int, ...], plays: int, duration: float) -> None:
    g = simulate_game(E, seed)
    assert (g.outcome.winners, g.plays, round(g.duration, 6)) == (winners, plays, duration)


def test_pinned_handicap_game() -> None:
    g = simulate_game([BotSpec.parse("champion"), BotSpec.parse("beginner")], 7, sizes=(50, 10))
    assert (g.outcome.winners, g.plays, round(g.duration, 6), g.won_from_behind) == (
        (0,),
        57,
        59.133171,
        True,
    )

"""BotRace: the simulator's loop advanced in slices of time is the same game as play_game."""

from __future__ import annotations

import pytest

from blink.games.classic.bots import Bot, BotSpec
from blink.games.classic.engine import ClassicGame
from blink.games.classic.sim.core import BotRace, play_game
from blink.sim.seeds import derive_seed


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("slice_seconds", [0.1, 0.37, 5.0])
def test_slices_play_the_same_game(seed: int, slice_seconds: float) -> None:
    specs = [BotSpec.parse("expert:blocker"), BotSpec.parse("champion:random")]
    if seed % 2:
        specs.append(BotSpec.parse("skilled:first"))

    def game() -> ClassicGame:
        return ClassicGame.new(len(specs), derive_seed(seed, "deck"))

    def bots() -> dict[int, Bot]:
        return {i: s.build(i, derive_seed(seed, "bot", i)) for i, s in enumerate(specs)}

    whole = game()
    play_game(whole, list(bots().values()), seed)
    sliced = game()
    race = BotRace(sliced, bots(), seed)
    steps = 0
    while not sliced.over:
        steps += 1
        race.advance(steps * slice_seconds)
        assert steps < 100_000
    assert sliced.history == whole.history
    assert sliced.outcome == whole.outcome


def test_an_outside_seat_acts_through_the_engine() -> None:
    game = ClassicGame.new(2, 3)
    race = BotRace(game, {1: BotSpec.parse("beginner").build(1, 1)}, 3)
    plays = game.legal_plays(0)
    assert plays, "seed 3 deals seat 0 a play at the reveal"
    events = race.act(plays[0])
    assert events and game.plays == 1
    race.advance(30.0)
    assert race.now == 30.0 or game.over

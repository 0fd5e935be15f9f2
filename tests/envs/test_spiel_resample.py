"""Go Blink's resample_from_infostate: consistent deals drawn from the information set's
constraints, never an error; OpenSpiel's ISMCTS plays whole games with it."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel", reason="the envs extra: pip install -e '.[envs]'")

import blink.envs.spiel  # noqa: E402,F401 - registers the games


def _step(state: Any, rng: random.Random) -> None:
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(outcomes, probs)[0])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.sampled_from([2, 3, 4]),
    moves=st.integers(0, 150),
    viewer=st.integers(0, 5),
)
def test_every_resampled_state_keeps_the_information_state(
    seed: int, players: int, moves: int, viewer: int
) -> None:
    game = pyspiel.load_game("python_go_blink", {"players": players, "turn_limit": 40})
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal() and (state.is_chance_node() or len(state.moves) < moves):
        _step(state, rng)
    if state.is_terminal():
        return
    seat = viewer % players
    for _ in range(3):
        found = state.resample_from_infostate(seat, rng.random)
        assert found.information_state_string(seat) == state.information_state_string(seat)
        assert found.information_state_tensor(seat) == state.information_state_tensor(seat)
        if seat == state.current_player():  # the seat's own choices are its own cards'
            assert found.legal_actions() == state.legal_actions()


@pytest.mark.parametrize(("players", "games"), [(2, 2), (3, 1)])
def test_ismcts_plays_whole_games(players: int, games: int) -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_go_blink", {"players": players, "turn_limit": 10})
    rs = np.random.RandomState(players)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=6, random_state=rs)
    rng = random.Random(players)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                _step(state, rng)
                continue
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        assert sum(state.returns()) == 0 or players > 2

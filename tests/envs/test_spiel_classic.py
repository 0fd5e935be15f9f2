"""Classic Blink as an OpenSpiel game: OpenSpiel's own random simulation test, chance as
explicit card deals and play orders, the steps of the PettingZoo environment, and
observations that are the seat's view."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the envs extra: pip install -e '.[envs]'")

import blink.envs.spiel  # noqa: E402  (registers the games)
from blink.cards import STANDARD_DECK  # noqa: E402
from blink.envs import classic_v0  # noqa: E402
from blink.games.classic.envs.codec import WAIT  # noqa: E402
from blink.model.registry import front_end  # noqa: E402

NAME = "python_blink_classic"


def _load(players: int, max_steps: int = 300) -> Any:
    return pyspiel.load_game(NAME, {"players": players, "max_steps": max_steps})


def _step(state: Any, rng: random.Random) -> None:
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(outcomes, probs)[0])
    else:
        state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(state.players)])


def test_registered_through_the_registry() -> None:
    assert front_end("classic").spiel_name == NAME
    assert NAME in blink.envs.spiel.spiel_games()
    game = _load(2)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS


@pytest.mark.parametrize("players", [2, 3])
def test_random_sim_test(players: int) -> None:
    pyspiel.random_sim_test(_load(players), num_sims=2, serialize=True, verbose=False)


def test_chance_deals_and_orders() -> None:
    rng = random.Random(3)
    state = _load(2).new_initial_state()
    for _ in range(len(STANDARD_DECK)):
        assert state.is_chance_node()
        _step(state, rng)
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    while True:  # both seats play in the same step: chance orders the two plays
        plays = [[a for a in state.legal_actions(p) if a != WAIT] for p in (0, 1)]
        if all(plays):
            break
        _step(state, rng)
    state.apply_actions([plays[0][0], plays[1][0]])
    assert state.is_chance_node()
    assert [p for _, p in state.chance_outcomes()] == [0.5, 0.5]


def test_the_steps_are_the_environments() -> None:
    """The same deal, the same plays in the same order: the OpenSpiel state and the PettingZoo
    environment give every seat the same observation and mask."""
    rng = random.Random(8)
    state = _load(2).new_initial_state()
    while state.is_chance_node():
        _step(state, rng)
    env = classic_v0.parallel_env(players=2)
    env.reset(seed=0)
    env.start(env.game.new(2, deck=[STANDARD_DECK[i] for i in state.cards], options=env.options))
    observations = {a: env.observe(a) for a in env.agents}
    for _ in range(80):
        if state.is_terminal():
            break
        for seat, agent in enumerate(env.possible_agents):
            mask = observations[agent]["action_mask"]
            assert state.legal_actions(seat) == np.flatnonzero(mask).tolist()
            seen = observations[agent]["observation"]
            assert np.array_equal(state.observation_tensor(seat), seen)
        _step(state, rng)
        if state.is_chance_node():
            _step(state, rng)
        moves = [(env.possible_agents[s], i) for s, i in state.steps[-1]]
        env.advance(moves)
        observations = {a: env.observe(a) for a in env.possible_agents}


def test_max_steps_ends_without_a_winner() -> None:
    rng = random.Random(1)
    state = _load(2, max_steps=5).new_initial_state()
    while not state.is_terminal():
        _step(state, rng)
    assert len(state.steps) == 5
    assert state.returns() == [0.0, 0.0]

"""The PettingZoo environments' global state, for centralised critics."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the envs extra: pip install -e '.[envs]'")

from blink.cards import STANDARD_DECK
from blink.envs import classic_v0, goblink_v0
from blink.envs.encoding import DECK_INDEX

pz = importlib.import_module("pettingzoo.test.state_test")  # the module, not its function


def _cards(part: np.ndarray) -> set[int]:
    return set(np.flatnonzero(part).tolist())


@pytest.mark.parametrize("players", [2, 3])
def test_classic_state_passes_pettingzoo_state_test(players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pz.state_test(
            classic_v0.env(players=players), classic_v0.parallel_env(players=players), 200
        )


@pytest.mark.parametrize("players", [2, 4])
def test_goblink_state_passes_pettingzoo_state_test(players: int) -> None:
    env = goblink_v0.env(players=players)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pz.test_state_space(env)
        pz.test_state(env, 200)


def test_classic_state_is_every_observation_and_the_draw_piles() -> None:
    env = classic_v0.parallel_env(players=3)
    with pytest.raises(RuntimeError, match="reset"):
        env.state()
    observations, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    size = env.codec.size
    for _ in range(60):
        state = env.state()
        assert env.state_space.contains(state)
        for s, agent in enumerate(env.possible_agents):
            obs = observations[agent]["observation"]
            assert np.array_equal(state[s * size : (s + 1) * size], obs)
            part = state[3 * size + 60 * s : 3 * size + 60 * (s + 1)]
            assert _cards(part) == {DECK_INDEX[c] for c in env.state_.draw_pile(s)}
        actions = {
            a: rng.choice(np.flatnonzero(observations[a]["action_mask"])) for a in env.agents
        }
        observations, *_ = env.step(actions)
        if not env.agents:
            break


def test_goblink_state_is_every_observation_and_the_draw_pile() -> None:
    env = goblink_v0.env(players=4)
    env.reset(seed=2)
    size = env.codec.size
    rng = np.random.default_rng(1)
    for _agent in env.agent_iter(200):
        state = env.state()
        assert state.shape == (4 * size + len(STANDARD_DECK),)
        for s, a in enumerate(env.possible_agents):
            assert np.array_equal(state[s * size : (s + 1) * size], env.observe(a)["observation"])
        assert _cards(state[4 * size :]) == {DECK_INDEX[c] for c in env.state_.draw_pile()}
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else rng.choice(np.flatnonzero(obs["action_mask"]))
        env.step(action)

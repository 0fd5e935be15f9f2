"""Deterministic policies can loop in Go Blink (the same card asked for and passed back and
forth while the draw pile is not empty: no quiet round ever comes). The environments' turn
limit ends such games, with a winner by the fewest cards."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the envs extra: pip install -e '.[envs]'")

import blink.envs  # noqa: E402,F401 - registers the ids
from blink.envs import goblink_v0  # noqa: E402
from blink.games.goblink.bots import make_gobot  # noqa: E402
from blink.games.goblink.envs.codec import DEFAULT_TURN_LIMIT  # noqa: E402


@pytest.mark.parametrize("pick", [0, -1])  # the lowest legal index, or the highest
def test_a_deterministic_policy_against_the_remembering_bot_ends(pick: int) -> None:
    env = gymnasium.make("blink/GoBlink-v0", players=2, opponents="memory").unwrapped
    outcomes = set()
    for seed in range(30):
        obs, _ = env.reset(seed=seed)
        for _ in range(DEFAULT_TURN_LIMIT * 20):
            obs, _, terminated, truncated, info = env.step(np.flatnonzero(obs["action_mask"])[pick])
            assert not truncated, f"seed {seed}: truncated"
            if terminated:
                break
        assert terminated, f"seed {seed}: still looping"
        assert env.state_.turns <= DEFAULT_TURN_LIMIT
        outcomes.add(info["outcome"])
    if pick == 0:  # the lowest index loops (seed 1: red asked for and passed back and forth)
        assert "turn_limit" in outcomes


def test_the_loop_ends_in_the_aec_environment_too() -> None:
    """player_1 is the remembering bot, acting on its seat's view; player_0 a fixed policy."""
    env = goblink_v0.env(players=2)
    outcomes = []
    for seed in range(30):
        env.reset(seed=seed)
        bot = make_gobot("memory", 1, seed)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            assert not truncated, f"seed {seed}: truncated"
            if terminated:
                action = None
            elif agent == "player_1":
                action = env.unwrapped.codec.index(bot.act(env.unwrapped.seat_view(agent)))
            else:
                action = int(np.flatnonzero(obs["action_mask"])[0])
            env.step(action)
        assert env.state_.over
        assert env.state_.turns <= DEFAULT_TURN_LIMIT
        outcomes.append(info["outcome"])
    assert "turn_limit" in outcomes

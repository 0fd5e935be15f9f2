"""Classic Blink's inactivity rule in the environments: a game nobody plays in ends."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the envs extra: pip install -e '.[envs]'")

import gymnasium

import blink.envs  # noqa: F401 - registers the ids
from blink.envs import classic_v0
from blink.games.classic.envs.codec import WAIT

IDLE_STEPS = 100  # 10 virtual seconds of 0.1 s steps


def _waiting(env: Any, seed: int) -> tuple[int, dict[str, Any], dict[str, float], int]:
    """Every agent waits at every step; the steps, the last infos, the rewards and the step of
    the last change of the table."""
    env.reset(seed=seed)
    steps = last_change = 0
    seen = len(env.state_.events)
    while env.agents:
        _, rewards, terminations, truncations, infos = env.step(dict.fromkeys(env.agents, WAIT))
        steps += 1
        assert not any(truncations.values()), f"seed {seed}: truncated at step {steps}"
        now = len(env.state_.events)
        if now != seen and not any(terminations.values()):
            seen, last_change = now, steps
    return steps, infos, rewards, last_change


@pytest.mark.parametrize(
    ("players", "ruleset"), [(2, "official"), (3, "official"), (2, "dead-end")]
)
def test_a_game_nobody_plays_ends_within_the_idle_time(players: int, ruleset: str) -> None:
    env = classic_v0.parallel_env(players=players, ruleset=ruleset)
    for seed in range(12):
        steps, infos, rewards, last_change = _waiting(env, seed)
        assert steps <= 1_000, f"seed {seed}: {steps} steps"
        state = env.state_
        assert state.over
        info = next(iter(infos.values()))
        if info.get("idle"):
            # ten seconds after the table last changed, the fewest cards win
            assert steps - last_change == IDLE_STEPS
            assert info["outcome"] == "fewest_cards"
            left = [state.cards_left(p) for p in range(players)]
            winners = {f"player_{p}" for p in range(players) if left[p] == min(left)}
            assert {a for a, r in rewards.items() if r >= 0} == winners


def test_a_seat_that_never_plays_cannot_hold_the_others() -> None:
    env = classic_v0.parallel_env(players=2)
    ended_by_idle = 0
    for seed in range(10):
        obs, _ = env.reset(seed=seed)
        steps = 0
        rewards: dict[str, float] = {}
        infos: dict[str, Any] = {}
        while env.agents:
            mask = obs["player_1"]["action_mask"]
            plays = [i for i in np.flatnonzero(mask) if i != WAIT]
            actions = {"player_0": WAIT, "player_1": plays[0] if plays else WAIT}
            obs, rewards, _, truncations, infos = env.step(actions)
            steps += 1
            assert not any(truncations.values())
        assert steps <= 2_000
        assert rewards["player_1"] >= rewards["player_0"]
        ended_by_idle += bool(infos["player_0"].get("idle"))
    assert ended_by_idle  # some deals leave player_0 the only one who can play


def test_the_idle_time_is_an_option() -> None:
    env = classic_v0.parallel_env(idle_seconds=3.0)
    env.reset(seed=1)
    steps = 0
    while env.agents:
        env.step(dict.fromkeys(env.agents, WAIT))
        steps += 1
    assert steps <= 1_000
    with pytest.raises(ValueError, match="idle"):
        classic_v0.parallel_env(idle_seconds=0)


def test_a_waiting_agent_against_bots_ends() -> None:
    env = gymnasium.make("blink/Classic-v0", bots="beginner:first")
    for seed in range(6):
        env.reset(seed=seed)
        for steps in range(1, 5_001):  # noqa: B007 - the count is asserted
            _, reward, terminated, truncated, info = env.step(WAIT)
            assert not truncated
            if terminated:
                break
        assert terminated, f"seed {seed}: not over after {steps} steps"
        assert reward <= 0
        assert info.get("idle") or info["outcome"] == "out_of_cards"


def test_openspiel_classic_ends_when_nobody_plays() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import blink.envs.spiel  # noqa: F401 - registers the games

    game = pyspiel.load_game("python_blink_classic", {"players": 2})
    rng = random.Random(3)
    state = game.new_initial_state()
    nodes = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_actions([WAIT] * game.num_players())
        nodes += 1
    assert nodes < 60 + 1_000

"""Gymnasium's own environment checker on the single-seat environments, and their bots."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the envs extra: pip install -e '.[envs]'")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import blink.envs  # noqa: E402,F401 - registers the ids
from blink.games.classic.envs.codec import WAIT  # noqa: E402


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("blink/GoBlink-v0", {}),
        ("blink/GoBlink-v0", {"players": 4, "opponents": ["random", "greedy", "memory"]}),
        ("blink/Classic-v0", {}),
        ("blink/Classic-v0", {"players": 3, "bots": "champion:blocker", "seat": 1}),
    ],
)
def test_check_env(env_id: str, kwargs: dict[str, Any]) -> None:
    env = gymnasium.make(env_id, render_mode="ansi", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's warnings are failures here
        check_env(env.unwrapped)


def test_goblink_opponents_may_be_the_master_bot() -> None:
    env = gymnasium.make("blink/GoBlink-v0", players=2, opponents="master", turn_limit=80)
    rng = random.Random(5)
    obs, _ = env.reset(seed=11)
    done = False
    for _ in range(5_000):
        action = rng.choice(np.flatnonzero(obs["action_mask"].view(bool)).tolist())
        obs, _reward, terminated, truncated, _info = env.step(action)
        if terminated or truncated:
            done = True
            break
    assert done
    with pytest.raises(ValueError, match="master"):
        gymnasium.make("blink/GoBlink-v0", opponents="grandmaster")


def _episode(env: Any, seed: int, policy_seed: int) -> list[Any]:
    rng = random.Random(policy_seed)
    obs, _ = env.reset(seed=seed)
    out: list[Any] = [obs["observation"].tobytes()]
    for _ in range(5_000):
        action = rng.choice(np.flatnonzero(obs["action_mask"].view(bool)).tolist())
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, info))
        if terminated or truncated:
            break
    return out


@pytest.mark.parametrize("env_id", ["blink/GoBlink-v0", "blink/Classic-v0"])
def test_same_seed_same_episode(env_id: str) -> None:
    first = _episode(gymnasium.make(env_id), 11, 3)
    again = _episode(gymnasium.make(env_id), 11, 3)
    other = _episode(gymnasium.make(env_id), 12, 3)
    assert first == again
    assert first != other


def test_classic_bots_play_in_virtual_time() -> None:
    """An agent that plays a card every three seconds loses to a bot at the champion's pace
    (about 0.9 s a card), which plays most of the cards."""
    env = gymnasium.make("blink/Classic-v0", bots="champion:first", step_seconds=0.5)
    obs, _ = env.reset(seed=5)
    steps = 0
    while True:
        legal = np.flatnonzero(obs["action_mask"].view(bool)).tolist()
        action = legal[-1] if steps % 6 == 5 else WAIT
        obs, reward, terminated, truncated, _ = env.step(action)
        steps += 1
        if terminated or truncated:
            break
    assert terminated and reward == -1.0
    state = env.unwrapped.state_
    assert state.cards_left(1) == 0 < state.cards_left(0)
    assert 10 < steps * 0.5 < 200  # tens of virtual seconds


def test_goblink_refused_action_changes_nothing() -> None:
    env = gymnasium.make("blink/GoBlink-v0")
    obs, _ = env.reset(seed=2)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    again, reward, terminated, _, info = env.step(illegal)
    assert info["refused"]["code"]
    assert reward == 0.0 and not terminated
    assert (again["observation"] == obs["observation"]).all()


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("blink/GoBlink-v0", {"players": 3}),
        ("blink/Classic-v0", {"handicap": [14, 14], "bots": "champion:blocker"}),
    ],
)
def test_observations_are_the_agents_view(env_id: str, kwargs: dict[str, Any]) -> None:
    """Against bots too, the agent observes its seat's view and nothing else."""
    env = gymnasium.make(env_id, **kwargs).unwrapped
    rng = random.Random(4)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        for _ in range(3_000):
            view = env.game.view(env.state_, env.seat)
            assert np.array_equal(obs["observation"], env.codec.observe(view))
            action = rng.choice(np.flatnonzero(obs["action_mask"].view(bool)).tolist())
            obs, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break

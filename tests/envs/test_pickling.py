"""Environments pickled mid-episode continue exactly as the originals (multiprocessing vector
environments and checkpoints copy them this way)."""

from __future__ import annotations

import pickle
import random
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the envs extra: pip install -e '.[envs]'")

import blink.envs  # noqa: E402,F401 - registers the ids


def _run(env: Any, rng: random.Random, obs: Any, steps: int) -> list[Any]:
    out: list[Any] = []
    for _ in range(steps):
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        obs, reward, terminated, truncated, info = env.step(action)
        out.append((obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, info))
        if terminated or truncated:
            obs, _ = env.reset()
            out.append(obs["observation"].tobytes())
    return out


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("blink/Classic-v0", {}),
        ("blink/Classic-v0", {"players": 3, "bots": ["champion:blocker", "beginner:random"]}),
        ("blink/GoBlink-v0", {"opponents": "memory"}),
    ],
)
def test_a_single_seat_environment_pickled_mid_episode_continues_identically(
    env_id: str, kwargs: dict[str, Any]
) -> None:
    env = gymnasium.make(env_id, **kwargs).unwrapped
    obs, _ = env.reset(seed=5)
    rng = random.Random(1)
    _run(env, rng, obs, 40)
    obs = env.observe()
    copy = pickle.loads(pickle.dumps(env))
    state = rng.getstate()
    ahead = _run(env, rng, obs, 300)
    rng.setstate(state)
    assert _run(copy, rng, copy.observe(), 300) == ahead


def test_the_parallel_classic_environment_pickled_mid_episode_continues_identically() -> None:
    from blink.envs import classic_v0

    env = classic_v0.parallel_env(players=3)
    observations, _ = env.reset(seed=2)
    for _ in range(30):
        actions = {
            a: env.action_space(a).sample(observations[a]["action_mask"]) for a in env.agents
        }
        observations, *_ = env.step(actions)
    copy = pickle.loads(pickle.dumps(env))
    runs = []
    for e in (env, copy):
        r = np.random.default_rng(9)
        obs, seen = observations, []
        while e.agents:
            acts = {a: int(r.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in e.agents}
            obs, rewards, _, _, infos = e.step(acts)
            seen.append(({a: o["observation"].tobytes() for a, o in obs.items()}, rewards, infos))
        runs.append(seen)
    assert runs[0] == runs[1]

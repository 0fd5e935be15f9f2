"""PettingZoo's own conformance tests on both games' environments."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the envs extra: pip install -e '.[envs]'")

from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
)

from blink.envs import classic_v0, goblink_v0


@pytest.fixture(autouse=True)
def _known_warnings() -> Iterator[None]:
    """The API test's advice for dictionary observations (PettingZoo's own classic
    environments get it too: they are listed as exceptions by name) is not a failure."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        yield


@pytest.mark.parametrize("players", [2, 4, 6])
def test_goblink_api(players: int) -> None:
    api_test(goblink_v0.env(players=players), num_cycles=300)


def test_goblink_seed() -> None:
    seed_test(lambda: goblink_v0.env(players=3), num_cycles=300)


def test_goblink_render() -> None:
    def make(render_mode: str | None = None) -> Any:
        return goblink_v0.env(players=2, render_mode=render_mode)

    render_test(make)


@pytest.mark.parametrize("players", [2, 3])
def test_classic_parallel_api(players: int) -> None:
    parallel_api_test(classic_v0.parallel_env(players=players), num_cycles=1000)


@pytest.mark.parametrize("players", [2, 3])
def test_classic_aec_api(players: int) -> None:
    api_test(classic_v0.env(players=players), num_cycles=300)


@pytest.mark.parametrize("players", [2, 3])
def test_classic_seed(players: int) -> None:
    parallel_seed_test(lambda: classic_v0.parallel_env(players=players))
    seed_test(lambda: classic_v0.env(players=players), num_cycles=300)


def test_classic_max_cycles() -> None:
    max_cycles_test(classic_v0)


def test_classic_render() -> None:
    def make(render_mode: str | None = None) -> Any:
        return classic_v0.env(players=3, render_mode=render_mode)

    render_test(make)


@pytest.mark.parametrize("options", [{"ruleset": "dead-end"}, {"handicap": "35:25"}])
def test_classic_options(options: dict[str, Any]) -> None:
    parallel_api_test(classic_v0.parallel_env(players=2, **options), num_cycles=300)


def test_goblink_refusals_are_values_and_end_in_truncation() -> None:
    """An agent ignoring the mask is refused with the engine's code, and truncated in time."""
    env = goblink_v0.env(players=2, max_cycles=5)
    env.reset(seed=1)
    codes = set()
    for agent in env.agent_iter(100):
        obs, _, terminated, truncated, info = env.last()
        codes.update([info["refused"]["code"]] if "refused" in info else [])
        if terminated or truncated:
            env.step(None)
            continue
        illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        env.step(illegal)
        assert agent in env.agents
    assert not env.agents  # everyone truncated after 5 x 2 actions
    assert codes and all(isinstance(c, str) for c in codes)

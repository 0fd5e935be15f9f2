"""The classic ParallelEnv's order of several plays in one step: shuffled by the episode's
seed, or by reaction times drawn from the bots' model of each agent's level."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the envs extra: pip install -e '.[envs]'")

from pettingzoo.test import parallel_api_test, parallel_seed_test

from blink.envs import classic_v0
from blink.games.classic.actions import Play
from blink.games.classic.bots import BotConfigError
from blink.games.classic.envs.codec import WAIT

SEEDS = range(40)


def _play_or_wait(observation: dict[str, Any]) -> int:
    """The first legal play (the lowest action number but waiting), else wait."""
    legal = np.flatnonzero(observation["action_mask"])
    plays = [int(a) for a in legal if a != WAIT]
    return plays[0] if plays else WAIT


def _race_wins(env: Any, seeds: range) -> list[int]:
    """Both agents play whenever they can: how many times each seat's play was applied first
    of a step where both played, over episodes of ``seeds`` (at most 400 steps each)."""
    wins = [0, 0]
    for seed in seeds:
        observations, _ = env.reset(seed=seed)
        for _ in range(400):
            if not env.agents:
                break
            actions = {a: _play_or_wait(observations[a]) for a in env.agents}
            before = len(env.state_.history)
            observations, *_ = env.step(actions)
            if all(x != WAIT for x in actions.values()):
                plays = [a for a, _ in env.state_.history[before:] if type(a) is Play]
                if plays:
                    wins[plays[0].player] += 1
    return wins


def test_a_faster_level_wins_more_races() -> None:
    fast_first = _race_wins(
        classic_v0.parallel_env(order="reaction", reaction_level=["champion", "beginner"]), SEEDS
    )
    fast_second = _race_wins(
        classic_v0.parallel_env(order="reaction", reaction_level=["beginner", "champion"]), SEEDS
    )
    shuffled = _race_wins(classic_v0.parallel_env(), SEEDS)
    for wins in (fast_first, fast_second, shuffled):
        assert sum(wins) >= 200, "too few races to compare"
    assert fast_first[0] / sum(fast_first) > 0.75
    assert fast_second[1] / sum(fast_second) > 0.75
    assert 0.35 < shuffled[0] / sum(shuffled) < 0.65


def test_neighbouring_levels_and_equal_levels() -> None:
    closer = _race_wins(
        classic_v0.parallel_env(order="reaction", reaction_level=["expert", "skilled"]), SEEDS
    )
    assert closer[0] / sum(closer) > 0.6
    wins = _race_wins(classic_v0.parallel_env(order="reaction", reaction_level="expert"), SEEDS)
    assert 0.35 < wins[0] / sum(wins) < 0.65


def _episode(env: Any, seed: int) -> list[Any]:
    rng = random.Random(seed)
    observations, _ = env.reset(seed=seed)
    for _ in range(300):
        if not env.agents:
            break
        actions = {
            a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in env.agents
        }
        observations, *_ = env.step(actions)
    return list(env.state_.history)


@pytest.mark.parametrize("players", [2, 3])
def test_the_same_seed_gives_the_same_episode(players: int) -> None:
    env = classic_v0.parallel_env(players=players, order="reaction", reaction_level="casual")
    first = _episode(env, 11)
    assert first == _episode(env, 11)
    assert first != _episode(env, 12)


@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_checks_with_reaction_order(players: int) -> None:
    parallel_api_test(
        classic_v0.parallel_env(players=players, order="reaction", reaction_level="champion"),
        num_cycles=300,
    )
    levels = ["expert", "beginner", "skilled"][:players]
    parallel_seed_test(
        lambda: classic_v0.parallel_env(players=players, order="reaction", reaction_level=levels)
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"order": "fastest"}, "order must be one of shuffle, reaction, not 'fastest'"),
        ({"reaction_level": "expert"}, 'reaction_level applies to order="reaction" only'),
        (
            {"order": "reaction", "reaction_level": ["expert"] * 3},
            "reaction_level names one level or 2, not 3",
        ),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        classic_v0.parallel_env(**options)


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(BotConfigError, match="unknown bot level 'pro'") as caught:
        classic_v0.parallel_env(order="reaction", reaction_level="pro")
    assert caught.value.field == "level"

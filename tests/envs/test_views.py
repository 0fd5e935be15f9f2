"""Observations are views, not state: nothing an agent observes is a card its seat may not see.

Random episodes of every environment; at every step, for every agent:

* the observation is exactly the encoding of the seat's view from the game definition (the
  redaction the server sends), so it is a function of what the seat may know;
* no card named by the observation (its per-card sections) is among the definition's
  ``hidden_cards`` for that seat;

and the episodes go through stalls (flips and choosing stalls) and Go Blink passes, so the test
covers the moments where a card changes hands or lies face down.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pettingzoo", reason="the envs extra: pip install -e '.[envs]'")

from blink.cards import STANDARD_DECK, Card
from blink.envs import classic_v0, goblink_v0
from blink.games.goblink.actions import Passed
from blink.games.goblink.envs.codec import GoCodec

DECK = len(STANDARD_DECK)


def _pick(mask: np.ndarray[Any, Any], rng: random.Random) -> int:
    return int(rng.choice(np.flatnonzero(mask.view(bool)).tolist()))


def _go_cards(env: goblink_v0.raw_env, obs: np.ndarray[Any, Any]) -> set[Card]:
    """The cards named by a Go Blink observation: hand, matches laid down, passes."""
    c = env.codec
    sections = [obs[0:DECK], obs[DECK : 2 * DECK]]
    sections += [
        obs[c._given + i * DECK : c._given + (i + 1) * DECK] for i in range(2 * (c.players - 1))
    ]
    return {STANDARD_DECK[i] for s in sections for i in np.flatnonzero(s)}


def _classic_cards(env: classic_v0.raw_env, obs: np.ndarray[Any, Any]) -> set[Card]:
    """The cards named by a classic observation's section of face-up cards."""
    seen = obs[env.codec._seen : env.codec._seen + DECK]
    return {STANDARD_DECK[i] for i in np.flatnonzero(seen)}


def _check_go(env: goblink_v0.raw_env, agent: str, obs: dict[str, Any]) -> None:
    seat = env._seat[agent]
    state = env.state_
    view = env.game.view(state, seat)
    fresh = GoCodec(env.players, env.codec.ask_window).observe(view)
    assert np.array_equal(obs["observation"], fresh), "the observation is not the view's"
    hidden = env.game.hidden_cards(state, seat)
    assert not (_go_cards(env, obs["observation"]) & hidden), "an observation shows a hidden card"
    for card in view.hand:
        assert card not in hidden


def _play_checking_go_views(seed: int, players: int) -> int:
    """A random Go Blink episode, every agent's observation checked at every step; the
    number of passes it had (cards that changed hands)."""
    env = goblink_v0.raw_env(players=players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _agent in env.agent_iter(3_000):
        for other in env.agents:
            _check_go(env, other, env.observe(other))
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else _pick(obs["action_mask"], rng))
    return sum(isinstance(e, Passed) for e in env.state_.events)


@settings(max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6))
def test_goblink_observations_are_views(seed: int, players: int) -> None:
    # A random game may pass no card at all (every ask missed): the checks still hold.
    _play_checking_go_views(seed, players)


@pytest.mark.parametrize("players", [2, 4])
def test_goblink_view_checks_see_cards_change_hands(players: int) -> None:
    """The checks above are not vacuous: these episodes pass cards, checked after it."""
    assert _play_checking_go_views(7, players) > 0


def _check_classic(env: classic_v0.raw_env, agent: str, obs: dict[str, Any]) -> None:
    seat = env._seat[agent]
    state = env.state_
    view = env.game.view(state, seat)
    assert np.array_equal(obs["observation"], env.codec.observe(view))
    legal = env.game.legal_actions(state, seat)
    assert np.array_equal(obs["action_mask"], env.codec.mask(legal, view))
    hidden = env.game.hidden_cards(state, seat)
    assert not (_classic_cards(env, obs["observation"]) & hidden)
    assert not (set(view.hand) & hidden)
    if view.my_choice is not None:
        assert view.my_choice not in hidden


@settings(max_examples=15)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 3),
    ruleset=st.sampled_from(["official", "dead-end"]),
    small=st.booleans(),
)
def test_classic_observations_are_views(seed: int, players: int, ruleset: str, small: bool) -> None:
    # Small draw piles empty early: choosing stalls (or dead ends) come often.
    handicap = [7] * players if small else None
    env = classic_v0.raw_env(players=players, ruleset=ruleset, handicap=handicap)
    observations, _ = env.reset(seed=seed)
    rng = random.Random(seed)
    while env.agents:
        for agent, obs in observations.items():
            _check_classic(env, agent, obs)
        # Slow agents (mostly waiting) let the table stall now and then.
        actions = {
            a: _pick(o["action_mask"], rng) if rng.random() < 0.3 else 0
            for a, o in observations.items()
        }
        observations, *_ = env.step(actions)
        for agent, obs in observations.items():
            _check_classic(env, agent, obs)


def test_classic_stalls_are_covered() -> None:
    """Episodes like those above go through flips and choosing stalls (small draw piles)."""
    flips = choices = 0
    for seed in range(30):
        env = classic_v0.raw_env(players=2, handicap=[12, 12])
        observations, _ = env.reset(seed=seed)
        rng = random.Random(seed)
        while env.agents:
            observations, *_ = env.step(
                {a: _pick(o["action_mask"], rng) for a, o in observations.items()}
            )
            if env.state_.phase.value == "choosing":
                choices += 1
                for agent, obs in observations.items():
                    _check_classic(env, agent, obs)
        flips += sum(type(e).__name__ == "Flipped" for e in env.state_.events)
    assert flips > 0 and choices > 0


@pytest.mark.parametrize("module", [goblink_v0, classic_v0])
def test_same_seed_same_episode(module: Any) -> None:
    def run(seed: int) -> list[Any]:
        env = module.env()
        env.reset(seed=seed)
        rng = random.Random(1)
        out: list[Any] = []
        for agent in env.agent_iter(400):
            obs, reward, terminated, truncated, _ = env.last()
            out.append((agent, obs["observation"].tobytes(), reward))
            env.step(None if terminated or truncated else _pick(obs["action_mask"], rng))
        return out

    assert run(5) == run(5)
    assert run(5) != run(6)

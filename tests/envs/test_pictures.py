"""``render_mode="rgb_array"``: the seat's cards drawn as pictures, one size per game."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the envs extra: pip install -e '.[envs]'")

import blink.envs  # noqa: E402,F401 - registers the ids
from blink.cards import STANDARD_DECK, Card  # noqa: E402
from blink.envs import classic_v0, goblink_v0  # noqa: E402
from blink.envs.pictures import CARD_HEIGHT, CARD_WIDTH, card_image  # noqa: E402


def _frames(env: Any, steps: int) -> list[np.ndarray]:
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(2)
    frames = [env.render()]
    for _ in range(steps):
        obs, _, terminated, truncated, _ = env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
        frames.append(env.render())
        if terminated or truncated:
            break
    return frames


def _check(frames: list[np.ndarray]) -> None:
    shape = frames[0].shape
    assert len(shape) == 3 and shape[2] == 3
    for f in frames:
        assert f.dtype == np.uint8 and f.shape == shape
    assert len({f.tobytes() for f in frames}) > 1  # different states draw differently


@pytest.mark.parametrize("env_id", ["blink/Classic-v0", "blink/GoBlink-v0"])
def test_single_seat_pictures(env_id: str) -> None:
    env = gymnasium.make(env_id, render_mode="rgb_array").unwrapped
    _check(_frames(env, 60))
    first = _frames(env, 0)[0]
    env.reset(seed=4)
    assert env.render().tobytes() != first.tobytes()  # another deal, another picture


def test_pettingzoo_pictures() -> None:
    env = classic_v0.parallel_env(render_mode="rgb_array")
    observations, _ = env.reset(seed=1)
    frames = [env.render()]
    for _ in range(30):
        acts = {a: env.action_space(a).sample(observations[a]["action_mask"]) for a in env.agents}
        observations, *_ = env.step(acts)
        frames.append(env.render())
    _check(frames)
    go = goblink_v0.env(players=3, render_mode="rgb_array")
    go.reset(seed=1)
    frames = []
    for agent in go.agent_iter(40):
        obs, _, terminated, truncated, _ = go.last()
        frames.append(go.render())
        go.step(
            None if terminated or truncated else go.action_space(agent).sample(obs["action_mask"])
        )
    _check(frames)


def test_a_card_is_drawn_in_its_colour_with_its_count_of_symbols() -> None:
    pictures = {card: card_image(card) for card in STANDARD_DECK}
    assert len({p.tobytes() for p in pictures.values()}) == len(STANDARD_DECK)
    for card, picture in pictures.items():
        assert picture.shape == (CARD_HEIGHT, CARD_WIDTH, 3)
        colour = np.array([int(card.color.hex[i : i + 2], 16) for i in (1, 3, 5)])
        near = (np.abs(picture.astype(int) - colour).sum(axis=2) < 12).sum()
        assert near > 60, card  # the border and the symbols are in the card's colour
    red_moons = [card_image(Card.parse(f"{n}RM")).tobytes() for n in range(1, 6)]
    assert len(set(red_moons)) == 5  # one to five symbols

"""Each game's environment for training: its Gymnasium id, how its bots are named, and the
bots a policy trains and is evaluated against."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium
from gymnasium import spaces

import blink.envs
from blink.envs.single import SingleSeat, Training
from blink.model.registry import front_end, front_ends

__all__ = ["SETUPS", "GameSetup", "TrainError", "get_setup", "make_env", "sizes"]


class TrainError(ValueError):
    """A training or evaluation request that cannot be run: a stable code and one sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class GameSetup:
    """How to train on one game: the option of its environment that names the bots, the bot
    trained against, the bots evaluated against, and fixed options of the environment."""

    game: str
    bots_option: str
    train_bot: str
    eval_bots: tuple[str, ...]
    env_options: Mapping[str, Any] = field(default_factory=dict)


def _from_registry() -> dict[str, GameSetup]:
    """Every registered game whose single-seat environment says how to train on it."""
    setups = {}
    for name, fe in front_ends().items():
        if fe.gym_entry_point is None:
            continue
        module, _, cls_name = fe.gym_entry_point.partition(":")
        env_class = getattr(importlib.import_module(module), cls_name)
        t: Training | None = getattr(env_class, "training", None)
        if t is not None:
            setups[name] = GameSetup(name, t.bots_option, t.train_bot, t.eval_bots, t.env_options)
    return setups


SETUPS: dict[str, GameSetup] = _from_registry()
"""The games a policy can be trained for, by name (each game's environment says how)."""


def get_setup(game: str) -> GameSetup:
    """The setup of ``game``, or :class:`TrainError` naming the games there are."""
    setup = SETUPS.get(game)
    if setup is None:
        games = ", ".join(SETUPS)
        raise TrainError("unknown_game", f"no game {game!r} to train for (games: {games})")
    return setup


def make_env(setup: GameSetup, bot: str) -> SingleSeat:
    """The game's single-seat environment against ``bot`` (unwrapped: no checker on each
    step), or :class:`TrainError` when the bot is not one of the game's."""
    gym_id = front_end(setup.game).gym_id
    assert gym_id is not None and gym_id in blink.envs.register_gym_ids()
    options = {**setup.env_options, setup.bots_option: bot}
    try:
        env = gymnasium.make(gym_id, **options).unwrapped
    except ValueError as exc:  # the bots' own errors are ValueErrors with a sentence
        raise TrainError("unknown_bot", f"{setup.game}: {exc}") from exc
    assert isinstance(env, SingleSeat)
    return env


def sizes(env: SingleSeat) -> tuple[int, int]:
    """The length of ``env``'s observation array and the number of its actions."""
    space, actions = env.observation_space, env.action_space
    assert isinstance(space, spaces.Dict) and isinstance(actions, spaces.Discrete)
    box = space["observation"]
    assert box.shape is not None
    return int(box.shape[0]), int(actions.n)

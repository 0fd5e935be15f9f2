"""What every single-seat Gymnasium environment shares: one seat of a game against bots.

Each game's own environment (found through the registry's
:attr:`~blink.model.registry.FrontEnd.gym_entry_point`) subclasses :class:`SingleSeat`: it
deals, lets the bots play and encodes the agent's view; the base checks the seat, builds the
spaces, ends a step (reward, termination, truncation) and renders the agent's view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from blink.envs.encoding import rewards_of

__all__ = ["Observation", "SingleSeat", "Training", "opponent_names", "seat_spaces"]

Observation = dict[str, NDArray[Any]]
"""An agent's observation: its view as an array, and the mask of its legal actions."""


def opponent_names(value: str | Sequence[str], count: int) -> list[str]:
    """One name per opponent seat: ``value`` for all of them, or one each."""
    if isinstance(value, str):
        return [value] * count
    names = list(value)
    if len(names) != count:
        raise ValueError(f"{len(names)} bots given for {count} opponent seats")
    return names


def seat_spaces(size: int, actions: int) -> tuple[spaces.Dict, spaces.Discrete]:
    """The observation space (a view of ``size`` numbers and a mask) and the action space."""
    box = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
    mask = spaces.Box(0, 1, (actions,), dtype=np.int8)
    return spaces.Dict({"observation": box, "action_mask": mask}), spaces.Discrete(actions)


@dataclass(frozen=True)
class Training:
    """How a policy trains on a game's single-seat environment (``blink train``): the option
    of the environment that names the bots, the bot trained against, the bots evaluated
    against, and fixed options of the environment."""

    bots_option: str
    train_bot: str
    eval_bots: tuple[str, ...]
    env_options: Mapping[str, Any] = field(default_factory=dict)


class SingleSeat(gymnasium.Env[dict[str, Any], np.int64]):
    """The agent's ``seat`` of a game against bots; a subclass sets the attributes below and
    gives :meth:`observe`, :meth:`text` and :meth:`picture`."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 10}  # noqa: RUF012
    training: ClassVar[Training | None] = None
    """How ``blink train`` trains on the game (``None``: it does not)."""

    players: int
    """How many seats the game has (the agent's and the bots')."""
    seat: int
    """The agent's seat."""
    max_steps: int
    """Steps after which an episode is truncated."""
    steps: int = 0
    """The agent's steps in this episode."""
    state_: Any = None
    """The game's state (``None`` before the first :meth:`reset`)."""

    @staticmethod
    def check_seat(players: int, seat: int) -> int:
        """``seat`` if it is a seat of a game of ``players``, else ``ValueError``."""
        if not 0 <= seat < players:
            raise ValueError(f"the agent's seat must be 0 to {players - 1}, not {seat}")
        return seat

    def observe(self) -> Observation:
        """The agent's view as an array, and the mask of its legal actions."""
        raise NotImplementedError

    def text(self) -> str:
        """The agent's view as text (an episode has started)."""
        raise NotImplementedError

    def picture(self) -> NDArray[np.uint8]:
        """The agent's view as a picture of its cards, an RGB array (an episode has started)."""
        raise NotImplementedError

    def finish_step(
        self, info: dict[str, Any]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Count the step and return what :meth:`step` returns: the observation, the reward
        (at the end of the game only), whether the game is over or truncated, and ``info``
        (with the outcome's reason at the end)."""
        self.steps += 1
        state = self.state_
        over = bool(state.over)
        reward = rewards_of(state.outcome, self.players)[self.seat] if over else 0.0
        truncated = not over and self.steps >= self.max_steps
        if over:
            info["outcome"] = state.outcome.reason.value
        return self.observe(), reward, over, truncated, info

    def render(self) -> Any:
        """The agent's view as text: returned (``"ansi"``) or printed (``"human"``); or as a
        picture of its cards (``"rgb_array"``: an RGB array, the same size every time)."""
        if self.render_mode is None or self.state_ is None:
            return None
        if self.render_mode == "rgb_array":
            return self.picture()
        text = self.text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

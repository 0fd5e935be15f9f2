"""What every single-seat Gymnasium environment shares: one seat of a game against bots.

Each game's own environment (found through the registry's
:attr:`~blink.model.registry.FrontEnd.gym_entry_point`) subclasses :class:`SingleSeat`: it
deals, lets the bots play and encodes the agent's view; the base checks the seat, builds the
spaces, ends a step (reward, termination, truncation) and renders the agent's view.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeAlias

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from blink.envs.encoding import rewards_of

__all__ = [
    "Observation",
    "Opponent",
    "Policy",
    "SingleSeat",
    "Training",
    "opponent_names",
    "resolve_opponents",
    "seat_spaces",
]

Observation = dict[str, NDArray[Any]]
"""An agent's observation: its view as an array, and the mask of its legal actions."""

Policy: TypeAlias = Callable[[Observation], Any]
"""A policy playing a seat: called with that seat's observation only (the same dict the agent
gets: ``"observation"``, a float32 array of its view, and ``"action_mask"``, an int8 array of
its legal actions), it returns an action of the environment's action space (an action index,
an ``int`` or a NumPy integer; with Go Blink's factored actions, the parts' array)."""

Opponent: TypeAlias = str | os.PathLike[str] | Policy
"""An opponent seat: a bot's name, a saved ``blink train`` policy (a path, a string ending in
``.pt``, or a loaded :class:`~blink.train.policy.MaskedPolicy`), or a :data:`Policy`."""


def _is_torch_module(value: object) -> bool:
    """Whether ``value`` is a PyTorch module (only if PyTorch is already imported)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.nn.Module)


def _is_saved(value: object) -> bool:
    """Whether ``value`` names or is a saved ``blink train`` policy."""
    if isinstance(value, str):
        return value.endswith(".pt")
    return isinstance(value, os.PathLike) or _is_torch_module(value)


def _single(value: object) -> bool:
    return isinstance(value, str | os.PathLike) or callable(value) or _is_torch_module(value)


def resolve_opponents(
    value: Any,
    count: int,
    *,
    check_bot: Callable[[str], object],
    load: Callable[[object], Policy],
) -> list[str | Policy]:
    """One opponent per opponent seat (``value`` for all of them, or one each): a bot's name
    (checked by ``check_bot``, which raises ``ValueError``), or a :data:`Policy` (a callable,
    or a saved policy given to ``load``). ``ValueError`` naming the first bad opponent."""
    if _single(value):
        one = _resolve(value, "the opponent", check_bot, load)
        return [one] * count
    if isinstance(value, Sequence):
        items = list(value)
        if len(items) != count:
            raise ValueError(f"{len(items)} opponents given for {count} opponent seats")
        return [
            _resolve(item, f"opponent {i + 1} of {count}", check_bot, load)
            for i, item in enumerate(items)
        ]
    raise ValueError(
        f"the opponents ({_describe(value)}) are neither a bot's name, a policy nor a list of them"
    )


def _describe(item: object) -> str:
    """``item`` in a few words on one line: its repr, or its type's name when that is long."""
    if isinstance(item, os.PathLike):
        return repr(os.fspath(item))
    text = repr(item)
    if "\n" in text or len(text) > 60:
        return f"a {type(item).__name__}"
    return text


def _resolve(
    item: object, what: str, check_bot: Callable[[str], object], load: Callable[[object], Policy]
) -> str | Policy:
    label = f"{what} ({_describe(item)})"
    if _is_saved(item):
        try:
            return load(item)
        except ImportError:
            raise ValueError(
                f"{label} is a saved policy, which needs PyTorch (pip install 'blink[train]')"
            ) from None
        except ValueError as exc:
            raise ValueError(f"{label}: {exc}") from exc
    if isinstance(item, str):
        try:
            check_bot(item)
        except ValueError as exc:
            raise ValueError(f"{label}: {exc}") from exc
        return item
    if callable(item):
        return item
    raise ValueError(f"{label} is neither a bot's name, a saved policy nor a callable policy")


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

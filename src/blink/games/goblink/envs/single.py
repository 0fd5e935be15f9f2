"""Go Blink, one seat against the project's bots, as a Gymnasium environment
(``blink/GoBlink-v0``, :class:`GoBlinkSingle`).

The agent's seat of a Go Blink game, the other seats played by Go Blink bots (``random``,
``greedy``, ``memory``); the bots take their turns between the agent's steps. The
observations, actions and rewards are those of the PettingZoo environment
(:mod:`blink.games.goblink.envs.goblink_v0`) for the agent's seat.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from blink.envs.encoding import Refusal, episode_rng, refusal
from blink.envs.single import (
    Observation,
    Opponent,
    Policy,
    SingleSeat,
    Training,
    resolve_opponents,
    seat_spaces,
)
from blink.games.goblink.actions import GoAction
from blink.games.goblink.bots import GoBot, get_gobot_kind, make_gobot
from blink.games.goblink.envs.codec import DEFAULT_TURN_LIMIT, GoEncoder, codec
from blink.games.goblink.envs.factored import FactoredActions
from blink.games.goblink.envs.text import goblink_picture, goblink_text
from blink.model.base import IllegalAction
from blink.model.registry import get_game

__all__ = ["GoBlinkSingle"]


class GoBlinkSingle(SingleSeat):
    """Go Blink: the agent plays ``seat`` against ``opponents`` (one for every other seat, or
    one each: a bot's name, a saved ``blink train`` policy, or a callable policy,
    :data:`~blink.envs.single.Opponent`).

    A step is one of the agent's actions; the opponents then play until it is the agent's turn
    again or the game is over. A refused action changes nothing (``info["refused"]``). An
    opponent policy is called with its own seat's observation (the agent's kind, from its own
    view) and answers an action of the same action space.
    Options: ``players``, ``seat``, ``opponents``, ``turn_limit``, ``max_steps`` (truncate),
    ``ask_window``, ``render_mode``, and ``actions``: ``"flat"`` (one of 31,719 numbers, a
    ``Discrete``) or ``"factored"`` (a ``MultiDiscrete`` of a few parts, with a mask per part:
    :mod:`blink.games.goblink.envs.factored`).
    """

    training = Training(bots_option="opponents", train_bot="random", eval_bots=("random", "greedy"))

    def __init__(
        self,
        players: int = 2,
        seat: int = 0,
        opponents: Opponent | Sequence[Opponent] = "memory",
        *,
        turn_limit: int | None = DEFAULT_TURN_LIMIT,
        max_steps: int = 2_000,
        ask_window: int = 16,
        render_mode: str | None = None,
        actions: str = "flat",
    ) -> None:
        self.game = get_game("goblink")
        self.players = self.game.info.check_players(players)
        self.seat = self.check_seat(players, seat)
        self.turn_limit = turn_limit
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.codec = codec(self.players, ask_window)
        self.observation_space, self.action_space = seat_spaces(self.codec.size, self.codec.actions)
        self.factored: FactoredActions | None = None
        """The factored action space's codec (``actions="factored"``), else ``None``."""
        if actions == "factored":
            self.factored = FactoredActions(self.codec)
            mask = spaces.Box(0, 1, (self.factored.mask_size,), dtype=np.int8)
            self.observation_space["action_mask"] = mask
            self.action_space = cast(spaces.Discrete, self.factored.space())
        elif actions != "flat":
            raise ValueError(f"actions must be 'flat' or 'factored', not {actions!r}")
        self.opponents = resolve_opponents(
            opponents, players - 1, check_bot=get_gobot_kind, load=self._load_policy
        )
        """Each opponent seat's bot name or policy, in seat order (the agent's skipped)."""
        self._rng: random.Random | None = None
        self.state_ = None
        self.bots: dict[int, GoBot] = {}
        self.policies: dict[int, tuple[Policy, GoEncoder]] = {}
        self.steps = 0

    def _load_policy(self, source: object) -> Policy:
        """A saved ``blink train`` policy as an opponent (it plays the flat action space)."""
        if self.factored is not None:
            raise ValueError("a saved policy plays the flat actions, not actions='factored'")
        from blink.train.opponent import policy_opponent  # PyTorch: blink[train]

        return policy_opponent(source, "goblink", self.codec.size, self.codec.actions)

    def observe(self) -> Observation:
        """The agent's view as an array, and the mask of its legal actions. Once the game is
        over, action 0 is unmasked: a masked policy acting on a terminal observation (a vector
        environment's auto-reset) has an action, which changes nothing (refused, game_over).
        With factored actions the mask is every part's, concatenated (the terminal one allows
        only "end" and each other part's entry 0)."""
        state = self.state_
        return {
            "observation": self._encoder.observe(self.game.view(state, self.seat)),
            "action_mask": self._mask(),
        }

    def _mask(self, seat: int | None = None) -> NDArray[np.int8]:
        state = self.state_
        legal = self.game.legal_actions(state, self.seat if seat is None else seat)
        if self.factored is not None:
            return self.factored.masks(legal)
        mask = self.codec.mask(legal)
        if state.over:
            mask[0] = 1
        return mask

    def _bots_play(self) -> None:
        state = self.state_
        while not state.over and state.current != self.seat:
            seat = state.current
            view = self.game.view(state, seat)
            if seat in self.policies:
                self._policy_plays(seat, view)
            else:
                self.game.apply(state, self.bots[seat].act(view))

    def _policy_plays(self, seat: int, view: Any) -> None:
        """The policy playing ``seat`` acts from that seat's observation (``ValueError`` when
        it answers an action that is not legal)."""
        policy, encoder = self.policies[seat]
        obs: Observation = {"observation": encoder.observe(view), "action_mask": self._mask(seat)}
        action = policy(obs)
        try:
            self.game.apply(self.state_, self._action(action, seat))
        except (IllegalAction, ValueError) as exc:
            raise ValueError(
                f"the opponent policy in seat {seat} answered {action!r}, not a legal action "
                f"({exc})"
            ) from None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Deal a new game (shuffled by ``seed``); the bots play up to the agent's turn."""
        super().reset(seed=seed)
        rng = self._rng = episode_rng(self._rng, seed)
        self.state_ = self.game.new(
            self.players,
            rng.getrandbits(63),
            options={"dealer": rng.randrange(self.players), "turn_limit": self.turn_limit},
        )
        others = [s for s in range(self.players) if s != self.seat]
        self.bots, self.policies = {}, {}
        for s, opponent in zip(others, self.opponents, strict=True):
            if isinstance(opponent, str):
                self.bots[s] = make_gobot(opponent, s, rng.getrandbits(63))
            else:
                self.policies[s] = (opponent, self.codec.encoder(s))
        self._encoder = self.codec.encoder(self.seat)
        self.steps = 0
        self._bots_play()
        return self.observe(), {}

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """The agent's action, then the bots' turns."""
        info: dict[str, Any] = {}
        try:
            self.game.apply(self.state_, self._action(action))
        except IllegalAction as exc:
            info["refused"] = refusal(exc)._asdict()
        except ValueError as exc:
            info["refused"] = Refusal("not_an_action", str(exc))._asdict()
        else:
            self._bots_play()
        return self.finish_step(info)

    def _action(self, action: Any, seat: int | None = None) -> GoAction:
        """The engine's action for ``seat``'s (the agent's) ``action`` (``ValueError`` outside
        the space)."""
        seat = self.seat if seat is None else seat
        if self.factored is None:
            return self.codec.action(int(action), seat)
        legal = self.game.legal_actions(self.state_, seat)
        return self.factored.decode(action, seat, legal)

    def action_masks(self) -> NDArray[np.bool_]:
        """The current mask as booleans (the method sb3-contrib's MaskablePPO calls)."""
        return self._mask().astype(bool)

    def picture(self) -> NDArray[np.uint8]:
        """The agent's view as a picture of its cards."""
        return goblink_picture(self.game.view(self.state_, self.seat))

    def text(self) -> str:
        """The agent's view as text."""
        return goblink_text(self.game.view(self.state_, self.seat))

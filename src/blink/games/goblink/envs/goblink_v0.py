"""Go Blink as a PettingZoo AEC environment: turn-based, imperfect information, 2 to 6 seats.

::

    from blink.envs import goblink_v0
    env = goblink_v0.env(players=4)
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(
            obs["action_mask"])
        env.step(action)

The game comes from the registry (``get_game("goblink")``): the deal, the legal actions, the
rules and the views are the definition's. Each agent observes only its seat's view. The
actions, the observation layout, the rewards and the options are in docs/envs.md.
"""

from __future__ import annotations

import random
from typing import Any, Final

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv

from blink.cards import STANDARD_DECK
from blink.envs.encoding import Refusal, cards_vector, episode_rng, refusal, rewards_of
from blink.games.goblink.envs.codec import DEFAULT_TURN_LIMIT, GoCodec, codec
from blink.games.goblink.envs.text import goblink_picture, goblink_text
from blink.model.base import IllegalAction
from blink.model.registry import get_game

__all__ = ["env", "raw_env"]

GAME: Final = "goblink"

Observation = dict[str, NDArray[Any]]


class raw_env(AECEnv):  # PettingZoo names the unwrapped environment class raw_env
    """Go Blink for ``players`` agents ``player_0`` ... (seat ``i`` is ``player_i``).

    Options: ``dealer`` (a seat; default: drawn by the episode's seed, so the first player
    varies), ``turn_limit`` (the game's own option: after that many turns the fewest cards
    win; 200 by default, ``DEFAULT_TURN_LIMIT``: deterministic players can loop; ``None``
    for none), ``max_cycles`` (truncate after ``max_cycles * players`` actions, refused ones
    too), ``ask_window`` (how many of the latest asks an observation holds), ``render_mode``
    (``"ansi"``, ``"human"`` or ``"rgb_array"``).
    """

    metadata: Final[dict[str, Any]] = {
        "name": "goblink_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 4,
        *,
        dealer: int | None = None,
        turn_limit: int | None = DEFAULT_TURN_LIMIT,
        max_cycles: int = 2_000,
        ask_window: int = 16,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.game = get_game(GAME)
        self.players = self.game.info.check_players(players)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if dealer is not None and not 0 <= dealer < players:
            raise ValueError(f"the dealer must be a seat 0 to {players - 1}, not {dealer}")
        self.render_mode = render_mode
        self.dealer = dealer
        self.turn_limit = turn_limit
        self.max_cycles = max_cycles
        self.codec: GoCodec = codec(self.players, ask_window)
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        box = spaces.Box(0.0, 1.0, (self.codec.size,), dtype=np.float32)
        mask = spaces.Box(0, 1, (self.codec.actions,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": box, "action_mask": mask}) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.codec.actions) for a in self.possible_agents}
        size = self.players * self.codec.size + len(STANDARD_DECK)
        self.state_space = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        """The space of :meth:`state`."""
        self._rng: random.Random | None = None
        self.state_: Any = None
        self.steps = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every time)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent`` (the same object every time)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: shuffled by ``seed`` (or the generator running on)."""
        rng = self._rng = episode_rng(self._rng, seed)
        deck_seed = rng.getrandbits(63)
        dealer = rng.randrange(self.players) if self.dealer is None else self.dealer
        self.state_ = self.game.new(
            self.players,
            deck_seed,
            options={"dealer": dealer, "turn_limit": self.turn_limit},
        )
        self.steps = 0
        self._encoders = [self.codec.encoder(s) for s in range(self.players)]
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._no_rewards = dict.fromkeys(self.agents, 0)  # what AECEnv._clear_rewards sets
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state_.current]

    def seat_view(self, agent: str) -> Any:
        """The definition's view of ``agent``'s seat: all an observation is made from."""
        return self.game.view(self.state_, self._seat[agent])

    def _started(self) -> None:
        if self.state_ is None:
            raise RuntimeError("call reset() before observe() or step()")

    def observe(self, agent: str) -> Observation:
        """``agent``'s view as an array, and the mask of its legal actions."""
        if self.state_ is None:
            self._started()
        seat = self._seat[agent]
        return {
            "observation": self._encoders[seat].observe(self.game.view(self.state_, seat)),
            "action_mask": self.codec.mask(self.game.legal_actions(self.state_, seat)),
        }

    def state(self) -> NDArray[np.float32]:
        """The whole game, for a centralised critic (PettingZoo's global state): every seat's
        observation (seat 0 first; each holds its own hand), then the cards of the draw pile
        (60 numbers, standard-deck order). It holds what no seat may see: not for a policy."""
        if self.state_ is None:
            self._started()
        state = self.state_
        parts = [self._encoders[s].observe(self.game.view(state, s)) for s in range(self.players)]
        parts.append(cards_vector([state.draw_pile()]))
        return np.concatenate(parts)

    def step(self, action: Any) -> None:
        """The current agent takes ``action`` (an index of the action space)."""
        if self.state_ is None:
            self._started()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat[agent]
        self._cumulative_rewards[agent] = 0.0
        if len(self.rewards) == self.players:  # AECEnv._clear_rewards, in one C call
            self.rewards.update(self._no_rewards)
        else:
            self._clear_rewards()
        try:
            move = self.codec.action(int(action), seat)
            self.game.apply(self.state_, move)
        except (IllegalAction, ValueError) as exc:
            found = (
                refusal(exc)
                if isinstance(exc, IllegalAction)
                else Refusal("not_an_action", str(exc))
            )
            self.infos[agent] = {"refused": found._asdict()}
            self.steps += 1  # refused actions count too: an agent ignoring the mask stops
            if self.steps >= self.max_cycles * self.players:
                self.truncations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            return
        self.infos[agent] = {}
        self.steps += 1
        state = self.state_
        if state.over:
            rewards = rewards_of(state.outcome, self.players)
            for a in self.agents:
                self.rewards[a] = rewards[self._seat[a]]
                self.terminations[a] = True
                self.infos[a] = {"outcome": state.outcome.reason.value}
            self._accumulate_rewards()
            return
        if self.steps >= self.max_cycles * self.players:
            self.truncations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[state.current]
        # No reward before the end: AECEnv._accumulate_rewards would add 0 to every float
        # total, which changes none of them (no total is ever -0.0).

    def render(self) -> Any:
        """The acting seat's view as text: returned (``"ansi"``) or printed (``"human"``); or
        as a picture of its cards (``"rgb_array"``: an RGB array, the same size every time)."""
        if self.render_mode is None or self.state_ is None:
            return None
        if self.render_mode == "rgb_array":
            return goblink_picture(self.seat_view(self.agent_selection))
        text = goblink_text(self.seat_view(self.agent_selection))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def env(**kwargs: Any) -> raw_env:
    """The environment (keyword options: see :class:`raw_env`).

    It is not wrapped in PettingZoo's ``OrderEnforcingWrapper`` and ``AssertOutOfBoundsWrapper``:
    it checks the same itself (stepping or observing before :meth:`raw_env.reset` is refused,
    an action outside the space is refused with a code in the agent's info), and the
    wrappers' attribute forwarding would halve the steps per second."""
    return raw_env(**kwargs)

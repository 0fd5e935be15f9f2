"""One seat against the project's bots, as Gymnasium environments.

* ``blink/GoBlink-v0`` (:class:`GoBlinkSingle`): the agent's seat of a Go Blink game, the other
  seats played by Go Blink bots (``random``, ``greedy``, ``memory``); the bots take their turns
  between the agent's steps.
* ``blink/Classic-v0`` (:class:`ClassicSingle`): the agent's seat of a classic game, the other
  seats played by bots of a level and a strategy (``expert:blocker``), racing in virtual time
  with the reaction-time model exactly as in the simulator (:class:`BotRace` is the
  simulator's own loop, advanced one step at a time).

The observations, actions and rewards are those of the PettingZoo environments
(:mod:`blink.envs.goblink_v0`, :mod:`blink.envs.classic_v0`) for the agent's seat.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from blink.envs.classic_codec import WAIT, ClassicCodec
from blink.envs.classic_v0 import deal_options
from blink.envs.encoding import Refusal, episode_rng, refusal, rewards_of
from blink.envs.goblink_codec import codec
from blink.envs.text import classic_text, goblink_text
from blink.games.classic.actions import Choose, Play
from blink.games.classic.bots import BotSpec
from blink.games.classic.sim.core import BotRace, SimConfig
from blink.games.goblink.bots import GoBot, make_gobot
from blink.model.base import IllegalAction
from blink.model.registry import get_game

__all__ = ["ClassicSingle", "GoBlinkSingle"]

Observation = dict[str, NDArray[Any]]


def _names(value: str | Sequence[str], count: int) -> list[str]:
    """One name per opponent seat: ``value`` for all of them, or one each."""
    if isinstance(value, str):
        return [value] * count
    names = list(value)
    if len(names) != count:
        raise ValueError(f"{len(names)} bots given for {count} opponent seats")
    return names


def _spaces(size: int, actions: int) -> tuple[spaces.Dict, spaces.Discrete]:
    box = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
    mask = spaces.Box(0, 1, (actions,), dtype=np.int8)
    return spaces.Dict({"observation": box, "action_mask": mask}), spaces.Discrete(actions)


class GoBlinkSingle(gymnasium.Env[dict[str, Any], np.int64]):
    """Go Blink: the agent plays ``seat`` against ``opponents`` (a bot name, or one per seat).

    A step is one of the agent's actions; the bots then play until it is the agent's turn
    again or the game is over. A refused action changes nothing (``info["refused"]``).
    Options: ``players``, ``seat``, ``opponents``, ``turn_limit``, ``max_steps`` (truncate),
    ``ask_window``, ``render_mode``.
    """

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 10}  # noqa: RUF012

    def __init__(
        self,
        players: int = 2,
        seat: int = 0,
        opponents: str | Sequence[str] = "memory",
        *,
        turn_limit: int | None = None,
        max_steps: int = 2_000,
        ask_window: int = 16,
        render_mode: str | None = None,
    ) -> None:
        self.game = get_game("goblink")
        self.players = self.game.info.check_players(players)
        if not 0 <= seat < players:
            raise ValueError(f"the agent's seat must be 0 to {players - 1}, not {seat}")
        self.seat = seat
        self.opponents = _names(opponents, players - 1)
        for name in self.opponents:
            make_gobot(name, 0)  # refuses an unknown name now
        self.turn_limit = turn_limit
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.codec = codec(self.players, ask_window)
        self.observation_space, self.action_space = _spaces(self.codec.size, self.codec.actions)
        self._rng: random.Random | None = None
        self.state_: Any = None
        self.bots: dict[int, GoBot] = {}
        self.steps = 0

    def _observe(self) -> Observation:
        view = self.game.view(self.state_, self.seat)
        return {
            "observation": self._encoder.observe(view),
            "action_mask": self.codec.mask(self.game.legal_actions(self.state_, self.seat)),
        }

    def _bots_play(self) -> None:
        state = self.state_
        while not state.over and state.current != self.seat:
            seat = state.current
            self.game.apply(state, self.bots[seat].act(self.game.view(state, seat)))

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
        self.bots = {
            s: make_gobot(name, s, rng.getrandbits(63))
            for s, name in zip(others, self.opponents, strict=True)
        }
        self._encoder = self.codec.encoder(self.seat)
        self.steps = 0
        self._bots_play()
        return self._observe(), {}

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """The agent's action, then the bots' turns."""
        info: dict[str, Any] = {}
        state = self.state_
        try:
            self.game.apply(state, self.codec.action(int(action), self.seat))
        except IllegalAction as exc:
            info["refused"] = refusal(exc)._asdict()
        except ValueError as exc:
            info["refused"] = Refusal("not_an_action", str(exc))._asdict()
        else:
            self._bots_play()
        self.steps += 1
        over = bool(state.over)
        reward = rewards_of(state.outcome, self.players)[self.seat] if over else 0.0
        truncated = not over and self.steps >= self.max_steps
        if over:
            info["outcome"] = state.outcome.reason.value
        return self._observe(), reward, over, truncated, info

    def render(self) -> str | None:
        """The agent's view as text: returned (``"ansi"``) or printed (``"human"``)."""
        if self.render_mode is None or self.state_ is None:
            return None
        text = goblink_text(self.game.view(self.state_, self.seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text


class ClassicSingle(gymnasium.Env[dict[str, Any], np.int64]):
    """Classic Blink: the agent plays ``seat`` against ``bots`` (``level:strategy`` specs).

    A step covers ``step_seconds`` of virtual time: the agent's action is taken at its start,
    then the bots (each re-planning from its view after every change, with the reaction-time
    model of its level) and the referee act at their due times until its end, exactly as in
    the simulator. Options: ``players``, ``seat``, ``bots``, ``ruleset``, ``handicap``,
    ``deck_seed``, ``step_seconds``, ``max_steps``, ``config`` (the simulator's flip pause and
    choice timeout), ``render_mode``.
    """

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 10}  # noqa: RUF012

    def __init__(
        self,
        players: int = 2,
        seat: int = 0,
        bots: str | Sequence[str] = "expert:first",
        *,
        ruleset: str = "official",
        handicap: str | list[int] | None = None,
        deck_seed: int | None = None,
        step_seconds: float = 0.1,
        max_steps: int = 10_000,
        config: SimConfig | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.game = get_game("classic")
        self.players = self.game.info.check_players(players)
        if not 0 <= seat < players:
            raise ValueError(f"the agent's seat must be 0 to {players - 1}, not {seat}")
        if not step_seconds > 0:
            raise ValueError(f"a step lasts a positive time, not {step_seconds!r}")
        self.seat = seat
        self.specs = [BotSpec.parse(s) for s in _names(bots, players - 1)]
        self.options = deal_options(ruleset, handicap)
        probe = self.game.new(self.players, 0, options=self.options)
        reach = [self.game.reach(self.players, s) for s in range(self.players)]
        self.codec = ClassicCodec(self.players, probe.ruleset.hand_size, reach)
        self.deck_seed = deck_seed
        self.step_seconds = step_seconds
        self.max_steps = max_steps
        self.config = config or SimConfig()
        self.render_mode = render_mode
        self.observation_space, self.action_space = _spaces(self.codec.size, self.codec.actions)
        self._rng: random.Random | None = None
        self.state_: Any = None
        self.race: BotRace | None = None
        self.steps = 0

    def _observe(self) -> Observation:
        view = self.game.view(self.state_, self.seat)
        legal = self.game.legal_actions(self.state_, self.seat)
        return {
            "observation": self._encoder.observe(view),
            "action_mask": self.codec.mask(legal, view),
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Deal a new game (from ``deck_seed``, or shuffled by ``seed``) and reveal it."""
        super().reset(seed=seed)
        rng = self._rng = episode_rng(self._rng, seed)
        deck_seed = rng.getrandbits(63)
        if self.deck_seed is not None:
            deck_seed = self.deck_seed
        self.state_ = self.game.new(self.players, deck_seed, options=self.options)
        others = [s for s in range(self.players) if s != self.seat]
        bots = {
            s: spec.build(s, rng.getrandbits(63))
            for s, spec in zip(others, self.specs, strict=True)
        }
        self.race = BotRace(self.state_, bots, rng.getrandbits(63), config=self.config)
        self._encoder = self.codec.encoder(self.seat)
        self.steps = 0
        return self._observe(), {}

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """The agent's action at the step's start, then the race to the step's end."""
        race = self.race
        assert race is not None, "call reset() first"
        info: dict[str, Any] = {}
        state = self.state_
        index = int(action)
        if index != WAIT and not state.over:
            move = self.codec.action(index, self.game.view(state, self.seat))
            if isinstance(move, Refusal):
                info["refused"] = move._asdict()
            elif isinstance(move, Play | Choose):
                try:
                    race.act(move)
                except IllegalAction as exc:
                    info["refused"] = refusal(exc)._asdict()
        self.steps += 1
        race.advance(self.steps * self.step_seconds)
        over = bool(state.over)
        reward = rewards_of(state.outcome, self.players)[self.seat] if over else 0.0
        truncated = not over and self.steps >= self.max_steps
        if over:
            info["outcome"] = state.outcome.reason.value
        return self._observe(), reward, over, truncated, info

    def render(self) -> str | None:
        """The agent's view as text: returned (``"ansi"``) or printed (``"human"``)."""
        if self.render_mode is None or self.state_ is None:
            return None
        text = classic_text(self.game.view(self.state_, self.seat), self.steps * self.step_seconds)
        if self.render_mode == "human":
            print(text)
            return None
        return text

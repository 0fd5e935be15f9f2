"""Classic Blink, one seat against the project's bots, as a Gymnasium environment
(``blink/Classic-v0``, :class:`ClassicSingle`).

The agent's seat of a classic game, the other seats played by bots of a level and a strategy
(``expert:blocker``), racing in virtual time with the reaction-time model exactly as in the
simulator (:class:`~blink.games.classic.sim.core.BotRace` is the simulator's own loop,
advanced one step at a time). The observations, actions and rewards are those of the
PettingZoo environment (:mod:`blink.games.classic.envs.classic_v0`) for the agent's seat.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
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
from blink.games.classic.actions import Choose, Play
from blink.games.classic.bots import BotSpec
from blink.games.classic.envs.classic_v0 import deal_options
from blink.games.classic.envs.codec import WAIT, ClassicCodec, ClassicEncoder
from blink.games.classic.envs.idle import DEFAULT_IDLE_SECONDS, IdleRule, check_idle_seconds
from blink.games.classic.envs.text import classic_picture, classic_text
from blink.games.classic.sim.core import BotRace, SimConfig
from blink.model.base import IllegalAction
from blink.model.registry import get_game

__all__ = ["ClassicSingle"]


class ClassicSingle(SingleSeat):
    """Classic Blink: the agent plays ``seat`` against ``bots``: one for every other seat, or
    one each, a bot's ``level:strategy`` spec, a saved ``blink train`` policy or a callable
    policy (:data:`~blink.envs.single.Opponent`).

    A step covers ``step_seconds`` of virtual time: the agent's action is taken at its start,
    then the bots (each re-planning from its view after every change, with the reaction-time
    model of its level) and the referee act at their due times until its end, exactly as in
    the simulator. An opponent policy acts as the agent does, once a step at its start (after
    the agent, in seat order), from its own seat's observation (the agent's kind, from its
    own view), answering an action index (``WAIT``, 0, to wait). Options: ``players``,
    ``seat``, ``bots``, ``ruleset``, ``handicap``,
    ``deck_seed``, ``step_seconds``, ``max_steps``, ``config`` (the simulator's flip pause and
    choice timeout), ``render_mode``, ``idle_seconds`` (the game ends, won by the fewest cards,
    when the racing table has not changed for that long: an agent that never plays while the
    bots cannot; ``None``: never).
    """

    # The agent acts once a virtual second: with 0.1 s steps it could play ten cards a second
    # and a random agent would beat every bot (docs/envs.md). At one second it is a little
    # slower than the champion level, so it wins by never waiting when it can play.
    training = Training(
        bots_option="bots",
        train_bot="champion:first",
        eval_bots=("champion:random", "champion:first"),
        env_options={"step_seconds": 1.0},
    )

    def __init__(
        self,
        players: int = 2,
        seat: int = 0,
        bots: Opponent | Sequence[Opponent] = "expert:first",
        *,
        ruleset: str = "official",
        handicap: str | list[int] | None = None,
        deck_seed: int | None = None,
        step_seconds: float = 0.1,
        max_steps: int = 10_000,
        config: SimConfig | None = None,
        render_mode: str | None = None,
        idle_seconds: float | None = DEFAULT_IDLE_SECONDS,
    ) -> None:
        self.game = get_game("classic")
        self.players = self.game.info.check_players(players)
        self.seat = self.check_seat(players, seat)
        if not step_seconds > 0:
            raise ValueError(f"a step lasts a positive time, not {step_seconds!r}")
        self.options = deal_options(ruleset, handicap)
        probe = self.game.new(self.players, 0, options=self.options)
        reach = [self.game.reach(self.players, s) for s in range(self.players)]
        self.codec = ClassicCodec(self.players, probe.ruleset.hand_size, reach)
        self.opponents = resolve_opponents(
            bots, players - 1, check_bot=BotSpec.parse, load=self._load_policy
        )
        """Each opponent seat's bot spec or policy, in seat order (the agent's skipped)."""
        self.specs = [BotSpec.parse(o) if isinstance(o, str) else None for o in self.opponents]
        self.policies: dict[int, tuple[Policy, ClassicEncoder]] = {}
        self.deck_seed = deck_seed
        self.step_seconds = step_seconds
        self.max_steps = max_steps
        self.config = config or SimConfig()
        self.render_mode = render_mode
        self.idle = IdleRule(check_idle_seconds(idle_seconds))
        self.observation_space, self.action_space = seat_spaces(self.codec.size, self.codec.actions)
        self._rng: random.Random | None = None
        self.state_ = None
        self.race: BotRace | None = None
        self.steps = 0

    def _load_policy(self, source: object) -> Policy:
        """A saved ``blink train`` policy as an opponent."""
        from blink.train.opponent import policy_opponent  # PyTorch: blink[train]

        return policy_opponent(source, "classic", self.codec.size, self.codec.actions)

    def observe(self) -> Observation:
        """The agent's view as an array, and the mask of its legal actions."""
        return self._observe(self.seat, self._encoder)

    def _observe(self, seat: int, encoder: ClassicEncoder) -> Observation:
        view = self.game.view(self.state_, seat)
        legal = self.game.legal_actions(self.state_, seat)
        return {"observation": encoder.observe(view), "action_mask": self.codec.mask(legal, view)}

    def _policies_act(self, race: BotRace) -> None:
        """Each opponent policy acts from its seat's observation (``ValueError`` when it
        answers an action its mask does not allow)."""
        for seat, (policy, encoder) in self.policies.items():
            if self.state_.over:
                return
            obs = self._observe(seat, encoder)
            action = policy(obs)
            try:
                index = int(action)
                allowed = 0 <= index < len(obs["action_mask"]) and obs["action_mask"][index]
            except (TypeError, ValueError):
                allowed = False
            if not allowed:
                raise ValueError(
                    f"the opponent policy in seat {seat} answered {action!r}, not a legal action"
                )
            if index == WAIT:
                continue
            move = self.codec.action(index, self.game.view(self.state_, seat))
            if isinstance(move, Play | Choose):
                race.act(move)

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
        bots, self.policies = {}, {}
        for s, spec, opponent in zip(others, self.specs, self.opponents, strict=True):
            if spec is not None:
                bots[s] = spec.build(s, rng.getrandbits(63))
            elif not isinstance(opponent, str):
                self.policies[s] = (opponent, self.codec.encoder(s))
        self.race = BotRace(self.state_, bots, rng.getrandbits(63), config=self.config)
        self._encoder = self.codec.encoder(self.seat)
        self.steps = 0
        self.idle.start(self.state_, 0.0)
        return self.observe(), {}

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
        self._policies_act(race)
        until = (self.steps + 1) * self.step_seconds
        race.advance(until)
        if not state.over and self.idle.check(state, until):
            info["idle"] = True
        return self.finish_step(info)

    def picture(self) -> NDArray[np.uint8]:
        """The agent's view as a picture of its cards."""
        return classic_picture(self.game.view(self.state_, self.seat))

    def text(self) -> str:
        """The agent's view as text, at the episode's virtual time."""
        return classic_text(self.game.view(self.state_, self.seat), self.steps * self.step_seconds)

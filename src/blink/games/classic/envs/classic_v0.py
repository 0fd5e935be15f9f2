"""Classic Blink as a PettingZoo ParallelEnv: the race in steps of virtual time.

::

    from blink.envs import classic_v0
    env = classic_v0.parallel_env(players=2)
    observations, infos = env.reset(seed=7)
    while env.agents:
        actions = {a: env.action_space(a).sample(observations[a]["action_mask"])
                   for a in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)

Each step covers ``step_seconds`` of virtual time (0.1 s by default). Every agent's action of
a step is taken at the step's start; when several agents act in one step their actions are
applied one after the other, each judged by the engine against the table as the earlier ones
left it (so a play on a pile another agent has just covered may be refused: it lost the race).
The order is shuffled by the episode's seed (``order="shuffle"``, the default), or set by a
reaction time drawn for each action from the bots' model of a level (``order="reaction"``,
``reaction_level="expert"`` or one level per agent), the fastest first. Then the clock runs
to the end of the step and the definition's referee acts at its deadlines: the reveal (at
once, at the reset), a stall's flip, the default choices of a choosing stall. A game whose
racing table has not changed for ``idle_seconds`` (10 s) ends there, won by the fewest cards
(:mod:`~blink.games.classic.envs.idle`). See docs/envs.md.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec

from blink.cards import STANDARD_DECK
from blink.envs.encoding import Refusal, cards_vector, episode_rng, refusal, rewards_of
from blink.games.classic.actions import Choose, Play
from blink.games.classic.bots.reaction import DEFAULT_LEVEL, Level, get_level
from blink.games.classic.bots.tables import CMP, NO_MATCH
from blink.games.classic.envs.codec import WAIT, ClassicCodec
from blink.games.classic.envs.idle import DEFAULT_IDLE_SECONDS, IdleRule, check_idle_seconds
from blink.games.classic.envs.text import classic_picture, classic_text
from blink.games.classic.rules import CHOICE_DEADLINE
from blink.model.base import IllegalAction, RefereeClock, Timings
from blink.model.registry import get_game

__all__ = ["DEFAULT_TIMINGS", "ORDERS", "env", "parallel_env", "raw_env"]

GAME: Final = "classic"

DEFAULT_TIMINGS: Final = Timings(
    countdown=0.0, stall_pause=1.0, choice_deadline=CHOICE_DEADLINE, turn=None
)
"""The referee's delays in virtual seconds: the simulator's (reveal at once, flip after 1 s, a
choosing stall's defaults after 10 s)."""

ORDERS: Final = ("shuffle", "reaction")
"""The orders of several actions in one step: shuffled by the episode's seed, or by reaction
times drawn from the bots' model."""

Observation = dict[str, NDArray[Any]]


def deal_options(ruleset: str, handicap: str | list[int] | None) -> dict[str, Any]:
    """The definition's options for a ruleset's name and a handicap (text or sizes)."""
    options: dict[str, Any] = {"ruleset": ruleset}
    if handicap is not None:
        options["sizes"] = handicap
    return options


def reaction_levels(
    order: str, reaction_level: str | Sequence[str] | None, players: int
) -> tuple[Level, ...] | None:
    """Each seat's bot level for ``order="reaction"`` (``None`` for ``"shuffle"``): one level
    name for every seat, one per seat, or the bots' default level; ``ValueError`` (a
    :class:`~blink.games.classic.bots.base.BotConfigError` for an unknown level) otherwise."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    if order == "shuffle":
        if reaction_level is not None:
            raise ValueError('reaction_level applies to order="reaction" only')
        return None
    names = [DEFAULT_LEVEL] * players if reaction_level is None else reaction_level
    if isinstance(names, str):
        names = [names] * players
    names = list(names)
    if len(names) != players:
        raise ValueError(f"reaction_level names one level or {players}, not {len(names)}")
    return tuple(get_level(str(n)) for n in names)


class raw_env(ParallelEnv):  # PettingZoo names the environment class raw_env
    """Classic Blink for ``players`` (2 or 3) agents ``player_0`` ... (seat ``i``).

    Options: ``ruleset`` (``"official"`` or ``"dead-end"``), ``handicap`` (draw-pile sizes,
    as text such as ``"35:25"`` or a list), ``deck_seed`` (deal every episode from this seed;
    default: from the episode's seed), ``step_seconds`` (virtual time per step),
    ``max_cycles`` (truncate after this many steps), ``timings`` (the referee's delays),
    ``order`` (of several actions in one step: ``"shuffle"`` or ``"reaction"``, see
    :data:`ORDERS`), ``reaction_level`` (with ``"reaction"``: a bot level's name for every
    agent, or one per agent; the bots' default level when not given), ``render_mode``
    (``"ansi"``, ``"human"`` or ``"rgb_array"``), ``idle_seconds`` (the game ends, won by the
    fewest cards, when the racing table has not changed for that long; ``None``: never).
    """

    metadata: Final[dict[str, Any]] = {
        "name": "classic_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
    }

    def __init__(
        self,
        players: int = 2,
        *,
        ruleset: str = "official",
        handicap: str | list[int] | None = None,
        deck_seed: int | None = None,
        step_seconds: float = 0.1,
        max_cycles: int = 10_000,
        timings: Timings = DEFAULT_TIMINGS,
        order: str = "shuffle",
        reaction_level: str | Sequence[str] | None = None,
        render_mode: str | None = None,
        idle_seconds: float | None = DEFAULT_IDLE_SECONDS,
    ) -> None:
        self.game = get_game(GAME)
        self.players = self.game.info.check_players(players)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if not step_seconds > 0:
            raise ValueError(f"a step lasts a positive time, not {step_seconds!r}")
        self.order = order
        self.idle = IdleRule(check_idle_seconds(idle_seconds))
        """The inactivity rule: ends a game no one plays in (:mod:`.idle`)."""
        self.levels = reaction_levels(order, reaction_level, self.players)
        """Each seat's level of the reaction-time model (``None``: the order is shuffled)."""
        self.options = deal_options(ruleset, handicap)
        probe = self.game.new(self.players, 0, options=self.options)  # checks the options
        self.hand_size: int = probe.ruleset.hand_size
        self.render_mode = render_mode
        self.deck_seed = deck_seed
        self.step_seconds = step_seconds
        self.max_cycles = max_cycles
        self.timings = timings
        reach = [self.game.reach(self.players, s) for s in range(self.players)]
        self.codec = ClassicCodec(self.players, self.hand_size, reach)
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        box = spaces.Box(0.0, 1.0, (self.codec.size,), dtype=np.float32)
        mask = spaces.Box(0, 1, (self.codec.actions,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": box, "action_mask": mask}) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.codec.actions) for a in self.possible_agents}
        size = self.players * (self.codec.size + len(STANDARD_DECK))
        self.state_space = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        """The space of :meth:`state`."""
        self.agents: list[str] = []
        self._rng: random.Random | None = None
        self._order = random.Random(0)
        self.state_: Any = None
        self.clock = RefereeClock(self.game, timings)
        self.steps = 0
        self.events: list[Any] | None = None
        """Set to a list to collect the engine's events of every action applied (emptied by
        :meth:`start`); ``None``, the default, collects none. OpenSpiel's game reads them."""

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every time)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent`` (the same object every time)."""
        return self.action_spaces[agent]

    @property
    def now(self) -> float:
        """Virtual seconds since the reveal."""
        return self.steps * self.step_seconds

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        """Deal a new game (from ``deck_seed``, or shuffled by ``seed``) and reveal it."""
        rng = self._rng = episode_rng(self._rng, seed)
        deck_seed = rng.getrandbits(63)
        self._order = random.Random(rng.getrandbits(63))
        if self.deck_seed is not None:
            deck_seed = self.deck_seed
        self.start(self.game.new(self.players, deck_seed, options=self.options))
        return {a: self.observe(a) for a in self.agents}, {a: {} for a in self.agents}

    def start(self, state: Any) -> None:
        """Begin an episode on a game just dealt (``state``, from the definition's ``new``) and
        reveal it; then observe every agent (the reset's observations) before :meth:`advance`.
        (:meth:`reset` deals and starts; OpenSpiel's game deals card by card and starts.)"""
        self.state_ = state
        self.steps = 0
        if self.events is not None:
            self.events.clear()
        self._encoders = [self.codec.encoder(s) for s in range(self.players)]
        self._views: list[Any] = [None] * self.players
        self.clock = RefereeClock(self.game, self.timings)
        self._referee(0.0)
        self.idle.start(state, 0.0)
        self.agents = self.possible_agents[:]

    def seat_view(self, agent: str) -> Any:
        """The definition's view of ``agent``'s seat: all an observation is made from."""
        return self.game.view(self.state_, self._seat[agent])

    def observe(self, agent: str) -> Observation:
        """``agent``'s view as an array, and the mask of its legal actions."""
        seat = self._seat[agent]
        view = self._views[seat] = self.game.view(self.state_, seat)
        legal = self.game.legal_actions(self.state_, seat)
        return {
            "observation": self._encoders[seat].observe(view),
            "action_mask": self.codec.mask(legal, view),
        }

    def state(self) -> NDArray[np.float32]:
        """The whole game, for a centralised critic (PettingZoo's global state): every seat's
        observation (seat 0 first), then the cards of each seat's draw pile (60 numbers each,
        standard-deck order). It holds what no seat may see: not for a seat's policy."""
        state = self.state_
        if state is None:
            raise RuntimeError("call reset() before state()")
        seats = range(self.players)
        parts = [self._encoders[s].observe(self.game.view(state, s)) for s in seats]
        parts.append(cards_vector([state.draw_pile(s) for s in seats]))
        return np.concatenate(parts)

    def _referee(self, until: float) -> None:
        """Let the referee act at each of its deadlines up to ``until``."""
        state = self.state_
        clock = self.clock
        pending = clock.update(state, self.now)
        while pending is not None and not state.over and clock.due(until):
            at = clock.deadline
            assert at is not None  # due() is only true with a deadline
            for _, action in pending.actions:
                found = self.game.apply(state, action, round(at * 1000))
                if self.events is not None:
                    self.events.extend(found)
                if state.over:
                    break
            pending = clock.update(state, at)

    def _act(self, seat: int, index: int) -> Refusal | None:
        """Apply ``seat``'s action ``index`` now; the refusal, if it is refused.

        The index is read in the seat's view of the step's start (its observation): no other
        seat's action changes its hand, and it has one action a step."""
        state = self.state_
        view = self._views[seat]
        if view is None:
            view = self.game.view(state, seat)
        move = self.codec.action(index, view)
        if move is None:
            return None
        if isinstance(move, Refusal):
            return move
        try:
            found = self.game.apply(state, move, round(self.now * 1000))
        except IllegalAction as exc:
            return refusal(exc)
        if self.events is not None:
            self.events.extend(found)
        return None

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, Observation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Take every agent's action at the step's start (in a shuffled order, or by reaction
        times), then run the clock to the step's end."""
        agents = self.agents
        moves = [(a, int(x)) for a, x in actions.items() if a in agents and int(x) != WAIT]
        if len(moves) > 1:
            if self.levels is None:
                self._order.shuffle(moves)
            else:
                moves = self._by_reaction(moves)
        infos = self.advance(moves)
        state = self.state_
        over = bool(state.over)
        truncated = not over and self.steps >= self.max_cycles
        results = rewards_of(state.outcome, self.players)
        rewards = {a: results[self._seat[a]] for a in agents}
        observations = {a: self.observe(a) for a in agents}
        if over:
            for a in agents:
                infos[a]["outcome"] = state.outcome.reason.value
                if self.idle.ended:
                    infos[a]["idle"] = True
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, truncated)
        if over or truncated:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _by_reaction(self, moves: list[tuple[str, int]]) -> list[tuple[str, int]]:
        """``moves`` in the order of a reaction time drawn for each from its seat's level, the
        fastest first. A play's search is the comparisons that see its card fits the pile's
        top (1 for the colour, 2 the shape, 3 the count: a bot's table); a stall choice looks
        at the whole hand (3 a card), as a bot's does."""
        levels = self.levels
        assert levels is not None
        rng = self._order
        timed: list[tuple[float, int, tuple[str, int]]] = []
        for i, (agent, index) in enumerate(moves):
            seat = self._seat[agent]
            view = self._views[seat] or self.game.view(self.state_, seat)
            move = self.codec.action(index, view)
            comparisons = 3
            if type(move) is Play:
                top = view.tops[move.pile]
                if top is not None and CMP[top.index][move.card.index] != NO_MATCH:
                    comparisons = CMP[top.index][move.card.index]
            elif type(move) is Choose:
                comparisons = 3 * len(view.hand)
            timed.append((levels[seat].sample(rng, comparisons), i, (agent, index)))
        timed.sort()
        return [m for _, _, m in timed]

    def advance(self, moves: list[tuple[str, int]]) -> dict[str, dict[str, Any]]:
        """One step: apply ``moves`` (agent, action number other than wait) in this order at
        the step's start, each read in the agent's latest observation, then run the clock to
        the step's end. Every agent's info (a refusal). :meth:`step` orders the moves by the
        episode's seed (or by reaction times); OpenSpiel's game by a chance node."""
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        state = self.state_
        for agent, index in moves:
            if state.over:
                break
            found = self._act(self._seat[agent], index)
            if found is not None:
                infos[agent]["refused"] = found._asdict()
        if not state.over:
            self.clock.update(state, self.now)  # a stall caused now is timed from now
        self.steps += 1
        if not state.over:
            self._referee(self.now)
        if not state.over:
            ended = self.idle.check(state, self.now)
            if self.events is not None:
                self.events.extend(ended)
        return infos

    def render(self) -> Any:
        """Seat 0's view as text: returned (``"ansi"``) or printed (``"human"``); or as a
        picture of its cards (``"rgb_array"``: an RGB array, the same size every time)."""
        if self.render_mode is None or self.state_ is None:
            return None
        if self.render_mode == "rgb_array":
            return classic_picture(self.game.view(self.state_, 0))
        text = classic_text(self.game.view(self.state_, 0), self.now)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def parallel_env(**kwargs: Any) -> raw_env:
    """Classic Blink as a PettingZoo ParallelEnv (keyword options: see :class:`raw_env`)."""
    return raw_env(**kwargs)


def env(**kwargs: Any) -> Any:
    """The same game as a PettingZoo AEC environment (PettingZoo's conversion)."""
    return parallel_to_aec(raw_env(**kwargs))

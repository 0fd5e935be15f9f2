"""Classic Blink as an OpenSpiel game, ``python_blink_classic``: a simultaneous-move game in
steps of virtual time (``pip install "blink[envs]"``).

::

    import pyspiel
    import blink.envs.spiel  # registers every game's OpenSpiel game
    game = pyspiel.load_game("python_blink_classic", {"players": 2})

The steps are the PettingZoo ParallelEnv's (:mod:`blink.games.classic.envs.classic_v0`): the
state drives one, so the actions (its codec's numbers: wait, play hand slot k on a pile,
choose in a stall), what a step does (the plays at its start, then the referee's flips and
default choices at their deadlines), the observations and the rewards are the environment's,
and the rules its definition's. Chance is explicit: the deal is a chance node per card (the
standard deck, top card first), and when several seats play in one step a chance node orders
them (every order equally likely), where the environment shuffles them by its seed.

Parameters: ``players`` (2 or 3), ``ruleset``, ``handicap`` (draw-pile sizes as text such as
``"35:25"``; empty: none), ``step_ms`` (virtual time per step) and ``max_steps`` (OpenSpiel
needs a bounded game: after that many steps the game ends with no winner, every return 0),
``idle_ms`` (the environment's inactivity rule: a racing table unchanged that long ends the
game, won by the fewest cards; 0: never).
Observations (string and tensor) are a seat's view. A seat's information state is what it has
seen: its view at the reveal, then step by step its own action (and its refusal) and the
engine's events of the step in their order, redacted for the seat (another seat's drawn card
or stall choice hidden), as the string; its tensor is the seat's observation, then for every
card of the deck who put it on a pile, whether a stall did, and when, then the steps played.
Nothing is made from another seat's hand or a draw pile. See docs/envs.md.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from typing import Any, Final

import numpy as np
import pyspiel

from blink.cards import STANDARD_DECK
from blink.envs.encoding import DECK_INDEX, rewards_of
from blink.envs.spiel_types import for_players, game_type, utility_sum
from blink.games.classic.actions import Flipped, Placed, Played, Revealed
from blink.games.classic.envs.classic_v0 import raw_env
from blink.games.classic.envs.codec import WAIT
from blink.games.classic.envs.text import classic_text

__all__ = [
    "FALLBACKS",
    "GAME_CLASS",
    "GAME_TYPE",
    "TRIES",
    "ClassicObserver",
    "ClassicSpielGame",
    "ClassicSpielState",
]

SHORT_NAME: Final = "python_blink_classic"

_DEFAULTS: Final[dict[str, Any]] = {
    "players": 2,
    "ruleset": "official",
    "handicap": "",
    "step_ms": 100,
    "max_steps": 3000,
    "idle_ms": 10_000,
}

TRIES: Final = 100
"""Deals drawn (and checked) at most by ``resample_from_infostate`` before the state itself is
returned."""

FALLBACKS: list[int] = [0]
"""How many resamplings returned the state itself (every try failed): a counter for tests."""

GAME_TYPE: Final = game_type(
    "classic",
    SHORT_NAME,
    "Python Blink (classic)",
    _DEFAULTS,
    sequential=False,
    information_state=True,
)
"""The game's type (parameters: see the module's text)."""


class ClassicSpielGame(pyspiel.Game):
    """Classic Blink for ``players`` seats, as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        opts = {**_DEFAULTS, **(params or {})}
        self.max_steps = int(opts["max_steps"])
        self.env_options: dict[str, Any] = {
            "players": int(opts["players"]),
            "ruleset": str(opts["ruleset"]),
            "handicap": str(opts["handicap"]) or None,
            "step_seconds": int(opts["step_ms"]) / 1000,
            "max_cycles": self.max_steps,
            "idle_seconds": int(opts["idle_ms"]) / 1000 or None,
        }
        env = raw_env(**self.env_options)  # checks the options
        self.players = env.players
        self.actions = env.codec.actions
        self.size = env.codec.size
        info = pyspiel.GameInfo(
            num_distinct_actions=self.actions,
            max_chance_outcomes=max(len(STANDARD_DECK), math.factorial(self.players)),
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=utility_sum(self.players),
            max_game_length=len(STANDARD_DECK) + 2 * self.max_steps,  # a step, and its order
        )
        super().__init__(for_players(GAME_TYPE, self.players), info, opts)

    def new_initial_state(self) -> ClassicSpielState:
        """A game before the deal: chance deals the first card."""
        return ClassicSpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> ClassicObserver:
        """The observer of information states (``perfect_recall``) or of observations."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return ClassicObserver(self.size, self.players if recall else 0, self.max_steps)


class _Env:
    """Holds a state's environment, its latest observations and what each seat has seen. A
    copy holds nothing: the copied state replays its deal and steps into a new environment
    when it needs one."""

    __slots__ = ("ends", "env", "first", "observations", "refused")

    def __init__(self) -> None:
        self.env: Any = None
        self.observations: dict[int, dict[str, Any]] = {}
        self.first: list[str] = []
        """Each seat's view at the reveal, as JSON."""
        self.ends: list[int] = []
        """How many of the environment's events there were at each step's end."""
        self.refused: list[dict[int, str]] = []
        """Each step's refused actions: seat, refusal code."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Env:
        return _Env()


class ClassicSpielState(pyspiel.State):
    """A classic game in progress: the cards dealt, the steps played, the environment."""

    def __init__(self, game: ClassicSpielGame) -> None:
        super().__init__(game)
        self.players = game.players
        self.max_steps = game.max_steps
        self.env_options = game.env_options
        self.cards: list[int] = []
        """The deck chance has dealt so far (standard-deck indices), top card first."""
        self.steps: list[list[tuple[int, int]]] = []
        """Every step's plays, (seat, action number), in the order they were applied."""
        self.pending: list[tuple[int, int]] | None = None
        """A step's plays waiting for chance to order them."""
        self._held = _Env()

    # -- the environment ----------------------------------------------------------------------

    @property
    def env(self) -> Any:
        """The environment (``None`` during the deal), replayed when this state is a copy."""
        held = self._held
        if held.env is None and len(self.cards) == len(STANDARD_DECK):
            env = raw_env(**self.env_options)
            env.events = []
            deck = [STANDARD_DECK[i] for i in self.cards]
            env.start(env.game.new(self.players, deck=deck, options=env.options))
            held.env = env
            game = env.game
            held.first = [
                json.dumps(game.view_to_wire(game.view(env.state_, s)), sort_keys=True)
                for s in range(self.players)
            ]
            held.ends = [len(env.events)]
            self._observe()
            for moves in self.steps:
                self._advance(moves)
        return held.env

    def _observe(self) -> None:
        env = self._held.env
        self._held.observations = {s: env.observe(a) for s, a in enumerate(env.agents)}

    def _advance(self, moves: list[tuple[int, int]]) -> None:
        held = self._held
        env = held.env
        infos = env.advance([(env.possible_agents[s], i) for s, i in moves])
        held.refused.append(
            {
                s: infos[a]["refused"]["code"]
                for s, a in enumerate(env.possible_agents)
                if "refused" in infos.get(a, {})
            }
        )
        held.ends.append(len(env.events))
        self._observe()

    def _step(self, moves: list[tuple[int, int]]) -> None:
        self.pending = None
        self.steps.append(moves)
        self._advance(moves)

    # -- OpenSpiel ----------------------------------------------------------------------------

    def current_player(self) -> int:
        """Chance (dealing, ordering plays), the simultaneous seats, or terminal."""
        env = self.env
        if env is None or self.pending is not None:
            return int(pyspiel.PlayerId.CHANCE)
        if env.state_.over or len(self.steps) >= self.max_steps:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(pyspiel.PlayerId.SIMULTANEOUS)

    def _legal_actions(self, player: int) -> list[int]:
        """The environment's mask of ``player``: waiting and the definition's legal actions."""
        self.env  # noqa: B018  (rebuilt if a copy)
        mask = self._held.observations[player]["action_mask"]
        return [int(i) for i in np.flatnonzero(mask)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next card of the deal, or the order of a step's plays: equally likely."""
        if self.pending is not None:
            n = math.factorial(len(self.pending))
            return [(i, 1.0 / n) for i in range(n)]
        dealt = set(self.cards)
        unseen = [i for i in range(len(STANDARD_DECK)) if i not in dealt]
        return [(i, 1.0 / len(unseen)) for i in unseen]

    def _apply_action(self, action: int) -> None:
        """A chance outcome: a card of the deal, or an order of the pending plays."""
        if self.pending is not None:
            order = list(itertools.permutations(self.pending))[action]
            self._step(list(order))
            return
        self.cards.append(action)

    def _apply_actions(self, actions: list[int]) -> None:
        """Every seat's action of a step: the plays are applied now, or after chance orders
        them when there are several."""
        moves = [(s, int(a)) for s, a in enumerate(actions) if a != WAIT]
        if len(moves) > 1:
            self.pending = moves
            return
        self._step(moves)

    def _action_to_string(self, player: int, action: int) -> str:
        """A card, an order of plays, or a seat's action."""
        if player == pyspiel.PlayerId.CHANCE:
            if self.pending is not None:
                order = list(itertools.permutations(self.pending))[action]
                return "order " + " ".join(f"seat {s}" for s, _ in order)
            return f"card {STANDARD_DECK[action]}"
        return _action_text(action)

    def is_terminal(self) -> bool:
        """True once the game is over, or after ``max_steps`` steps."""
        return bool(self.current_player() == pyspiel.PlayerId.TERMINAL)

    def returns(self) -> list[float]:
        """+1 for a sole winner, 0 for winners who share, -1 for the others; all 0 until the
        end and when the game is stopped after ``max_steps``."""
        env = self.env
        if env is None or not env.state_.over:
            return [0.0] * self.players
        return rewards_of(env.state_.outcome, self.players)

    def observation(self, seat: int) -> Any:
        """The environment's observation array of ``seat`` (``None`` during the deal)."""
        if self.env is None:
            return None
        return self._held.observations[seat]["observation"]

    def seat_text(self, seat: int) -> str:
        """``seat``'s view as text."""
        env = self.env
        if env is None:
            return f"dealing: {len(self.cards)} of {len(STANDARD_DECK)} cards dealt"
        return str(classic_text(env.game.view(env.state_, seat), env.now))

    def seen_events(self, seat: int) -> list[list[Any]]:
        """Each step's events (the reveal's first) as ``seat`` saw them: redacted for it."""
        env = self.env
        if env is None:
            return []
        held = self._held
        game = env.game
        events = env.events
        bounds = [0, *held.ends]
        return [[game.redact(e, seat) for e in events[a:b]] for a, b in itertools.pairwise(bounds)]

    def seat_history(self, seat: int) -> list[str]:
        """What ``seat`` has seen, one line each: its view at the reveal and the reveal, then
        every step's own action (and its refusal) and its events redacted for the seat."""
        head = f"seat {seat} of {self.players}"
        env = self.env
        if env is None:
            return [f"{head}, dealing: {len(self.cards)} of {len(STANDARD_DECK)} cards dealt"]
        held = self._held
        game = env.game
        lines = [head, held.first[seat]]
        for k, step in enumerate(self.seen_events(seat)):
            if k:
                mine = dict(self.steps[k - 1]).get(seat, WAIT)
                line = f"step {k}: " + _action_text(mine)
                code = held.refused[k - 1].get(seat)
                lines.append(line if code is None else f"{line}, refused: {code}")
            for event in step:
                wire = game.event_to_wire(event)
                if wire is not None:
                    lines.append(json.dumps(wire, sort_keys=True, default=str))
        if self.pending is not None:  # the step's plays, waiting for chance to order them
            mine = dict(self.pending).get(seat, WAIT)
            lines.append(f"step {len(self.steps) + 1}: " + _action_text(mine))
        return lines

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
        """A state ``player_id`` cannot tell from this one: the cards hidden from the seat
        (the other hands, every draw pile, the cards set aside:
        :meth:`~blink.games.classic.definition.ClassicDefinition.hidden_cards`) shuffled among
        their places in the deal, the same steps played again (and their orders), kept when the
        seat's history is the same; else another shuffle, up to :data:`TRIES`, then the state
        itself (consistent by definition). During the deal, or while chance orders a step's
        plays, the state itself. Never raises."""
        env = self.env
        if env is None or self.pending is not None:
            return self.clone()
        rng = random.Random(int(probability_sampler() * 2**53))
        hidden = {DECK_INDEX[c] for c in env.game.hidden_cards(env.state_, player_id)}
        places = [i for i, c in enumerate(self.cards) if c in hidden]
        target = self.seat_history(player_id)
        for _ in range(TRIES):
            cards = list(self.cards)
            pool = [cards[i] for i in places]
            rng.shuffle(pool)
            for i, c in zip(places, pool, strict=True):
                cards[i] = c
            found = self._replayed(cards)
            if found is not None and found.seat_history(player_id) == target:
                return found
        FALLBACKS[0] += 1
        return self.clone()

    def _replayed(self, cards: list[int]) -> ClassicSpielState | None:
        """This game's steps again on the deal ``cards`` (``None`` as soon as the game ends
        before they are all played)."""
        state: ClassicSpielState = self.get_game().new_initial_state()
        for card in cards:
            state.apply_action(card)
        for moves in self.steps:
            if state.is_terminal():
                return None
            actions = [WAIT] * self.players
            for seat, action in moves:
                actions[seat] = action
            try:
                state.apply_actions(actions)
                if state.pending is not None:
                    orders = list(itertools.permutations(state.pending))
                    order = tuple(moves)
                    if order not in orders:
                        return None
                    state.apply_action(orders.index(order))
            except pyspiel.SpielError:  # an action that deal does not allow
                return None
        return state

    def __str__(self) -> str:
        """Seat 0's view as text (debugging)."""
        return self.seat_text(0)


def _action_text(action: int) -> str:
    """A seat's action number in words: wait, or the number."""
    return "wait" if action == WAIT else f"action {action}"


class ClassicObserver:
    """OpenSpiel's observer of a seat: the environment's observation and its view as text, or
    with ``recall`` seats (the players; 0: an observation) its information state: the
    observation, then per card of the deck (standard order) who put it on a pile (the seat
    first, then clockwise; none for the reveal), 1 when a stall did (a flip or a placed stall
    choice), its place in the order the cards reached the piles / 60, then steps / ``max_steps``.
    """

    def __init__(self, size: int, recall: int = 0, max_steps: int = 1) -> None:
        self.size = size
        self.recall = recall
        self.max_steps = max_steps
        per_card = recall + 2 if recall else 0
        self.tensor = np.zeros(
            size + len(STANDARD_DECK) * per_card + (1 if recall else 0), np.float32
        )
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ClassicSpielState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s observation, or information state (zeros
        during the deal)."""
        found = state.observation(player)
        if found is None:
            self.tensor.fill(0.0)
            return
        self.tensor[: self.size] = found
        if self.recall:
            self.tensor[self.size :] = 0.0
            self._recall(state, player)

    def _recall(self, state: ClassicSpielState, player: int) -> None:
        """The part of the information-state tensor after the observation (zeros on entry)."""
        p = self.recall
        width = p + 2
        cards = self.tensor[self.size : -1].reshape(len(STANDARD_DECK), width)
        arrived = 0
        deck = len(STANDARD_DECK)
        for step in state.seen_events(player):
            for e in step:
                t = type(e)
                if t is Revealed:
                    for card in e.tops:
                        arrived += 1
                        cards[DECK_INDEX[card], width - 1] = arrived / deck
                elif t is Played or t is Flipped or t is Placed:
                    row = cards[DECK_INDEX[e.card]]
                    row[:] = 0.0
                    row[(e.player - player) % p] = 1.0
                    row[p] = 0.0 if t is Played else 1.0
                    arrived += 1
                    row[width - 1] = arrived / deck
        self.tensor[-1] = len(state.steps) / self.max_steps

    def string_from(self, state: ClassicSpielState, player: int) -> str:
        """``player``'s history (an information state) or view as text (an observation)."""
        if self.recall:
            return "\n".join(state.seat_history(player))
        return state.seat_text(player)


GAME_CLASS: Final = ClassicSpielGame
"""The game's class, registered with :data:`GAME_TYPE` by :mod:`blink.envs.spiel`."""

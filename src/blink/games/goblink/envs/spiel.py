"""Go Blink as an OpenSpiel game, ``python_go_blink``: sequential, with chance and imperfect
information (``pip install "blink[envs]"``).

::

    import pyspiel
    import blink.envs.spiel  # registers every game's OpenSpiel game
    game = pyspiel.load_game("python_go_blink", {"players": 3})
    state = game.new_initial_state()

The game comes from the registry (``get_game("goblink")``): the legal actions, the rules, the
views and the redaction are the definition's; the actions are the numbers of the PettingZoo
environment's codec (:mod:`blink.games.goblink.envs.codec`).

Chance is explicit, one card at a time. The deal is a chance node per card (top of the deck
first: the engine deals them round the table from the player after the dealer), and every
draw is one more chance node whose outcome is the drawn card. The state never decides the
order of the cards no one has drawn: when a player's action would take a card nobody has
dealt yet, the action waits, chance deals that card (uniformly among the unseen ones), and the
action is then applied to the game rebuilt from the longer deck (``definition.new(deck=...)``
and the accepted actions again). A chance outcome is a card's index in the standard deck.

A player's information state is the game as the seat saw it: its deal, then every event as the
definition redacts it for the seat (what the server sends it); its tensor, and the observation
tensor, are the seat's view in the codec's layout (the ask log only holds the latest
``ask_window`` asks). The observation string is the seat's view as text. Nothing is ever made
from another seat's hand or the draw pile. See docs/envs.md.
"""

from __future__ import annotations

import json
import random
from typing import Any, Final

import numpy as np
import pyspiel

from blink.cards import STANDARD_DECK, Card
from blink.envs.encoding import DECK_INDEX, rewards_of
from blink.envs.spiel_types import for_players, game_type, utility_sum
from blink.games.goblink.envs.codec import DEFAULT_TURN_LIMIT, GoCodec, codec
from blink.games.goblink.envs.resample import FALLBACKS, TRIES, hidden_indices, resample_cards
from blink.games.goblink.envs.text import goblink_text
from blink.games.goblink.values import MIN_MATCH
from blink.model.base import IllegalAction
from blink.model.registry import get_game

__all__ = ["GAME_CLASS", "GAME_TYPE", "GoBlinkObserver", "GoBlinkSpielGame", "GoBlinkSpielState"]

GAME: Final = "goblink"
SHORT_NAME: Final = "python_go_blink"

_HAND: Final = 4  # the deal: four cards a seat (the engine's HAND_SIZE; checked on building)
_MAX_LAYS: Final = len(STANDARD_DECK) // MIN_MATCH  # a match holds MIN_MATCH cards or more

_DEFAULTS: Final[dict[str, int]] = {
    "players": 2,
    "dealer": 0,
    "turn_limit": DEFAULT_TURN_LIMIT,
    "ask_window": 16,
}

GAME_TYPE: Final = game_type(
    GAME, SHORT_NAME, "Python Go Blink", _DEFAULTS, sequential=True, information_state=True
)
"""The game's type: its parameters are ``players`` (2 to 6), ``dealer`` (a seat),
``turn_limit`` (the game's own option: after that many turns the fewest cards win; OpenSpiel
needs a bounded game) and ``ask_window`` (the asks a tensor holds)."""


class GoBlinkSpielGame(pyspiel.Game):
    """Go Blink for ``players`` seats, as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        opts = {**_DEFAULTS, **(params or {})}
        self.definition = get_game(GAME)
        self.players = self.definition.info.check_players(int(opts["players"]))
        self.options = {"dealer": int(opts["dealer"]), "turn_limit": int(opts["turn_limit"])}
        self.definition.new(self.players, 0, options=self.options)  # checks the options
        self.codec: GoCodec = codec(self.players, int(opts["ask_window"]))
        limit = self.options["turn_limit"]
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.actions,
            max_chance_outcomes=len(STANDARD_DECK),
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=utility_sum(self.players),
            # every card dealt or drawn, every lay-down, the opening decisions, an ask and an
            # end a turn
            max_game_length=len(STANDARD_DECK) + _MAX_LAYS + self.players + 2 * limit,
        )
        super().__init__(for_players(GAME_TYPE, self.players), info, opts)

    def new_initial_state(self) -> GoBlinkSpielState:
        """A game before the deal: chance deals the first card."""
        return GoBlinkSpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> GoBlinkObserver:
        """The observer of information states (``perfect_recall``) or of observations."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return GoBlinkObserver(self.codec, recall)


class _Engine:
    """Holds a state's engine game and its events. A copy holds nothing: the copied state
    rebuilds them from its cards and moves when it needs them, faster than a deep copy."""

    __slots__ = ("events", "game")

    def __init__(self) -> None:
        self.game: Any = None
        self.events: list[Any] = []

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine()


class GoBlinkSpielState(pyspiel.State):
    """A Go Blink game in progress: the cards chance has dealt so far, the players' moves, and
    the engine's game they make."""

    def __init__(self, game: GoBlinkSpielGame) -> None:
        super().__init__(game)
        self.players = game.players
        self.ask_window = game.codec.ask_window
        self.options: dict[str, int] = game.options
        self.cards: list[int] = []
        """The cards chance has dealt (standard-deck indices), in deck order: the deal, then
        every draw."""
        self.moves: list[tuple[int, int]] = []
        """The players' accepted actions: (seat, action number)."""
        self.pending: tuple[int, int] | None = None
        """A player's action waiting for chance to deal the card it draws."""
        self._engine = _Engine()

    # The definition and the codec are shared and read-only: looked up, not held, so that
    # cloning a state (a deep copy) copies the game's own values only.
    @property
    def definition(self) -> Any:
        """Go Blink's definition, from the registry."""
        return get_game(GAME)

    @property
    def codec(self) -> GoCodec:
        """The shared codec of the actions and the views."""
        return codec(self.players, self.ask_window)

    # -- the engine ---------------------------------------------------------------------------

    @property
    def deck(self) -> list[Card]:
        """The cards chance has dealt, in deck order."""
        return [STANDARD_DECK[i] for i in self.cards]

    @property
    def game_(self) -> Any:
        """The engine's game (``None`` during the deal), rebuilt when this state is a copy."""
        if self._engine.game is None and len(self.cards) >= _HAND * self.players:
            self._rebuild()
        return self._engine.game

    @property
    def events(self) -> list[Any]:
        """Every event of the accepted moves, in order (not redacted)."""
        if self.game_ is None:
            return []
        return self._engine.events

    def _unseen(self) -> list[Card]:
        dealt = set(self.cards)
        return [c for i, c in enumerate(STANDARD_DECK) if i not in dealt]

    def _rebuild(self) -> None:
        """The engine's game from the dealt cards (the unseen ones after them, in the standard
        order: no one has drawn them) and the accepted moves."""
        definition = self.definition
        game = definition.new(
            self.players, deck=[*self.deck, *self._unseen()], options=self.options
        )
        events: list[Any] = []
        for seat, index in self.moves:
            events.extend(definition.apply(game, self.codec.action(index, seat)))
        self._engine.game = game
        self._engine.events = events

    def _taken(self) -> int:
        """How many cards of the deck the game has dealt or drawn so far."""
        return len(STANDARD_DECK) - int(self.definition.view(self.game_, None).draw_count)

    def _play(self, seat: int, index: int) -> None:
        """Apply ``seat``'s action ``index``; when it draws a card chance has not dealt yet,
        undo it and wait for chance."""
        events = self.definition.apply(self.game_, self.codec.action(index, seat))
        if self._taken() > len(self.cards):
            self.pending = (seat, index)
            self._rebuild()  # undo: chance deals the card the move draws, then it is replayed
            return
        self.pending = None
        self.moves.append((seat, index))
        self._engine.events.extend(events)

    # -- OpenSpiel ----------------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, or chance (dealing or drawing), or terminal."""
        game = self.game_
        if game is None or self.pending is not None:
            return int(pyspiel.PlayerId.CHANCE)
        if game.over:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(game.current)

    def _legal_actions(self, player: int) -> list[int]:
        """The definition's legal actions of ``player``, as the codec's numbers, ascending."""
        legal = self.definition.legal_actions(self.game_, player)
        return sorted(self.codec.index(a) for a in legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next card: any card chance has not dealt, equally likely."""
        dealt = set(self.cards)
        unseen = [i for i in range(len(STANDARD_DECK)) if i not in dealt]
        p = 1.0 / len(unseen)
        return [(i, p) for i in unseen]

    def _apply_action(self, action: int) -> None:
        """A card from chance, or the current player's action (a number of the codec)."""
        if self.game_ is None or self.pending is not None:
            self.cards.append(action)
            if self.pending is not None:
                self._rebuild()
                self._play(*self.pending)
            return
        self._play(self.current_player(), action)

    def _action_to_string(self, player: int, action: int) -> str:
        """A chance card, or the action in words."""
        if player == pyspiel.PlayerId.CHANCE:
            return f"card {STANDARD_DECK[action]}"
        return self.codec.describe(action, player)

    def is_terminal(self) -> bool:
        """True once the game is over."""
        game = self.game_
        return game is not None and self.pending is None and bool(game.over)

    def returns(self) -> list[float]:
        """+1 for a sole winner, 0 for winners who share, -1 for the others (0 until the end)."""
        if not self.is_terminal():
            return [0.0] * self.players
        return rewards_of(self.game_.outcome, self.players)

    def seat_view(self, seat: int | None) -> Any:
        """The definition's view of ``seat`` (``None``: a spectator); ``None`` during the deal."""
        game = self.game_
        return None if game is None else self.definition.view(game, seat)

    def dealt_to(self, seat: int) -> list[Card]:
        """The cards chance has dealt to ``seat`` so far (the engine deals round the table from
        the player after the dealer)."""
        first = self.options["dealer"] + 1
        deal = self.deck[: _HAND * self.players]
        return [c for i, c in enumerate(deal) if (first + i) % self.players == seat]

    def seat_history(self, seat: int) -> list[str]:
        """What ``seat`` has seen, one line each: its deal, then every event redacted for it."""
        mine = " ".join(str(c) for c in self.dealt_to(seat))
        lines = [f"seat {seat} of {self.players}, dealt {mine}"]
        definition = self.definition
        for event in self.events:
            wire = definition.event_to_wire(definition.redact(event, seat))
            if wire is not None:
                lines.append(json.dumps(wire, sort_keys=True))
        return lines

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
        """A state ``player_id`` cannot tell from this one: the cards hidden from the seat dealt
        again, each drawn among the hidden cards the seat's information allows in its place
        (:mod:`~blink.games.goblink.envs.resample`), the same actions replayed, kept when the
        seat's information state is the same; the state itself when no draw fits. Never
        raises at a player's decision."""
        game = self.game_
        if game is None or self.pending is not None:
            raise pyspiel.SpielError("resample at a player's decision, not during chance")
        rng = random.Random(int(probability_sampler() * 2**53))
        hidden = hidden_indices(self.definition, game, player_id, self.cards)
        lines = self.seat_history(player_id)
        target = "\n".join(lines)
        events = self.events
        for _ in range(TRIES):
            cards = resample_cards(
                self.cards, hidden, self.players, self.options["dealer"], events, player_id, rng
            )
            if cards is None:
                continue
            if not self._fits(cards, player_id, lines):
                continue
            found = self._replayed(cards)
            if found is not None and found.information_state_string(player_id) == target:
                return found
        FALLBACKS[0] += 1
        return self.clone()

    def _fits(self, cards: list[int], seat: int, lines: list[str]) -> bool:
        """True when the accepted actions, replayed on the engine with ``cards`` as the deal
        and the draws, tell ``seat`` exactly its history ``lines`` (fast: one replay, no
        chance nodes; the state itself is then made by :meth:`_replayed`)."""
        definition = self.definition
        dealt = set(cards)
        deck = [STANDARD_DECK[i] for i in cards]
        deck += [c for i, c in enumerate(STANDARD_DECK) if i not in dealt]
        game = definition.new(self.players, deck=deck, options=self.options)
        action = self.codec.action
        line = 1
        for player, index in self.moves:
            try:
                events = definition.apply(game, action(index, player))
            except IllegalAction:
                return False
            for event in events:
                wire = definition.event_to_wire(definition.redact(event, seat))
                if wire is None:
                    continue
                if line >= len(lines) or lines[line] != json.dumps(wire, sort_keys=True):
                    return False
                line += 1
        taken = len(STANDARD_DECK) - int(definition.view(game, None).draw_count)
        return line == len(lines) and taken == len(cards)

    def _replayed(
        self, cards: list[int], seat: int | None = None, lines: list[str] | None = None
    ) -> GoBlinkSpielState | None:
        """This game's actions again with ``cards`` as chance's outcomes (``None`` when they
        do not fit: a chance node where a player acted, or the reverse, or an illegal
        action; or, given ``seat`` and its history ``lines``, as soon as an event reads
        differently for the seat)."""
        state: GoBlinkSpielState = self.get_game().new_initial_state()
        chance = iter(cards)
        checked = 0
        line = 1  # the seat's history: its deal, then one line per event it is told of
        definition = self.definition
        for item in self.full_history():
            if item.player == pyspiel.PlayerId.CHANCE:
                card = next(chance, None)
                if card is None or not state.is_chance_node():
                    return None
                state.apply_action(card)
            elif state.current_player() != item.player or item.action not in state.legal_actions():
                return None
            else:
                state.apply_action(item.action)
            if seat is None or lines is None or state.game_ is None:
                continue
            events = state.events
            for event in events[checked:]:
                wire = definition.event_to_wire(definition.redact(event, seat))
                if wire is None:
                    continue
                if line >= len(lines) or lines[line] != json.dumps(wire, sort_keys=True):
                    return None
                line += 1
            checked = len(events)
        return state

    def __str__(self) -> str:
        """The spectator's view as text (debugging)."""
        view = self.seat_view(None)
        if view is None:
            return f"dealing: {len(self.cards)} of {_HAND * self.players} cards dealt"
        return str(goblink_text(view))


class GoBlinkObserver:
    """OpenSpiel's observer of a seat: its view as the codec's array, and as text (an
    observation) or its history (an information state)."""

    def __init__(self, go_codec: GoCodec, perfect_recall: bool) -> None:
        self.codec = go_codec
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(go_codec.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: GoBlinkSpielState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s view of ``state`` (zeros during the deal,
        but for the seat's cards already dealt)."""
        view = state.seat_view(player)
        if view is None:
            self.tensor.fill(0.0)
            for card in state.dealt_to(player):
                self.tensor[DECK_INDEX[card]] = 1.0
            return
        self.tensor[:] = self.codec.observe(view)

    def string_from(self, state: GoBlinkSpielState, player: int) -> str:
        """``player``'s history (an information state) or view as text (an observation)."""
        if self.perfect_recall:
            return "\n".join(state.seat_history(player))
        view = state.seat_view(player)
        if view is None:
            return state.seat_history(player)[0]
        return str(goblink_text(view))


GAME_CLASS: Final = GoBlinkSpielGame
"""The game's class, registered with :data:`GAME_TYPE` by :mod:`blink.envs.spiel`."""

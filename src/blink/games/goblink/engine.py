"""Go Blink: the rulebook's turn-based game for 2 to 6 players, applied one action at a time.

The engine is pure: no clock, no I/O, no global random state. A game is made from an explicit
deck order (or a seed) and a dealer seat; every accepted action returns the events it caused,
and a refused action raises :class:`IllegalAction` (with a machine-readable :class:`Reason`)
and changes nothing.

The flow of a game (rulings marked *ruling* are where the rulebook is silent; see
docs/rules.md, "Go Blink"):

* The deal: four cards to each player, starting with the player after the dealer; the rest is
  one face-down draw pile (top card first in ``deck`` order after the hands).
* The opening (*ruling*): each player in seat order, starting with the player after the
  dealer, gets one opening decision. They may lay down matches from the deal (never all their
  cards), then end it with :class:`EndTurn`. A server's timer default is :class:`EndTurn`.
* Turns, clockwise from the player after the dealer. A turn is one :class:`Ask` of an
  opponent for a colour, shape or count the asker holds; the answer is applied at once (the
  opponent passes every such card, or says "Go Blink" and the asker draws one card, nothing
  when the draw pile is empty). Then the asker may lay down any number of matches with
  :class:`LayDown` and ends the turn with :class:`EndTurn` (*ruling*: the end is explicit).
* A player whose hand is emptied by others draws one card at once (if there is one).
* A player whose turn comes with an empty hand (only possible when the draw pile is empty)
  cannot ask: the turn is skipped (*ruling*).
* A player wins only by laying down a match that uses all their remaining cards ("I Blunk!").
* When the draw pile is empty and a full round of turns (one per player) passes with no match
  laid down, the game ends: the fewest cards in hand wins; equal counts share (*ruling*).

This module holds the game itself, :class:`GoGame`. The attribute values and the matches they
make are in :mod:`blink.games.goblink.values`; the phases, refusal reasons, actions, events,
:func:`redact` and :func:`event_to_dict` in :mod:`blink.games.goblink.actions`; what one player
may know (:class:`GoView`, :class:`AskLog`, :func:`view_to_dict`) in
:mod:`blink.games.goblink.view`. Every public name of those modules is importable from here as
well.

Typical use::

    game = GoGame.new(players=4, seed=7, dealer=0)
    while not game.over:
        action = game.legal_actions()[0]
        game.apply(action)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import filterfalse
from typing import Final

from blink.cards import COUNTS, STANDARD_DECK, Card, Color, Shape, shuffled_deck
from blink.games.goblink.actions import (
    Ask,
    Asked,
    Dealt,
    Drew,
    Ended,
    EndTurn,
    GoAction,
    GoBlinked,
    GoEnd,
    GoEvent,
    LaidDown,
    LayDown,
    Passed,
    Phase,
    Reason,
    Skipped,
    TurnBegan,
    event_to_dict,
    redact,
)
from blink.games.goblink.values import (
    Value,
    _has,
    attribute_of,
    match_value,
    matches_in,
    parse_value,
    value_from_wire,
    value_label,
    value_to_wire,
    values_of,
)
from blink.games.goblink.view import AskLog, GoView, _legal, view_to_dict
from blink.model.base import IllegalAction, Outcome

__all__ = [
    "HAND_SIZE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Ask",
    "AskLog",
    "Asked",
    "Dealt",
    "Drew",
    "EndTurn",
    "Ended",
    "GoAction",
    "GoBlinked",
    "GoEnd",
    "GoEvent",
    "GoGame",
    "GoView",
    "IllegalAction",
    "LaidDown",
    "LayDown",
    "Outcome",
    "Passed",
    "Phase",
    "Reason",
    "Skipped",
    "TurnBegan",
    "Value",
    "attribute_of",
    "event_to_dict",
    "match_value",
    "matches_in",
    "parse_value",
    "redact",
    "value_from_wire",
    "value_label",
    "value_to_wire",
    "values_of",
    "view_to_dict",
]

_new_tuple: Final = tuple.__new__
"""Makes a named tuple from its fields in order, like its constructor, with no Python call."""

_ALL_CARDS: Final = tuple(
    Card(color, shape, count) for color in Color for shape in Shape for count in COUNTS
)
"""Every card there can be (a custom deck may hold any of them)."""

_HOLDERS: Final[dict[int, frozenset[Card]]] = {
    id(v): frozenset(c for c in _ALL_CARDS if _has(c, v)) for v in (*Color, *Shape, *COUNTS)
}
"""The cards that have each value, by the value's id (the values are single objects, enum members
and small ints, and hashing an enum member runs Python code where an id does not)."""


def _holders(value: Value) -> frozenset[Card]:
    """Every card that has ``value`` (those :func:`_has` says yes to)."""
    found = _HOLDERS.get(id(value))
    if found is None:  # an int equal to a count, but another object
        found = frozenset(c for c in _ALL_CARDS if _has(c, value))
    return found


MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6
HAND_SIZE: Final = 4


class GoGame:
    """A game of Go Blink for two to six players.

    Make one with :meth:`new`. Act with :meth:`ask`, :meth:`lay_down` and :meth:`end_turn`
    (or :meth:`apply` with an action value); each returns the events it caused and raises
    :class:`IllegalAction` without changing anything when refused. Read it through
    :meth:`view` (what one player may know) or the read-only accessors.
    """

    __slots__ = (
        "_asks",
        "_discard",
        "_draw",
        "_given",
        "_hands",
        "_history",
        "_laid_this_turn",
        "_opening_left",
        "_received",
        "asks",
        "current",
        "dealer",
        "deck",
        "events",
        "outcome",
        "phase",
        "players",
        "quiet_turns",
        "turn_limit",
        "turns",
    )

    def __init__(
        self,
        deck: Sequence[Card],
        players: int = 2,
        dealer: int = 0,
        turn_limit: int | None = None,
    ) -> None:
        """Deal ``deck`` (top card first): four cards each, one at a time from the player after
        the dealer clockwise; the rest is the draw pile.

        ``turn_limit`` (optional, not in the rulebook) ends the game by fewest cards after that
        many turns; simulations use it as a safety net.
        """
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Go Blink is for 2 to 6 players, not {players}")
        if not 0 <= dealer < players:
            raise ValueError(f"the dealer must be a seat 0 to {players - 1}, not {dealer}")
        if turn_limit is not None and turn_limit < 1:
            raise ValueError(f"the turn limit must be positive, not {turn_limit}")
        deck = tuple(deck)
        if len(set(deck)) != len(deck):
            raise ValueError("the deck has a duplicate card")
        if len(deck) < HAND_SIZE * players:
            raise ValueError(f"{players} players need at least {HAND_SIZE * players} cards")
        self.deck = deck
        self.players = players
        self.dealer = dealer
        self.turn_limit = turn_limit
        self._hands: list[list[Card]] = [[] for _ in range(players)]
        first = (dealer + 1) % players
        for i in range(HAND_SIZE * players):
            self._hands[(first + i) % players].append(deck[i])
        # The draw pile is stored bottom first so that drawing is list.pop().
        self._draw: list[Card] = list(reversed(deck[HAND_SIZE * players :]))
        self._discard: list[tuple[int, tuple[Card, ...]]] = []
        self._asks: list[AskLog] = []
        self._received: list[list[tuple[int, tuple[Card, ...]]]] = [[] for _ in range(players)]
        self._given: list[list[tuple[int, tuple[Card, ...]]]] = [[] for _ in range(players)]
        self._history: list[tuple[GoAction, int | None]] = []
        self._laid_this_turn = 0
        self._opening_left = players - 1
        self.phase = Phase.OPENING
        self.current: int | None = first
        self.outcome: Outcome | None = None
        self.turns = 0
        """Turns begun after the opening (skipped turns included)."""
        self.asks = 0
        self.quiet_turns = 0
        self.events: list[GoEvent] = [Dealt(players, dealer, deck), TurnBegan(first, True)]

    @classmethod
    def new(
        cls,
        players: int = 2,
        seed: int | str | None = None,
        *,
        dealer: int = 0,
        deck: Sequence[Card] | None = None,
        turn_limit: int | None = None,
    ) -> GoGame:
        """A new game: the standard deck shuffled by ``seed``, or an explicit ``deck`` order."""
        if deck is None:
            if seed is None:
                raise ValueError("give a seed or an explicit deck order")
            deck = shuffled_deck(seed, STANDARD_DECK)
        elif seed is not None:
            deck = shuffled_deck(seed, deck)
        return cls(deck, players, dealer, turn_limit)

    # -- reading --------------------------------------------------------------------------

    @property
    def first_player(self) -> int:
        """The first to act: the player after the dealer."""
        return (self.dealer + 1) % self.players

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.phase is Phase.OVER

    def hand(self, player: int) -> tuple[Card, ...]:
        """A player's hand in order (full state: for the engine's owner, not for players)."""
        return tuple(self._hands[player])

    def draw_pile(self) -> tuple[Card, ...]:
        """The draw pile, top first (full state)."""
        return tuple(reversed(self._draw))

    def discard(self) -> tuple[tuple[int, tuple[Card, ...]], ...]:
        """Every laid-down match with the player who laid it, in order."""
        return tuple(self._discard)

    @property
    def history(self) -> tuple[tuple[GoAction, int | None], ...]:
        """Every accepted action with its time (if given), in order."""
        return tuple(self._history)

    def legal_actions(self, player: int | None = None) -> list[GoAction]:
        """Every action ``player`` (default: the current player) may take now."""
        if self.current is None or self.phase is Phase.OVER:
            return []
        seat = self.current if player is None else player
        if seat != self.current:
            return []
        return _legal(self.phase, seat, self.players, self._hands[seat])

    def default_action(self) -> GoAction | None:
        """What a server does for a current player who does not act in time.

        Opening and laying: end the turn. Asking: ask the next opponent clockwise for the colour
        of one's first card. ``None`` when the game is over.
        """
        if self.current is None or self.phase is Phase.OVER:
            return None
        seat = self.current
        if self.phase is Phase.ASKING:
            return Ask(seat, (seat + 1) % self.players, self._hands[seat][0].color)
        return EndTurn(seat)

    def view(self, seat: int | None) -> GoView:
        """What ``seat`` may know (``None`` for a spectator): never another hand or the draw."""
        if seat is not None and not 0 <= seat < self.players:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no seat {seat}")
        # GoView's fields in order, without its keyword constructor (a view is built at every
        # step of an environment; this is the same value, made three times faster).
        if seat is None:
            hand: tuple[Card, ...] = ()
            received: tuple[tuple[int, tuple[Card, ...]], ...] = ()
            given: tuple[tuple[int, tuple[Card, ...]], ...] = ()
        else:
            hand = tuple(self._hands[seat])
            received = tuple(self._received[seat])
            given = tuple(self._given[seat])
        return _new_tuple(
            GoView,
            (
                seat,
                self.players,
                self.dealer,
                self.phase,
                self.current,
                hand,
                tuple(map(len, self._hands)),
                len(self._draw),
                tuple(self._discard),
                tuple(self._asks),
                received,
                given,
                self._laid_this_turn,
                self.quiet_turns,
                self.turns,
                self.outcome,
            ),
        )

    def events_for(self, seat: int | None) -> list[GoEvent]:
        """The whole event log as ``seat`` may see it."""
        return [redact(e, seat) for e in self.events]

    def snapshot(self) -> tuple[object, ...]:
        """A value capturing the whole state, for equality checks in tests and verification."""
        return (
            self.phase,
            self.current,
            tuple(tuple(h) for h in self._hands),
            tuple(self._draw),
            tuple(self._discard),
            tuple(self._asks),
            tuple(tuple(r) for r in self._received),
            tuple(tuple(g) for g in self._given),
            self._laid_this_turn,
            self._opening_left,
            self.outcome,
            self.turns,
            self.asks,
            self.quiet_turns,
            len(self.events),
            len(self._history),
        )

    # -- acting ---------------------------------------------------------------------------

    def apply(self, action: GoAction, t: int | None = None) -> list[GoEvent]:
        """Apply any action value; ``t`` is an optional time in ms, kept for the record."""
        if isinstance(action, Ask):
            return self.ask(action.player, action.target, action.value, t)
        if isinstance(action, LayDown):
            return self.lay_down(action.player, action.cards, t)
        if isinstance(action, EndTurn):
            return self.end_turn(action.player, t)
        raise TypeError(f"not a Go Blink action: {action!r}")

    def _check_turn(self, player: int) -> None:
        if self.phase is Phase.OVER:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        if not 0 <= player < self.players:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no player {player}")
        if player != self.current:
            raise IllegalAction(
                Reason.OUT_OF_TURN, f"it is player {self.current}'s turn, not player {player}'s"
            )

    def ask(self, player: int, target: int, value: Value, t: int | None = None) -> list[GoEvent]:
        """``player`` asks ``target`` for every card of ``value``; the answer is applied at once."""
        self._check_turn(player)
        if self.phase is Phase.OPENING:
            raise IllegalAction(
                Reason.NO_ASK_IN_OPENING,
                "this is your opening decision: lay down matches from the deal or end it",
            )
        if self.phase is Phase.LAYING:
            raise IllegalAction(Reason.ALREADY_ASKED, "you have already asked this turn")
        if not 0 <= target < self.players:
            raise IllegalAction(Reason.NO_SUCH_PLAYER, f"there is no player {target}")
        if target == player:
            raise IllegalAction(Reason.ASK_YOURSELF, "ask an opponent, not yourself")
        if not isinstance(value, (Color, Shape)) and (  # a tuple: faster than a union
            not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 5
        ):
            raise IllegalAction(
                Reason.BAD_VALUE, f"{value!r} is not a colour, a shape or a count from 1 to 5"
            )
        holders = _holders(value)
        hand = self._hands[player]
        if holders.isdisjoint(hand):
            raise IllegalAction(
                Reason.ATTRIBUTE_NOT_HELD,
                f"you may only ask for {value_label(value)} if you hold at least one",
            )
        out: list[GoEvent] = [_new_tuple(Asked, (player, target, value))]
        self.asks += 1
        theirs = self._hands[target]
        passed = tuple(filter(holders.__contains__, theirs))
        drew = False
        target_drew = False
        if passed:
            self._hands[target] = list(filterfalse(holders.__contains__, theirs))
            hand.extend(passed)
            self._received[player].append((target, passed))
            self._given[target].append((player, passed))
            out.append(_new_tuple(Passed, (target, player, value, len(passed), passed)))
            if not self._hands[target] and self._draw:
                c = self._draw.pop()
                self._hands[target].append(c)
                target_drew = True
                out.append(_new_tuple(Drew, (target, c, "emptied")))
        else:
            out.append(_new_tuple(GoBlinked, (target, player)))
            if self._draw:
                c = self._draw.pop()
                hand.append(c)
                drew = True
                out.append(_new_tuple(Drew, (player, c, "go_blink")))
        self._asks.append(
            _new_tuple(
                AskLog,
                (player, target, value, len(passed), drew, target_drew, len(self._discard)),
            )
        )
        self.phase = Phase.LAYING
        self._history.append((_new_tuple(Ask, (player, target, value)), t))
        self.events.extend(out)
        return out

    def lay_down(self, player: int, cards: Sequence[Card], t: int | None = None) -> list[GoEvent]:
        """``player`` lays down one match (three or more of their cards sharing one value).

        Allowed in their opening decision (never with all their cards) and after their ask.
        Laying down the last cards in hand after an ask wins the game ("I Blunk!").
        """
        self._check_turn(player)
        if self.phase is Phase.ASKING:
            raise IllegalAction(
                Reason.ASK_FIRST, "ask an opponent first: matches go down after the ask"
            )
        cards = tuple(cards)
        hand = self._hands[player]
        for c in cards:
            if c not in hand:
                raise IllegalAction(
                    Reason.CARD_NOT_IN_HAND, f"{c} ({c.long_name}) is not in your hand"
                )
        value = match_value(cards)
        if value is None:
            raise IllegalAction(
                Reason.NOT_A_MATCH,
                "a match is three or more different cards sharing one colour, shape or count",
            )
        if self.phase is Phase.OPENING and len(cards) >= len(hand):
            raise IllegalAction(
                Reason.EMPTIES_HAND_IN_OPENING,
                "in the opening you must keep at least one card of the deal",
            )
        self._hands[player] = [c for c in hand if c not in cards]
        self._discard.append((player, cards))
        self._laid_this_turn += 1
        out: list[GoEvent] = [_new_tuple(LaidDown, (player, cards, value))]
        if not self._hands[player]:
            self._end(out, Outcome((player,), GoEnd.BLUNK))
        self._history.append((_new_tuple(LayDown, (player, cards)), t))
        self.events.extend(out)
        return out

    def end_turn(self, player: int, t: int | None = None) -> list[GoEvent]:
        """``player`` ends their opening decision or (after their ask) their turn."""
        self._check_turn(player)
        if self.phase is Phase.ASKING:
            raise IllegalAction(Reason.ASK_FIRST, "ask an opponent before ending your turn")
        out: list[GoEvent] = []
        if self.phase is Phase.OPENING:
            self._laid_this_turn = 0
            if self._opening_left:
                self._opening_left -= 1
                self.current = (player + 1) % self.players
                out.append(_new_tuple(TurnBegan, (self.current, True)))
            else:
                self._begin_turn(self.first_player, out)
        else:
            self._finish_turn(out)
            if self.phase is not Phase.OVER:
                self._begin_turn((player + 1) % self.players, out)
        self._history.append((_new_tuple(EndTurn, (player,)), t))
        self.events.extend(out)
        return out

    # -- internals ------------------------------------------------------------------------

    def _finish_turn(self, out: list[GoEvent]) -> None:
        """Count a finished turn; end the game after a quiet round or at the turn limit."""
        if not self._draw and not self._laid_this_turn:
            self.quiet_turns += 1
        else:
            self.quiet_turns = 0
        self._laid_this_turn = 0
        if self.quiet_turns >= self.players:
            self._end_by_count(out, GoEnd.FEWEST_CARDS)
        elif self.turn_limit is not None and self.turns >= self.turn_limit:
            self._end_by_count(out, GoEnd.TURN_LIMIT)

    def _begin_turn(self, seat: int, out: list[GoEvent]) -> None:
        """Give the turn to ``seat``, skipping players who hold nothing (empty draw pile)."""
        while True:
            self.current = seat
            self.turns += 1
            out.append(_new_tuple(TurnBegan, (seat, False)))
            if self._hands[seat]:
                self.phase = Phase.ASKING
                return
            out.append(_new_tuple(Skipped, (seat,)))
            self._finish_turn(out)
            if self.phase is Phase.OVER:
                return
            seat = (seat + 1) % self.players

    def _end_by_count(self, out: list[GoEvent], reason: GoEnd) -> None:
        counts = [len(h) for h in self._hands]
        fewest = min(counts)
        self._end(out, Outcome(tuple(p for p, n in enumerate(counts) if n == fewest), reason))

    def _end(self, out: list[GoEvent], outcome: Outcome) -> None:
        self.phase = Phase.OVER
        self.current = None
        self.outcome = outcome
        out.append(Ended(outcome, tuple(len(h) for h in self._hands)))

    # -- rebuilding -----------------------------------------------------------------------

    @classmethod
    def replay(
        cls,
        deck: Sequence[Card],
        players: int,
        dealer: int,
        actions: Iterable[tuple[GoAction, int | None]],
        turn_limit: int | None = None,
    ) -> GoGame:
        """Rebuild a game from its deal and accepted (action, time) pairs.

        Raises :class:`IllegalAction` at the first action that is not legal.
        """
        game = cls(deck, players, dealer, turn_limit)
        for action, t in actions:
            game.apply(action, t)
        return game

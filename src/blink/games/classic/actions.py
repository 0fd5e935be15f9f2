"""Classic Blink's vocabulary: the phases, the refusal reasons, the actions and the events.

Actions are what players (and the table) do; events are what the engine reports an accepted
action caused. All are immutable values, compared and hashed by content; :func:`redact` gives
the copy of an event one viewer may see. The engine itself is :mod:`blink.games.classic.engine`.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from blink.cards import Card
from blink.games.classic.rules import Ruleset
from blink.model.base import Outcome, Termination

__all__ = [
    "Action",
    "ChoiceMade",
    "Choose",
    "ClassicEnd",
    "Dealt",
    "Ended",
    "Event",
    "Flip",
    "Flipped",
    "Phase",
    "Placed",
    "Play",
    "Played",
    "Reason",
    "Refilled",
    "Reveal",
    "Revealed",
    "StallKind",
    "Stalled",
    "redact",
]


# --- phases and reasons --------------------------------------------------------------------


class ClassicEnd(Termination):
    """Why a classic game ended (the ``reason`` of its :class:`~blink.model.base.Outcome`)."""

    OUT_OF_CARDS = "out_of_cards"
    """A player played their last card."""
    STALL_PLACEMENT = "stall_placement"
    """A player placed their last card in a choosing stall."""
    FEWEST_CARDS = "fewest_cards"
    """The fewest cards left wins (the dead-end ruleset's stall)."""


class Phase(Enum):
    """Where a game is."""

    DEALT = "dealt"
    """Cards dealt, center cards face down: waiting for the reveal."""
    PLAYING = "playing"
    """The race is on: any player may play."""
    STALLED = "stalled"
    """No one can play and every player has draw cards: waiting for the flip."""
    CHOOSING = "choosing"
    """No one can play and a draw pile is empty: every player must choose a hand card."""
    OVER = "over"
    """The game has ended."""


class Reason(Enum):
    """Machine-readable reasons an action is refused (stable codes, used on the wire)."""

    NOT_REVEALED = "not_revealed"
    """A play, flip or choice before the center cards are revealed."""
    ALREADY_REVEALED = "already_revealed"
    """A second reveal."""
    GAME_OVER = "game_over"
    """Any action after the game has ended."""
    NO_SUCH_PLAYER = "no_such_player"
    """A seat that is not in the game."""
    NO_SUCH_PILE = "no_such_pile"
    """A pile that does not exist."""
    CARD_NOT_IN_HAND = "card_not_in_hand"
    """Playing or choosing a card the player does not hold."""
    PILE_OUT_OF_REACH = "pile_out_of_reach"
    """Three players: the pile across the table, which the player cannot reach."""
    NO_COMMON_ATTRIBUTE = "no_common_attribute"
    """The card shares no colour, shape or count with the pile's top card."""
    FLIP_AWAITED = "flip_awaited"
    """A play or a choice while the game is stalled and waits for the flip."""
    CHOICE_AWAITED = "choice_awaited"
    """A play or a flip while every player must choose a hand card."""
    NOT_STALLED = "not_stalled"
    """A flip while some player can play."""
    NO_CHOICE_NEEDED = "no_choice_needed"
    """A stall choice while the race is on."""
    ALREADY_CHOSEN = "already_chosen"
    """A second choice by the same player in one stall."""


# --- actions -------------------------------------------------------------------------------


class Reveal(NamedTuple):
    """Turn the center cards face up together: the game begins."""


class Play(NamedTuple):
    """Play ``card`` from ``player``'s hand onto center pile ``pile``."""

    player: int
    card: Card
    pile: int


class Flip(NamedTuple):
    """Break a stall: every player flips the top of their draw pile onto their own pile."""


class Choose(NamedTuple):
    """In a stall with an empty draw pile, ``player`` chooses the hand card to place."""

    player: int
    card: Card


Action = Reveal | Play | Flip | Choose


# --- events --------------------------------------------------------------------------------


class StallKind(Enum):
    """How a stall will be broken."""

    FLIP = "flip"
    CHOOSE = "choose"
    DEAD_END = "dead_end"


class Dealt(NamedTuple):
    """The deal. ``deck`` is the full order (top first) and ``None`` in redacted copies."""

    players: int
    ruleset: Ruleset
    sizes: tuple[int, ...]
    deck: tuple[Card, ...] | None


class Revealed(NamedTuple):
    """The center cards, turned face up together."""

    tops: tuple[Card, ...]


class Played(NamedTuple):
    """``player`` played ``card`` from hand slot ``slot`` on ``pile``, covering ``covered``."""

    player: int
    card: Card
    pile: int
    slot: int
    covered: Card


class Refilled(NamedTuple):
    """``player`` drew into hand slot ``slot``; ``card`` is ``None`` for other viewers."""

    player: int
    slot: int
    card: Card | None


class Stalled(NamedTuple):
    """No player can play. ``kind`` says how the stall is broken."""

    kind: StallKind


class Flipped(NamedTuple):
    """``player`` flipped the top of their draw pile onto ``pile``."""

    player: int
    card: Card
    pile: int


class ChoiceMade(NamedTuple):
    """``player`` chose a hand card for the stall; ``card`` is ``None`` except for them."""

    player: int
    card: Card | None


class Placed(NamedTuple):
    """After every choice, ``player``'s chosen ``card`` from ``slot`` went on ``pile``."""

    player: int
    card: Card
    pile: int
    slot: int


class Ended(NamedTuple):
    """The game is over."""

    outcome: Outcome


Event = Dealt | Revealed | Played | Refilled | Stalled | Flipped | ChoiceMade | Placed | Ended


def redact(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` may see it (``None``: a spectator). Hidden cards become None."""
    # Built directly: NamedTuple._replace costs several times as much, and a live room
    # redacts every drawn card for every receiver but one.
    if isinstance(event, Refilled):
        return event if event.player == viewer else Refilled(event.player, event.slot, None)
    if isinstance(event, ChoiceMade):
        return event if event.player == viewer else ChoiceMade(event.player, None)
    if isinstance(event, Dealt):
        return event._replace(deck=None)
    return event

"""Go Blink's vocabulary: the phases, the refusal reasons, the actions and the events.

Actions are what the current player does; events are what the engine reports an accepted
action caused. All are immutable values; :func:`redact` gives the copy of an event one viewer
may see and :func:`event_to_dict` its JSON form. The engine is :mod:`blink.games.goblink.engine`.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import NamedTuple

from blink.cards import Attribute, Card
from blink.games.goblink.values import Value, attribute_of, value_to_wire
from blink.model.base import Outcome, Termination

__all__ = [
    "Ask",
    "Asked",
    "Dealt",
    "Drew",
    "EndTurn",
    "Ended",
    "GoAction",
    "GoBlinked",
    "GoEnd",
    "GoEvent",
    "LaidDown",
    "LayDown",
    "Passed",
    "Phase",
    "Reason",
    "Skipped",
    "TurnBegan",
    "event_to_dict",
    "redact",
]


# --- phases, reasons, errors ---------------------------------------------------------------


class GoEnd(Termination):
    """Why a Go Blink game ended (the ``reason`` of its :class:`~blink.model.base.Outcome`)."""

    BLUNK = "blunk"
    """A player laid down a match of all their remaining cards."""
    FEWEST_CARDS = "fewest_cards"
    """A quiet round: the fewest cards in hand wins."""
    TURN_LIMIT = "turn_limit"
    """The optional turn limit of simulations was reached (fewest cards wins)."""


class Phase(Enum):
    """Where a game is, and what the current player may do."""

    OPENING = "opening"
    """The current player's opening decision: lay down matches from the deal, then end."""
    ASKING = "asking"
    """The current player must ask an opponent."""
    LAYING = "laying"
    """The ask is answered: the current player may lay down matches, then must end the turn."""
    OVER = "over"
    """The game has ended."""


class Reason(Enum):
    """Machine-readable reasons an action is refused (stable codes, used on the wire)."""

    GAME_OVER = "game_over"
    NO_SUCH_PLAYER = "no_such_player"
    OUT_OF_TURN = "out_of_turn"
    ASK_YOURSELF = "ask_yourself"
    ATTRIBUTE_NOT_HELD = "attribute_not_held"
    BAD_VALUE = "bad_value"
    ALREADY_ASKED = "already_asked"
    ASK_FIRST = "ask_first"
    NO_ASK_IN_OPENING = "no_ask_in_opening"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    NOT_A_MATCH = "not_a_match"
    EMPTIES_HAND_IN_OPENING = "empties_hand_in_opening"


# --- actions -------------------------------------------------------------------------------


class Ask(NamedTuple):
    """``player`` asks ``target`` for every card with ``value`` (a colour, shape or count)."""

    player: int
    target: int
    value: Value

    @property
    def attribute(self) -> Attribute:
        """Which attribute is asked for."""
        return attribute_of(self.value)


class LayDown(NamedTuple):
    """``player`` lays down one match: three or more of their cards sharing one value."""

    player: int
    cards: tuple[Card, ...]


class EndTurn(NamedTuple):
    """``player`` ends their turn (or their opening decision)."""

    player: int


GoAction = Ask | LayDown | EndTurn


# --- events --------------------------------------------------------------------------------


class Dealt(NamedTuple):
    """The deal. ``deck`` is the full order (``None`` in redacted copies)."""

    players: int
    dealer: int
    deck: tuple[Card, ...] | None


class TurnBegan(NamedTuple):
    """``player``'s turn (or, when ``opening``, their opening decision) begins."""

    player: int
    opening: bool


class Asked(NamedTuple):
    """``player`` asked ``target`` for ``value``."""

    player: int
    target: int
    value: Value


class Passed(NamedTuple):
    """``giver`` passed ``number`` cards of ``value`` to ``receiver``.

    ``cards`` is ``None`` for everyone but the giver and the receiver.
    """

    giver: int
    receiver: int
    value: Value
    number: int
    cards: tuple[Card, ...] | None


class GoBlinked(NamedTuple):
    """``target`` had no card of the value and said "Go Blink" to ``player``."""

    target: int
    player: int


class Drew(NamedTuple):
    """``player`` drew a card (``None`` for other viewers); ``cause`` is "go_blink" or "emptied"."""

    player: int
    card: Card | None
    cause: str


class LaidDown(NamedTuple):
    """``player`` laid down ``cards`` (a match on ``value``) on the discard pile, face up."""

    player: int
    cards: tuple[Card, ...]
    value: Value


class Skipped(NamedTuple):
    """``player`` had no card and the draw pile was empty: they could not ask."""

    player: int


class Ended(NamedTuple):
    """The game is over. ``hand_counts`` are the cards left in each hand."""

    outcome: Outcome
    hand_counts: tuple[int, ...]


GoEvent = Dealt | TurnBegan | Asked | Passed | GoBlinked | Drew | LaidDown | Skipped | Ended


def redact(event: GoEvent, viewer: int | None) -> GoEvent:
    """The event as ``viewer`` may see it (``None``: a spectator). Hidden cards become None."""
    if isinstance(event, Passed):
        if viewer in (event.giver, event.receiver):
            return event
        return event._replace(cards=None)
    if isinstance(event, Drew):
        return event if event.player == viewer else event._replace(card=None)
    if isinstance(event, Dealt):
        return event._replace(deck=None)
    return event


def _codes(cards: Iterable[Card] | None) -> list[str] | None:
    return None if cards is None else [str(c) for c in cards]


def _value_dict(value: Value) -> dict[str, object]:
    attribute, v = value_to_wire(value)
    return {"attribute": attribute, "value": v}


def event_to_dict(event: GoEvent) -> dict[str, object]:
    """One event as a JSON-ready object with a ``type`` (redact it first for a player)."""
    if isinstance(event, Dealt):
        return {
            "type": "dealt",
            "players": event.players,
            "dealer": event.dealer,
            "deck": _codes(event.deck),
        }
    if isinstance(event, TurnBegan):
        return {"type": "turn", "seat": event.player, "opening": event.opening}
    if isinstance(event, Asked):
        return {"type": "asked", "seat": event.player, "target": event.target} | _value_dict(
            event.value
        )
    if isinstance(event, Passed):
        return {
            "type": "passed",
            "giver": event.giver,
            "receiver": event.receiver,
            "number": event.number,
            "cards": _codes(event.cards),
        } | _value_dict(event.value)
    if isinstance(event, GoBlinked):
        return {"type": "go_blink", "seat": event.target, "asker": event.player}
    if isinstance(event, Drew):
        card = None if event.card is None else str(event.card)
        return {"type": "drew", "seat": event.player, "card": card, "cause": event.cause}
    if isinstance(event, LaidDown):
        return {
            "type": "laid_down",
            "seat": event.player,
            "cards": _codes(event.cards),
        } | _value_dict(event.value)
    if isinstance(event, Skipped):
        return {"type": "skipped", "seat": event.player}
    return {
        "type": "ended",
        "winners": list(event.outcome.winners),
        "reason": event.outcome.reason,
        "tie": event.outcome.is_tie,
        "hand_counts": list(event.hand_counts),
    }

"""Rebuilding a classic game from its event log (event sourcing, without the rules).

:meth:`ClassicGame.from_events <blink.games.classic.engine.ClassicGame.from_events>` deals the
log's :class:`~blink.games.classic.actions.Dealt` event and hands every later event to
:func:`apply_event`, which changes the game's state as the event says (it reaches into the
engine's private state: the two modules are one unit) and checks only that the event fits
the deal. What it touches is stated here (:class:`Rebuilt`), so that this module needs no
import of the engine.
"""

from __future__ import annotations

from typing import Protocol

from blink.cards import Card
from blink.games.classic.actions import (
    ChoiceMade,
    Ended,
    Event,
    Flipped,
    Phase,
    Placed,
    Played,
    Refilled,
    Revealed,
    Stalled,
    StallKind,
)
from blink.model.base import Outcome

__all__ = ["Rebuilt", "apply_event"]


class Rebuilt(Protocol):
    """The state of a game being rebuilt, as :func:`apply_event` changes it: the fields of
    :class:`~blink.games.classic.engine.ClassicGame` it reaches into."""

    phase: Phase
    choices: dict[int, Card]
    outcome: Outcome | None
    plays: int
    stalls: int
    events: list[Event]
    _times: list[int | None]
    _hands: list[list[Card]]
    _hm: list[int]
    _draws: list[list[Card]]
    _piles: list[list[Card]]
    _tops: list[Card]


def apply_event(game: Rebuilt, e: Event) -> None:
    """Re-apply one event to a game (used to rebuild state from an event log)."""
    if isinstance(e, Revealed):
        if game.phase is not Phase.DEALT:
            raise ValueError("a second reveal in the log")
        game.phase = Phase.PLAYING
        game._times.append(None)
    elif isinstance(e, Played):
        hand = game._hands[e.player]
        if e.slot >= len(hand) or hand[e.slot] is not e.card:
            raise ValueError(f"log does not match the deal: {e.card} is not in slot {e.slot}")
        del hand[e.slot]
        game._hm[e.player] ^= e.card._bit
        game._piles[e.pile].append(e.card)
        game._tops[e.pile] = e.card
        game.plays += 1
        game.phase = Phase.PLAYING
        game._times.append(None)
    elif isinstance(e, Refilled):
        draw = game._draws[e.player]
        if not draw:
            raise ValueError(f"log does not match the deal: player {e.player} has no draw pile")
        card = draw.pop()
        if e.card is not None and card is not e.card:
            raise ValueError(f"log does not match the deal: expected {e.card}, drew {card}")
        game._hands[e.player].insert(e.slot, card)
        game._hm[e.player] ^= card._bit
    elif isinstance(e, Stalled):
        game.stalls += 1
        game.phase = {
            StallKind.FLIP: Phase.STALLED,
            StallKind.CHOOSE: Phase.CHOOSING,
            StallKind.DEAD_END: Phase.OVER,
        }[e.kind]
    elif isinstance(e, Flipped):
        draw = game._draws[e.player]
        if not draw or draw[-1] is not e.card:
            raise ValueError(f"log does not match the deal: {e.card} is not on top of a draw")
        game._piles[e.pile].append(draw.pop())
        game._tops[e.pile] = e.card
        game.phase = Phase.PLAYING
        if e.player == 0:
            game._times.append(None)
    elif isinstance(e, ChoiceMade):
        if e.card is None:
            raise ValueError("a redacted event log cannot rebuild a game")
        game.choices[e.player] = e.card
        game._times.append(None)
    elif isinstance(e, Placed):
        hand = game._hands[e.player]
        if e.card not in hand:
            raise ValueError(f"log does not match the deal: {e.card} is not in the hand")
        hand.remove(e.card)
        game._hm[e.player] ^= e.card._bit
        game._piles[e.pile].append(e.card)
        game._tops[e.pile] = e.card
        game.choices.pop(e.player, None)
        game.phase = Phase.PLAYING
    elif isinstance(e, Ended):
        game.phase = Phase.OVER
        game.outcome = e.outcome
    game.events.append(e)

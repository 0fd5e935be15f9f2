"""Deals of Go Blink a seat cannot tell from the real one: OpenSpiel's
``resample_from_infostate`` (:meth:`GoBlinkSpielState.resample_from_infostate
<blink.games.goblink.envs.spiel.GoBlinkSpielState.resample_from_infostate>`).

A state is its chance outcomes (every card dealt or drawn, in deck order) and the players'
actions. Each chance card goes to a known seat (the deal goes round the table from the player
after the dealer; a draw to the seat the public event names). The seat that resamples knows
the cards that reached it and every public event; the cards that went to the other seats and
are still hidden from it (:meth:`hidden_cards`) may be any of the hidden cards, as far as it
knows, provided the public events still happen. A new deal gives each hidden slot a hidden card,
drawn at random among those its information allows:

* a card can only be where no public event says it is not: it follows its holder's public
  passes of a value it has (to their receiver), and a seat that said "Go Blink" to an ask for
  one of its values cannot have held it then;
* it cannot have gone through a pass the seat saw (the seat knows those cards), and no pass
  takes more cards than it passed;
* every other seat that asked for a value held a card of it then, and a seat that passed cards
  of a value held that many: before the rest, each such ask and pass gets hidden cards of its
  value whose way leads to that seat in time (as many as the cards the seat knows of fall
  short).

The deal is then checked by replaying the same actions and comparing the seat's information
state (its whole history, redacted for it). What the constraints above do not capture (a pass
of exactly that many cards, an ask that needs a card of its value) is left to the check: a deal
that fails it is drawn again, up to :data:`TRIES` times. The filter makes the check pass often
(tested: every resampled state of ISMCTS games has the seat's information state), and if every
try fails the state itself is returned: it is consistent with the information state by
definition, so the call never fails (the count of such answers is kept in :data:`FALLBACKS`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from blink.cards import STANDARD_DECK, Card
from blink.envs.encoding import DECK_INDEX
from blink.games.goblink.actions import Asked, Drew, GoBlinked, LaidDown, Passed

__all__ = ["FALLBACKS", "TRIES", "resample_cards"]

TRIES: Final = 200
"""Deals drawn (and checked) at most before the state itself is returned."""

FALLBACKS: list[int] = [0]
"""How many resamplings returned the state itself (every try failed): a counter for tests and
measurements."""

_HAND: Final = 4


def _has(card: Card, value: object) -> bool:
    return value is card.color or value is card.shape or value == card.count


class _Slots:
    """Each chance card's seat and the public event at which it reached it."""

    def __init__(self, players: int, dealer: int, events: Sequence[Any], dealt: int) -> None:
        first = dealer + 1
        self.owner = [(first + i) % players for i in range(min(dealt, _HAND * players))]
        self.since = [0] * len(self.owner)
        for at, event in enumerate(events):
            if type(event) is Drew and len(self.owner) < dealt:
                self.owner.append(event.player)
                self.since.append(at)


def _path(
    card: Card,
    seat: int,
    since: int,
    events: Sequence[Any],
    viewer: int | None,
    room: dict[int, int],
) -> list[tuple[int, int, int]] | None:
    """Where ``card``, given to ``seat`` at event ``since``, would be: its holders' spans
    ``(seat, from, to)`` (event indices, it is held strictly between them) as it follows its
    holders' public passes of a value it has, until it is laid down or the end. ``None`` when a
    public event rules it out for a card hidden from ``viewer`` (``None``: a known card, never
    ruled out)."""
    asked: object = None
    spans: list[tuple[int, int, int]] = []
    start = since
    for at in range(since + 1, len(events)):
        event = events[at]
        kind = type(event)
        if kind is Asked:
            asked = event.value
        elif kind is GoBlinked:
            if viewer is not None and event.target == seat and _has(card, asked):
                return None  # the holder had no card of the value asked for
        elif kind is Passed and event.giver == seat and _has(card, event.value):
            if viewer is not None and (
                viewer in (event.giver, event.receiver) or room.get(at, 0) <= 0
            ):
                return None  # the viewer saw those cards, or the pass is full
            spans.append((seat, start, at))
            seat, start = event.receiver, at
        elif kind is LaidDown and event.player == seat and card in event.cards:
            spans.append((seat, start, at))
            return spans
    if viewer is not None and seat == viewer:
        return None  # it would be in the viewer's hand, which the viewer knows
    spans.append((seat, start, len(events)))
    return spans


def _take(spans: list[tuple[int, int, int]], events: Sequence[Any], room: dict[int, int]) -> None:
    """Count the passes ``spans`` go through against their numbers."""
    for _, _, end in spans[:-1]:
        room[end] = room.get(end, 0) - 1


def _covers(spans: list[tuple[int, int, int]], seat: int, at: int) -> bool:
    return any(s == seat and a < at <= b for s, a, b in spans)


def _place(
    x: int,
    value: object,
    at: int,
    open_slots: list[int],
    free: list[int],
    slots: _Slots,
    events: Sequence[Any],
    viewer: int,
    room: dict[int, int],
) -> tuple[int, int, list[tuple[int, int, int]]] | None:
    """A free hidden card of ``value`` in an open slot whose way leads it to seat ``x`` at
    event ``at`` (a slot of ``x``'s own first), taken: the slot, the card and its spans."""
    for direct in (True, False):
        for k in open_slots:
            if (slots.owner[k] == x and slots.since[k] < at) is not direct:
                continue
            for c in free:
                card = STANDARD_DECK[c]
                if not _has(card, value):
                    continue
                spans = _path(card, slots.owner[k], slots.since[k], events, viewer, room)
                if spans is not None and _covers(spans, x, at):
                    _take(spans, events, room)
                    open_slots.remove(k)
                    free.remove(c)
                    return k, c, spans
    return None


def resample_cards(
    cards: Sequence[int],
    hidden: set[int],
    players: int,
    dealer: int,
    events: Sequence[Any],
    viewer: int,
    rng: random.Random,
) -> list[int] | None:
    """One deal ``viewer`` cannot tell from ``cards`` as far as the public constraints go: each
    slot whose card is in ``hidden`` gets a hidden card its seat could have held, and every ask
    of another seat gets a card of its value in the asker's hand first (``None`` when no card
    fits somewhere: draw again)."""
    slots = _Slots(players, dealer, events, len(cards))
    room = {at: e.number for at, e in enumerate(events) if type(e) is Passed}
    open_slots = [k for k, c in enumerate(cards) if c in hidden]
    held: list[tuple[Card, list[tuple[int, int, int]]]] = []
    for k, c in enumerate(cards):
        if c not in hidden:
            spans = _path(STANDARD_DECK[c], slots.owner[k], slots.since[k], events, None, room)
            assert spans is not None
            _take(spans, events, room)
            held.append((STANDARD_DECK[c], spans))
    free = sorted(hidden)
    rng.shuffle(free)
    out = list(cards)
    rng.shuffle(open_slots)
    # first, the cards public events say a seat held: a card of the value asked for in the
    # hand of every other seat that asked, as many cards of the value as a seat passed
    for at, event in enumerate(events):
        kind = type(event)
        if kind is Asked and event.player != viewer:
            x, value, need = event.player, event.value, 1
        elif kind is Passed and viewer not in (event.giver, event.receiver):
            x, value, need = event.giver, event.value, event.number
        else:
            continue
        have = sum(1 for card, spans in held if _has(card, value) and _covers(spans, x, at))
        for _ in range(need - have):
            found = _place(x, value, at, open_slots, free, slots, events, viewer, room)
            if found is None:
                return None
            k, c, spans = found
            held.append((STANDARD_DECK[c], spans))
            out[k] = c
    # then any card each remaining slot could hold
    for k in open_slots:
        for c in free:
            spans = _path(STANDARD_DECK[c], slots.owner[k], slots.since[k], events, viewer, room)
            if spans is not None:
                _take(spans, events, room)
                out[k] = c
                free.remove(c)
                break
        else:
            return None
    return out


def hidden_indices(definition: Any, game: Any, viewer: int, dealt: Sequence[int]) -> set[int]:
    """The cards hidden from ``viewer`` (in others' hands, the draw pile) and those not dealt."""
    hidden = {DECK_INDEX[c] for c in definition.hidden_cards(game, viewer)}
    return hidden | (set(range(len(STANDARD_DECK))) - set(dealt))

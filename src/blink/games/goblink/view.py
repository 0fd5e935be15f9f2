"""What a Go Blink player may know: the public log of asks, the view of one seat, its JSON form.

:class:`GoView` is everything one player (or a spectator) may see, :func:`view_to_dict` its
JSON form; the legal actions are read from what a view shows (the phase, the seat and the
viewer's own hand), so the engine and a view answer them alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from blink.cards import COUNTS, Card, Color, Shape
from blink.games.goblink.actions import (
    Ask,
    EndTurn,
    GoAction,
    LayDown,
    Phase,
    _codes,
    _value_dict,
)
from blink.games.goblink.values import MIN_MATCH, Value, matches_in, values_of
from blink.model.base import Outcome

__all__ = ["AskLog", "GoView", "view_to_dict"]


# --- views ---------------------------------------------------------------------------------


class AskLog(NamedTuple):
    """One answered ask as everyone saw it: who asked whom for what, and how many came back.

    ``passed`` is 0 for "Go Blink"; ``drew`` says whether the asker then drew a card;
    ``target_drew`` whether the target, emptied by the pass, drew one. ``matches_before`` is
    the number of matches on the discard pile when the ask was made (to interleave the two
    logs).
    """

    player: int
    target: int
    value: Value
    passed: int
    drew: bool
    target_drew: bool
    matches_before: int


class GoView(NamedTuple):
    """What one player (or a spectator, ``seat is None``) may know. Bots and clients get this.

    ``hand`` is the viewer's own hand (empty for a spectator); other hands and the draw pile are
    counts only. ``discard`` holds every laid-down match in order with its player; ``asks`` the
    public log of asks. ``received`` and ``given`` are the cards the viewer was passed and
    passed away, in order (never anybody else's).
    """

    seat: int | None
    players: int
    dealer: int
    phase: Phase
    current: int | None
    hand: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    draw_count: int
    discard: tuple[tuple[int, tuple[Card, ...]], ...]
    asks: tuple[AskLog, ...]
    received: tuple[tuple[int, tuple[Card, ...]], ...]
    given: tuple[tuple[int, tuple[Card, ...]], ...]
    laid_this_turn: int
    quiet_turns: int
    turns: int
    outcome: Outcome | None

    @property
    def my_turn(self) -> bool:
        """True when the viewer is the one to act."""
        return self.seat is not None and self.current == self.seat

    def legal_actions(self) -> list[GoAction]:
        """The viewer's legal actions in this view (none when it is not their turn)."""
        if self.seat is None or self.current != self.seat:
            return []
        return _legal(self.phase, self.seat, self.players, self.hand)


def _ask_values(view: GoView) -> list[dict[str, object]]:
    """The values the viewer may ask for with this hand: those of the legal asks of an asking
    turn (exactly the legal asks' values on the viewer's own asking turn), in the order the
    legal actions give them; none for a spectator."""
    if view.seat is None:
        return []
    asking = view._replace(phase=Phase.ASKING, current=view.seat)
    values: list[Value] = []
    for action in asking.legal_actions():
        if isinstance(action, Ask) and action.value not in values:
            values.append(action.value)
    return [_value_dict(v) for v in values]


def _lay_options(view: GoView) -> list[dict[str, object]]:
    """The viewer's legal lay-downs, one entry a value: on the viewer's own opening or turn
    after the ask, ``{attribute, value, cards, min, max}`` says that every ``min`` to ``max``
    of ``cards`` (the viewer's cards of that value) make a legal lay-down, and the entries
    together are exactly the legal :class:`LayDown` actions (in the opening a match must keep
    a card of the deal: ``max`` is one less than the hand). None at any other time."""
    if view.seat is None or view.current != view.seat:
        return []
    if view.phase is Phase.LAYING:
        keep = 0
    elif view.phase is Phase.OPENING:
        keep = 1
    else:
        return []
    cards = sorted(set(view.hand))
    largest = len(cards) - keep
    out: list[dict[str, object]] = []
    values: list[Value] = []
    for c in cards:
        values += [v for v in values_of(c) if v not in values]
    for value in values:
        group = [c for c in cards if value in values_of(c)]
        top = min(len(group), largest)
        if top >= MIN_MATCH:
            out.append(_value_dict(value) | {"cards": _codes(group), "min": MIN_MATCH, "max": top})
    return out


def view_to_dict(view: GoView) -> dict[str, object]:
    """A view as a JSON-ready object (it holds only what the viewer may know).

    ``ask_values`` are the values the viewer may ask for (see :func:`_ask_values`) and
    ``lay_options`` the matches the viewer may lay down now (see :func:`_lay_options`), so
    that clients never judge an action themselves."""
    outcome = view.outcome
    return {
        "seat": view.seat,
        "players": view.players,
        "dealer": view.dealer,
        "phase": view.phase.value,
        "current": view.current,
        "hand": _codes(view.hand),
        "hand_counts": list(view.hand_counts),
        "draw_count": view.draw_count,
        "discard": [{"seat": p, "cards": _codes(m)} for p, m in view.discard],
        "asks": [
            {
                "seat": a.player,
                "target": a.target,
                "passed": a.passed,
                "drew": a.drew,
                "target_drew": a.target_drew,
            }
            | _value_dict(a.value)
            for a in view.asks
        ],
        "received": [{"from": p, "cards": _codes(m)} for p, m in view.received],
        "given": [{"to": p, "cards": _codes(m)} for p, m in view.given],
        "ask_values": _ask_values(view),
        "lay_options": _lay_options(view),
        "laid_this_turn": view.laid_this_turn,
        "quiet_turns": view.quiet_turns,
        "turns": view.turns,
        "outcome": None
        if outcome is None
        else {"winners": list(outcome.winners), "reason": outcome.reason, "tie": outcome.is_tie},
    }


_new_tuple = tuple.__new__  # a named tuple from its fields in order, with no Python call

_SEATS = 6  # seats with ready-made actions (Go Blink's most players)


def _key(value: Value) -> int:
    """A value as a key that hashes in C: a colour's or shape's id (hashing an enum member runs
    Python code; the members are single objects), a count itself."""
    return value if isinstance(value, int) else id(value)


_ASKS: list[list[dict[int, Ask]]] = [
    [{_key(v): Ask(seat, target, v) for v in (*Color, *Shape, *COUNTS)} for target in range(_SEATS)]
    for seat in range(_SEATS)
]
"""Every ask of a seat of a table of up to six, by target and by the value's key. Actions are
immutable values: the legal actions hand out these same objects every time."""

_END_TURNS = [EndTurn(seat) for seat in range(_SEATS)]


def _legal(phase: Phase, seat: int, players: int, hand: Sequence[Card]) -> list[GoAction]:
    if phase is Phase.ASKING:
        held: list[int] = []  # the keys of the values held, in the order of values_of(c)
        for c in hand:
            k = id(c.color)
            if k not in held:
                held.append(k)
            k = id(c.shape)
            if k not in held:
                held.append(k)
            k = c.count
            if k not in held:
                held.append(k)
        out: list[GoAction] = []
        if 0 <= seat < _SEATS and players <= _SEATS:
            asks = _ASKS[seat]
            for target in range(players):
                if target != seat:
                    out += map(asks[target].__getitem__, held)
        else:  # a table larger than Go Blink's, in a view made by hand
            values = [v for c in hand for v in values_of(c)]
            held_values = [v for i, v in enumerate(values) if v not in values[:i]]
            for target in range(players):
                if target != seat:
                    out += [Ask(seat, target, v) for v in held_values]
        return out
    if phase is Phase.LAYING:
        out = [_new_tuple(LayDown, (seat, m)) for m in matches_in(hand)]
    elif phase is Phase.OPENING:
        keep = len(hand)  # an opening match keeps at least one card of the deal
        out = [_new_tuple(LayDown, (seat, m)) for m in matches_in(hand) if len(m) < keep]
    else:
        return []
    out.append(_END_TURNS[seat] if 0 <= seat < _SEATS else EndTurn(seat))
    return out

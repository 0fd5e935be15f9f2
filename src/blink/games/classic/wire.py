"""JSON forms of classic engine values: card notation, events and outcomes.

One encoder for everything that shows engine events as JSON: the server's WebSocket ``update``
frames (:mod:`blink.server.protocol`, after redaction for the receiver) and the replay frames
(:mod:`blink.model.replays`, unredacted). The types and fields are documented in
docs/protocol.md. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from blink.cards import Card
from blink.games.classic.actions import Phase
from blink.games.classic.engine import (
    ChoiceMade,
    Dealt,
    Ended,
    Event,
    Flipped,
    Outcome,
    Placed,
    Played,
    PlayerView,
    Refilled,
    Revealed,
    Stalled,
)
from blink.games.classic.view import reach as reach_of

__all__ = ["card_or_none", "card_text", "event_to_wire", "outcome_to_wire", "view_to_wire"]

_CARD_TEXT: dict[Card, str] = {}
_PHASE_TEXT: dict[Phase, str] = {p: p.value for p in Phase}  # an Enum's .value is slow


def card_text(card: Card) -> str:
    """The notation of a card (``"4YS"``), cached: cards are interned values."""
    text = _CARD_TEXT.get(card)
    if text is None:
        text = _CARD_TEXT[card] = str(card)
    return text


def card_or_none(card: Card | None) -> str | None:
    """``card_text`` of a card, or ``None`` (a hidden or absent card)."""
    return None if card is None else card_text(card)


def outcome_to_wire(outcome: Outcome | None) -> dict[str, Any] | None:
    """An engine outcome as a JSON object."""
    if outcome is None:
        return None
    return {"winners": list(outcome.winners), "reason": outcome.reason, "tie": outcome.is_tie}


def event_to_wire(e: Event) -> dict[str, Any] | None:
    """One engine event as a JSON object; ``None`` for the deal. A redacted event (a drawn or
    chosen card hidden from the receiver) has ``"card": null``."""
    if isinstance(e, Played):
        return {
            "type": "played",
            "seat": e.player,
            "card": card_text(e.card),
            "pile": e.pile,
            "slot": e.slot,
            "covered": card_text(e.covered),
        }
    if isinstance(e, Refilled):
        return {"type": "refilled", "seat": e.player, "slot": e.slot, "card": card_or_none(e.card)}
    if isinstance(e, Revealed):
        return {"type": "revealed", "tops": [card_text(c) for c in e.tops]}
    if isinstance(e, Stalled):
        return {"type": "stalled", "kind": e.kind.value}
    if isinstance(e, Flipped):
        return {"type": "flipped", "seat": e.player, "card": card_text(e.card), "pile": e.pile}
    if isinstance(e, ChoiceMade):
        return {"type": "chose", "seat": e.player, "card": card_or_none(e.card)}
    if isinstance(e, Placed):
        return {
            "type": "placed",
            "seat": e.player,
            "card": card_text(e.card),
            "pile": e.pile,
            "slot": e.slot,
        }
    if isinstance(e, Ended):
        return {"type": "ended", "winners": list(e.outcome.winners), "reason": e.outcome.reason}
    if isinstance(e, Dealt):
        return None
    raise TypeError(f"not an event: {e!r}")


def view_to_wire(v: PlayerView, full: bool = False) -> dict[str, Any]:
    """A player's view as a JSON object (``full`` adds the center piles and the setting).

    ``fits`` gives, per hand slot, the piles that card may be played on now (the engine's
    legal plays for this view), so clients never judge a play themselves; ``versions`` each
    pile's version (:attr:`PlayerView.versions`), which a play names to be told when it lost
    the race for that pile."""
    seat, hand, tops, text = v.seat, v.hand, v.tops, _CARD_TEXT.get
    if seat is None:
        reach: tuple[int, ...] = ()
        fits: list[list[int]] = []
    else:
        reach = reach_of(v.players, seat)
        if v.phase is Phase.PLAYING:
            # The engine's legal plays (legal_plays_in_view), grouped by hand slot; a top's
            # row of matches read directly (Card.matches per pair costs half as much again).
            rows = [(p, top._row) for p in reach if (top := tops[p]) is not None]
            fits = [[p for p, row in rows if row[c.index]] for c in hand]
        else:
            fits = [[] for _ in hand]
    chosen = v.my_choice
    d: dict[str, Any] = {
        "seat": seat,
        "phase": _PHASE_TEXT[v.phase],
        "hand": [text(c) or card_text(c) for c in hand],
        "fits": fits,
        "tops": [None if c is None else text(c) or card_text(c) for c in tops],
        "versions": list(map(len, v.piles)),
        "hand_counts": list(v.hand_counts),
        "draw_counts": list(v.draw_counts),
        "set_aside": v.set_aside,
        "chosen": list(v.chosen),
        "my_choice": None if chosen is None else card_text(chosen),
        "plays": v.plays,
        "reach": list(reach),
        "outcome": None if v.outcome is None else outcome_to_wire(v.outcome),
    }
    if full:
        d["piles"] = [[card_text(c) for c in p] for p in v.piles]
        d["players"] = v.players
        d["ruleset"] = v.ruleset.name
    return d
